//! Bounds on compiling a component, whose bytes are the task author's: the component's size
//! and each function's size are checked before Cranelift sees them (one huge function takes
//! minutes and gigabytes to compile), and compiling is bounded in time and in the memory it
//! adds to bench's own. Crossing a bound is an error naming it, who set it and the flag that
//! raises it.

use anyhow::Result;
use bench_model::ceilings::{Ceilings, LimitField, Setting};
use std::time::{Duration, Instant};
use wasmparser::{Parser, Payload};

/// A component or its compilation past the compile budget.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OverBudget {
    message: String,
    /// The compilation was abandoned while it runs on (it cannot be interrupted): the
    /// process should end.
    pub abandoned: bool,
}

/// Fails with [`OverBudget`] (`abandoned` when the compiler is left running).
macro_rules! over_budget {
    (abandoned: $abandoned:expr, $($message:tt)*) => {
        return Err(OverBudget { message: format!($($message)*), abandoned: $abandoned }.into())
    };
}

/// How often a compilation's time and memory are looked at.
const WATCH_INTERVAL: Duration = Duration::from_millis(20);

/// The operator's bounds on compiling one component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileBudget {
    component_bytes: Setting,
    function_bytes: Setting,
    time_ms: Setting,
    memory_bytes: Setting,
}

impl Default for CompileBudget {
    fn default() -> Self {
        Self::of(&Ceilings::default())
    }
}

impl CompileBudget {
    /// The compile budget the operator's ceilings set.
    pub fn of(ceilings: &Ceilings) -> Self {
        Self {
            component_bytes: ceilings.get(LimitField::ComponentBytes).clone(),
            function_bytes: ceilings.get(LimitField::FunctionBytes).clone(),
            time_ms: ceilings.get(LimitField::CompileTime).clone(),
            memory_bytes: ceilings.get(LimitField::CompileMemory).clone(),
        }
    }

    /// Refuses a component larger than the budget, or holding a function that is.
    pub(crate) fn check_sizes(&self, bytes: &[u8]) -> Result<()> {
        if let Some(most) = self.component_bytes.value {
            if bytes.len() as u64 > most {
                over_budget!(
                    abandoned: false,
                    "the component is {} bytes, more than the {most} bytes bench compiles {}",
                    bytes.len(),
                    raise(
                        LimitField::ComponentBytes,
                        &self.component_bytes,
                        bytes.len() as u64
                    )
                );
            }
        }
        let Some(most) = self.function_bytes.value else {
            return Ok(());
        };
        if let Some(largest) = largest_function(bytes).filter(|f| f.bytes as u64 > most) {
            over_budget!(
                abandoned: false,
                "function {} of core module {} is {} bytes, more than the {most} bytes bench \
                 compiles in one function {}",
                largest.index,
                largest.module,
                largest.bytes,
                raise(
                    LimitField::FunctionBytes,
                    &self.function_bytes,
                    largest.bytes as u64
                )
            );
        }
        Ok(())
    }

    /// Runs `compile` on a thread of its own, watching its time and how much it grows this
    /// process's resident memory; past either bound it is an error (the thread cannot be
    /// stopped: [`OverBudget::abandoned`], the caller ends the process).
    pub(crate) fn watch<T: Send + 'static>(
        &self,
        compile: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T> {
        let (done, finished) = std::sync::mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("bench-compile".into())
            .spawn(move || {
                let _ = done.send(compile());
            })?;
        let started = Instant::now();
        let baseline = resident_bytes().unwrap_or(0);
        let timeout = self.time_ms.value.map(Duration::from_millis);
        loop {
            match finished.recv_timeout(WATCH_INTERVAL) {
                Ok(compiled) => return Ok(compiled),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    anyhow::bail!("compiling the component failed: the compiler stopped")
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            }
            if let Some(limit) = timeout.filter(|limit| started.elapsed() > *limit) {
                over_budget!(
                    abandoned: true,
                    "compiling the component took more than {} {}",
                    LimitField::CompileTime
                        .spec()
                        .shown(Some(limit.as_millis() as u64)),
                    raise(
                        LimitField::CompileTime,
                        &self.time_ms,
                        limit.as_millis() as u64 * 2
                    )
                );
            }
            let grown = resident_bytes().unwrap_or(0).saturating_sub(baseline);
            if let Some(most) = self.memory_bytes.value.filter(|most| grown > *most) {
                over_budget!(
                    abandoned: true,
                    "compiling the component took more than {} of memory {}",
                    LimitField::CompileMemory.spec().shown(Some(most)),
                    raise(LimitField::CompileMemory, &self.memory_bytes, most * 2)
                );
            }
        }
    }
}

