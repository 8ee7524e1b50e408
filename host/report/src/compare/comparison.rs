//! The comparison of runs: every run after the first (the baseline, A) against it, per
//! participant the two share and per metric both have samples of — medians, the ratio B/A
//! with its bootstrap interval, the Mann–Whitney p-value and the verdict — and the
//! composite scores side by side when both runs are scored. A plain serialisable value:
//! the terminal table, the exports and any other view render it.

use super::bootstrap::{median, ratio_of_medians, BootstrapSettings};
use super::mann_whitney::mann_whitney_u;
use super::sample::{label, MetricId, MetricKind, RunInfo, RunSamples};
use super::verdict::{Direction, Verdict};
use anyhow::{bail, Result};
use serde::Serialize;

/// The fewest samples of a metric, on each side, that are compared.
pub(crate) const MIN_SAMPLES: usize = 2;

/// How runs are compared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareSettings {
    /// The bootstrap's resamples, confidence and seed.
    #[serde(flatten)]
    pub bootstrap: BootstrapSettings,
    /// The half-width of the noise band around a ratio of 1 (0.02 for ±2 %).
    pub threshold: f64,
}

/// Every run compared to the baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// How the statistics were computed.
    pub settings: CompareSettings,
    /// The baseline run (A).
    pub baseline: RunInfo,
    /// Each later run against the baseline, in the order given.
    pub candidates: Vec<CandidateComparison>,
}

/// One run (B) against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateComparison {
    /// The run.
    pub run: RunInfo,
    /// The participants both runs have, in the baseline's order.
    pub participants: Vec<ParticipantComparison>,
    /// What was left out, and why (participants or metrics only one run has, too few
    /// samples, a zero baseline median, another benchmark).
    pub notes: Vec<String>,
}

/// One participant's metrics in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantComparison {
    /// The participant's name.
    pub participant: String,
    /// Latency first, then the other metrics in the baseline's order.
    pub metrics: Vec<MetricComparison>,
    /// The overall composite scores, when both runs are scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub composite_score: Option<ScorePair>,
}

/// The composite score of a participant in each run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScorePair {
    /// In the baseline.
    pub baseline: f64,
    /// In the candidate.
    pub candidate: f64,
}

/// One metric of one participant in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricComparison {
    /// `latencyMs`, a measure's name (`<step>.<key>` for a step's) or a step's name.
    pub metric: String,
    /// What the metric measures.
    pub kind: MetricKind,
    /// Its unit (`ms` for durations; `""` when none is declared).
    pub unit: String,
    /// Which way it improves.
    pub direction: Direction,
    /// The baseline's samples.
    pub baseline: SampleSummary,
    /// The candidate's samples.
    pub candidate: SampleSummary,
    /// `median(B) / median(A)`.
    pub ratio: f64,
    /// The lower end of the ratio's bootstrap confidence interval.
    pub ci_low: f64,
    /// The upper end.
    pub ci_high: f64,
    /// The two-sided Mann–Whitney U p-value.
    pub p_value: f64,
    /// The verdict against the noise band.
    pub verdict: Verdict,
}

/// How many samples one side has, and their median.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SampleSummary {
    /// Sample count.
    pub samples: usize,
    /// Median (the mean of the two middle values of an even count).
    pub median: f64,
}

impl MetricComparison {
    /// The metric as tables name it: `latencyMs`, a measure's name, `step <name>`.
    pub fn label(&self) -> String {
        label(self.kind, &self.metric)
    }
}

impl Comparison {
    /// Whether any metric of any run is `slower`.
    pub fn regressed(&self) -> bool {
        self.candidates
            .iter()
            .flat_map(|candidate| &candidate.participants)
            .flat_map(|participant| &participant.metrics)
            .any(|metric| metric.verdict == Verdict::Slower)
    }
}

/// Compares every run after the first to the first (runs gathered with a
/// [`RunSampleCollector`](super::RunSampleCollector) or read from results directories).
pub fn compare_runs(runs: &[RunSamples], settings: &CompareSettings) -> Result<Comparison> {
    let [baseline, candidates @ ..] = runs else {
        bail!("nothing to compare: no runs");
    };
    if candidates.is_empty() {
        bail!("a comparison needs at least two runs");
    }
    let candidates = candidates
        .iter()
        .map(|candidate| compare_pair(baseline, candidate, settings))
        .collect::<Result<_>>()?;
    Ok(Comparison {
        settings: *settings,
        baseline: baseline.info.clone(),
        candidates,
    })
}

