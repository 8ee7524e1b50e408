//! The background task that delivers a live run: it creates the platform run, claims a
//! worker for every participant ahead of time, and every [`FLUSH_INTERVAL`] reads what
//! `records.ndjson` gained and sends it; it settles each participant that finished (final
//! batch, log, metrics, completion) and, once told the tasks are over, everything else. The
//! run talks to it through [`Command`]s and reads how it stands from a [`Status`]; it never
//! waits for it, and can stop it at any moment — the ledger is consistent between any two
//! calls, so whatever was not acknowledged is left to `bench upload`.

use super::api::types::RunSummary;
use super::client::{ApiError, CreatedRun, HttpPlatform, Platform};
use super::delivery::Delivery;
use super::tail::RecordsTail;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// How often new records are sent and progress is reported.
pub(crate) const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// How often a claimed worker without new records gets a heartbeat.
const IDLE_HEARTBEAT: Duration = Duration::from_secs(10);

/// What the run tells the deliverer.
pub(crate) enum Command {
    /// Participant mode: a participant finished with this many records, taken while these
    /// lines of `metrics.jsonl` were written.
    Done {
        participant: usize,
        records: usize,
        metrics_lines: (usize, usize),
    },
    /// The tasks are over: deliver everything.
    Finish,
    /// The run summary to submit.
    Summary(Box<RunSummary>),
}

/// Where the claim of one participant's worker stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Claim {
    /// Not answered yet: the participant runs, and its records follow once it is claimed.
    Pending,
    /// Claimed.
    Claimed,
    /// The platform has no pending worker for it: its records stay local.
    NoWorker,
    /// The platform refused the claim: its records stay local.
    Refused(ApiError),
}

/// How the delivery stands, as the run sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Status {
    /// The platform run, once created.
    pub(crate) run: Option<CreatedRun>,
    /// Every participant's claim was tried once (or the run could not be created).
    pub(crate) opened: bool,
    /// Per participant.
    pub(crate) claims: Vec<Claim>,
    /// What stopped the delivery for good: a definite refusal, a mismatch, an unreadable
    /// records file.
    pub(crate) fatal: Option<ApiError>,
    /// How many of the run's own commands ([`Command::Finish`], [`Command::Summary`]) it
    /// took in.
    pub(crate) applied: u64,
    /// Everything asked of it by the commands taken in is delivered.
    pub(crate) idle: bool,
}

/// The deliverer's side: the delivery and what it knows besides it.
pub(crate) struct Deliverer<P = HttpPlatform> {
    delivery: Delivery<P>,
    tail: RecordsTail,
    status: watch::Sender<Status>,
    /// Participants with records or progress not reported yet.
    changed: Vec<bool>,
    /// When each participant's worker last got a heartbeat, and the one in flight.
    heartbeats: Vec<(Instant, Option<JoinHandle<()>>)>,
    /// Participant mode: how many records a finished participant has.
    finished: Vec<Option<usize>>,
    /// Participant mode: participants whose worker was completed or failed.
    settled: Vec<bool>,
    /// The tasks are over.
    finishing: bool,
    /// A failure worth retrying was already reported.
    warned: bool,
}

impl<P: Platform> Deliverer<P> {
    /// A deliverer of `delivery`, and the receiving end of its status.
    pub(crate) fn new(delivery: Delivery<P>) -> (Self, watch::Receiver<Status>) {
        let count = delivery.ledger().participants.len();
        let (status, receiver) = watch::channel(Status {
            run: delivery.ledger().run.clone(),
            opened: false,
            claims: vec![Claim::Pending; count],
            fatal: None,
            applied: 0,
            idle: false,
        });
        let tail = RecordsTail::new(delivery.dir());
        let deliverer = Self {
            delivery,
            tail,
            status,
            changed: vec![false; count],
            heartbeats: (0..count).map(|_| (Instant::now(), None)).collect(),
            finished: vec![None; count],
            settled: vec![false; count],
            finishing: false,
            warned: false,
        };
        (deliverer, receiver)
    }

