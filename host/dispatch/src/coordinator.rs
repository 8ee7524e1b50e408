//! The coordinator's side: it creates the run's streams and consumers, uploads the
//! component, announces the run and publishes its work units (signed with `--sign`), and
//! reads what workers send back, keeping only what the run's workers sent: notes and
//! batches signed by a worker key (one its operator trusts, with `--trust-worker`), batches
//! only from a worker that said hello with that key, under a message id naming their exact
//! tasks. JetStream's advisories are believed only once its API confirms them, and an
//! announcement of the run it did not make is replaced by its own.

use crate::access::NatsAccess;
use crate::descriptor::{next_revision, RunDescriptor};
use crate::names::*;
use crate::signing::{self, PublicKey, Signed, SigningKey};
use anyhow::{bail, Context as _, Result};
use async_nats::header::NATS_MESSAGE_ID;
use async_nats::jetstream::consumer::{pull, AckPolicy, Consumer, DeliverPolicy};
use async_nats::jetstream::stream::{self, RetentionPolicy};
use async_nats::jetstream::{object_store, Context, Message};
use async_nats::HeaderMap;
use bench_model::dispatch::{RecordBatch, WorkUnit};
use futures_util::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;
use tokio::time::Instant;

/// How many times a unit is delivered before JetStream gives up on it.
const MAX_DELIVER: i64 = 5;

/// How long a record message waits for the coordinator's ack before it is delivered again
/// (to a resumed coordinator, when the first one died).
const RECORDS_ACK_WAIT: Duration = Duration::from_secs(5);

/// How many record messages may wait for the coordinator's ack.
const MAX_ACK_PENDING: i64 = 20_000;

/// The longest worker name a coordinator takes.
const MAX_WORKER_NAME_BYTES: usize = 128;

/// The longest refusal reason a coordinator shows.
const MAX_REASON_CHARS: usize = 2000;

/// How a coordinator starts.
pub struct CoordinatorSetup<'a> {
    /// The NATS server.
    pub access: &'a NatsAccess,
    /// The run as workers see it (its revision is set when it is announced).
    pub descriptor: RunDescriptor,
    /// The task component's bytes.
    pub component: &'a [u8],
    /// Signs the announcements and units (`--sign`); unsigned runs are served only by
    /// workers started with `--trust-any`.
    pub signer: Option<SigningKey>,
    /// The worker keys whose notes and records count (`--trust-worker`); `None`: any
    /// worker's that signs what it sends.
    pub trusted_workers: Option<Vec<PublicKey>>,
    /// Workers that joined the run before this coordinator was resumed (key, name).
    pub known_workers: Vec<(PublicKey, String)>,
    /// Whether this coordinator takes up a run another one started: the units that one
    /// left in the work queue are removed before this one publishes what is left.
    pub resumed: bool,
}

/// The coordinator's connection to one run.
pub struct Coordinator {
    js: Context,
    descriptor: RunDescriptor,
    signer: Option<SigningKey>,
    trusted_workers: Option<Vec<PublicKey>>,
    /// Workers that said hello: key → the names that said it with that key (replicas of a
    /// deployment may share one key).
    joined: HashMap<PublicKey, BTreeSet<String>>,
    incoming: pull::Stream,
    /// JetStream's advisories of units delivered `MAX_DELIVER` times without an ack.
    given_up: async_nats::Subscriber,
    /// Announcements of this run (its own, and any other).
    announcements: async_nats::Subscriber,
    /// The payload and signature of its latest announcement.
    announced: (bytes::Bytes, Option<String>),
    unacked: Vec<Message>,
}