/// Whether `error` says a compilation was abandoned while it runs on.
pub fn abandoned_compilation(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<OverBudget>()
            .is_some_and(|over| over.abandoned)
    })
}

/// `(set by …; raise it with --flag VALUE)`.
fn raise(field: LimitField, setting: &Setting, wanted: u64) -> String {
    let spec = field.spec();
    format!(
        "(set by {}; raise it with {} {})",
        setting.set_by,
        spec.flag,
        spec.flag_value(wanted)
    )
}

/// The largest function body of a component or module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LargestFunction {
    /// Which core module (in the order they appear, nested ones included).
    module: usize,
    /// Which function of that module's code section.
    index: usize,
    /// Its body's size.
    bytes: usize,
}

/// The largest function body in `bytes`, if it parses that far (a malformed file is left to
/// the compiler to report).
fn largest_function(bytes: &[u8]) -> Option<LargestFunction> {
    let mut largest: Option<LargestFunction> = None;
    let mut module = 0;
    let mut index = 0;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.ok()? {
            Payload::CodeSectionStart { .. } => index = 0,
            Payload::CodeSectionEntry(body) => {
                let size = body.range().len();
                if largest.is_none_or(|known| size > known.bytes) {
                    largest = Some(LargestFunction {
                        module,
                        index,
                        bytes: size,
                    });
                }
                index += 1;
            }
            Payload::End(_) => module += 1,
            _ => {}
        }
    }
    largest
}

/// This process's resident memory (`VmRSS`).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::ceilings::SetBy;

    fn budget(field: LimitField, value: u64) -> CompileBudget {
        let mut ceilings = Ceilings::default();
        ceilings.set(field, value, SetBy::Flag(field.spec().flag));
        CompileBudget::of(&ceilings)
    }

    /// A module with two functions, the second of `statements` statements.
    fn module(statements: usize) -> Vec<u8> {
        let body = "(drop (i32.const 1))\n".repeat(statements);
        wat::parse_str(format!("(module (func) (func {body}))")).unwrap()
    }

    #[test]
    fn the_largest_function_is_found_in_nested_modules() {
        let text = format!(
            "(component (core module (func)) (core module (func) (func {})))",
            "(drop (i32.const 1))\n".repeat(100)
        );
        let found = largest_function(&wat::parse_str(text).unwrap()).unwrap();
        assert_eq!((found.module, found.index), (1, 1));
        assert!(found.bytes > 300, "{found:?}");
    }

    #[test]
    fn a_function_or_component_past_the_budget_is_refused_before_compiling() {
        let bytes = module(1000);
        CompileBudget::default().check_sizes(&bytes).unwrap();
        let error = budget(LimitField::FunctionBytes, 1000)
            .check_sizes(&bytes)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("function 1 of core module 0 is "),
            "{error}"
        );
        assert!(
            error.contains(
                "more than the 1000 bytes bench compiles in one function (set by \
                            --max-function-size; raise it with --max-function-size "
            ),
            "{error}"
        );
        let error = budget(LimitField::ComponentBytes, 100)
            .check_sizes(&bytes)
            .unwrap_err();
        assert!(!abandoned_compilation(&error));
        let error = error.to_string();
        assert!(error.contains("more than the 100 bytes bench compiles (set by --max-component-size; raise it with --max-component-size "), "{error}");
    }

    #[test]
    fn a_compilation_past_its_time_is_an_error() {
        let error = budget(LimitField::CompileTime, 50)
            .watch(|| std::thread::sleep(Duration::from_secs(2)))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "compiling the component took more than 50 ms (set by --compile-timeout; raise it \
             with --compile-timeout 100ms)"
        );
        assert!(abandoned_compilation(
            &error.context("x cannot be compiled")
        ));
        assert_eq!(CompileBudget::default().watch(|| 7).unwrap(), 7);
    }

    #[test]
    fn a_compilation_growing_memory_past_its_budget_is_an_error() {
        let error = budget(LimitField::CompileMemory, 16 << 20)
            .watch(|| {
                let hoard = vec![1u8; 256 << 20];
                std::thread::sleep(Duration::from_secs(2));
                hoard.len()
            })
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(
                "compiling the component took more than 16 MiB of memory (set by \
                               --max-compile-memory"
            ),
            "{error}"
        );
    }
}
