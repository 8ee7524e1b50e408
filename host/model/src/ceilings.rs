//! One rule for the limits that contain a task: the operator sets each one's ceiling (a
//! flag, an environment variable or the bench config file; else bench's default), and the
//! task's config (`limits`) may only lower it. A config asking for more than a ceiling is
//! refused before the run, naming the field, the ceiling, who set it and the flag that
//! raises it. The run's budgets (host memory of all sandboxes, disk, compilation) are set
//! the same way and only by the operator. [`EffectiveLimits`] are the values a run uses and
//! who set each.

use std::fmt;
use std::path::PathBuf;

/// A limit the operator sets and a task's config may lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LimitField {
    /// Memory of one sandbox.
    Memory,
    /// Time of one task.
    TaskTimeout,
    /// Steps of one task.
    Steps,
    /// Length of a step name or error code.
    StepNameBytes,
    /// One log message.
    LogMessageBytes,
    /// Log bytes of one task.
    TaskLogBytes,
    /// Measured and returned data of one task.
    DataBytes,
    /// One participant log.
    ParticipantLogBytes,
    /// Sandboxes held at once.
    Sandboxes,
    /// Host memory of all the run's sandboxes together (linear memories, tables and the
    /// host-side HTTP fields they hold).
    HostMemory,
    /// Bytes the run may write to its results directory (records, logs, metrics).
    DiskBytes,
    /// Size of a component bench compiles.
    ComponentBytes,
    /// Size of one function of a component bench compiles.
    FunctionBytes,
    /// Time of compiling one component.
    CompileTime,
    /// Memory compiling one component may take (growth of bench's resident memory).
    CompileMemory,
}

/// How a limit's values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes (flags take sizes like `64MiB`).
    Bytes,
    /// Milliseconds (flags take durations like `30s`).
    Millis,
    /// A whole number.
    Count,
}

/// A limit's names and bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitSpec {
    /// Which limit.
    pub field: LimitField,
    /// Its name: the key in the config's `limits` object when a config may lower it.
    pub key: &'static str,
    /// Whether a task's config may lower it (`limits.<key>`); budgets are the operator's.
    pub in_config: bool,
    /// The unit of the config value: bytes of a `memoryMb` are MiB.
    pub config_scale: u64,
    /// The flag that sets the ceiling.
    pub flag: &'static str,
    /// The environment variable (and bench config file key, lowercase without the prefix:
    /// `max-memory`) that sets the ceiling when the flag is not given.
    pub env: &'static str,
    /// How values are written.
    pub unit: Unit,
    /// bench's default ceiling (`None`: unlimited, or derived from the machine).
    pub default: Option<u64>,
    /// The most anyone may set, in the limit's unit.
    pub most: u64,
}

impl LimitSpec {
    /// The key of this limit in the bench config file (`max-memory`).
    pub fn file_key(&self) -> &'static str {
        self.flag.trim_start_matches('-')
    }

    /// `limits.<key>`.
    pub fn config_field(&self) -> String {
        format!("limits.{}", self.key)
    }

    /// A value of this limit as its flag takes it (`64MiB`, `30000ms`, `20000`).
    pub fn flag_value(&self, value: u64) -> String {
        match self.unit {
            Unit::Bytes => {
                let (number, unit) = in_binary_units(value);
                format!("{number}{unit}")
            }
            Unit::Millis => format!("{value}ms"),
            Unit::Count => value.to_string(),
        }
    }

    /// A value of this limit for people (`512 MiB`, `1000 B`, `30000 ms`, `10000`).
    pub fn shown(&self, value: Option<u64>) -> String {
        let Some(value) = value else {
            return "unlimited".into();
        };
        match self.unit {
            Unit::Bytes => {
                let (number, unit) = in_binary_units(value);
                format!("{number} {unit}")
            }
            Unit::Millis => format!("{value} ms"),
            Unit::Count => value.to_string(),
        }
    }
}

