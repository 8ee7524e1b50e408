//! The API's paths, relative to `apiBaseUrl` (`…/api/v1`): one template per endpoint, with
//! `{name}` standing for one path segment. The server routes the templates as they are; the
//! client fills them with percent-encoded segments ([`fill`]), so both sides agree by
//! construction.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Where the API lives under a platform root.
pub(crate) const API_ROOT: &str = "/api/v1";

/// `GET`: the caller, its organization and the organizations it may use.
pub(crate) const ME: &str = "/me";
/// `GET`: the benchmarks (paged).
pub(crate) const BENCHMARKS: &str = "/benchmarks";
/// `GET`, `PUT` (`upsertBenchmark`): one benchmark.
pub(crate) const BENCHMARK: &str = "/benchmarks/{slug}";
/// `GET`: the latest summary rows of each scored run of a benchmark (paged).
pub(crate) const BENCHMARK_RESULTS: &str = "/benchmarks/{slug}/results";
/// `GET` (paged), `POST` (`createRun`): a benchmark's runs.
pub(crate) const RUNS: &str = "/benchmarks/{slug}/runs";
/// `GET`: one run.
pub(crate) const RUN: &str = "/benchmarks/{slug}/runs/{run_id}";
/// `GET`: a run, its submitted summary and task counts.
pub(crate) const RUN_RESULTS: &str = "/benchmarks/{slug}/runs/{run_id}/results";
/// `POST` (`submitRunSummary`): a run's summary.
pub(crate) const RUN_SUMMARY: &str = "/benchmarks/{slug}/runs/{run_id}/summary";
/// `GET`: a run's stored task records.
pub(crate) const RUN_ITERATIONS: &str = "/benchmarks/{slug}/runs/{run_id}/iterations";
/// `GET`: every artifact of a run.
pub(crate) const RUN_ARTIFACTS: &str = "/benchmarks/{slug}/runs/{run_id}/artifacts";
/// `GET`: a run's participants.
pub(crate) const PARTICIPANTS: &str = "/benchmarks/{slug}/runs/{run_id}/participants";
/// `PUT` (`upsertParticipant`): one participant of a shared run.
pub(crate) const PARTICIPANT: &str = "/benchmarks/{slug}/runs/{run_id}/participants/{participant}";
/// `GET`, `POST` (`planWorkers`): a participant's workers.
pub(crate) const PARTICIPANT_WORKERS: &str =
    "/benchmarks/{slug}/runs/{run_id}/participants/{participant}/workers";
/// `POST` (`claimWorker`): claims a participant's next pending worker.
pub(crate) const WORKER_CLAIM: &str =
    "/benchmarks/{slug}/runs/{run_id}/participants/{participant}/workers/claim";
/// `POST`: a worker's progress.
pub(crate) const WORKER_HEARTBEAT: &str =
    "/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/heartbeat";
/// `POST` (`sendTaskResults`): a batch of a worker's task records.
pub(crate) const WORKER_EVENTS: &str =
    "/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/events";
/// `GET`, `POST` (`createWorkerArtifact`): a worker's artifacts.
pub(crate) const WORKER_ARTIFACTS: &str =
    "/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/artifacts";
/// `GET`: one artifact and where to download it.
pub(crate) const WORKER_ARTIFACT: &str =
    "/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/artifacts/{artifact_id}";
/// `POST`: the worker finished its range.
pub(crate) const WORKER_COMPLETE: &str =
    "/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/complete";
/// `POST`: the worker failed.
pub(crate) const WORKER_FAIL: &str = "/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/fail";
/// `POST`: the worker gives its range back.
pub(crate) const WORKER_RELEASE: &str =
    "/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/release";
/// `PUT`: an artifact's body, to the URL `createWorkerArtifact` answered (no API key: the
/// token is the secret).
pub(crate) const UPLOAD: &str = "/uploads/{token}";
/// `GET`: an artifact's body, from the URL of its `downloadUrl` (no API key).
pub(crate) const DOWNLOAD: &str = "/downloads/{token}";

/// The bytes JavaScript's `encodeURIComponent` escapes: all but ASCII letters, digits and
/// `-_.!~*'()`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// A path segment or query value encoded as JavaScript's `encodeURIComponent` does.
pub(crate) fn encode_component(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// A template with its `{name}` placeholders replaced, in order, by `segments`, each
/// encoded with [`encode_component`].
pub(crate) fn fill(template: &str, segments: &[&str]) -> String {
    let mut path = String::with_capacity(template.len() + 16);
    let mut segments = segments.iter();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        path.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .map_or(rest.len(), |end| open + end + 1);
        let segment = segments.next();
        debug_assert!(segment.is_some(), "{template} has more placeholders");
        path.push_str(&encode_component(segment.copied().unwrap_or_default()));
        rest = &rest[close..];
    }
    debug_assert!(
        segments.next().is_none(),
        "{template} has fewer placeholders"
    );
    path.push_str(rest);
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded_like_encode_uri_component() {
        assert_eq!(encode_component("e2b"), "e2b");
        assert_eq!(encode_component("a b/c?d"), "a%20b%2Fc%3Fd");
        assert_eq!(encode_component("it's(ok)!~*"), "it's(ok)!~*");
        assert_eq!(encode_component("é"), "%C3%A9");
    }

    #[test]
    fn templates_are_filled_in_order_with_encoded_segments() {
        assert_eq!(
            fill(PARTICIPANT, &["s", "run 1", "a/b"]),
            "/benchmarks/s/runs/run%201/participants/a%2Fb"
        );
        assert_eq!(
            fill(WORKER_EVENTS, &["s", "r", "w"]),
            "/benchmarks/s/runs/r/workers/w/events"
        );
        assert_eq!(fill(ME, &[]), "/me");
    }
}
