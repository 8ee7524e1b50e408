//! The memory of one sandbox, accounted as one sum: its linear memories and tables (wasmtime
//! asks before growing them) and the wasi:http fields it holds in the host
//! ([`super::http::fields`]). A sandbox stays within its memory limit, and all the sandboxes
//! of a run together within the run's host memory budget ([`HostMemory`]); a growth past
//! either fails the task with `memory_limit`, saying which bound it met.

use crate::sandbox::limits::{BoundExceeded, StopCode};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bytes a table element takes in the host.
const TABLE_ELEMENT_BYTES: usize = 8;

/// The host memory budget of a run: what all its sandboxes hold together.
#[derive(Debug)]
pub struct HostMemory {
    limit: Option<u64>,
    set_by: String,
    used: AtomicU64,
}

impl Default for HostMemory {
    fn default() -> Self {
        Self {
            limit: None,
            set_by: String::new(),
            used: AtomicU64::new(0),
        }
    }
}

impl HostMemory {
    /// A budget of `limit` bytes (`None`: unlimited) that `set_by` set (named when a
    /// sandbox meets it).
    pub fn new(limit: Option<u64>, set_by: impl Into<String>) -> Arc<Self> {
        Arc::new(Self {
            limit,
            set_by: set_by.into(),
            used: AtomicU64::new(0),
        })
    }

    /// What the sandboxes hold now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    fn try_charge(&self, bytes: u64) -> Result<(), u64> {
        let Some(limit) = self.limit else {
            self.used.fetch_add(bytes, Ordering::Relaxed);
            return Ok(());
        };
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|total| *total <= limit)
            })
            .map(drop)
    }

    fn release(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// What grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grown {
    /// A linear memory, counted in bytes.
    LinearMemory,
    /// A table, counted in elements.
    Table,
}

/// What one sandbox holds, against its memory limit and the run's budget.
#[derive(Debug)]
pub(crate) struct SandboxMemory {
    limit: usize,
    /// Linear memories and tables.
    guest: usize,
    /// wasi:http fields held in the host (at most this much since the last recount).
    fields: usize,
    host: Arc<HostMemory>,
}

impl SandboxMemory {
    /// A sandbox of at most `limit` bytes in the run's `host` budget.
    pub(crate) fn new(limit: usize, host: Arc<HostMemory>) -> Self {
        Self {
            limit,
            guest: 0,
            fields: 0,
            host,
        }
    }

    /// A linear memory (in bytes) or a table (in elements) grows from `current` to
    /// `desired`; `recount` says how many bytes of fields the sandbox really holds, when an
    /// estimate does not fit.
    pub(crate) fn grow(
        &mut self,
        what: Grown,
        current: usize,
        desired: usize,
        recount: impl FnOnce() -> usize,
    ) -> Result<(), BoundExceeded> {
        let (unit, name) = match what {
            Grown::LinearMemory => (1, "its linear memory"),
            Grown::Table => (TABLE_ELEMENT_BYTES, "a table"),
        };
        let growth = desired.saturating_sub(current).saturating_mul(unit);
        self.charge(growth, name, recount)?;
        self.guest += growth;
        Ok(())
    }

    /// The guest adds `bytes` of wasi:http fields in the host.
    pub(crate) fn add_fields(
        &mut self,
        bytes: usize,
        recount: impl FnOnce() -> usize,
    ) -> Result<(), BoundExceeded> {
        self.charge(bytes, "its HTTP header fields (held in the host)", recount)?;
        self.fields += bytes;
        Ok(())
    }

    /// `bytes` counted by [`Self::add_fields`] were not added after all.
    pub(crate) fn remove_fields(&mut self, bytes: usize) {
        let bytes = bytes.min(self.fields);
        self.fields -= bytes;
        self.host.release(bytes as u64);
    }

    fn total(&self) -> usize {
        self.guest.saturating_add(self.fields)
    }

    /// Counts `bytes` more, recounting the fields once when they do not fit.
    fn charge(
        &mut self,
        bytes: usize,
        what: &str,
        recount: impl FnOnce() -> usize,
    ) -> Result<(), BoundExceeded> {
        let mut fitted = self.fits(bytes);
        if fitted.is_err() {
            let held = recount().min(self.fields);
            self.remove_fields(self.fields - held);
            fitted = self.fits(bytes);
        }
        fitted.map_err(|bound| BoundExceeded {
            code: StopCode::MemoryLimit,
            message: format!(
                "task exceeded its memory limit: growing {what} by {bytes} bytes {bound} \
                 (the sandbox holds {} bytes of linear memory and tables and {} bytes of HTTP \
                 fields)",
                self.guest, self.fields
            ),
        })?;
        Ok(())
    }

    /// Counts `bytes` against both bounds (the run's budget is charged when they fit), or
    /// says which one they would cross.
    fn fits(&mut self, bytes: usize) -> Result<(), String> {
        if self.total().saturating_add(bytes) > self.limit {
            return Err(format!(
                "would pass the sandbox's memory limit of {} bytes",
                self.limit
            ));
        }
        self.host.try_charge(bytes as u64).map_err(|used| {
            format!(
                "would pass the run's host memory budget of {} bytes for all sandboxes ({} held \
                 now; set by {}, raise it with --max-host-memory)",
                self.host.limit.unwrap_or(u64::MAX),
                used,
                self.host.set_by
            )
        })
    }
}

impl Drop for SandboxMemory {
    fn drop(&mut self) {
        self.host.release(self.total() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_grows_within_its_limit_and_gives_its_memory_back() {
        let host = HostMemory::new(Some(1000), "--max-host-memory");
        let mut sandbox = SandboxMemory::new(600, host.clone());
        sandbox.grow(Grown::LinearMemory, 0, 400, || 0).unwrap();
        sandbox.add_fields(100, || 0).unwrap();
        let error = sandbox
            .grow(Grown::LinearMemory, 400, 501, || 100)
            .unwrap_err();
        assert_eq!(error.code, StopCode::MemoryLimit);
        assert!(
            error.message.starts_with(
                "task exceeded its memory limit: growing its linear memory by 101 bytes would \
                 pass the sandbox's memory limit of 600 bytes"
            ),
            "{}",
            error.message
        );
        assert_eq!(host.used(), 500);
        drop(sandbox);
        assert_eq!(host.used(), 0);
    }

    #[test]
    fn fields_the_guest_dropped_are_recounted_before_a_growth_fails() {
        let host = HostMemory::new(None, "");
        let mut sandbox = SandboxMemory::new(1000, host.clone());
        sandbox.add_fields(900, || 0).unwrap();
        sandbox.grow(Grown::LinearMemory, 0, 500, || 200).unwrap();
        assert_eq!(host.used(), 700);
    }

    #[test]
    fn sandboxes_together_stay_within_the_host_budget() {
        let host = HostMemory::new(Some(1000), "BENCH_MAX_HOST_MEMORY");
        let mut first = SandboxMemory::new(800, host.clone());
        let mut second = SandboxMemory::new(800, host.clone());
        first.grow(Grown::LinearMemory, 0, 700, || 0).unwrap();
        let error = second.grow(Grown::Table, 0, 50, || 0).unwrap_err();
        assert!(
            error
                .message
                .contains("would pass the run's host memory budget of 1000 bytes for all sandboxes (700 held now; set by BENCH_MAX_HOST_MEMORY"),
            "{}",
            error.message
        );
        drop(first);
        second.grow(Grown::Table, 0, 50, || 0).unwrap();
        assert_eq!(host.used(), 400);
    }
}
