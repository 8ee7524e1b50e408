//! The pool the heavy pages run on — a run's page and the compare page read every record of
//! their runs — so that one organization cannot stall the others: at most `slots` of them
//! at once on the server, and half of those (at least one) for one organization. A page that
//! finds its turn taken waits for it, behind at most [`MAX_WAITING`] others and for at most
//! [`MAX_WAIT`]; otherwise it is answered 503 with `Retry-After`.

use super::session::message_page;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Pages that may wait for a turn at once, on the whole server.
const MAX_WAITING: usize = 32;

/// Longest wait for a turn.
const MAX_WAIT: Duration = Duration::from_secs(30);

/// The seconds a refused page is told to wait before it asks again.
const RETRY_AFTER_SECONDS: u64 = 5;

/// The turns of heavy pages.
#[derive(Clone)]
pub(crate) struct Heavy {
    server: Arc<Semaphore>,
    org_slots: usize,
    orgs: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
    waiting: Arc<AtomicUsize>,
}

/// A heavy page's turn, held while it reads and computes.
pub(super) struct Turn {
    server: Option<OwnedSemaphorePermit>,
    org: Option<OwnedSemaphorePermit>,
    name: String,
    orgs: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

impl Heavy {
    /// At most `slots` heavy pages at once (at least one), half of them per organization.
    pub(crate) fn new(slots: usize) -> Self {
        let slots = slots.max(1);
        Self {
            server: Arc::new(Semaphore::new(slots)),
            org_slots: slots.div_ceil(2),
            orgs: Arc::new(Mutex::new(HashMap::new())),
            waiting: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// As many heavy pages at once as the machine has cores.
    pub(crate) fn for_this_machine() -> Self {
        Self::new(std::thread::available_parallelism().map_or(1, usize::from))
    }

    /// A turn of organization `org`, once its organization's and then the server's are
    /// free; the 503 page when too many pages wait or the wait is too long.
    pub(super) async fn turn(&self, org: &str) -> Result<Turn, Response> {
        let org_slots = {
            let mut orgs = self.orgs.lock().map_err(|_| busy())?;
            let slots = orgs
                .entry(org.to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(self.org_slots)));
            Arc::clone(slots)
        };
        let mut turn = Turn {
            server: None,
            org: None,
            name: org.to_owned(),
            orgs: Arc::clone(&self.orgs),
        };
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= MAX_WAITING {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(busy());
        }
        let server = Arc::clone(&self.server);
        let acquired = tokio::time::timeout(MAX_WAIT, async {
            let org = org_slots.acquire_owned().await.ok()?;
            let server = server.acquire_owned().await.ok()?;
            Some((org, server))
        })
        .await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let Ok(Some((org, server))) = acquired else {
            return Err(busy());
        };
        turn.org = Some(org);
        turn.server = Some(server);
        Ok(turn)
    }
}

impl Drop for Turn {
    /// Gives the turn back; an organization nobody waits for is forgotten.
    fn drop(&mut self) {
        self.server.take();
        self.org.take();
        if let Ok(mut orgs) = self.orgs.lock() {
            if orgs
                .get(&self.name)
                .is_some_and(|slots| Arc::strong_count(slots) == 1)
            {
                orgs.remove(&self.name);
            }
        }
    }
}

/// 503 with `Retry-After`: the heavy pages are all taken.
fn busy() -> Response {
    let mut page = message_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "The server is computing other large pages; try again in a few seconds.",
    );
    page.headers_mut().insert(
        header::RETRY_AFTER,
        header::HeaderValue::from(RETRY_AFTER_SECONDS),
    );
    page.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_organization_gets_half_the_turns_and_the_others_the_rest() {
        let heavy = Heavy::new(4);
        let first = heavy.turn("a").await.unwrap();
        let second = heavy.turn("a").await.unwrap();
        let third = tokio::time::timeout(Duration::from_millis(50), heavy.turn("a")).await;
        assert!(third.is_err(), "a third page of `a` waits");
        let other = tokio::time::timeout(Duration::from_millis(50), heavy.turn("b")).await;
        assert!(other.is_ok(), "`b` does not wait for `a`");
        drop((first, second));
        let again = tokio::time::timeout(Duration::from_millis(50), heavy.turn("a")).await;
        assert!(again.is_ok());
    }

    #[tokio::test]
    async fn too_many_waiting_pages_are_answered_503_with_retry_after() {
        let heavy = Heavy::new(1);
        let _held = heavy.turn("a").await.unwrap();
        let waiting: Vec<_> = (0..MAX_WAITING)
            .map(|_| {
                let heavy = heavy.clone();
                tokio::spawn(async move { heavy.turn("a").await.map(drop) })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let refused = heavy.turn("a").await.map(drop).unwrap_err();
        assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.headers()[header::RETRY_AFTER], "5");
        for task in waiting {
            task.abort();
        }
    }

    #[tokio::test]
    async fn a_forgotten_organization_leaves_nothing_behind() {
        let heavy = Heavy::new(2);
        drop(heavy.turn("gone").await.unwrap());
        assert!(heavy.orgs.lock().unwrap().is_empty());
    }
}
