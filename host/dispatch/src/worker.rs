//! The worker's side: it learns of runs (and serves only those signed by a key it trusts),
//! fetches and verifies their component, pulls units of the participants it serves (each
//! signed like its run's announcement) and publishes their records, signed with its own
//! key, before it acks them.

use crate::access::NatsAccess;
use crate::coordinator::{ensure_streams, work_consumer_of, WorkerNote};
use crate::descriptor::RunDescriptor;
use crate::names::*;
use crate::signing::{self, PublicKey, Signed, SigningKey};
use anyhow::{bail, Context as _, Result};
use async_nats::header::NATS_MESSAGE_ID;
use async_nats::jetstream::consumer::{pull, Consumer, DeliverPolicy};
use async_nats::jetstream::{AckKind, Context, Message};
use async_nats::HeaderMap;
use bench_model::dispatch::{RecordBatch, WorkUnit};
use futures_util::{Stream, StreamExt};
use rand_core::RngCore as _;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

/// The largest component a worker fetches.
const MAX_COMPONENT_BYTES: u64 = 512 * 1024 * 1024;

/// How long one pull for a unit waits before it comes back empty: short, because the
/// puller holds one of the worker's slots meanwhile (its other participants wait for it).
const PULL_WAIT: Duration = Duration::from_millis(200);

/// Whose runs a worker serves.
#[derive(Debug, Clone)]
pub enum RunTrust {
    /// Runs signed by one of these keys (`--trust FILE.pub`).
    Keys(Vec<PublicKey>),
    /// Any run, signed or not (`--trust-any`: whoever can publish to the server controls
    /// the worker).
    Any,
}

impl RunTrust {
    /// The signer of a run's message, when this worker serves runs it signs; why not
    /// otherwise.
    fn admit(&self, signed: &Signed, what: &str) -> Result<Option<PublicKey>, String> {
        match (self, signed) {
            (_, Signed::Forged(why)) => Err(format!("{what} has a forged signature: {why}")),
            (RunTrust::Any, signed) => Ok(signed.key()),
            (RunTrust::Keys(_), Signed::Unsigned) => Err(format!(
                "{what} is not signed (the coordinator signs with bench run --sign FILE; the worker trusts FILE.pub with --trust)"
            )),
            (RunTrust::Keys(keys), Signed::By(key)) if keys.contains(key) => Ok(Some(*key)),
            (RunTrust::Keys(_), Signed::By(key)) => Err(format!(
                "{what} is signed by {key}, a key this worker does not trust (bench worker --trust FILE.pub)"
            )),
        }
    }
}

/// A run announcement, as a worker reads it.
#[derive(Debug)]
pub enum Announcement {
    /// A run this worker may serve.
    Run(RunDescriptor),
    /// An announcement it refuses: the run it is on (when its subject names a valid run
    /// id) and why.
    Refused {
        /// The run id of its subject.
        run: Option<String>,
        /// Why it is refused.
        reason: String,
    },
}

/// A worker's connection to the NATS server.
#[derive(Clone)]
pub struct WorkerLink {
    js: Context,
    name: String,
    key: Arc<SigningKey>,
    trust: Arc<RunTrust>,
    connections: watch::Receiver<u64>,
}

/// The units of one participant of one run, as a worker pulls them.
pub struct WorkSource {
    js: Context,
    consumer: Consumer<pull::Config>,
    trust: Arc<RunTrust>,
    run: String,
    position: usize,
    participant: String,
}

/// What one pull for a unit brought.
pub enum Pulled {
    /// A unit to run.
    Unit(Box<UnitDelivery>),
    /// None within the pull's wait.
    Nothing,
    /// A message that is no unit of the run, now removed from the queue, and why.
    Refused(String),
}

/// A unit this worker holds until it acks it.
pub struct UnitDelivery {
    /// The unit.
    pub unit: WorkUnit,
    message: Message,
    run: String,
    position: usize,
    /// Drawn for this delivery: the batches' message ids carry it.
    nonce: u64,
}

impl WorkerLink {
    /// Connects as worker `name`, signing what it sends with `key`, serving the runs
    /// `trust` lets it.
    pub async fn connect(
        access: &NatsAccess,
        name: &str,
        key: SigningKey,
        trust: RunTrust,
    ) -> Result<Self> {
        let (client, connections) = access.connect(&format!("bench worker {name}")).await?;
        Ok(Self {
            js: async_nats::jetstream::new(client),
            name: name.to_owned(),
            key: Arc::new(key),
            trust: Arc::new(trust),
            connections,
        })
    }

