//! End-to-end: distributed runs on secured NATS servers, each started here with the way
//! NATS secures itself: the deploy/ configuration (accounts, users with passwords, subject
//! permissions: a worker user cannot coordinate), a token, an nkey, a `.creds` file of an
//! operator-mode server (JWTs made here with the nkeys crate) and TLS with a client
//! certificate (a CA made here with rcgen). Every run completes; no credential is printed
//! or written to the results directory; a wrong one is refused without being shown.

use crate::support::{
    bench::{run_into, Run},
    guests::example,
    nats::{worker_log, NatsServer, Worker},
    results::task_tally,
};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;
use tempfile::TempDir;

/// Every file under `dir`, as text.
fn all_text(dir: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            text.push_str(&all_text(&path));
        } else {
            text.push_str(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
        }
    }
    text
}

/// Runs rust-hello dispatched with `coordinator` to one worker started with `worker`
/// (`url` and flags of each, environment of the worker); checks every task ran once and
/// no secret of `secrets` shows anywhere.
fn a_run_with(
    cwd: &Path,
    (coordinator_url, coordinator): (&str, &[&str]),
    (worker_url, worker, worker_env): (&str, &[&str], &[(&str, &str)]),
    secrets: &[&str],
) -> Run {
    let mut args = vec!["--trust-any"];
    args.extend_from_slice(worker);
    let _worker = Worker::spawn(cwd, worker_url, "w1", &args, worker_env);
    let mut flags = vec!["--worker-wait", "60s"];
    flags.extend_from_slice(coordinator);
    let run = run_into(
        cwd,
        &example("rust-hello"),
        "results",
        Some(coordinator_url),
        &flags,
    );
    assert_eq!(
        run.code,
        Some(0),
        "{}\n{}",
        run.stderr,
        worker_log(cwd, "w1")
    );
    let (tasks, workers) = task_tally(&cwd.join("results"));
    assert_eq!(tasks.len(), 6);
    assert!(tasks.values().all(|count| *count == 1), "{tasks:?}");
    assert_eq!(workers.keys().collect::<Vec<_>>(), ["w1"]);
    let shown = format!(
        "{}{}{}{}",
        run.stdout,
        run.stderr,
        worker_log(cwd, "w1"),
        all_text(&cwd.join("results"))
    );
    for secret in secrets {
        assert!(!shown.contains(secret), "{secret} shown");
    }
    run
}

fn url_with(user_info: &str, nats: &NatsServer) -> String {
    format!("nats://{user_info}@{}", nats.address())
}

#[test]
fn the_deploy_configuration_takes_passwords_and_keeps_workers_from_coordinating() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let config =
        std::fs::read_to_string(crate::support::root().join("deploy/nats/nats-server.conf"))
            .unwrap()
            .replace("store_dir: \"/data\"", "store_dir: \"{store}\"");
    let passwords = [
        ("BENCH_COORDINATOR_PASSWORD", "c0ord-pw"),
        ("BENCH_WORKER_PASSWORD", "w0rker-pw"),
    ];
    let nats = NatsServer::with_config(&config, &passwords);
    let coordinator = url_with("coordinator:c0ord-pw", &nats);
    let worker = url_with("worker:w0rker-pw", &nats);
    a_run_with(
        cwd,
        (&coordinator, &[]),
        (&worker, &[], &[]),
        &["c0ord-pw", "w0rker-pw"],
    );
    let stored = std::fs::read_to_string(cwd.join("results/dispatch.json")).unwrap();
    assert!(
        stored.contains(&format!("nats://{}", nats.address())),
        "{stored}"
    );

    // A worker's credentials cannot coordinate: announcing or uploading is not allowed.
    let hello = example("rust-hello");
    let usurper = run_into(
        cwd,
        &hello,
        "usurper",
        Some(&worker),
        &["--worker-wait", "5s"],
    );
    assert_eq!(usurper.code, Some(1), "{}", usurper.stdout);
    assert!(!usurper.stderr.contains("w0rker-pw"), "{}", usurper.stderr);
    let wrong = run_into(
        cwd,
        &hello,
        "wrong",
        Some(&url_with("coordinator:hunter2", &nats)),
        &[],
    );
    assert_eq!(wrong.code, Some(1));
    assert!(
        wrong.stderr.contains(&format!(
            "cannot connect to NATS at nats://{}",
            nats.address()
        )) && wrong.stderr.contains("authorization violation"),
        "{}",
        wrong.stderr
    );
    assert!(!wrong.stderr.contains("hunter2"), "{}", wrong.stderr);

    // Without credentials nobody gets in: neither a coordinator nor a worker.
    let anonymous = run_into(cwd, &hello, "anonymous", Some(&nats.url()), &[]);
    assert_eq!(anonymous.code, Some(1), "{}", anonymous.stdout);
    assert!(
        anonymous.stderr.contains("authorization violation"),
        "{}",
        anonymous.stderr
    );
    let mut stranger = Worker::spawn(cwd, &nats.url(), "w2", &["--trust-any"], &[]);
    assert_eq!(
        stranger.exit_code(Duration::from_secs(30)),
        Some(1),
        "{}",
        worker_log(cwd, "w2")
    );
    assert!(
        worker_log(cwd, "w2").contains("authorization violation"),
        "{}",
        worker_log(cwd, "w2")
    );
}

