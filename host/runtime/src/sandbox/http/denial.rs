//! Denied requests: why each was denied, the console notice (once per destination for the
//! run) and the participant-log lines of the task that asked.

use super::address::SpecialRange;
use super::destination::{Destination, Refusal};
use std::collections::HashSet;
use std::fmt;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// Distinct console notices one run prints; the rest go to the participant logs only.
const MAX_NOTICES: usize = 1_000;

/// Denials one task lists in its participant log; the rest are counted.
const MAX_LOGGED_PER_TASK: usize = 100;

/// Why a request is not sent: no destination at all, or a denied one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Undeliverable {
    /// No host: not a request anyone could send.
    Invalid,
    /// Denied: on its face (userinfo, another scheme), by the allowlist or by its address.
    Denied(Denial),
}

/// A URI refused while parsing its destination is denied on its face.
impl From<Refusal> for Undeliverable {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Invalid => Self::Invalid,
            Refusal::Userinfo(destination) => Self::Denied(Denial::userinfo(&destination)),
            Refusal::Scheme(destination) => Self::Denied(Denial::unsupported_scheme(&destination)),
        }
    }
}

/// One denied request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Denial {
    destination: String,
    /// Why, when it is not simply "the allowlist does not name it".
    why: Option<String>,
    /// The `--allow-host` value that would allow it, when there is one.
    allow_with: Option<String>,
}

impl Denial {
    /// No rule of the allowlist matches the destination.
    pub(crate) fn not_allowed(destination: &Destination) -> Self {
        Self {
            destination: destination.to_string(),
            why: None,
            allow_with: Some(destination.to_string()),
        }
    }

    /// The URL's authority carries userinfo (never repeated: it may be a credential).
    pub(crate) fn userinfo(destination: &Destination) -> Self {
        Self {
            destination: destination.to_string(),
            why: Some("the URL carries userinfo (name@host), which bench never sends".into()),
            allow_with: None,
        }
    }

    /// A scheme other than http and https.
    pub(crate) fn unsupported_scheme(destination: &str) -> Self {
        Self {
            destination: destination.to_owned(),
            why: Some("bench sends only http and https".into()),
            allow_with: None,
        }
    }

    /// The destination's only addresses are in a range no rule names explicitly.
    pub(crate) fn special_address(
        destination: &Destination,
        address: IpAddr,
        range: SpecialRange,
    ) -> Self {
        let address = address.to_canonical();
        let host = match address {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
        };
        Self {
            destination: destination.to_string(),
            why: Some(format!(
                "{address} is {range}, reachable only through a rule naming that address"
            )),
            allow_with: Some(format!(
                "{}://{host}:{}",
                destination.scheme.as_str(),
                destination.port
            )),
        }
    }

    /// The console line.
    pub(crate) fn notice(&self) -> String {
        match &self.allow_with {
            Some(rule) => format!("denied request to {self} (allow it with --allow-host {rule})"),
            None => format!("denied request to {self}"),
        }
    }
}

/// The destination, then why it was denied when that is not the allowlist
/// (`http://h:80: 10.0.0.1 is a private address…`).
impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.destination)?;
        if let Some(why) = &self.why {
            write!(f, ": {why}")?;
        }
        Ok(())
    }
}

/// Says once per distinct denial, for the whole run, that a request was denied.
#[derive(Debug, Default)]
pub struct DenialNotices {
    printed: Mutex<HashSet<String>>,
}

impl DenialNotices {
    fn report(&self, denial: &Denial) {
        let notice = denial.notice();
        let mut printed = self.printed.lock().unwrap_or_else(PoisonError::into_inner);
        if printed.len() >= MAX_NOTICES || printed.contains(&notice) {
            return;
        }
        eprintln!("{notice}");
        printed.insert(notice);
        if printed.len() == MAX_NOTICES {
            eprintln!("further denied requests are listed in the participant logs only");
        }
    }
}

/// The denials of one sandbox's running task, and the run's notices.
#[derive(Debug, Clone)]
pub(crate) struct DenialLog {
    notices: Arc<DenialNotices>,
    task: Arc<Mutex<TaskDenials>>,
}