/// `bytes` in the largest binary unit that divides it (`(64, "MiB")`, `(1000, "B")`).
fn in_binary_units(bytes: u64) -> (u64, &'static str) {
    [(30, "GiB"), (20, "MiB"), (10, "KiB")]
        .into_iter()
        .find(|(shift, _)| bytes != 0 && bytes.is_multiple_of(1 << shift))
        .map_or((bytes, "B"), |(shift, unit)| (bytes >> shift, unit))
}

/// The limits of the results directory: on a worker, which writes none, a dispatched run's
/// flags set them as they are.
const RESULTS_LIMITS: [LimitField; 2] = [LimitField::DiskBytes, LimitField::ParticipantLogBytes];

/// Default memory limit of one sandbox.
pub const DEFAULT_MAX_MEMORY_BYTES: usize = 512 << 20;

/// Every limit a task's config may lower, in the order `bench inspect` shows them.
pub const LIMITS: [LimitSpec; 15] = [
    LimitSpec {
        field: LimitField::Memory,
        key: "memoryMb",
        in_config: true,
        config_scale: 1 << 20,
        flag: "--max-memory",
        env: "BENCH_MAX_MEMORY",
        unit: Unit::Bytes,
        default: Some(DEFAULT_MAX_MEMORY_BYTES as u64),
        most: 1 << 42,
    },
    LimitSpec {
        field: LimitField::TaskTimeout,
        key: "taskTimeoutMs",
        in_config: true,
        config_scale: 1,
        flag: "--task-timeout",
        env: "BENCH_TASK_TIMEOUT",
        unit: Unit::Millis,
        default: None,
        most: u64::MAX,
    },
    LimitSpec {
        field: LimitField::Steps,
        key: "maxSteps",
        in_config: true,
        config_scale: 1,
        flag: "--max-steps",
        env: "BENCH_MAX_STEPS",
        unit: Unit::Count,
        default: Some(10_000),
        most: 1_000_000,
    },
    LimitSpec {
        field: LimitField::StepNameBytes,
        key: "maxStepNameBytes",
        in_config: true,
        config_scale: 1,
        flag: "--max-step-name-bytes",
        env: "BENCH_MAX_STEP_NAME_BYTES",
        unit: Unit::Bytes,
        default: Some(1 << 10),
        most: 1 << 20,
    },
    LimitSpec {
        field: LimitField::LogMessageBytes,
        key: "maxLogMessageBytes",
        in_config: true,
        config_scale: 1,
        flag: "--max-log-message-bytes",
        env: "BENCH_MAX_LOG_MESSAGE_BYTES",
        unit: Unit::Bytes,
        default: Some(1 << 20),
        most: 64 << 20,
    },
    LimitSpec {
        field: LimitField::TaskLogBytes,
        key: "maxTaskLogBytes",
        in_config: true,
        config_scale: 1,
        flag: "--max-task-log-bytes",
        env: "BENCH_MAX_TASK_LOG_BYTES",
        unit: Unit::Bytes,
        default: Some(16 << 20),
        most: 1 << 30,
    },
    LimitSpec {
        field: LimitField::DataBytes,
        key: "maxDataBytes",
        in_config: true,
        config_scale: 1,
        flag: "--max-data-bytes",
        env: "BENCH_MAX_DATA_BYTES",
        unit: Unit::Bytes,
        default: Some(1 << 20),
        most: 64 << 20,
    },
    LimitSpec {
        field: LimitField::ParticipantLogBytes,
        key: "maxParticipantLogBytes",
        in_config: true,
        config_scale: 1,
        flag: "--max-participant-log-bytes",
        env: "BENCH_MAX_PARTICIPANT_LOG_BYTES",
        unit: Unit::Bytes,
        default: Some(256 << 20),
        most: 1 << 40,
    },
    LimitSpec {
        field: LimitField::Sandboxes,
        key: "maxSandboxes",
        in_config: true,
        config_scale: 1,
        flag: "--max-sandboxes",
        env: "BENCH_MAX_SANDBOXES",
        unit: Unit::Count,
        default: Some(10_000),
        most: 100_000_000,
    },
    LimitSpec {
        field: LimitField::HostMemory,
        key: "hostMemory",
        in_config: false,
        config_scale: 1,
        flag: "--max-host-memory",
        env: "BENCH_MAX_HOST_MEMORY",
        unit: Unit::Bytes,
        default: None,
        most: 1 << 50,
    },
    LimitSpec {
        field: LimitField::DiskBytes,
        key: "diskBudget",
        in_config: false,
        config_scale: 1,
        flag: "--disk-budget",
        env: "BENCH_DISK_BUDGET",
        unit: Unit::Bytes,
        default: Some(10 << 30),
        most: 1 << 50,
    },
    LimitSpec {
        field: LimitField::ComponentBytes,
        key: "componentBytes",
        in_config: false,
        config_scale: 1,
        flag: "--max-component-size",
        env: "BENCH_MAX_COMPONENT_SIZE",
        unit: Unit::Bytes,
        default: Some(256 << 20),
        most: 4 << 30,
    },
    LimitSpec {
        field: LimitField::FunctionBytes,
        key: "functionBytes",
        in_config: false,
        config_scale: 1,
        flag: "--max-function-size",
        env: "BENCH_MAX_FUNCTION_SIZE",
        unit: Unit::Bytes,
        default: Some(2 << 20),
        most: 1 << 30,
    },
    LimitSpec {
        field: LimitField::CompileTime,
        key: "compileTimeMs",
        in_config: false,
        config_scale: 1,
        flag: "--compile-timeout",
        env: "BENCH_COMPILE_TIMEOUT",
        unit: Unit::Millis,
        default: Some(300_000),
        most: u64::MAX,
    },
    LimitSpec {
        field: LimitField::CompileMemory,
        key: "compileMemory",
        in_config: false,
        config_scale: 1,
        flag: "--max-compile-memory",
        env: "BENCH_MAX_COMPILE_MEMORY",
        unit: Unit::Bytes,
        default: Some(4 << 30),
        most: 1 << 50,
    },
];

