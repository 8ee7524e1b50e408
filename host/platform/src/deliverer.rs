//! The background task that delivers a live run: it creates the platform run, claims a
//! worker for every participant ahead of time, and every [`FLUSH_INTERVAL`] reads what
//! `records.ndjson` gained and sends it; it settles each participant that finished (final
//! batch, log, metrics, completion) and, once told the tasks are over, everything else. The
//! run talks to it through [`Command`]s and reads how it stands from a [`Status`]; it never
//! waits for it, and can stop it at any moment — the ledger is consistent between any two
//! calls, so whatever was not acknowledged is left to `bench upload`.

use super::api::types::RunSummary;
use super::client::{ApiError, CreatedRun};
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
pub(crate) struct Deliverer {
    delivery: Delivery,
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

impl Deliverer {
    /// A deliverer of `delivery`, and the receiving end of its status.
    pub(crate) fn new(delivery: Delivery) -> (Self, watch::Receiver<Status>) {
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
    ) -> Delivery {
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
