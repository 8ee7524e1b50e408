//! End-to-end: Rust, JavaScript and Python tasks compute hashes, HMACs, CRCs, base64, hex,
//! gzip and AES-GCM through the host's natives (`bench:task/natives`) and get the published
//! answers; a guest asking for an oversized decompression or holding hashers without end gets
//! a failed record naming the bound, and the run goes on; what a call or a live object makes
//! the host hold counts against the sandbox's memory limit (`memory_limit` past it) and the
//! host's memory stays bounded.

use crate::support::{
    bench::watched,
    guests::{built_project, test_guest},
    results::{records_of, run_records as run},
};
use serde_json::{json, Value};
use tempfile::TempDir;

const JS: &str = "tests/guests-js/natives";
const PYTHON: &str = "tests/guests-python/natives";

/// Asserts the answers every language's natives task reports: RFC 1321 and FIPS 180 "abc"
/// digests, the million-`a` SHA-256, RFC 4231's HMAC, the CRC catalogue's check values.
fn assert_vectors(record: &Value) {
    assert_eq!(record["status"], "success", "{record}");
    let expected = json!({
        "md5": "900150983cd24fb0d6963f7d28e17f72",
        "sha1": "a9993e364706816aba3e25717850c26c9cd0d89d",
        "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "sha384": "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
        "sha512": "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        "sha256MillionA": "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
        "hmacSha256": "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        "hmacCopy": "c8853e5ebd9eb71ea633c58fac8a31682b7316d97f5e6b17600ce65294b81cbb",
        "crc32": 0xCBF4_3926u32,
        "crc32Continued": 0xCBF4_3926u32,
        "crc32c": 0xE306_9283u32,
        "base64": "+/+/",
        "base64Url": "-_-_",
        "base64Decoded": "fbffbf",
        "gzipMagic": "1f8b",
        "gunzipped": true,
        "aesGcmRoundTrip": "natives",
        "randomLength": 16,
    });
    for (key, value) in expected.as_object().unwrap() {
        assert_eq!(&record["data"][key], value, "{key}: {record}");
    }
}

/// Asserts a run whose first task crossed a natives bound: that task failed with `code` and
/// `message`, the second computed the vectors.
fn assert_bound_then_vectors(records: &[Value], code: &str, message: &str) {
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0]["status"], "error", "{}", records[0]);
    assert_eq!(records[0]["errorCode"], code);
    assert_eq!(records[0]["data"]["errorMessage"], message);
    assert_vectors(&records[1]);
}

const DECOMPRESSION_BOUND: &str = "the decompressed output is larger than 67108864 bytes";
const HASHER_BOUND: &str =
    "the sandbox already holds 1024 live hashers (the most it may): finish or drop some first";

#[test]
fn a_rust_task_gets_the_published_answers_from_the_natives() {
    for record in run(&test_guest("natives"), &[]) {
        assert_vectors(&record);
    }
}

#[test]
fn a_javascript_task_gets_the_published_answers_and_js_errors() {
    let records = run(&built_project(JS), &[]);
    for record in &records {
        assert_vectors(record);
        assert_eq!(record["data"]["inflated"], 8000);
        assert_eq!(
            record["data"]["errors"],
            json!({
                "hex": {"name": "Error", "reason": "invalid-data",
                        "message": "the text is not hex: Invalid character 'z' at position 0"},
                "algorithm": {"name": "TypeError",
                              "message": "unsupported hash algorithm \"whirlpool\" (natives hash md5, sha1, sha256, sha384 and sha512)"},
                "key": {"name": "TypeError", "reason": "invalid-argument",
                        "message": "an AES key is 16, 24 or 32 bytes, not 3"},
                "tampered": {"name": "Error", "reason": "invalid-data",
                             "message": "the AES-GCM data did not authenticate (wrong key, IV, additional data or tag)"},
            })
        );
    }
}

