//! The names of the latency metrics a summary shows beside a task's own measures: every
//! run's task latency, and an open-model run's response and service times.

/// Name of the task-latency metric.
pub(crate) const LATENCY: &str = "latencyMs";
/// The metric the summary's latency figures use in an open-model run.
pub(crate) const RESPONSE_TIME: &str = "responseTimeMs";
/// The open-model metric from the actual start.
pub(crate) const SERVICE_TIME: &str = "serviceTimeMs";