impl LimitField {
    /// This limit's names and bounds.
    pub fn spec(self) -> &'static LimitSpec {
        LIMITS
            .iter()
            .find(|spec| spec.field == self)
            .expect("every limit has a spec")
    }
}

/// Who set a limit's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetBy {
    /// bench's default.
    Default,
    /// A flag of this command line.
    Flag(&'static str),
    /// An environment variable.
    Env(&'static str),
    /// The bench config file.
    File(PathBuf),
    /// The task's config (`limits`), lowering the ceiling.
    TaskConfig,
}

impl fmt::Display for SetBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("bench's default"),
            Self::Flag(flag) => f.write_str(flag),
            Self::Env(name) => f.write_str(name),
            Self::File(path) => write!(f, "{}", path.display()),
            Self::TaskConfig => f.write_str("the task's config"),
        }
    }
}

/// A limit's value (`None`: unlimited) and who set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The value, in the limit's unit.
    pub value: Option<u64>,
    /// Who set it.
    pub set_by: SetBy,
}

/// The operator's ceilings, one per limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ceilings {
    settings: Vec<Setting>,
}

impl Default for Ceilings {
    /// bench's defaults; the host memory of all sandboxes is three quarters of the
    /// machine's memory (or of the cgroup's limit, when lower).
    fn default() -> Self {
        Self {
            settings: LIMITS
                .iter()
                .map(|spec| Setting {
                    value: match spec.field {
                        LimitField::HostMemory => crate::machine::machine_memory_bytes()
                            .map(|bytes| (bytes / 4 * 3) & !((1 << 20) - 1)),
                        _ => spec.default,
                    },
                    set_by: SetBy::Default,
                })
                .collect(),
        }
    }
}

/// The values a task's config asks for (`limits`), in each limit's unit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigLimits {
    requested: Vec<(LimitField, f64)>,
}

impl ConfigLimits {
    /// Records that the config's field asks for `value` (in the config's own unit).
    pub fn request(&mut self, field: LimitField, value: f64) {
        self.requested.retain(|(known, _)| *known != field);
        self.requested.push((field, value));
    }

