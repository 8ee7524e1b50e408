//! The coordinator's side: it creates the run's streams and consumers, uploads the
//! component, announces the run, publishes work units and reads what workers send back.

use crate::descriptor::RunDescriptor;
use crate::names::*;
use anyhow::{Context as _, Result};
use async_nats::jetstream::consumer::{pull, AckPolicy, Consumer, DeliverPolicy};
use async_nats::jetstream::message::PublishMessage as Publish;
use async_nats::jetstream::stream::{self, RetentionPolicy};
use async_nats::jetstream::{object_store, Context, Message};
use bench_runtime::dispatch::{RecordBatch, WorkUnit};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How many times a unit is delivered before JetStream gives up on it.
const MAX_DELIVER: i64 = 5;

/// How long a record message waits for the coordinator's ack before it is delivered again
/// (to a resumed coordinator, when the first one died).
const RECORDS_ACK_WAIT: Duration = Duration::from_secs(5);

/// How many record messages may wait for the coordinator's ack.
const MAX_ACK_PENDING: i64 = 20_000;

/// The coordinator's connection to one run.
pub struct Coordinator {
    js: Context,
    descriptor: RunDescriptor,
    incoming: pull::Stream,
    /// JetStream's advisories of units delivered `MAX_DELIVER` times without an ack.
    given_up: async_nats::Subscriber,
    unacked: Vec<Message>,
}

/// What a worker sent.
#[derive(Debug)]
pub enum Incoming {
    /// Finished tasks.
    Records(RecordBatch),
    /// A worker joined the run and serves these participants.
    Hello(WorkerNote),
    /// A worker refused the run.
    Refusal(WorkerNote),
    /// A message that could not be read (the reason).
    Invalid(String),
    /// JetStream gave up on a unit of participant number `participant`: it was delivered
    /// `deliveries` times and never finished.
    GaveUp {
        /// The participant's number in the run.
        participant: usize,
        /// How many times the unit was delivered.
        deliveries: u64,
    },
}

/// JetStream's max-deliveries advisory (the fields read of it).
#[derive(Debug, Deserialize)]
struct MaxDeliveries {
    consumer: String,
    #[serde(default)]
    deliveries: u64,
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
    /// Connects to `url`, uploads `component` (named by its sha256), creates the run's
    /// consumers and announces the run to workers.
    pub async fn start(url: &str, descriptor: RunDescriptor, component: &[u8]) -> Result<Self> {
        let js = crate::jetstream(url).await?;
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
        let run = &descriptor.run_id;
        let work = js.get_stream(WORK_STREAM).await?;
        for participant in 0..descriptor.participants.len() {
            let name = work_consumer(run, participant);
            work.get_or_create_consumer(
                &name,
                pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subject: work_subject(run, participant),
                    ack_policy: AckPolicy::Explicit,
                    ack_wait: Duration::from_millis(descriptor.ack_wait_ms),
                    max_deliver: MAX_DELIVER,
                    ..Default::default()
                },
            )
            .await
            .with_context(|| format!("cannot create the work consumer {name}"))?;
        }
        let records = js.get_stream(RECORDS_STREAM).await?;
        let name = records_consumer(run);
        let consumer: Consumer<pull::Config> = records
            .get_or_create_consumer(
                &name,
                pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subject: records_subject(run),
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
        let given_up = js
            .client()
            .subscribe(advisories)
            .await
            .context("cannot follow JetStream's advisories")?;
        let coordinator = Self {
            js,
            descriptor,
            incoming,
            given_up,
            unacked: Vec::new(),
        };
        coordinator.announce().await?;
        Ok(coordinator)
    }

    /// Publishes the run's descriptor (workers serve runs that are not done).
    async fn announce(&self) -> Result<()> {
        let body = serde_json::to_vec(&self.descriptor)?;
        self.js
            .publish(run_subject(&self.descriptor.run_id), body.into())
            .await?
            .await
            .context("cannot announce the run")?;
        Ok(())
    }

    /// Publishes `units` of participant number `participant` and waits until JetStream
    /// holds them.
    pub async fn publish_units(&self, participant: usize, units: &[WorkUnit]) -> Result<()> {
        let subject = work_subject(&self.descriptor.run_id, participant);
        let mut acks = Vec::with_capacity(units.len());
        for unit in units {
            let publish = Publish::build()
                .payload(serde_json::to_vec(unit)?.into())
                .message_id(format!("{}/{}", self.descriptor.run_id, unit.key()));
            acks.push(self.js.send_publish(subject.clone(), publish).await?);
        }
        for ack in acks {
            ack.await.context("JetStream did not take a work unit")?;
        }
        Ok(())
    }

    /// The next message from the workers, or `None` when none came within `wait`. It is
    /// acknowledged by the next [`Self::ack_received`].
    pub async fn next(&mut self, wait: Duration) -> Result<Option<Incoming>> {
        let next = async {
            tokio::select! {
                biased;
                advisory = self.given_up.next() => Err(advisory),
                message = self.incoming.next() => Ok(message),
            }
        };
        let message = match tokio::time::timeout(wait, next).await {
            Err(_) | Ok(Ok(None)) | Ok(Err(None)) => return Ok(None),
            Ok(Err(Some(advisory))) => return Ok(self.given_up_on(&advisory.payload)),
            Ok(Ok(Some(message))) => message.context("lost the records stream")?,
        };
        let kind = message
            .headers
            .as_ref()
            .and_then(|headers| headers.get(KIND_HEADER))
            .map(|value| value.as_str().to_owned())
            .unwrap_or_default();
        let incoming = match kind.as_str() {
            KIND_RECORDS => match RecordBatch::from_bytes(&message.payload) {
                Ok(batch) => Incoming::Records(batch),
                Err(error) => Incoming::Invalid(format!("{error:#}")),
            },
            KIND_HELLO | KIND_REFUSAL => match serde_json::from_slice(&message.payload) {
                Ok(note) if kind == KIND_HELLO => Incoming::Hello(note),
                Ok(note) => Incoming::Refusal(note),
                Err(error) => Incoming::Invalid(format!("a worker note is not JSON: {error}")),
            },
            other => Incoming::Invalid(format!("a message of unknown kind \"{other}\"")),
        };
        self.unacked.push(message);
        Ok(Some(incoming))
    }

    /// The unit of this run JetStream gave up on, from its advisory (`None` for another
    /// run's).
    fn given_up_on(&self, payload: &[u8]) -> Option<Incoming> {
        let advisory: MaxDeliveries = match serde_json::from_slice(payload) {
            Ok(advisory) => advisory,
            Err(error) => {
                return Some(Incoming::Invalid(format!(
                    "an advisory is not JSON: {error}"
                )))
            }
        };
        let run = &self.descriptor.run_id;
        (0..self.descriptor.participants.len())
            .find(|participant| work_consumer(run, *participant) == advisory.consumer)
            .map(|participant| Incoming::GaveUp {
                participant,
                deliveries: advisory.deliveries,
            })
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
        self.announce().await
    }
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
