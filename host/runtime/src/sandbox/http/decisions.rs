//! The outbound decisions of one sandbox, cached per destination as the guest wrote it (the
//! request URI's scheme and authority): a task sending to the same place again costs a
//! comparison, not a parse, a lowercase copy and a walk over the allowlist. The decision
//! depends on nothing else (the rules are fixed for the run), so a cached one is the one
//! [`HttpPolicy::judge`](super::HttpPolicy::judge) would give; the addresses are still
//! checked by the connector for every connection it opens.

use super::denial::Undeliverable;
use super::destination::Destination;
use std::sync::Arc;

/// Destinations remembered per sandbox; past this the oldest is forgotten.
const CAPACITY: usize = 16;

/// What the allowlist said about one destination.
pub(crate) type Decision = Result<Arc<Destination>, Undeliverable>;

/// The recent decisions of one sandbox.
#[derive(Debug, Default)]
pub(crate) struct DecisionCache {
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    scheme: Option<String>,
    authority: String,
    decision: Decision,
}

impl DecisionCache {
    /// The decision for `uri`: the cached one, or `decide(uri)` remembered.
    pub(crate) fn decide(
        &mut self,
        uri: &http::Uri,
        decide: impl FnOnce(&http::Uri) -> Decision,
    ) -> Decision {
        let scheme = uri.scheme_str();
        let authority = uri.authority().map_or("", |authority| authority.as_str());
        if let Some(entry) = self
            .entries
            .iter()
            .find(|entry| entry.authority == authority && entry.scheme.as_deref() == scheme)
        {
            return entry.decision.clone();
        }
        let decision = decide(uri);
        if self.entries.len() == CAPACITY {
            self.entries.remove(0);
        }
        self.entries.push(Entry {
            scheme: scheme.map(str::to_owned),
            authority: authority.to_owned(),
            decision: decision.clone(),
        });
        decision
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_destination_is_decided_once_and_told_apart_by_scheme_and_authority() {
        let mut cache = DecisionCache::default();
        let asked = Cell::new(0);
        let mut decide = |uri: &str| {
            cache
                .decide(&uri.parse().unwrap(), |uri| {
                    asked.set(asked.get() + 1);
                    Destination::of(uri).map(Arc::new).map_err(Into::into)
                })
                .map(|destination| destination.to_string())
        };
        assert_eq!(decide("http://a.test/x").unwrap(), "http://a.test:80");
        assert_eq!(decide("http://a.test/y?z").unwrap(), "http://a.test:80");
        assert_eq!(asked.get(), 1, "the path is not part of the destination");
        assert_eq!(decide("https://a.test/").unwrap(), "https://a.test:443");
        assert_eq!(decide("http://a.test:81/").unwrap(), "http://a.test:81");
        assert!(
            decide("http://u@a.test/").is_err(),
            "userinfo is its own entry"
        );
        assert!(decide("http://u@a.test/").is_err());
        assert_eq!(asked.get(), 4);
    }

    #[test]
    fn the_oldest_destination_is_forgotten_past_the_capacity() {
        let mut cache = DecisionCache::default();
        let asked = Cell::new(0);
        let mut decide = |port: usize| {
            let uri = format!("http://h.test:{port}/").parse().unwrap();
            drop(cache.decide(&uri, |uri| {
                asked.set(asked.get() + 1);
                Destination::of(uri).map(Arc::new).map_err(Into::into)
            }));
        };
        for port in 0..=CAPACITY {
            decide(port + 1);
        }
        decide(CAPACITY + 1);
        assert_eq!(asked.get(), CAPACITY + 1, "the newest is still there");
        decide(1);
        assert_eq!(asked.get(), CAPACITY + 2, "the first was forgotten");
    }
}