#[test]
fn a_token_and_an_nkey_are_taken_as_nats_takes_them() {
    let token = "t0ken-4-bench";
    let nats = NatsServer::with_config(&format!("authorization {{ token: \"{token}\" }}"), &[]);
    let tmp = TempDir::new().unwrap();
    let with_token = url_with(token, &nats);
    a_run_with(
        tmp.path(),
        (&with_token, &[]),
        (&with_token, &[], &[]),
        &[token],
    );

    let user = nkeys::KeyPair::new_user();
    let config = format!(
        "authorization {{ users: [ {{ nkey: \"{}\" }} ] }}",
        user.public_key()
    );
    let nats = NatsServer::with_config(&config, &[]);
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let seed = user.seed().unwrap();
    std::fs::write(cwd.join("user.nk"), format!("{seed}\n")).unwrap();
    let flags = ["--nats-nkey", "user.nk"];
    a_run_with(
        cwd,
        (&nats.url(), &flags),
        (&nats.url(), &flags, &[]),
        &[&seed],
    );
    let refused = run_into(cwd, &example("rust-hello"), "plain", Some(&nats.url()), &[]);
    assert_eq!(
        refused.code,
        Some(1),
        "a server asking for an nkey refuses anyone else"
    );
}

/// A NATS JWT of `claims` signed by `issuer`.
fn jwt(issuer: &nkeys::KeyPair, subject: &str, name: &str, nats: Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(json!({"typ": "JWT", "alg": "ed25519-nkey"}).to_string());
    let claims = json!({
        "jti": format!("{name}-{subject}"), "iat": 1_700_000_000, "iss": issuer.public_key(),
        "name": name, "sub": subject, "nats": nats,
    });
    let body = format!("{header}.{}", URL_SAFE_NO_PAD.encode(claims.to_string()));
    let signature = URL_SAFE_NO_PAD.encode(issuer.sign(body.as_bytes()).unwrap());
    format!("{body}.{signature}")
}

#[test]
fn a_creds_file_of_an_operator_mode_server_is_taken() {
    let operator = nkeys::KeyPair::new_operator();
    let account = nkeys::KeyPair::new_account();
    let system = nkeys::KeyPair::new_account();
    let user = nkeys::KeyPair::new_user();
    let unlimited = json!({
        "subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1, "wildcards": true,
        "conn": -1, "leaf": -1, "mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1
    });
    let operator_jwt = jwt(
        &operator,
        &operator.public_key(),
        "bench-test",
        json!({"type": "operator", "version": 2}),
    );
    let account_jwt = jwt(
        &operator,
        &account.public_key(),
        "BENCH",
        json!({"limits": unlimited, "type": "account", "version": 2}),
    );
    let system_jwt = jwt(
        &operator,
        &system.public_key(),
        "SYS",
        json!({"type": "account", "version": 2}),
    );
    let user_jwt = jwt(
        &account,
        &user.public_key(),
        "bench",
        json!({"pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1, "type": "user", "version": 2}),
    );
    let config = format!(
        "operator: \"{operator_jwt}\"\nsystem_account: \"{}\"\nresolver: MEMORY\nresolver_preload: {{\n  {}: \"{account_jwt}\"\n  {}: \"{system_jwt}\"\n}}\n",
        system.public_key(),
        account.public_key(),
        system.public_key()
    );
    let nats = NatsServer::with_config(&config, &[]);
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let seed = user.seed().unwrap();
    let creds = format!(
        "-----BEGIN NATS USER JWT-----\n{user_jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n"
    );
    let path = cwd.join("bench.creds");
    std::fs::write(&path, creds).unwrap();
    let path = path.to_str().unwrap();
    // The coordinator by flag, the worker from NATS_CREDS.
    a_run_with(
        cwd,
        (&nats.url(), &["--nats-creds", path]),
        (&nats.url(), &[], &[("NATS_CREDS", path)]),
        &[&seed],
    );
}

#[test]
fn tls_with_a_client_certificate_is_taken_and_needed() {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "bench test CA");
    let ca_key = KeyPair::generate().unwrap();
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let write = |name: &str, text: String| {
        let path = cwd.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let ca_file = write("ca.pem", ca.pem());
    let signed = |names: Vec<String>, file: &str| {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &issuer)
            .unwrap();
        (
            write(&format!("{file}.pem"), cert.pem()),
            write(&format!("{file}-key.pem"), key.serialize_pem()),
        )
    };
    let (server_cert, server_key) = signed(vec!["127.0.0.1".into(), "localhost".into()], "server");
    let (client_cert, client_key) = signed(vec!["bench-client".into()], "client");
    let config = format!(
        "tls {{\n  cert_file: \"{server_cert}\"\n  key_file: \"{server_key}\"\n  ca_file: \"{ca_file}\"\n  verify: true\n}}\n"
    );
    let nats = NatsServer::with_config(&config, &[]);
    let url = format!("tls://{}", nats.address());
    let flags = [
        "--nats-ca",
        &ca_file,
        "--nats-cert",
        &client_cert,
        "--nats-key",
        &client_key,
    ];
    a_run_with(cwd, (&url, &flags), (&url, &flags, &[]), &[]);
    let without = run_into(
        cwd,
        &example("rust-hello"),
        "plain",
        Some(&url),
        &["--nats-ca", &ca_file],
    );
    assert_eq!(without.code, Some(1), "a client certificate is required");
    assert!(
        without
            .stderr
            .contains(&format!("cannot connect to NATS at {url}")),
        "{}",
        without.stderr
    );
}