    /// Opens (or creates) the streams every run shares; fails while they are missing and
    /// this worker may not create them.
    pub async fn open_streams(&self) -> Result<()> {
        ensure_streams(&self.js).await
    }

    /// The worker's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key it signs with.
    pub fn key(&self) -> PublicKey {
        self.key.public()
    }

    /// How many times the client connected (1 once it is, more after it lost the server).
    pub fn connections(&self) -> watch::Receiver<u64> {
        self.connections.clone()
    }

    /// Whether the client is connected to the server now.
    pub fn is_connected(&self) -> bool {
        self.js.client().connection_state() == async_nats::connection::State::Connected
    }

    /// Every run's latest announcement, then each new one as it is published. After the
    /// server was lost, call it again: the follower does not outlive the server.
    pub async fn runs(&self) -> Result<impl Stream<Item = Result<Announcement>>> {
        let stream = self.js.get_stream(RUNS_STREAM).await?;
        let consumer = stream
            .create_consumer(pull::OrderedConfig {
                filter_subject: "bench.runs.>".into(),
                deliver_policy: DeliverPolicy::LastPerSubject,
                ..Default::default()
            })
            .await
            .context("cannot follow the runs stream")?;
        let messages = consumer.messages().await?;
        let trust = self.trust.clone();
        Ok(messages.map(move |message| {
            let message = message.map_err(|error| anyhow::anyhow!("runs stream: {error}"))?;
            Ok(read_announcement(&trust, &message))
        }))
    }

    /// The component named `sha256` from the object store, verified: bytes whose sha256
    /// differs are refused.
    pub async fn component(&self, sha256: &str) -> Result<Vec<u8>> {
        let store = self
            .js
            .get_object_store(COMPONENTS_BUCKET)
            .await
            .context("cannot open the component store")?;
        let object = store
            .get(sha256)
            .await
            .with_context(|| format!("cannot fetch component {sha256}"))?;
        let mut bytes = Vec::new();
        object
            .take(MAX_COMPONENT_BYTES + 1)
            .read_to_end(&mut bytes)
            .await
            .with_context(|| format!("cannot read component {sha256}"))?;
        if bytes.len() as u64 > MAX_COMPONENT_BYTES {
            bail!("component {sha256} is larger than {MAX_COMPONENT_BYTES} bytes");
        }
        let actual = hex::encode(Sha256::digest(&bytes));
        if actual != sha256 {
            bail!(
                "the component in the object store does not match its sha256: expected {sha256}, got {actual}; refused"
            );
        }
        Ok(bytes)
    }

    /// Tells the coordinator this worker serves `participants` of `run`.
    pub async fn hello(&self, run: &str, participants: &[String]) -> Result<()> {
        let note = WorkerNote {
            worker: self.name.clone(),
            participants: participants.to_vec(),
            reason: String::new(),
        };
        self.note(run, KIND_HELLO, &note).await
    }

    /// Tells the coordinator this worker refuses `run`, and why.
    pub async fn refuse(&self, run: &str, reason: &str) -> Result<()> {
        let note = WorkerNote {
            worker: self.name.clone(),
            participants: Vec::new(),
            reason: reason.to_owned(),
        };
        self.note(run, KIND_REFUSAL, &note).await
    }

    async fn note(&self, run: &str, kind: &str, note: &WorkerNote) -> Result<()> {
        let mut headers = HeaderMap::new();
        headers.insert(KIND_HEADER, kind);
        self.send(records_subject(run), headers, serde_json::to_vec(note)?)
            .await
            .context("JetStream did not take a worker note")?;
        Ok(())
    }

    /// Signs and publishes; the ack JetStream sent.
    async fn send(
        &self,
        subject: String,
        mut headers: HeaderMap,
        payload: Vec<u8>,
    ) -> Result<async_nats::jetstream::publish::PublishAck> {
        self.key.sign(&subject, &payload, &mut headers);
        Ok(self
            .js
            .publish_with_headers(subject, headers, payload.into())
            .await?
            .await?)
    }

    /// Publishes a batch of `delivery`'s records and waits until JetStream holds it. A
    /// batch JetStream does not take (or takes as a duplicate of another message) is an
    /// error: the unit must then not be acknowledged.
    pub async fn publish(&self, batch: &RecordBatch, delivery: &UnitDelivery) -> Result<()> {
        let Some(range) = batch.task_range() else {
            return Ok(());
        };
        let mut headers = HeaderMap::new();
        headers.insert(KIND_HEADER, KIND_RECORDS);
        headers.insert(NATS_MESSAGE_ID, delivery.batch_id(range).as_str());
        let ack = self
            .send(records_subject(&batch.run_id), headers, batch.to_bytes())
            .await
            .context("JetStream did not take a record batch")?;
        if ack.duplicate {
            bail!("JetStream already holds another message with this batch's id");
        }
        Ok(())
    }

