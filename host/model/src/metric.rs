//! The names of the metrics bench itself measures, beside a task's own: every run's task
//! latency, and an open-model run's response and service times (read from a record's
//! timing). Report, scoring and compare name them through these.

/// Name of the task-latency metric.
pub const LATENCY: &str = "latencyMs";
/// The metric the summary's latency figures use in an open-model run.
pub const RESPONSE_TIME: &str = "responseTimeMs";
/// The open-model metric from the actual start.
pub const SERVICE_TIME: &str = "serviceTimeMs";
