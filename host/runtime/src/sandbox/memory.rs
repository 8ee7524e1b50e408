//! The memory of one sandbox, accounted as one sum: its linear memories and tables (wasmtime
//! asks before growing them), the wasi:http fields it holds in the host
//! ([`super::http::fields`]) and the host buffers it makes the host hold for it (WebSocket
//! messages queued either way, the inputs, outputs and live objects of natives calls, a body
//! read whole), each buffer reserved before it is filled and released when it is consumed
//! or dropped ([`Reservation`]). A sandbox stays within its memory limit, and all the sandboxes of a run
//! together within the run's host memory budget ([`HostMemory`]); a growth past either fails
//! with `memory_limit`, saying which bound it met.

use crate::sandbox::limits::{BoundExceeded, StopCode};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// Bytes a table element takes in the host.
const TABLE_ELEMENT_BYTES: usize = 8;

/// Fields counted since the last recount past which a task's end recounts them (or an
/// eighth of what the last recount found held, when more): a recount walks every resource
/// the sandbox holds, so it is paid once per so many bytes of new fields, not per task.
const RECOUNT_AFTER_BYTES: usize = 16 << 10;

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

    /// Bytes the sandboxes may still take together.
    pub(crate) fn room(&self) -> u64 {
        self.limit
            .map_or(u64::MAX, |limit| limit.saturating_sub(self.used()))
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

/// What one sandbox holds, against its memory limit and the run's budget. Shared (behind an
/// `Arc`) by the sandbox's store and what buffers for it beside the guest (a WebSocket
/// connection's I/O task).
#[derive(Debug)]
pub(crate) struct SandboxMemory {
    limit: usize,
    /// Everything counted: linear memories and tables, fields and host buffers.
    total: AtomicUsize,
    /// Linear memories and tables.
    guest: AtomicUsize,
    /// wasi:http fields held in the host (at most this much since the last recount).
    fields: AtomicUsize,
    /// `fields` just after the last recount, and the fields that recount found held.
    fields_at_recount: AtomicUsize,
    held_at_recount: AtomicUsize,
    host: Arc<HostMemory>,
}

impl SandboxMemory {
    /// A sandbox of at most `limit` bytes in the run's `host` budget.
    pub(crate) fn new(limit: usize, host: Arc<HostMemory>) -> Arc<Self> {
        Arc::new(Self {
            limit,
            total: AtomicUsize::new(0),
            guest: AtomicUsize::new(0),
            fields: AtomicUsize::new(0),
            fields_at_recount: AtomicUsize::new(0),
            held_at_recount: AtomicUsize::new(0),
            host,
        })
    }

    /// A sandbox with no bound of its own in an unlimited budget.
    #[cfg(test)]
    pub(crate) fn unlimited() -> Arc<Self> {
        Self::new(usize::MAX, Arc::default())
    }

    /// A linear memory (in bytes) or a table (in elements) grows from `current` to
    /// `desired`; `recount` says how many bytes of fields the sandbox really holds, when an
    /// estimate does not fit.
    pub(crate) fn grow(
        &self,
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
        self.charge(growth, name, Some(recount))?;
        self.guest.fetch_add(growth, Ordering::Relaxed);
        Ok(())
    }

    /// The guest adds `bytes` of wasi:http fields in the host.
    pub(crate) fn add_fields(
        &self,
        bytes: usize,
        recount: impl FnOnce() -> usize,
    ) -> Result<(), BoundExceeded> {
        self.charge(
            bytes,
            "its HTTP header fields (held in the host)",
            Some(recount),
        )?;
        self.fields.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// `bytes` counted by [`Self::add_fields`] were not added after all.
    pub(crate) fn remove_fields(&self, bytes: usize) {
        let bytes = bytes.min(self.fields.load(Ordering::Relaxed));
        self.fields.fetch_sub(bytes, Ordering::Relaxed);
        self.release(bytes);
    }

    /// The sandbox really holds `held()` bytes of fields: what the estimate has above that is
    /// given back. Nothing is recounted while no fields are counted.
    pub(crate) fn recount_fields(&self, held: impl FnOnce() -> usize) {
        let counted = self.fields.load(Ordering::Relaxed);
        if counted > 0 {
            let held = held();
            self.remove_fields(counted.saturating_sub(held));
            self.held_at_recount.store(held, Ordering::Relaxed);
            self.fields_at_recount
                .store(self.fields.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }

    /// [`Self::recount_fields`] once enough fields were counted since the last recount
    /// ([`RECOUNT_AFTER_BYTES`], or an eighth of what it found held): what a sandbox has
    /// dropped is given back within that much, at a cost that does not grow with every task
    /// while the guest keeps many fields alive.
    pub(crate) fn recount_fields_when_due(&self, held: impl FnOnce() -> usize) {
        let since = self
            .fields
            .load(Ordering::Relaxed)
            .saturating_sub(self.fields_at_recount.load(Ordering::Relaxed));
        let due = RECOUNT_AFTER_BYTES.max(self.held_at_recount.load(Ordering::Relaxed) / 8);
        if since >= due {
            self.recount_fields(held);
        }
    }

    /// Reserves `bytes` of a host buffer holding `what` for the guest, counted until the
    /// reservation is dropped.
    pub(crate) fn reserve(
        self: &Arc<Self>,
        bytes: usize,
        what: &str,
    ) -> Result<Reservation, BoundExceeded> {
        let mut reservation = Reservation {
            memory: self.clone(),
            bytes: 0,
        };
        reservation.grow(bytes, what)?;
        Ok(reservation)
    }

    /// Everything the sandbox holds now.
    pub(crate) fn held(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }

    /// Bytes the sandbox may still take before it meets either bound.
    pub(crate) fn room(&self) -> usize {
        let own = self
            .limit
            .saturating_sub(self.total.load(Ordering::Relaxed));
        let run = usize::try_from(self.host.room()).unwrap_or(usize::MAX);
        own.min(run)
    }

    /// Counts `bytes` more, recounting the fields once (when the caller can) if they do not
    /// fit.
    fn charge(
        &self,
        bytes: usize,
        what: &str,
        recount: Option<impl FnOnce() -> usize>,
    ) -> Result<(), BoundExceeded> {
        let mut fitted = self.fits(bytes);
        if let (Err(_), Some(recount)) = (&fitted, recount) {
            self.recount_fields(recount);
            fitted = self.fits(bytes);
        }
        fitted.map_err(|bound| {
            let guest = self.guest.load(Ordering::Relaxed);
            let fields = self.fields.load(Ordering::Relaxed);
            let buffers = self
                .total
                .load(Ordering::Relaxed)
                .saturating_sub(guest + fields);
            BoundExceeded {
                code: StopCode::MemoryLimit,
                message: format!(
                    "task exceeded its memory limit: growing {what} by {bytes} bytes {bound} \
                     (the sandbox holds {guest} bytes of linear memory and tables, {fields} \
                     bytes of HTTP fields and {buffers} bytes of host buffers)"
                ),
            }
        })
    }

    /// Counts `bytes` against both bounds (the run's budget is charged when they fit), or
    /// says which one they would cross.
    fn fits(&self, bytes: usize) -> Result<(), String> {
        self.total
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |total| {
                total
                    .checked_add(bytes)
                    .filter(|total| *total <= self.limit)
            })
            .map_err(|_| {
                format!(
                    "would pass the sandbox's memory limit of {} bytes",
                    self.limit
                )
            })?;
        self.host.try_charge(bytes as u64).map_err(|used| {
            self.total.fetch_sub(bytes, Ordering::Relaxed);
            format!(
                "would pass the run's host memory budget of {} bytes for all sandboxes ({} held \
                 now; set by {}, raise it with --max-host-memory)",
                self.host.limit.unwrap_or(u64::MAX),
                used,
                self.host.set_by
            )
        })
    }

    fn release(&self, bytes: usize) {
        self.total.fetch_sub(bytes, Ordering::Relaxed);
        self.host.release(bytes as u64);
    }
}

impl Drop for SandboxMemory {
    fn drop(&mut self) {
        self.host.release(*self.total.get_mut() as u64);
    }
}

/// Bytes of a host buffer counted against its sandbox's memory ([`SandboxMemory::reserve`]):
/// they count until the reservation shrinks or is dropped.
#[derive(Debug)]
pub(crate) struct Reservation {
    memory: Arc<SandboxMemory>,
    bytes: usize,
}

impl Reservation {
    /// An empty reservation in the sandbox of `memory`.
    pub(crate) fn empty(memory: &Arc<SandboxMemory>) -> Self {
        Self {
            memory: memory.clone(),
            bytes: 0,
        }
    }

    /// Counts `bytes` more of the buffer holding `what`, or says which bound they would cross.
    pub(crate) fn grow(&mut self, bytes: usize, what: &str) -> Result<(), BoundExceeded> {
        self.memory.charge(bytes, what, None::<fn() -> usize>)?;
        self.bytes += bytes;
        Ok(())
    }

    /// Gives back `bytes` (at most what is reserved).
    pub(crate) fn shrink(&mut self, bytes: usize) {
        let bytes = bytes.min(self.bytes);
        self.bytes -= bytes;
        self.memory.release(bytes);
    }

    /// Gives back all but `bytes`.
    pub(crate) fn shrink_to(&mut self, bytes: usize) {
        self.shrink(self.bytes.saturating_sub(bytes));
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.memory.release(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_grows_within_its_limit_and_gives_its_memory_back() {
        let host = HostMemory::new(Some(1000), "--max-host-memory");
        let sandbox = SandboxMemory::new(600, host.clone());
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
        let sandbox = SandboxMemory::new(1000, host.clone());
        sandbox.add_fields(900, || 0).unwrap();
        sandbox.grow(Grown::LinearMemory, 0, 500, || 200).unwrap();
        assert_eq!(host.used(), 700);
    }

    #[test]
    fn sandboxes_together_stay_within_the_host_budget() {
        let host = HostMemory::new(Some(1000), "BENCH_MAX_HOST_MEMORY");
        let first = SandboxMemory::new(800, host.clone());
        let second = SandboxMemory::new(800, host.clone());
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

    #[test]
    fn host_buffers_count_against_both_bounds_until_released() {
        let host = HostMemory::new(Some(1000), "--max-host-memory");
        let sandbox = SandboxMemory::new(600, host.clone());
        sandbox.grow(Grown::LinearMemory, 0, 300, || 0).unwrap();
        let mut queued = sandbox.reserve(200, "its queued messages").unwrap();
        let error = sandbox.reserve(101, "a natives call's input").unwrap_err();
        assert_eq!(error.code, StopCode::MemoryLimit);
        assert_eq!(
            error.message,
            "task exceeded its memory limit: growing a natives call's input by 101 bytes would \
             pass the sandbox's memory limit of 600 bytes (the sandbox holds 300 bytes of \
             linear memory and tables, 0 bytes of HTTP fields and 200 bytes of host buffers)"
        );
        assert_eq!(sandbox.room(), 100);
        assert!(
            sandbox.grow(Grown::LinearMemory, 300, 401, || 0).is_err(),
            "buffers leave the guest less room"
        );
        queued.shrink(150);
        assert_eq!(host.used(), 350);
        queued.grow(250, "its queued messages").unwrap();
        queued.shrink_to(10);
        assert_eq!(host.used(), 310);
        drop(queued);
        assert_eq!(host.used(), 300);

        let other = SandboxMemory::new(800, host.clone());
        assert_eq!(other.room(), 700, "the run's budget is the nearer bound");
        let error = other.reserve(701, "its queued messages").unwrap_err();
        assert!(
            error
                .message
                .contains("would pass the run's host memory budget of 1000 bytes"),
            "{}",
            error.message
        );
        let mut held = Reservation::empty(&other);
        held.grow(700, "its queued messages").unwrap();
        assert_eq!(host.used(), 1000);
        drop(sandbox);
        assert_eq!(
            host.used(),
            700,
            "a sandbox gives its memory back when it ends"
        );
        drop(held);
        drop(other);
        assert_eq!(host.used(), 0);
    }

    #[test]
    fn a_task_end_recounts_once_enough_fields_were_counted_since_the_last_recount() {
        let sandbox = SandboxMemory::unlimited();
        let never = || -> usize { panic!("recounted before it was due") };
        sandbox.add_fields(1000, || 0).unwrap();
        sandbox.recount_fields_when_due(never);
        sandbox.add_fields(RECOUNT_AFTER_BYTES, || 0).unwrap();
        sandbox.recount_fields_when_due(|| 0);
        assert_eq!(sandbox.fields.load(Ordering::Relaxed), 0, "all given back");
        // The guest keeps 800 KiB of fields alive: the next recount waits for 100 KiB more.
        sandbox.add_fields(800 << 10, || 0).unwrap();
        sandbox.recount_fields_when_due(|| 800 << 10);
        sandbox.add_fields(90 << 10, || 0).unwrap();
        sandbox.recount_fields_when_due(never);
        sandbox.add_fields(10 << 10, || 0).unwrap();
        sandbox.recount_fields_when_due(|| 800 << 10);
        assert_eq!(sandbox.fields.load(Ordering::Relaxed), 800 << 10);
    }

    #[test]
    fn a_recount_gives_back_fields_the_guest_dropped() {
        let sandbox = SandboxMemory::new(1000, HostMemory::new(None, ""));
        sandbox.add_fields(900, || 0).unwrap();
        assert!(
            sandbox.reserve(200, "x").is_err(),
            "a reservation cannot recount"
        );
        sandbox.recount_fields(|| 100);
        assert!(sandbox.reserve(200, "x").is_ok());
    }

    #[test]
    fn nothing_is_recounted_while_no_fields_are_counted() {
        let sandbox = SandboxMemory::unlimited();
        sandbox.recount_fields(|| panic!("the table was walked with no fields counted"));
        sandbox.add_fields(10, || 0).unwrap();
        let mut walked = false;
        sandbox.recount_fields(|| {
            walked = true;
            10
        });
        assert!(walked);
    }
}