    /// What the config asks for of `field`, in the config's own unit (`memoryMb` in MiB).
    pub fn get(&self, field: LimitField) -> Option<f64> {
        self.requested
            .iter()
            .find(|(known, _)| *known == field)
            .map(|(_, value)| *value)
    }
}

impl Ceilings {
    /// The ceiling of `field`.
    pub fn get(&self, field: LimitField) -> &Setting {
        &self.settings[position(field)]
    }

    /// Sets the ceiling of `field` unless a source that wins over `set_by` (flag over
    /// environment over file over default) set it already.
    pub fn set(&mut self, field: LimitField, value: u64, set_by: SetBy) {
        let setting = &mut self.settings[position(field)];
        if rank(&set_by) >= rank(&setting.set_by) {
            *setting = Setting {
                value: Some(value),
                set_by,
            };
        }
    }

    /// The value of `field` (`None`: unlimited).
    pub fn value(&self, field: LimitField) -> Option<u64> {
        self.get(field).value
    }

    /// These ceilings (a worker operator's) lowered by those a dispatched run's flags set
    /// (`run`'s set by a flag): each such value when it is at most the ceiling (the limits of
    /// the results directory, which only the coordinator writes, as they are). A flag above a
    /// ceiling is an error naming every such flag, the ceiling and who set it.
    pub fn lowered_by(&self, run: &Ceilings) -> Result<Ceilings, String> {
        let mut lowered = self.clone();
        let mut refused = Vec::new();
        for (spec, asked) in LIMITS.iter().zip(&run.settings) {
            let (SetBy::Flag(_), Some(value)) = (&asked.set_by, asked.value) else {
                continue;
            };
            let own = &mut lowered.settings[position(spec.field)];
            match own.value {
                Some(ceiling) if value > ceiling && !RESULTS_LIMITS.contains(&spec.field) => {
                    refused.push(format!(
                        "{} {} is above this worker's ceiling of {} ({})",
                        spec.flag,
                        spec.flag_value(value),
                        spec.shown(Some(ceiling)),
                        own.set_by
                    ))
                }
                _ => *own = asked.clone(),
            }
        }
        if refused.is_empty() {
            return Ok(lowered);
        }
        Err(format!(
            "the run's flags ask for more than this worker allows (a run's flags may only lower \
             the ceilings of the worker's operator, set by its environment variables and bench \
             config file):\n  {}",
            refused.join("\n  ")
        ))
    }

    /// The limits of a run whose config asks for `requested`: each the config's value
    /// when it lowers the ceiling, else the ceiling. A config asking for more than a ceiling
    /// is an error naming every such field, its ceiling and how to raise it.
    pub fn apply(&self, requested: &ConfigLimits) -> Result<EffectiveLimits, String> {
        let mut refused = Vec::new();
        let mut settings = self.settings.clone();
        for (spec, setting) in LIMITS.iter().zip(settings.iter_mut()) {
            let Some(asked) = requested.get(spec.field) else {
                continue;
            };
            let asked_units = (asked * spec.config_scale as f64).ceil();
            match setting.value {
                Some(ceiling) if asked_units > ceiling as f64 => refused.push(format!(
                    "{} is {}, above the ceiling of {} ({}): raise it with {} {}",
                    spec.config_field(),
                    crate::js::number_to_string(asked),
                    spec.shown(Some(ceiling)),
                    setting.set_by,
                    spec.flag,
                    spec.flag_value(asked_units as u64)
                )),
                _ => {
                    *setting = Setting {
                        value: Some(asked_units as u64),
                        set_by: SetBy::TaskConfig,
                    }
                }
            }
        }
        if refused.is_empty() {
            return Ok(EffectiveLimits { settings });
        }
        Err(format!(
            "the task's config asks for more than this run allows (a task's limits may only \
             lower the operator's):\n  {}",
            refused.join("\n  ")
        ))
    }
}

/// The limits a run uses, and who set each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectiveLimits {
    settings: Vec<Setting>,
}