    /// Delivers until `stop` is set (or dropped) or the run drops its command sender; hands
    /// the delivery back, as far as it got.
    pub(crate) async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut stop: watch::Receiver<bool>,
    ) -> Delivery<P> {
        let mut ticker = tokio::time::interval(FLUSH_INTERVAL);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let result = tokio::select! {
                biased;
                _ = stop.changed() => break,
                result = self.pass() => result,
            };
            self.settle_status(result);
            tokio::select! {
                biased;
                _ = stop.changed() => break,
                command = commands.recv() => match command {
                    Some(command) => self.apply(command),
                    None => break,
                },
                _ = ticker.tick() => {}
            }
        }
        self.delivery
    }

    fn apply(&mut self, command: Command) {
        let from_run = !matches!(command, Command::Done { .. });
        match command {
            Command::Done {
                participant,
                records,
                metrics_lines,
            } => {
                self.delivery
                    .participant_done(participant, records, metrics_lines);
                self.finished[participant] = Some(records);
            }
            Command::Finish => self.finishing = true,
            Command::Summary(summary) => self.delivery.set_summary(*summary),
        }
        self.status.send_modify(|status| {
            status.applied += u64::from(from_run);
            status.idle = false;
        });
    }

    /// Publishes how a pass ended: a failure worth retrying is reported once (the next
    /// pass retries it), any other stops the delivery.
    fn settle_status(&mut self, result: Result<bool, ApiError>) {
        match result {
            Ok(idle) => self.status.send_modify(|status| status.idle = idle),
            Err(error) if error.is_retryable() => {
                if !self.warned {
                    self.warned = true;
                    eprintln!(
                        "[bench] the platform did not answer ({error}); records are kept locally and delivery is retried."
                    );
                }
            }
            Err(error) => self.status.send_modify(|status| {
                status.fatal.get_or_insert(error);
            }),
        }
    }

    /// One pass over everything due: the run, the claims, new records and heartbeats, the
    /// participants that finished, and — once the tasks are over — the rest. True when
    /// nothing is left to do until the run asks for more.
    async fn pass(&mut self) -> Result<bool, ApiError> {
        if self.status.borrow().fatal.is_some() || self.delivery.client().unavailable().is_some() {
            return Ok(false);
        }
        let run = match self.delivery.ensure_run().await {
            Ok(run) => run,
            Err(error) if !error.is_retryable() => {
                // Refused: the start learns both at once, so it stops the run.
                self.status.send_modify(|status| {
                    status.opened = true;
                    status.fatal.get_or_insert(error);
                });
                return Ok(false);
            }
            Err(error) => return Err(error),
        };
        self.status.send_if_modified(|status| {
            let new = status.run.is_none();
            status.run.get_or_insert(run);
            new
        });
        self.claim_ahead().await?;
        self.read()?;
        for participant in 0..self.changed.len() {
            if self.settled[participant] {
                continue;
            }
            if std::mem::take(&mut self.changed[participant]) {
                self.delivery.send_records(participant, false).await?;
                self.heartbeat(participant);
            } else if self.heartbeats[participant].0.elapsed() >= IDLE_HEARTBEAT {
                self.heartbeat(participant);
            }
        }
        self.settle().await?;
        if !self.finishing {
            return Ok(false);
        }
        self.delivery.deliver_all().await?;
        Ok(true)
    }

    /// Claims a worker for every participant not claimed yet, in config order.
    async fn claim_ahead(&mut self) -> Result<(), ApiError> {
        for participant in 0..self.changed.len() {
            if self.status.borrow().claims[participant] != Claim::Pending {
                continue;
            }
            let claim = match self.delivery.ensure_worker(participant).await {
                Ok(Some(_)) => {
                    self.changed[participant] = true;
                    Claim::Claimed
                }
                Ok(None) => Claim::NoWorker,
                Err(error) if error.is_retryable() => return Err(error),
                Err(error) => {
                    self.delivery.give_up(participant);
                    Claim::Refused(error)
                }
            };
            self.status
                .send_modify(|status| status.claims[participant] = claim);
        }
        self.status.send_if_modified(|status| {
            let new = !status.opened;
            status.opened = true;
            new
        });
        Ok(())
    }

    /// Counts the records written since the last read.
    fn read(&mut self) -> Result<(), ApiError> {
        let (delivery, changed) = (&mut self.delivery, &mut self.changed);
        self.tail
            .read_new(|line| {
                if delivery.count(&line) {
                    let index = delivery.index(&line.participant).unwrap_or_default();
                    changed[index] = true;
                }
            })
            .map_err(|error| ApiError::Local(format!("{error:#}")))
    }

    /// Sends a participant's progress on its own, unless the last one is still on its way.
    fn heartbeat(&mut self, participant: usize) {
        let (last, in_flight) = &mut self.heartbeats[participant];
        if in_flight.as_ref().is_some_and(|task| !task.is_finished()) {
            return;
        }
        if let Some(heartbeat) = self.delivery.heartbeat(participant) {
            *last = Instant::now();
            *in_flight = Some(tokio::spawn(heartbeat));
        }
    }

    /// Participant mode: finishes (final batch, log, metrics, completion) the participants
    /// whose records are all read.
    async fn settle(&mut self) -> Result<(), ApiError> {
        for participant in 0..self.finished.len() {
            let Some(records) = self.finished[participant] else {
                continue;
            };
            if self.settled[participant] || self.delivery.received(participant) < records {
                continue;
            }
            self.delivery.finish_participant(participant).await?;
            self.settled[participant] = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::fake::{FakePlatform, Scripted};
    use crate::client::{Endpoint, Retry};
    use crate::delivery::tests::Run;
    use std::sync::Arc;

    /// A running deliverer of `run`, its command sender and status, and its task.
    struct Running {
        commands: mpsc::UnboundedSender<Command>,
        status: watch::Receiver<Status>,
        _stop: watch::Sender<bool>,
        task: JoinHandle<Delivery<Arc<FakePlatform>>>,
    }

    fn start(run: &Run) -> Running {
        let (deliverer, status) = Deliverer::new(run.uncounted(Retry::ONCE));
        let (commands, receiver) = mpsc::unbounded_channel();
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(deliverer.run(receiver, stopped));
        Running {
            commands,
            status,
            _stop: stop,
            task,
        }
    }

    impl Running {
        /// Waits (a minute at most) until the status is `done`; the status then.
        async fn until(&mut self, done: impl Fn(&Status) -> bool) -> Status {
            let wait = self.status.wait_for(|status| done(status));
            let status = tokio::time::timeout(Duration::from_secs(60), wait).await;
            status.expect("in time").expect("running").clone()
        }

        /// Tells the run is over and waits until everything is delivered.
        async fn finish(mut self) -> (Status, Delivery<Arc<FakePlatform>>) {
            self.commands.send(Command::Finish).unwrap();
            let status = self
                .until(|status| status.idle && status.applied == 1)
                .await;
            drop(self.commands);
            (status, self.task.await.unwrap())
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_claim_keeps_its_participant_local_and_the_others_are_delivered() {
        let run = Run::new("participant", &["a", "b"], 1);
        run.record(&[("a", 1, &[]), ("b", 1, &[])]);
        run.platform
            .script(Endpoint::ClaimWorker, [Scripted::Status(403)]);
        let (status, delivery) = start(&run).finish().await;
        assert!(
            matches!(
                &status.claims[0],
                Claim::Refused(ApiError::Status { status: 403, .. })
            ),
            "{:?}",
            status.claims
        );
        assert_eq!(status.claims[1], Claim::Claimed);
        assert_eq!((status.opened, status.fatal), (true, None));
        assert_eq!(run.stored("a"), Vec::<u64>::new());
        assert_eq!(run.stored("b"), [0]);
        assert!(delivery.outstanding().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_failure_worth_retrying_is_retried_on_the_next_pass() {
        let run = Run::new("participant", &["a"], 2);
        run.record(&[("a", 2, &[])]);
        run.platform
            .script(Endpoint::SendTaskResults, [Scripted::Status(503)]);
        let (status, delivery) = start(&run).finish().await;
        assert_eq!(status.fatal, None);
        assert_eq!(run.platform.received(Endpoint::SendTaskResults).len(), 3);
        assert_eq!(run.stored("a"), [0, 1]);
        assert!(delivery.outstanding().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_batch_stops_the_delivery() {
        let run = Run::new("participant", &["a"], 2);
        run.record(&[("a", 2, &[])]);
        run.platform
            .script(Endpoint::SendTaskResults, [Scripted::Status(400)]);
        let mut running = start(&run);
        running.commands.send(Command::Finish).unwrap();
        let status = running.until(|status| status.fatal.is_some()).await;
        assert!(matches!(
            status.fatal,
            Some(ApiError::Status { status: 400, .. })
        ));
        tokio::time::sleep(FLUSH_INTERVAL * 5).await;
        assert_eq!(
            run.platform.received(Endpoint::SendTaskResults).len(),
            1,
            "nothing more is sent"
        );
        assert!(!running.status.borrow().idle);
    }

    #[tokio::test(start_paused = true)]
    async fn a_refused_run_opens_the_delivery_with_the_error() {
        let run = Run::new("participant", &["a"], 1);
        run.platform
            .script(Endpoint::CreateRun, [Scripted::Status(401)]);
        let mut running = start(&run);
        let status = running.until(|status| status.opened).await;
        assert!(matches!(
            status.fatal,
            Some(ApiError::Status { status: 401, .. })
        ));
        assert_eq!(status.run, None);
        assert_eq!(run.platform.received(Endpoint::ClaimWorker), []);
    }
}