/// One candidate against the baseline.
fn compare_pair(
    baseline: &RunSamples,
    candidate: &RunSamples,
    settings: &CompareSettings,
) -> Result<CandidateComparison> {
    let (a_dir, b_dir) = (&baseline.info.dir, &candidate.info.dir);
    let mut notes = Vec::new();
    if baseline.info.benchmark_slug != candidate.info.benchmark_slug {
        notes.push(format!(
            "{b_dir} is a run of benchmark {}, {a_dir} of {}",
            candidate.info.benchmark_slug, baseline.info.benchmark_slug
        ));
    }
    let shared: Vec<&str> = baseline
        .participants
        .iter()
        .map(|p| p.name.as_str())
        .filter(|name| candidate.participant(name).is_some())
        .collect();
    if shared.is_empty() {
        bail!(
            "{a_dir} and {b_dir} have no participant in common ({a_dir}: {}; {b_dir}: {})",
            names(baseline),
            names(candidate)
        );
    }
    for (run, other) in [(baseline, candidate), (candidate, baseline)] {
        for participant in &run.participants {
            if other.participant(&participant.name).is_none() {
                notes.push(format!(
                    "participant {} is only in {}",
                    participant.name, run.info.dir
                ));
            }
        }
    }
    let mut participants = Vec::new();
    for name in shared {
        participants.push(compare_participant(
            name, baseline, candidate, settings, &mut notes,
        )?);
    }
    Ok(CandidateComparison {
        run: candidate.info.clone(),
        participants,
        notes,
    })
}

/// One participant's metrics in both runs; its latency must have enough samples in both.
fn compare_participant(
    name: &str,
    baseline: &RunSamples,
    candidate: &RunSamples,
    settings: &CompareSettings,
    notes: &mut Vec<String>,
) -> Result<ParticipantComparison> {
    let a = baseline.participant(name).expect("a shared participant");
    let b = candidate.participant(name).expect("a shared participant");
    let latency = MetricId {
        kind: MetricKind::Latency,
        name: "latencyMs".into(),
    };
    for (run, columns) in [(baseline, a), (candidate, b)] {
        let successes = columns.samples(&latency).len();
        if successes < MIN_SAMPLES {
            bail!(
                "participant {name} has {successes} successful task(s) in {}; a comparison needs at least {MIN_SAMPLES} in each run",
                run.info.dir
            );
        }
    }
    let mut metrics = Vec::new();
    for column in &a.columns {
        let metric = &column.metric;
        // Durations at `durationUs` resolution when both runs have it for every sample.
        let (a_samples, b_samples) = match (a.fine_samples(metric), b.fine_samples(metric)) {
            (Some(a_fine), Some(b_fine)) => (a_fine, b_fine),
            _ => (column.samples.as_slice(), b.samples(metric)),
        };
        let label = format!("{name} {}", metric.label());
        if b_samples.is_empty() {
            notes.push(format!("{label}: only in {}", baseline.info.dir));
            continue;
        }
        if a_samples.len() < MIN_SAMPLES || b_samples.len() < MIN_SAMPLES {
            notes.push(format!(
                "{label}: too few samples ({} and {}; at least {MIN_SAMPLES} each)",
                a_samples.len(),
                b_samples.len()
            ));
            continue;
        }
        let direction = if baseline.higher_is_better(metric) {
            Direction::HigherIsBetter
        } else {
            Direction::LowerIsBetter
        };
        let unit = baseline.unit(metric);
        match compare_metric(metric, unit, direction, a_samples, b_samples, settings) {
            Some(comparison) => metrics.push(comparison),
            None => notes.push(format!(
                "{label}: the baseline median is 0, so there is no ratio"
            )),
        }
    }
    for column in &b.columns {
        if a.samples(&column.metric).is_empty() {
            let label = format!("{name} {}", column.metric.label());
            notes.push(format!("{label}: only in {}", candidate.info.dir));
        }
    }
    let composite_score = match (&baseline.scores, &candidate.scores) {
        (Some(a_scores), Some(b_scores)) => {
            a_scores
                .get(name)
                .zip(b_scores.get(name))
                .map(|(&baseline, &candidate)| ScorePair {
                    baseline,
                    candidate,
                })
        }
        _ => None,
    };
    Ok(ParticipantComparison {
        participant: name.to_owned(),
        metrics,
        composite_score,
    })
}