impl Default for EffectiveLimits {
    fn default() -> Self {
        Ceilings::default()
            .apply(&ConfigLimits::default())
            .expect("an empty config asks for nothing")
    }
}

impl EffectiveLimits {
    /// The setting of `field`.
    pub fn get(&self, field: LimitField) -> &Setting {
        &self.settings[position(field)]
    }

    /// The value of a size or count limit as a `usize` (`usize::MAX`: unlimited).
    pub fn size(&self, field: LimitField) -> usize {
        self.get(field).value.map_or(usize::MAX, |value| {
            usize::try_from(value).unwrap_or(usize::MAX)
        })
    }

    /// Most sandboxes the run may hold at once.
    pub fn max_sandboxes(&self) -> u64 {
        self.get(LimitField::Sandboxes).value.unwrap_or(u64::MAX)
    }

    /// Most bytes of one participant's log.
    pub fn max_participant_log_bytes(&self) -> u64 {
        self.get(LimitField::ParticipantLogBytes)
            .value
            .unwrap_or(u64::MAX)
    }

    /// The value of `field` (`None`: unlimited).
    pub fn value(&self, field: LimitField) -> Option<u64> {
        self.get(field).value
    }

    /// Every limit and budget, its value and who set it (`memoryMb 512 MiB (bench's
    /// default)`).
    pub fn lines(&self) -> Vec<String> {
        LIMITS
            .iter()
            .zip(&self.settings)
            .map(|(spec, setting)| {
                format!(
                    "{} {} ({})",
                    spec.key,
                    spec.shown(setting.value),
                    setting.set_by
                )
            })
            .collect()
    }
}

fn position(field: LimitField) -> usize {
    LIMITS
        .iter()
        .position(|spec| spec.field == field)
        .expect("every limit has a spec")
}