/// What a worker sent, or what happened to the run on the server.
#[derive(Debug)]
pub enum Incoming {
    /// Finished tasks, from a worker of the run (what they claim is still to be checked
    /// against the run's units).
    Records(RecordBatch),
    /// A worker joined the run with this key and serves these participants.
    Hello {
        /// What it said.
        note: WorkerNote,
        /// The key it signs with.
        key: PublicKey,
    },
    /// A worker refused the run.
    Refusal(WorkerNote),
    /// A message left out, and why (the reason may quote what the message says: escape it
    /// before showing it).
    Dropped(String),
    /// JetStream confirms it gave up on `units` units of participant number
    /// `participant`: each was delivered `MAX_DELIVER` times and never finished.
    GaveUp {
        /// The participant's number in the run.
        participant: usize,
        /// How many of its units were given up on.
        units: u64,
    },
}

/// JetStream's max-deliveries advisory (the fields read of it).
#[derive(Debug, Deserialize)]
struct MaxDeliveries {
    consumer: String,
}

/// A worker's note: its name, the participants it serves, or why it refused.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerNote {
    /// The worker's name.
    pub worker: String,
    /// Participants it serves (hello).
    #[serde(default)]
    pub participants: Vec<String>,
    /// Why it refused (refusal).
    #[serde(default)]
    pub reason: String,
}

/// The streams every run shares, created when missing.
pub(crate) async fn ensure_streams(js: &Context) -> Result<()> {
    let streams = [
        stream::Config {
            name: WORK_STREAM.into(),
            subjects: vec!["bench.work.>".into()],
            retention: RetentionPolicy::WorkQueue,
            ..Default::default()
        },
        stream::Config {
            name: RECORDS_STREAM.into(),
            subjects: vec!["bench.records.>".into()],
            duplicate_window: Duration::from_secs(120),
            ..Default::default()
        },
        stream::Config {
            name: RUNS_STREAM.into(),
            subjects: vec!["bench.runs.>".into()],
            max_messages_per_subject: 1,
            ..Default::default()
        },
    ];
    for config in streams {
        let name = config.name.clone();
        js.get_or_create_stream(config)
            .await
            .with_context(|| format!("cannot open the JetStream stream {name}"))?;
    }
    Ok(())
}