    /// Where this worker pulls the units of participant number `position` (`participant`)
    /// of `run`.
    pub async fn work(&self, run: &str, position: usize, participant: &str) -> Result<WorkSource> {
        let consumer = work_consumer_of(&self.js, run, position).await?;
        Ok(WorkSource {
            js: self.js.clone(),
            consumer,
            trust: self.trust.clone(),
            run: run.to_owned(),
            position,
            participant: participant.to_owned(),
        })
    }
}

/// What an announcement on the runs stream is to a worker trusting `trust`.
fn read_announcement(trust: &RunTrust, message: &Message) -> Announcement {
    let run = message
        .subject
        .strip_prefix("bench.runs.")
        .filter(|run| RunDescriptor::check_run_id(run).is_ok())
        .map(str::to_owned);
    let refused = |reason: String| Announcement::Refused {
        run: run.clone(),
        reason,
    };
    let signed = signing::verify(message.headers.as_ref(), &message.subject, &message.payload);
    if let Err(reason) = trust.admit(&signed, "its announcement") {
        return refused(reason);
    }
    let descriptor: RunDescriptor = match serde_json::from_slice(&message.payload) {
        Ok(descriptor) => descriptor,
        Err(error) => return refused(format!("its announcement is not a run descriptor: {error}")),
    };
    if run.as_deref() != Some(descriptor.run_id.as_str()) {
        return refused("its announcement names another run than its subject".into());
    }
    Announcement::Run(descriptor)
}

impl WorkSource {
    /// Pulls the next unit.
    pub async fn next(&self) -> Result<Pulled> {
        let mut batch = self
            .consumer
            .fetch()
            .max_messages(1)
            .expires(PULL_WAIT)
            .messages()
            .await
            .map_err(|error| anyhow::anyhow!("cannot pull work: {error}"))?;
        let Some(message) = batch.next().await else {
            return Ok(Pulled::Nothing);
        };
        let message = message.map_err(|error| anyhow::anyhow!("cannot pull work: {error}"))?;
        match self.check(&message) {
            Ok(unit) => Ok(Pulled::Unit(Box::new(UnitDelivery {
                unit,
                message,
                run: self.run.clone(),
                position: self.position,
                nonce: rand_core::OsRng.next_u64(),
            }))),
            Err(reason) => {
                // Not a unit of the run: it can never run, so it is not delivered again.
                let _ = message.ack_with(AckKind::Term).await;
                Ok(Pulled::Refused(reason))
            }
        }
    }

    /// The unit a message holds, if it is one of the run's.
    fn check(&self, message: &Message) -> Result<WorkUnit, String> {
        let signed = signing::verify(message.headers.as_ref(), &message.subject, &message.payload);
        self.trust.admit(&signed, "a work unit")?;
        let unit: WorkUnit = serde_json::from_slice(&message.payload)
            .map_err(|error| format!("a work message is not a unit: {error}"))?;
        if unit.participant != self.participant {
            return Err("a work unit of another participant".into());
        }
        Ok(unit)
    }

    /// Opens the consumer again (after the server was lost).
    pub async fn reopen(&mut self) -> Result<()> {
        self.consumer = work_consumer_of(&self.js, &self.run, self.position).await?;
        Ok(())
    }
}

impl UnitDelivery {
    /// Tells JetStream the unit is still running (its ack wait starts again).
    pub async fn in_progress(&self) -> Result<()> {
        self.message
            .ack_with(AckKind::Progress)
            .await
            .map_err(|error| anyhow::anyhow!("cannot extend a unit's ack wait: {error}"))
    }

    /// Acknowledges the unit and waits until JetStream confirms it (call it only once
    /// every record of the unit is published).
    pub async fn done(self) -> Result<()> {
        self.message
            .double_ack()
            .await
            .map_err(|error| anyhow::anyhow!("cannot acknowledge a unit: {error}"))
    }

    /// How many times the unit was delivered (1 the first time).
    pub fn delivered(&self) -> i64 {
        self.message.info().map_or(1, |info| info.delivered)
    }

    /// The message id of this delivery's batch of tasks `range`.
    fn batch_id(&self, range: (u32, u32)) -> String {
        batch_message_id(
            &self.run,
            self.position,
            range,
            self.delivered(),
            self.nonce,
        )
    }
}