#[derive(Debug, Default)]
struct TaskDenials {
    listed: Vec<String>,
    unlisted: usize,
}

impl DenialLog {
    pub(crate) fn new(notices: Arc<DenialNotices>) -> Self {
        Self {
            notices,
            task: Arc::default(),
        }
    }

    /// Prints the notice (once per run) and keeps the denial for the task's log.
    pub(crate) fn record(&self, denial: &Denial) {
        self.notices.report(denial);
        let mut task = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        if task.listed.len() < MAX_LOGGED_PER_TASK {
            task.listed.push(denial.to_string());
        } else {
            task.unlisted += 1;
        }
    }

    /// Takes what was denied since the last call, one entry per request (after the first
    /// hundred, one entry counting the rest).
    pub(crate) fn take(&self) -> Vec<String> {
        let mut task = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        let mut listed = std::mem::take(&mut task.listed);
        let unlisted = std::mem::take(&mut task.unlisted);
        if unlisted > 0 {
            listed.push(format!("… and {unlisted} more (not listed)"));
        }
        listed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn destination(uri: &str) -> Destination {
        Destination::of(&uri.parse().unwrap()).unwrap()
    }

    #[test]
    fn each_reason_reads_as_one_line() {
        let plain = Denial::not_allowed(&destination("http://127.0.0.1:8080/"));
        assert_eq!(
            plain.notice(),
            "denied request to http://127.0.0.1:8080 (allow it with --allow-host http://127.0.0.1:8080)"
        );
        assert_eq!(plain.to_string(), "http://127.0.0.1:8080");
        let private = Denial::special_address(
            &destination("http://metadata.test/"),
            "169.254.169.254".parse().unwrap(),
            SpecialRange::LinkLocal,
        );
        assert_eq!(
            private.notice(),
            "denied request to http://metadata.test:80: 169.254.169.254 is a link-local \
             address, reachable only through a rule naming that address (allow it with \
             --allow-host http://169.254.169.254:80)"
        );
        let mapped = Denial::special_address(
            &destination("https://[::ffff:10.0.0.1]/"),
            "::ffff:10.0.0.1".parse().unwrap(),
            SpecialRange::Private,
        );
        assert!(
            mapped
                .notice()
                .ends_with("--allow-host https://10.0.0.1:443)"),
            "{}",
            mapped.notice()
        );
    }

    #[test]
    fn a_refused_uri_is_denied_on_its_face_without_its_userinfo() {
        let refused = |uri: &str| {
            let refusal = Destination::of(&uri.parse().unwrap()).unwrap_err();
            match Undeliverable::from(refusal) {
                Undeliverable::Denied(denial) => denial,
                Undeliverable::Invalid => panic!("{uri} is a denial"),
            }
        };
        let denial = refused("https://user:secret@example.com:8443/x");
        assert_eq!(
            denial.to_string(),
            "https://example.com:8443: the URL carries userinfo (name@host), which bench never sends"
        );
        assert_eq!(denial.notice(), format!("denied request to {denial}"));
        assert_eq!(
            refused("ftp://example.com/").to_string(),
            "ftp://example.com:80: bench sends only http and https"
        );
        let invalid = Destination::of(&"/no/host".parse().unwrap()).unwrap_err();
        assert_eq!(Undeliverable::from(invalid), Undeliverable::Invalid);
    }

    #[test]
    fn a_task_lists_a_bounded_number_of_denials() {
        let log = DenialLog::new(Arc::default());
        let denial = Denial::not_allowed(&destination("http://example.test/"));
        for _ in 0..MAX_LOGGED_PER_TASK + 5 {
            log.record(&denial);
        }
        let taken = log.take();
        assert_eq!(taken.len(), MAX_LOGGED_PER_TASK + 1);
        assert_eq!(taken[0], "http://example.test:80");
        assert_eq!(taken[MAX_LOGGED_PER_TASK], "… and 5 more (not listed)");
        assert!(log.take().is_empty(), "taken once");
    }
}