impl Coordinator {
    /// Connects, uploads the component (named by its sha256), creates the run's consumers
    /// and announces the run to workers.
    pub async fn start(setup: CoordinatorSetup<'_>) -> Result<Self> {
        let CoordinatorSetup {
            access,
            mut descriptor,
            component,
            signer,
            trusted_workers,
            known_workers,
            resumed,
        } = setup;
        let (client, _) = access.connect("bench coordinator").await?;
        let js = async_nats::jetstream::new(client.clone());
        ensure_streams(&js).await?;
        let store = match js.get_object_store(COMPONENTS_BUCKET).await {
            Ok(store) => store,
            Err(_) => js
                .create_object_store(object_store::Config {
                    bucket: COMPONENTS_BUCKET.into(),
                    ..Default::default()
                })
                .await
                .context("cannot create the component store")?,
        };
        let mut reader = component;
        store
            .put(descriptor.component_sha256.as_str(), &mut reader)
            .await
            .context("cannot upload the task component")?;
        let run = descriptor.run_id.clone();
        let work = js.get_stream(WORK_STREAM).await?;
        for participant in 0..descriptor.participants.len() {
            let name = work_consumer(&run, participant);
            work.get_or_create_consumer(
                &name,
                pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subject: work_subject(&run, participant),
                    ack_policy: AckPolicy::Explicit,
                    ack_wait: Duration::from_millis(descriptor.ack_wait_ms),
                    max_deliver: MAX_DELIVER,
                    ..Default::default()
                },
            )
            .await
            .with_context(|| format!("cannot create the work consumer {name}"))?;
            if resumed {
                work.purge()
                    .filter(work_subject(&run, participant))
                    .await
                    .with_context(|| format!("cannot clear the units left of {name}"))?;
            }
        }
        let records = js.get_stream(RECORDS_STREAM).await?;
        let name = records_consumer(&run);
        let consumer: Consumer<pull::Config> = records
            .get_or_create_consumer(
                &name,
                pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subject: records_subject(&run),
                    ack_policy: AckPolicy::Explicit,
                    deliver_policy: DeliverPolicy::All,
                    ack_wait: RECORDS_ACK_WAIT,
                    max_ack_pending: MAX_ACK_PENDING,
                    ..Default::default()
                },
            )
            .await
            .with_context(|| format!("cannot create the records consumer {name}"))?;
        let incoming = consumer.messages().await?;
        let advisories = format!("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.{WORK_STREAM}.*");
        let given_up = client
            .subscribe(advisories)
            .await
            .context("cannot follow JetStream's advisories")?;
        let announcements = client
            .subscribe(run_subject(&run))
            .await
            .context("cannot follow the run's announcements")?;
        descriptor.revision = next_revision(descriptor.revision);
        let mut coordinator = Self {
            js,
            descriptor,
            signer,
            trusted_workers,
            joined: HashMap::new(),
            incoming,
            given_up,
            announcements,
            announced: Default::default(),
            unacked: Vec::new(),
        };
        for (key, name) in known_workers {
            coordinator.join(key, name);
        }
        coordinator.announce().await?;
        Ok(coordinator)
    }

    /// Publishes the run's descriptor (workers serve runs that are not done).
    async fn announce(&mut self) -> Result<()> {
        let subject = run_subject(&self.descriptor.run_id);
        let payload = bytes::Bytes::from(serde_json::to_vec(&self.descriptor)?);
        let mut headers = HeaderMap::new();
        if let Some(signer) = &self.signer {
            signer.sign(&subject, &payload, &mut headers);
        }
        self.announced = (payload.clone(), signing::signature_of(&headers));
        self.js
            .publish_with_headers(subject, headers, payload)
            .await?
            .await
            .context("cannot announce the run")?;
        Ok(())
    }

    /// Publishes `units` of participant number `participant` and waits until JetStream
    /// holds them.
    pub async fn publish_units(&self, participant: usize, units: &[WorkUnit]) -> Result<()> {
        let run = &self.descriptor.run_id;
        let subject = work_subject(run, participant);
        let mut acks = Vec::with_capacity(units.len());
        for unit in units {
            let payload = serde_json::to_vec(unit)?;
            let mut headers = HeaderMap::new();
            let id = unit_message_id(
                run,
                self.descriptor.revision,
                participant,
                unit.first,
                unit.step,
            );
            headers.insert(NATS_MESSAGE_ID, id.as_str());
            if let Some(signer) = &self.signer {
                signer.sign(&subject, &payload, &mut headers);
            }
            let publish = self
                .js
                .publish_with_headers(subject.clone(), headers, payload.into());
            acks.push(publish.await?);
        }
        for ack in acks {
            ack.await.context("JetStream did not take a work unit")?;
        }
        Ok(())
    }

    /// The next message from the workers, or `None` when none came within `wait`. It is
    /// acknowledged by the next [`Self::ack_received`].
    pub async fn next(&mut self, wait: Duration) -> Result<Option<Incoming>> {
        let deadline = Instant::now() + wait;
        loop {
            tokio::select! {
                biased;
                advisory = self.given_up.next() => {
                    let advisory = advisory.context("the NATS connection closed")?;
                    if let Some(incoming) = self.given_up_on(&advisory.payload).await {
                        return Ok(Some(incoming));
                    }
                }
                announced = self.announcements.next() => {
                    let announced = announced.context("the NATS connection closed")?;
                    if let Some(incoming) = self.check_announcement(&announced).await? {
                        return Ok(Some(incoming));
                    }
                }
                message = self.incoming.next() => {
                    let message = message
                        .context("the records stream ended")?
                        .map_err(|error| anyhow::anyhow!("lost the records stream: {error}"))?;
                    let incoming = self.read(&message);
                    self.unacked.push(message);
                    return Ok(Some(incoming));
                }
                () = tokio::time::sleep_until(deadline) => return Ok(None),
            }
        }
    }

    /// What a message on the records subject is worth: only what a worker of the run
    /// signed counts.
    fn read(&mut self, message: &Message) -> Incoming {
        let kind: String = message
            .headers
            .as_ref()
            .and_then(|headers| headers.get(KIND_HEADER))
            .map(|value| value.as_str().chars().take(32).collect())
            .unwrap_or_default();
        let signed = signing::verify(message.headers.as_ref(), &message.subject, &message.payload);
        let key = match signed {
            Signed::By(key) => key,
            Signed::Unsigned => {
                return Incoming::Dropped(format!("a \"{kind}\" message that no worker signed"))
            }
            Signed::Forged(why) => {
                return Incoming::Dropped(format!(
                    "a \"{kind}\" message with a forged signature: {why}"
                ))
            }
        };
        match kind.as_str() {
            KIND_RECORDS => self.read_batch(message, key),
            KIND_HELLO | KIND_REFUSAL => self.read_note(&kind, message, key),
            other => Incoming::Dropped(format!("a message of unknown kind \"{other}\"")),
        }
    }

    fn read_note(&mut self, kind: &str, message: &Message, key: PublicKey) -> Incoming {
        let mut note: WorkerNote = match serde_json::from_slice(&message.payload) {
            Ok(note) => note,
            Err(error) => return Incoming::Dropped(format!("a worker note is not JSON: {error}")),
        };
        if note.worker.is_empty() || note.worker.len() > MAX_WORKER_NAME_BYTES {
            return Incoming::Dropped(format!(
                "a worker note whose name is not 1 to {MAX_WORKER_NAME_BYTES} bytes"
            ));
        }
        if let Some(trusted) = &self.trusted_workers {
            if !trusted.contains(&key) {
                return Incoming::Dropped(format!(
                    "a {kind} of worker \"{}\" signed by {key}, a key this run does not trust (--trust-worker)",
                    note.worker
                ));
            }
        }
        if kind == KIND_REFUSAL {
            if note.reason.chars().count() > MAX_REASON_CHARS {
                note.reason = note
                    .reason
                    .chars()
                    .take(MAX_REASON_CHARS)
                    .collect::<String>()
                    + "…";
            }
            return Incoming::Refusal(note);
        }
        self.join(key, note.worker.clone());
        Incoming::Hello { note, key }
    }

    /// Records that the holder of `key` is worker `name` of this run.
    fn join(&mut self, key: PublicKey, name: String) {
        self.joined.entry(key).or_default().insert(name);
    }

    fn read_batch(&self, message: &Message, key: PublicKey) -> Incoming {
        let Some(workers) = self.joined.get(&key) else {
            return Incoming::Dropped(format!(
                "a record batch signed by {key}, a key no worker of this run said hello with"
            ));
        };
        let batch = match RecordBatch::from_bytes(&message.payload) {
            Ok(batch) => batch,
            Err(error) => return Incoming::Dropped(format!("{error:#}")),
        };
        let run = &self.descriptor.run_id;
        if batch.run_id != *run {
            return Incoming::Dropped(format!(
                "a record batch of another run, \"{}\"",
                batch.run_id
            ));
        }
        if !workers.contains(&batch.worker) {
            let names = workers.iter().map(String::as_str).collect::<Vec<_>>();
            return Incoming::Dropped(format!(
                "a record batch naming worker \"{}\", signed by the key of worker \"{}\"",
                batch.worker,
                names.join("\", \"")
            ));
        }
        let id = message
            .headers
            .as_ref()
            .and_then(|headers| headers.get(NATS_MESSAGE_ID))
            .map(|value| value.as_str())
            .unwrap_or_default();
        let position = self
            .descriptor
            .participants
            .iter()
            .position(|name| *name == batch.unit.participant);
        match (batch_id_parts(id), position, batch.task_range()) {
            (Some((id_run, id_position, range)), Some(position), Some(tasks))
                if id_run == run && id_position == position && range == tasks =>
            {
                Incoming::Records(batch)
            }
            _ => Incoming::Dropped(format!(
                "a record batch whose message id \"{}\" does not name its tasks",
                id.chars().take(200).collect::<String>()
            )),
        }
    }

    /// An advisory of this run's work consumers, once JetStream confirms it (`None` for
    /// another run's).
    async fn given_up_on(&self, payload: &[u8]) -> Option<Incoming> {
        let advisory: MaxDeliveries = match serde_json::from_slice(payload) {
            Ok(advisory) => advisory,
            Err(error) => {
                return Some(Incoming::Dropped(format!(
                    "an advisory that is not JSON: {error}"
                )))
            }
        };
        let run = &self.descriptor.run_id;
        let participant = (0..self.descriptor.participants.len())
            .find(|participant| work_consumer(run, *participant) == advisory.consumer)?;
        Some(match self.given_up_units(participant).await {
            Ok(0) => Incoming::Dropped(format!(
                "an advisory that JetStream gave up on a unit of participant #{participant}, which its consumer's state does not confirm"
            )),
            Ok(units) => Incoming::GaveUp { participant, units },
            Err(error) => Incoming::Dropped(format!(
                "an advisory that could not be confirmed with JetStream: {error:#}"
            )),
        })
    }

    /// How many units of participant number `participant` JetStream gave up on, from its
    /// state: the units still in the work queue (an acknowledged one leaves it) that the
    /// consumer neither has yet to deliver nor waits for an ack of.
    pub async fn given_up_units(&self, participant: usize) -> Result<u64> {
        let run = &self.descriptor.run_id;
        let stream = self.js.get_stream(WORK_STREAM).await?;
        // The consumer first: a unit acknowledged in between then counts as waiting, never
        // as given up.
        let consumer = stream
            .consumer_info(work_consumer(run, participant))
            .await
            .context("cannot read the work consumer's state")?;
        let subject = work_subject(run, participant);
        let mut subjects = stream
            .info_with_subjects(&subject)
            .await
            .context("cannot read the work queue's state")?;
        let mut held = 0;
        while let Some((name, count)) = subjects
            .try_next()
            .await
            .context("cannot read the work queue's state")?
        {
            if name == subject {
                held = count as u64;
            }
        }
        Ok(held.saturating_sub(consumer.num_pending + consumer.num_ack_pending as u64))
    }

    /// An announcement of this run: its own is nothing; any other is replaced by its own.
    async fn check_announcement(
        &mut self,
        message: &async_nats::Message,
    ) -> Result<Option<Incoming>> {
        let signature = message.headers.as_ref().and_then(signing::signature_of);
        if message.payload == self.announced.0 && signature == self.announced.1 {
            return Ok(None);
        }
        self.announce().await?;
        Ok(Some(Incoming::Dropped(
            "an announcement of this run that this coordinator did not make (it announced the run again)"
                .into(),
        )))
    }

    /// Acknowledges every message [`Self::next`] returned so far (call it once what they
    /// hold is on disk).
    pub async fn ack_received(&mut self) -> Result<()> {
        for message in self.unacked.drain(..) {
            message
                .ack()
                .await
                .map_err(|error| anyhow::anyhow!("cannot acknowledge records: {error}"))?;
        }
        Ok(())
    }

    /// Tells workers the run is over.
    pub async fn finish(mut self) -> Result<()> {
        self.ack_received().await?;
        self.descriptor.done = true;
        self.descriptor.revision = next_revision(self.descriptor.revision);
        self.announce().await
    }
}

/// Refuses a record whose worker name a console could not show (the coordinator shows
/// every worker's name escaped; this only bounds it).
pub fn check_worker_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_WORKER_NAME_BYTES || name.chars().any(char::is_control) {
        bail!(
            "a worker name must be 1 to {MAX_WORKER_NAME_BYTES} bytes without control characters"
        );
    }
    Ok(())
}

/// The stream handle a worker pulls a participant's units from.
pub(crate) async fn work_consumer_of(
    js: &Context,
    run: &str,
    participant: usize,
) -> Result<Consumer<pull::Config>> {
    let stream = js.get_stream(WORK_STREAM).await?;
    let name = work_consumer(run, participant);
    stream
        .get_consumer(&name)
        .await
        .map_err(|error| anyhow::anyhow!("cannot open the work consumer {name}: {error}"))
}