#[test]
fn a_python_task_gets_the_published_answers_and_python_errors() {
    let records = run(&built_project(PYTHON), &[]);
    assert_eq!(records.len(), 1);
    assert_vectors(&records[0]);
    // hashlib, hmac and zlib.crc32 of a running task are the host's (what botocore hashes).
    assert_eq!(
        records[0]["data"]["standardLibrary"],
        json!({
            "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "newSha1": "a9993e364706816aba3e25717850c26c9cd0d89d",
            "hmacSha256": "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            "crc32": 0xCBF4_3926u32,
            "onTheHost": ["bench_task.natives", "bench_task.natives", "bench_task.natives"],
            "blake2bStaysPython": true,
        })
    );
    let errors = &records[0]["data"]["errors"];
    assert_eq!(errors["hex"]["type"], "InvalidData", "{errors}");
    assert_eq!(errors["key"]["type"], "InvalidArgument");
    assert_eq!(
        errors["random"],
        json!({"type": "LimitExceeded", "reason": "limit",
               "message": "1073741824 random bytes were asked for; a native call returns at most 67108864"})
    );
}

#[test]
fn an_oversized_decompression_fails_its_task_and_the_run_goes_on() {
    let rust = run(&test_guest("natives"), &["--hostile", "decompress"]);
    assert_bound_then_vectors(&rust, "Error", DECOMPRESSION_BOUND);
    let js = run(&built_project(JS), &["--hostile", "decompress"]);
    assert_bound_then_vectors(&js, "RangeError", DECOMPRESSION_BOUND);
}

#[test]
fn hashers_without_end_fail_their_task_and_the_run_goes_on() {
    let rust = run(&test_guest("natives"), &["--hostile", "hashers"]);
    assert_bound_then_vectors(&rust, "Error", HASHER_BOUND);
    // The JavaScript hashers stay referenced, so only a fresh instance frees them.
    let js = run(&built_project(JS), &["--hostile", "hashers"]);
    assert_bound_then_vectors(&js, "RangeError", HASHER_BOUND);
}

/// Host memory bench may take beside a sandbox's own limit (it takes about 35 MiB running this
/// guest): a 64 MiB decompression held uncounted would pass it.
const BENCH_RSS_KIB: u64 = 64 << 10;

#[test]
fn natives_buffers_count_against_a_small_memory_limit_and_the_run_goes_on() {
    let guest = test_guest("natives");
    let cases = [
        // 24 MiB in the guest's memory, 24 MiB more copied into the host for the call (and 64
        // bytes for its digest).
        (
            "large-input",
            "40MiB",
            "task exceeded its memory limit: growing the buffers of a natives call by 25165888 \
             bytes would pass the sandbox's memory limit of 41943040 bytes",
        ),
        // Each live compressor's state (352 KiB) counts while it lives.
        (
            "streams",
            "8MiB",
            "task exceeded its memory limit: growing a live compression stream by 360448 bytes \
             would pass the sandbox's memory limit of 8388608 bytes",
        ),
        // The output of a decompression bomb stops at the room the sandbox has left.
        (
            "decompress",
            "16MiB",
            "would pass the sandbox's memory limit of 16777216 bytes",
        ),
    ];
    for (attack, memory, message) in cases {
        let dir = TempDir::new().unwrap();
        let guest = guest.to_str().unwrap();
        let args = [
            "run",
            guest,
            "--out",
            "results",
            "--max-memory",
            memory,
            "--hostile",
            attack,
        ];
        let watched = watched(dir.path(), &args);
        let run = &watched.run;
        assert_eq!(
            run.code,
            Some(0),
            "{attack}: {}\n{}",
            run.stdout,
            run.stderr
        );
        eprintln!("{attack}: VmHWM {} KiB", watched.peak_rss_kib);
        let limit_kib = memory.trim_end_matches("MiB").parse::<u64>().unwrap() << 10;
        assert!(
            watched.peak_rss_kib < BENCH_RSS_KIB + limit_kib,
            "{attack}: VmHWM {} KiB",
            watched.peak_rss_kib
        );
        let records = records_of(&dir.path().join("results"), "p");
        assert_eq!(records.len(), 2, "{attack}: {records:?}");
        let failed = &records[0];
        assert_eq!(failed["status"], "error", "{attack}: {failed}");
        assert_eq!(failed["errorCode"], "memory_limit", "{attack}: {failed}");
        let text = failed["data"]["errorMessage"].as_str().unwrap_or_default();
        assert!(
            text.starts_with("task exceeded its memory limit: growing ") && text.contains(message),
            "{attack}: {failed}"
        );
        assert_vectors(&records[1]);
    }
}