/// The statistics of one metric, or `None` when the baseline median is 0.
fn compare_metric(
    metric: &MetricId,
    unit: String,
    direction: Direction,
    a: &[f64],
    b: &[f64],
    settings: &CompareSettings,
) -> Option<MetricComparison> {
    let a_median = median(a);
    if a_median == 0.0 {
        return None;
    }
    let interval = ratio_of_medians(a, b, &settings.bootstrap);
    let test = mann_whitney_u(a, b);
    Some(MetricComparison {
        metric: metric.name.clone(),
        kind: metric.kind,
        unit,
        direction,
        baseline: SampleSummary {
            samples: a.len(),
            median: a_median,
        },
        candidate: SampleSummary {
            samples: b.len(),
            median: median(b),
        },
        ratio: interval.ratio,
        ci_low: interval.low,
        ci_high: interval.high,
        p_value: test.p_value,
        verdict: Verdict::of(interval.low, interval.high, settings.threshold, direction),
    })
}

/// A run's participant names, comma-separated.
fn names(run: &RunSamples) -> String {
    let names: Vec<&str> = run.participants.iter().map(|p| p.name.as_str()).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::{results_dir, timed};
    use serde_json::{json, Value};
    use tempfile::TempDir;

    fn settings() -> CompareSettings {
        CompareSettings {
            bootstrap: BootstrapSettings {
                resamples: 2_000,
                confidence: 0.95,
                seed: 7,
            },
            threshold: 0.02,
        }
    }

    fn compare(dirs: &[&TempDir]) -> Result<Comparison> {
        let runs: Vec<RunSamples> = dirs
            .iter()
            .map(|dir| RunSamples::load(dir.path()).unwrap())
            .collect();
        compare_runs(&runs, &settings())
    }

    /// 30 samples from `low` to `low + 4`, with median `low + 2`.
    fn spread(low: f64) -> Vec<f64> {
        (0..30).map(|i| low + f64::from(i % 5)).collect()
    }

    fn run(participants: Value, records: Vec<Value>) -> TempDir {
        results_dir(json!({"participants": participants}), &records)
    }

    /// No-op records: `latencyMs` 0, `durationUs` from `low_us` up, with a timed step.
    fn fast(low_us: f64) -> Vec<Value> {
        spread(low_us)
            .into_iter()
            .map(|us| {
                json!({"participant": "p", "latencyMs": 0, "durationUs": us, "steps": [
                    {"name": "s", "status": "success", "latencyMs": 0, "durationUs": us / 2.0}
                ]})
            })
            .collect()
    }

    fn latency_and_step(comparison: &Comparison) -> Vec<(String, f64, f64)> {
        comparison.candidates[0].participants[0]
            .metrics
            .iter()
            .map(|m| (m.metric.clone(), m.baseline.median, m.ratio))
            .collect()
    }

    #[test]
    fn durations_compare_at_microsecond_resolution_when_both_runs_have_it() {
        let a = run(json!(["p"]), fast(10.0));
        let b = run(json!(["p"]), fast(12.0));
        let comparison = compare(&[&a, &b]).unwrap();
        assert_eq!(
            latency_and_step(&comparison),
            [
                ("latencyMs".into(), 0.012, 14.0 / 12.0),
                ("s".into(), 0.006, 14.0 / 12.0)
            ]
        );
        let mut older = fast(12.0);
        older[3]["durationUs"] = Value::Null;
        older[4]["steps"][0]
            .as_object_mut()
            .unwrap()
            .remove("durationUs");
        let older = run(json!(["p"]), older);
        let comparison = compare(&[&a, &older]).unwrap();
        assert!(
            latency_and_step(&comparison).is_empty(),
            "whole milliseconds: all 0"
        );
        assert_eq!(
            comparison.candidates[0].notes.len(),
            2,
            "no ratio of 0 ms medians"
        );
    }

    #[test]
    fn a_slower_faster_and_unchanged_run_get_their_verdicts_each_against_a() {
        let a = run(json!(["p"]), timed("p", &spread(98.0), json!({})));
        let slower = run(json!(["p"]), timed("p", &spread(118.0), json!({})));
        let faster = run(json!(["p"]), timed("p", &spread(78.0), json!({})));
        let same = run(json!(["p"]), timed("p", &spread(98.0), json!({})));
        let comparison = compare(&[&a, &slower, &faster, &same]).unwrap();
        let verdicts: Vec<(f64, Verdict)> = comparison
            .candidates
            .iter()
            .map(|c| {
                (
                    c.participants[0].metrics[0].ratio,
                    c.participants[0].metrics[0].verdict,
                )
            })
            .collect();
        assert_eq!(
            verdicts,
            [
                (1.2, Verdict::Slower),
                (0.8, Verdict::Faster),
                (1.0, Verdict::NoChange)
            ]
        );
        let slower = &comparison.candidates[0].participants[0].metrics[0];
        assert!(slower.ci_low > 1.02 && slower.ci_high >= 1.2, "{slower:?}");
        assert!(slower.p_value < 1e-6, "{slower:?}");
        assert!(comparison.regressed());
        assert_eq!(comparison.candidates[0].notes, Vec::<String>::new());
    }

    #[test]
    fn a_higher_is_better_measure_that_drops_is_slower() {
        let display = json!({"metrics": [{"key": "mbps", "direction": "higher-better"}]});
        let records = |mbps: f64| {
            (0..10)
                .map(|i| json!({"data": {"mbps": mbps + f64::from(i % 3)}}))
                .collect::<Vec<_>>()
        };
        let a = results_dir(json!({"display": display}), &records(100.0));
        let b = results_dir(json!({"display": display}), &records(50.0));
        let comparison = compare(&[&a, &b]).unwrap();
        let mbps = &comparison.candidates[0].participants[0].metrics[1];
        assert_eq!(
            (mbps.metric.as_str(), mbps.direction, mbps.verdict),
            ("mbps", Direction::HigherIsBetter, Verdict::Slower)
        );
        let latency = &comparison.candidates[0].participants[0].metrics[0];
        assert_eq!(latency.verdict, Verdict::NoChange);
    }

    #[test]
    fn runs_without_a_shared_participant_are_refused() {
        let a = run(json!(["x", "y"]), timed("x", &spread(1.0), json!({})));
        let b = run(json!(["z"]), timed("z", &spread(1.0), json!({})));
        let error = compare(&[&a, &b]).unwrap_err().to_string();
        assert!(error.contains("have no participant in common"), "{error}");
        assert!(
            error.contains(": x, y; ") && error.ends_with(": z)"),
            "{error}"
        );
    }

    #[test]
    fn a_participant_with_one_success_is_too_few_samples() {
        let a = run(json!(["p"]), timed("p", &[5.0], json!({})));
        let b = run(json!(["p"]), timed("p", &spread(5.0), json!({})));
        let error = compare(&[&a, &b]).unwrap_err().to_string();
        assert!(
            error.starts_with("participant p has 1 successful task(s) in ")
                && error.ends_with("; a comparison needs at least 2 in each run"),
            "{error}"
        );
    }

    #[test]
    fn what_only_one_run_has_is_noted_and_left_out() {
        let mut a_records = timed("p", &spread(10.0), json!({"old": 1, "zero": 0, "once": 3}));
        a_records.extend(timed("gone", &spread(10.0), json!({})));
        let a = run(json!(["p", "gone"]), a_records);
        let mut b_records = timed("p", &spread(10.0), json!({"new": 2, "zero": 1}));
        b_records[0]["data"]["once"] = json!(4);
        let b = run(json!(["p"]), b_records);
        let comparison = compare(&[&a, &b]).unwrap();
        let candidate = &comparison.candidates[0];
        let names: Vec<&str> = candidate.participants[0]
            .metrics
            .iter()
            .map(|m| m.metric.as_str())
            .collect();
        assert_eq!(names, ["latencyMs"]);
        let notes: Vec<String> = candidate
            .notes
            .iter()
            .map(|note| {
                note.replace(&a.path().display().to_string(), "A")
                    .replace(&b.path().display().to_string(), "B")
            })
            .collect();
        assert_eq!(
            notes,
            [
                "participant gone is only in A",
                "p old: only in A",
                "p zero: the baseline median is 0, so there is no ratio",
                "p once: too few samples (30 and 1; at least 2 each)",
                "p new: only in B",
            ]
        );
    }

    #[test]
    fn composite_scores_sit_side_by_side_when_both_runs_are_scored() {
        let scoring = json!({"metrics": [{"key": "ms", "ceiling": 100,
            "weights": {"median": 1, "p95": 0, "p99": 0}}]});
        let scored = |ms: f64| {
            results_dir(
                json!({"participants": ["p"], "scoring": scoring}),
                &timed("p", &spread(10.0), json!({"ms": ms})),
            )
        };
        let (a, b) = (scored(20.0), scored(40.0));
        let unscored = run(json!(["p"]), timed("p", &spread(10.0), json!({"ms": 20})));
        let comparison = compare(&[&a, &b, &unscored]).unwrap();
        assert_eq!(
            comparison.candidates[0].participants[0].composite_score,
            Some(ScorePair {
                baseline: 80.0,
                candidate: 60.0
            })
        );
        assert_eq!(
            comparison.candidates[1].participants[0].composite_score,
            None
        );
        let json = serde_json::to_value(&comparison).unwrap();
        assert_eq!(
            json["candidates"][0]["participants"][0]["compositeScore"],
            json!({"baseline": 80.0, "candidate": 60.0})
        );
        assert_eq!(json["settings"]["seed"], 7);
        assert_eq!(
            json["candidates"][0]["participants"][0]["metrics"][0]["verdict"],
            "no-change"
        );
    }
}
