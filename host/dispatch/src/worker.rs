//! The worker's side: it learns of runs, fetches and verifies their component, pulls units
//! of the participants it serves and publishes their records before it acks them.

use crate::coordinator::{ensure_streams, work_consumer_of, WorkerNote};
use crate::descriptor::RunDescriptor;
use crate::names::*;
use anyhow::{bail, Context as _, Result};
use async_nats::jetstream::consumer::{pull, Consumer, DeliverPolicy};
use async_nats::jetstream::message::PublishMessage as Publish;
use async_nats::jetstream::{AckKind, Context, Message};
use bench_runtime::dispatch::{RecordBatch, WorkUnit};
use futures_util::{Stream, StreamExt};
use sha2::{Digest, Sha256};
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// The largest component a worker fetches.
const MAX_COMPONENT_BYTES: u64 = 512 * 1024 * 1024;

/// How long one pull for a unit waits before it comes back empty: short, because the
/// puller holds one of the worker's slots meanwhile (its other participants wait for it).
const PULL_WAIT: Duration = Duration::from_millis(200);

/// A worker's connection to the NATS server.
#[derive(Clone)]
pub struct WorkerLink {
    js: Context,
    name: String,
}

/// The units of one participant of one run, as a worker pulls them.
pub struct WorkSource {
    consumer: Consumer<pull::Config>,
}

/// A unit this worker holds until it acks it.
pub struct UnitDelivery {
    /// The unit.
    pub unit: WorkUnit,
    message: Message,
}

impl WorkerLink {
    /// Connects to `url` as worker `name`.
    pub async fn connect(url: &str, name: &str) -> Result<Self> {
        let js = crate::jetstream(url).await?;
        ensure_streams(&js).await?;
        Ok(Self {
            js,
            name: name.to_owned(),
        })
    }

    /// The worker's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every run's latest descriptor, then each new one as it is published.
    pub async fn runs(&self) -> Result<impl Stream<Item = Result<RunDescriptor>>> {
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
        Ok(messages.map(|message| {
            let message = message.map_err(|error| anyhow::anyhow!("runs stream: {error}"))?;
            serde_json::from_slice(&message.payload).context("a run descriptor is not JSON")
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
        let publish = Publish::build()
            .payload(serde_json::to_vec(note)?.into())
            .header(KIND_HEADER, kind);
        self.js
            .send_publish(records_subject(run), publish)
            .await?
            .await
            .context("JetStream did not take a worker note")?;
        Ok(())
    }

    /// Publishes a batch of records and waits until JetStream holds it (a batch sent
    /// again is dropped by its message id).
    pub async fn publish(&self, batch: &RecordBatch) -> Result<()> {
        let mut publish = Publish::build()
            .payload(batch.to_bytes().into())
            .header(KIND_HEADER, KIND_RECORDS);
        if let Some(id) = batch.message_id() {
            publish = publish.message_id(id);
        }
        self.js
            .send_publish(records_subject(&batch.run_id), publish)
            .await?
            .await
            .context("JetStream did not take a record batch")?;
        Ok(())
    }

    /// Where this worker pulls the units of participant number `participant` of `run`.
    pub async fn work(&self, run: &str, participant: usize) -> Result<WorkSource> {
        let consumer = work_consumer_of(&self.js, run, participant).await?;
        Ok(WorkSource { consumer })
    }
}

impl WorkSource {
    /// The next unit, or `None` when none came within [`PULL_WAIT`].
    pub async fn next(&self) -> Result<Option<UnitDelivery>> {
        let mut batch = self
            .consumer
            .fetch()
            .max_messages(1)
            .expires(PULL_WAIT)
            .messages()
            .await
            .map_err(|error| anyhow::anyhow!("cannot pull work: {error}"))?;
        let Some(message) = batch.next().await else {
            return Ok(None);
        };
        let message = message.map_err(|error| anyhow::anyhow!("cannot pull work: {error}"))?;
        match serde_json::from_slice(&message.payload) {
            Ok(unit) => Ok(Some(UnitDelivery { unit, message })),
            Err(error) => {
                // Not a unit: it can never run, so it is not delivered again.
                let _ = message.ack_with(AckKind::Term).await;
                bail!("a work message is not a unit: {error}")
            }
        }
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
}
