//! The upstream console lines (spec §3.6), written to stdout through a buffer that is
//! flushed at least every [`FLUSH_INTERVAL`], so a 100 000-task run is not bound by
//! terminal writes. Text a task controls is shown through [`escape_control`].

use bench_model::js;
use bench_model::record::TaskRecord;
use bench_model::text::escape_control;
use std::borrow::Cow;
use std::io::{BufWriter, Stdout, Write};
use std::time::{Duration, Instant};

/// Longest time a printed line may wait in the buffer.
const FLUSH_INTERVAL: Duration = Duration::from_millis(50);

/// The banner line: 70 `=`.
const BANNER: &str = "======================================================================";

/// What the header prints.
#[derive(Debug, Clone)]
pub struct Header<'a> {
    /// The benchmark name.
    pub benchmark_name: &'a str,
    /// ISO start time.
    pub date: &'a str,
    /// `--no-ingest` / `--dry-run` given.
    pub dry_run: bool,
    /// Schedule length.
    pub iterations: usize,
    /// Resolved concurrency.
    pub concurrency: u32,
    /// Resolved stagger.
    pub stagger_delay_ms: f64,
    /// `participant` or `round`.
    pub group_by: &'a str,
}

/// Buffered console output.
pub struct Console {
    out: BufWriter<Stdout>,
    last_flush: Instant,
    quiet: bool,
    task_lines: bool,
    color: bool,
}

impl Default for Console {
    fn default() -> Self {
        Self {
            out: BufWriter::with_capacity(64 * 1024, std::io::stdout()),
            last_flush: Instant::now(),
            quiet: false,
            task_lines: true,
            color: false,
        }
    }
}

impl Console {
    /// A console that leaves out the run's progress (header, participant banners, task
    /// lines, per-participant tallies): `--quiet`. Other lines print as usual.
    pub fn quiet() -> Self {
        let mut console = Self::default();
        console.quiet = true;
        console
    }

    /// A console without the per-task lines, for a terminal where a progress bar shows them.
    pub fn without_task_lines() -> Self {
        let mut console = Self::default();
        console.task_lines = false;
        console
    }

    /// This console with the summary's status columns coloured (`--color`) or not (the
    /// default).
    pub fn with_color(mut self, color: bool) -> Self {
        self.color = color;
        self
    }

    /// Whether the summary's status columns are coloured.
    pub(crate) fn colors(&self) -> bool {
        self.color
    }

    /// Prints a line as is.
    pub fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}");
        self.flush_if_due();
    }

    /// Prints a warning on stderr (stdout keeps upstream's lines) after what stdout has so
    /// far, so a terminal shows it under the lines it is about; none with `--quiet`.
    pub fn warning(&mut self, text: &str) {
        if !self.quiet {
            self.flush();
            eprintln!("{text}");
        }
    }

    /// The run header, through the blank line after `Knobs:`.
    pub fn header(&mut self, header: &Header<'_>) {
        if self.quiet {
            return;
        }
        self.line(&format!(
            "{} (self-contained)",
            escape_control(header.benchmark_name)
        ));
        self.line(&format!("Date: {}", header.date));
        if header.dry_run {
            self.line("Dry run: no platform ingest or reporting.");
            self.line("");
        }
        self.line(&format!(
            "Knobs: iterations={}, concurrency={}, staggerDelayMs={}, groupBy={}",
            header.iterations,
            header.concurrency,
            js::number_to_string(header.stagger_delay_ms),
            header.group_by
        ));
        self.line("");
        self.flush();
    }

    /// The banner that opens a participant (participant mode).
    pub(crate) fn participant_banner(&mut self, participant: &str) {
        if self.quiet {
            return;
        }
        self.line(BANNER);
        self.line(&format!("  Participant: {}", escape_control(participant)));
        self.line(BANNER);
        self.flush();
    }

    /// `  [p] Task n/N: success {json}` or `  [p] Task n/N: FAILED — code` (`Task n` when
    /// the run is bounded by time, `total` 0).
    pub(crate) fn task_line(&mut self, participant: &str, record: &TaskRecord, total: usize) {
        if self.quiet || !self.task_lines {
            return;
        }
        let n = u64::from(record.task_index) + 1;
        let outcome = if record.is_success() {
            match &record.data {
                Some(data) if !data.is_empty() => {
                    let json = serde_json::to_string(data).unwrap_or_default();
                    Cow::Owned(format!("success {json}"))
                }
                _ => Cow::Borrowed("success"),
            }
        } else {
            Cow::Owned(format!("FAILED \u{2014} {}", record.error_label()))
        };
        let (participant, outcome) = (escape_control(participant), escape_control(&outcome));
        // Straight into the output buffer: no line of its own.
        let _ = if total == 0 {
            // A run bounded by time: its length is not known in advance.
            writeln!(self.out, "  [{participant}] Task {n}: {outcome}")
        } else {
            writeln!(self.out, "  [{participant}] Task {n}/{total}: {outcome}")
        };
        self.flush_if_due();
    }

    /// `  Done: x/y succeeded.` and a blank line.
    pub(crate) fn participant_done(&mut self, tasks: usize, succeeded: usize) {
        if self.quiet {
            return;
        }
        self.line(&format!("  Done: {succeeded}/{tasks} succeeded."));
        self.line("");
        self.flush();
    }

    /// `Interleaving P participant(s), R round(s) each.` and a blank line.
    pub(crate) fn rounds_started(&mut self, participants: usize, rounds: usize) {
        if self.quiet {
            return;
        }
        self.line(&format!(
            "Interleaving {participants} participant(s), {rounds} round(s) each."
        ));
        self.line("");
        self.flush();
    }

    /// `  <name>: done.` or `  <name>: done (with errors).`
    pub(crate) fn round_participant_done(&mut self, participant: &str, failed: bool) {
        if self.quiet {
            return;
        }
        let suffix = if failed { " (with errors)" } else { "" };
        self.line(&format!("  {}: done{suffix}.", escape_control(participant)));
    }

    /// Writes out everything buffered.
    pub fn flush(&mut self) {
        let _ = self.out.flush();
        self.last_flush = Instant::now();
    }

    fn flush_if_due(&mut self) {
        if self.last_flush.elapsed() >= FLUSH_INTERVAL {
            self.flush();
        }
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        self.flush();
    }
}