/// Which source wins: a flag over the environment over the file over the default.
fn rank(set_by: &SetBy) -> u8 {
    match set_by {
        SetBy::Default => 0,
        SetBy::File(_) => 1,
        SetBy::Env(_) => 2,
        SetBy::Flag(_) => 3,
        SetBy::TaskConfig => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(fields: &[(LimitField, f64)]) -> ConfigLimits {
        let mut requested = ConfigLimits::default();
        for (field, value) in fields {
            requested.request(*field, *value);
        }
        requested
    }

    #[test]
    fn a_config_may_lower_every_limit() {
        let effective = Ceilings::default()
            .apply(&asking(&[
                (LimitField::Memory, 64.0),
                (LimitField::Steps, 5.0),
                (LimitField::TaskTimeout, 250.5),
            ]))
            .unwrap();
        assert_eq!(effective.size(LimitField::Memory), 64 << 20);
        assert_eq!(effective.size(LimitField::Steps), 5);
        assert_eq!(effective.value(LimitField::TaskTimeout), Some(251));
        assert_eq!(effective.get(LimitField::Steps).set_by, SetBy::TaskConfig);
        assert_eq!(effective.get(LimitField::DataBytes).set_by, SetBy::Default);
        assert_eq!(effective.max_sandboxes(), 10_000);
        assert_eq!(
            EffectiveLimits::default().size(LimitField::Memory),
            DEFAULT_MAX_MEMORY_BYTES
        );
    }

    #[test]
    fn a_config_asking_for_more_is_refused_naming_each_field_its_ceiling_and_the_flag() {
        let mut ceilings = Ceilings::default();
        ceilings.set(
            LimitField::Memory,
            256 << 20,
            SetBy::Env("BENCH_MAX_MEMORY"),
        );
        let error = ceilings
            .apply(&asking(&[
                (LimitField::Sandboxes, 1_000_000.0),
                (LimitField::Memory, 1536.0),
                (LimitField::DataBytes, 1024.0),
            ]))
            .unwrap_err();
        assert_eq!(
            error,
            "the task's config asks for more than this run allows (a task's limits may only \
             lower the operator's):\n  \
             limits.memoryMb is 1536, above the ceiling of 256 MiB (BENCH_MAX_MEMORY): raise it \
             with --max-memory 1536MiB\n  \
             limits.maxSandboxes is 1000000, above the ceiling of 10000 (bench's default): \
             raise it with --max-sandboxes 1000000"
        );
    }

    #[test]
    fn a_dispatched_run_s_flags_may_only_lower_a_worker_s_ceilings() {
        let mut worker = Ceilings::default();
        worker.set(
            LimitField::Memory,
            256 << 20,
            SetBy::Env("BENCH_MAX_MEMORY"),
        );
        let mut run = Ceilings::default();
        run.set(LimitField::Memory, 128 << 20, SetBy::Flag("--max-memory"));
        run.set(
            LimitField::TaskTimeout,
            5_000,
            SetBy::Flag("--task-timeout"),
        );
        let lowered = worker.lowered_by(&run).unwrap();
        assert_eq!(lowered.value(LimitField::Memory), Some(128 << 20));
        assert_eq!(
            lowered.get(LimitField::TaskTimeout).set_by,
            SetBy::Flag("--task-timeout"),
            "an unlimited ceiling takes the run's value"
        );
        assert_eq!(
            lowered.get(LimitField::Steps),
            worker.get(LimitField::Steps)
        );
        assert_eq!(worker.lowered_by(&Ceilings::default()).unwrap(), worker);
        let mut results = Ceilings::default();
        results.set(LimitField::DiskBytes, 1 << 40, SetBy::Flag("--disk-budget"));
        assert_eq!(
            worker
                .lowered_by(&results)
                .unwrap()
                .value(LimitField::DiskBytes),
            Some(1 << 40),
            "the coordinator's results directory is not the worker's"
        );

        run.set(LimitField::Memory, 1 << 30, SetBy::Flag("--max-memory"));
        run.set(
            LimitField::Sandboxes,
            20_000,
            SetBy::Flag("--max-sandboxes"),
        );
        assert_eq!(
            worker.lowered_by(&run).unwrap_err(),
            "the run's flags ask for more than this worker allows (a run's flags may only lower \
             the ceilings of the worker's operator, set by its environment variables and bench \
             config file):\n  \
             --max-memory 1GiB is above this worker's ceiling of 256 MiB (BENCH_MAX_MEMORY)\n  \
             --max-sandboxes 20000 is above this worker's ceiling of 10000 (bench's default)"
        );
    }

    #[test]
    fn a_flag_wins_over_the_environment_over_the_file() {
        let mut ceilings = Ceilings::default();
        ceilings.set(LimitField::Steps, 30, SetBy::Flag("--max-steps"));
        ceilings.set(LimitField::Steps, 20, SetBy::Env("BENCH_MAX_STEPS"));
        ceilings.set(LimitField::Steps, 10, SetBy::File("/etc/b.toml".into()));
        assert_eq!(
            ceilings.get(LimitField::Steps),
            &Setting {
                value: Some(30),
                set_by: SetBy::Flag("--max-steps")
            }
        );
        ceilings.set(LimitField::DataBytes, 10, SetBy::File("/etc/b.toml".into()));
        ceilings.set(
            LimitField::DataBytes,
            20,
            SetBy::Env("BENCH_MAX_DATA_BYTES"),
        );
        assert_eq!(ceilings.get(LimitField::DataBytes).value, Some(20));
    }

    #[test]
    fn an_unlimited_ceiling_takes_any_value_and_lines_say_who_set_what() {
        let effective = Ceilings::default()
            .apply(&asking(&[(LimitField::TaskTimeout, 1e12)]))
            .unwrap();
        let lines = effective.lines();
        assert_eq!(lines[0], "memoryMb 512 MiB (bench's default)");
        assert_eq!(
            lines[1],
            "taskTimeoutMs 1000000000000 ms (the task's config)"
        );
        assert_eq!(lines[8], "maxSandboxes 10000 (bench's default)");
        assert_eq!(
            LimitField::TaskTimeout.spec().shown(None),
            "unlimited",
            "no default timeout"
        );
    }
}
