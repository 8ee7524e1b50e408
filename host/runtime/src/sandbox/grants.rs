//! What each participant's sandbox is granted, from the config's bench fields and the
//! command line: env (its `requiredEnvVars` plus `passEnv`), directories (`--allow-dir`),
//! HTTP destinations (`allowedHosts`, `--allow-host`), HTTP keep-alive (`httpKeepAlive`,
//! `--http-keep-alive`) and limits (the operator's ceilings, which the config's `limits` may
//! only lower: [`bench_model::ceilings`]). On a worker, the grants a run asks for must lie
//! within its operator's ([`OperatorGrants`]).

use crate::sandbox::fs::DirGrant;
use crate::sandbox::http::{AllowedHost, DenialNotices, HttpPolicy};
use crate::sandbox::limits::Limits;
use crate::sandbox::memory::HostMemory;
use crate::sandbox::Capabilities;
use anyhow::{anyhow, Result};
use bench_model::ceilings::{Ceilings, EffectiveLimits, LimitField};
use bench_model::config::{BenchmarkConfig, GroupBy, Participant};
use bench_model::env::granted_env;
use bench_model::plan::LoadModel;
use std::sync::Arc;

/// What the command line grants or limits beyond the config; empty/`None` when not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxOverrides {
    /// `--allow-host` destinations (repeatable), added to the config's `allowedHosts`.
    pub allow_hosts: Vec<String>,
    /// `--allow-dir HOST[:GUEST][:rw]` grants (repeatable), read-only unless `:rw`.
    pub allow_dirs: Vec<String>,
    /// The operator's ceilings of the limits (`--max-memory`, `--task-timeout`,
    /// `--max-sandboxes`…, their environment variables and the bench config file).
    pub ceilings: Ceilings,
    /// `--http-keep-alive=false`: one connection per outbound request.
    pub http_keep_alive: Option<bool>,
}

/// Grants shared by every participant of a run.
#[derive(Debug, Clone)]
pub struct RunGrants {
    allowed_hosts: Vec<AllowedHost>,
    http_keep_alive: bool,
    dirs: Vec<DirGrant>,
    limits: EffectiveLimits,
    host_memory: Arc<HostMemory>,
    notices: Arc<DenialNotices>,
}

impl RunGrants {
    /// Resolves the run-wide grants; a bad pattern or directory, or a config limit above the
    /// operator's ceiling, is an error.
    pub fn resolve(config: &BenchmarkConfig, flags: &SandboxOverrides) -> Result<Self> {
        let allowed_hosts = parse_hosts(
            config
                .sandbox
                .allowed_hosts
                .iter()
                .chain(&flags.allow_hosts),
        )?;
        let dirs = flags
            .allow_dirs
            .iter()
            .map(|spec| DirGrant::parse(spec).map_err(|e| anyhow!(e)))
            .collect::<Result<_>>()?;
        let limits = flags
            .ceilings
            .apply(&config.sandbox.limits)
            .map_err(|refused| anyhow!(refused))?;
        let http_keep_alive = flags
            .http_keep_alive
            .or(config.sandbox.http_keep_alive)
            .unwrap_or(true);
        let budget = limits.get(LimitField::HostMemory);
        let host_memory = HostMemory::new(budget.value, budget.set_by.to_string());
        Ok(Self {
            allowed_hosts,
            http_keep_alive,
            dirs,
            limits,
            host_memory,
            notices: Arc::default(),
        })
    }

    /// The sandbox grants of one participant (its own env and hosts added to the run's).
    pub fn for_participant(
        &self,
        config: &BenchmarkConfig,
        participant: &Participant,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Capabilities> {
        let own_pass_env = participant.pass_env();
        let names = participant
            .required_env_vars
            .iter()
            .chain(&config.sandbox.pass_env)
            .chain(&own_pass_env);
        let mut allowed = self.allowed_hosts.clone();
        allowed.extend(parse_hosts(&participant.allowed_hosts())?);
        Ok(Capabilities {
            env: granted_env(names, lookup),
            dirs: self.dirs.clone(),
            http: HttpPolicy::new(allowed, self.http_keep_alive, self.notices.clone()),
            limits: Limits::from(&self.limits),
            host_memory: self.host_memory.clone(),
        })
    }

    /// The limits every sandbox gets.
    pub fn limits(&self) -> Limits {
        Limits::from(&self.limits)
    }

    /// The run's limits and who set each.
    pub fn effective_limits(&self) -> &EffectiveLimits {
        &self.limits
    }

    /// Refuses a run that would keep more sandboxes alive at once (`needed`, see
    /// `ExecPlan::sandboxes_at_once`) than the cap allows, saying what asks for them and
    /// how to lower the need or raise the cap.
    pub fn ensure_sandboxes(
        &self,
        needed: usize,
        group_by: GroupBy,
        load: &LoadModel,
        concurrency: u32,
    ) -> Result<()> {
        let allowed = self.limits.max_sandboxes();
        if needed as u64 <= allowed {
            return Ok(());
        }
        let (why, lower) = match (load, group_by) {
            (LoadModel::ArrivalRate(_), _) => (
                "executor.maxSandboxes of an arrival-rate run".to_owned(),
                "lower executor.maxSandboxes",
            ),
            (_, GroupBy::Participant) => {
                (format!("--concurrency {concurrency}"), "lower concurrency")
            }
            (_, GroupBy::Round) => (
                "one per participant in round mode".to_owned(),
                "run fewer participants (--provider)",
            ),
        };
        Err(anyhow!(
            "this run would hold {needed} sandboxes at once ({why}), more than the {allowed} \
             allowed; {lower}, or raise the cap with --max-sandboxes {needed} (every sandbox \
             reserves 4 GiB of address space and keeps its memory while it lives)"
        ))
    }
}

/// What a worker's operator lets the runs it serves have (`bench worker --allow-host`,
/// `--allow-dir`, `--serve-env`, and the ceilings of the limits): a run's grants and limits
/// may be narrower, never wider.
#[derive(Debug, Clone, Default)]
pub struct OperatorGrants {
    hosts: Vec<AllowedHost>,
    dirs: Vec<DirGrant>,
    env: Vec<String>,
    ceilings: Ceilings,
}

impl OperatorGrants {
    /// The operator's host patterns, directory grants and served variable names.
    pub fn parse(hosts: &[String], dirs: &[String], env: &[String]) -> Result<Self> {
        Ok(Self {
            hosts: parse_hosts(hosts)?,
            dirs: dirs
                .iter()
                .map(|spec| DirGrant::parse(spec).map_err(|e| anyhow!(e)))
                .collect::<Result<_>>()?,
            env: env.to_vec(),
            ceilings: Ceilings::default(),
        })
    }

    /// These grants with the operator's `ceilings` (bench's defaults otherwise).
    pub fn with_ceilings(self, ceilings: Ceilings) -> Self {
        Self { ceilings, ..self }
    }

    /// The ceilings of a run whose flags set `run`'s: the operator's, lowered by the run's
    /// flags; a flag above one of them is refused ([`Ceilings::lowered_by`]).
    pub fn ceilings_for(&self, run: &Ceilings) -> Result<Ceilings> {
        self.ceilings
            .lowered_by(run)
            .map_err(|refused| anyhow!(refused))
    }

    /// The value of `name` in this process's environment, if the operator serves it.
    pub fn env(&self, name: &str) -> Option<String> {
        if self.env.iter().any(|served| served == name) {
            std::env::var(name).ok()
        } else {
            None
        }
    }

    /// Refuses grants beyond the operator's, naming the first of them.
    pub fn admit(&self, granted: &Capabilities) -> Result<(), String> {
        for rule in granted.http.allowed() {
            if !self.hosts.iter().any(|own| own.covers(rule)) {
                return Err(format!(
                    "it asks for the host {}, which this worker does not allow (bench worker --allow-host)",
                    rule.pattern()
                ));
            }
        }
        for dir in &granted.dirs {
            if !self.dirs.iter().any(|own| own.covers(dir)) {
                let access = if dir.writable { "writable" } else { "readable" };
                return Err(format!(
                    "it asks for the directory {} ({access}), which this worker does not allow (bench worker --allow-dir)",
                    dir.host.display()
                ));
            }
        }
        Ok(())
    }
}

fn parse_hosts<'a>(patterns: impl IntoIterator<Item = &'a String>) -> Result<Vec<AllowedHost>> {
    patterns
        .into_iter()
        .map(|pattern| AllowedHost::parse(pattern).map_err(|e| anyhow!(e)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::ceilings::SetBy;
    use bench_model::config::parse_config;

    fn grants(max_sandboxes: u64) -> RunGrants {
        let mut ceilings = Ceilings::default();
        ceilings.set(
            LimitField::Sandboxes,
            max_sandboxes,
            SetBy::Flag("--max-sandboxes"),
        );
        RunGrants {
            allowed_hosts: Vec::new(),
            http_keep_alive: true,
            dirs: Vec::new(),
            limits: ceilings.apply(&Default::default()).unwrap(),
            host_memory: Arc::default(),
            notices: Arc::default(),
        }
    }

    #[test]
    fn sandboxes_at_once_are_capped() {
        let grants = grants(10);
        assert!(grants
            .ensure_sandboxes(10, GroupBy::Participant, &LoadModel::Iterations, 10)
            .is_ok());
        assert_eq!(
            grants
                .ensure_sandboxes(
                    1_000_000,
                    GroupBy::Participant,
                    &LoadModel::Iterations,
                    1_000_000
                )
                .unwrap_err()
                .to_string(),
            "this run would hold 1000000 sandboxes at once (--concurrency 1000000), more than \
             the 10 allowed; lower concurrency, or raise the cap with --max-sandboxes 1000000 \
             (every sandbox reserves 4 GiB of address space and keeps \
             its memory while it lives)"
        );
        assert!(grants
            .ensure_sandboxes(11, GroupBy::Round, &LoadModel::Iterations, 1)
            .unwrap_err()
            .to_string()
            .contains("(one per participant in round mode)"));
        let arrivals = LoadModel::ArrivalRate(bench_model::plan::ArrivalPlan {
            kind: bench_model::config::ExecutorKind::ConstantArrivalRate,
            profile: bench_model::plan::RateProfile::constant(
                1.0,
                std::time::Duration::from_secs(1),
            ),
            pre_allocated: 1,
            max_sandboxes: 11,
        });
        assert!(grants
            .ensure_sandboxes(11, GroupBy::Participant, &arrivals, 1)
            .unwrap_err()
            .to_string()
            .contains("(executor.maxSandboxes of an arrival-rate run), more than the 10 allowed; lower executor.maxSandboxes"));
    }

    fn keep_alive(config_field: &str, flag: Option<bool>) -> bool {
        let config = parse_config(&format!(
            r#"{{"benchmarkSlug": "b", "benchmarkName": "B", "participants": [{{"name": "p", "requiredEnvVars": []}}]{config_field}}}"#
        ))
        .unwrap();
        let flags = SandboxOverrides {
            http_keep_alive: flag,
            ..SandboxOverrides::default()
        };
        let grants = RunGrants::resolve(&config, &flags).unwrap();
        let participant = &config.participants[0];
        grants
            .for_participant(&config, participant, |_| None)
            .unwrap()
            .http
            .keep_alive()
    }

    #[test]
    fn a_run_s_grants_must_lie_within_the_operator_s() {
        let dir = tempfile::tempdir().unwrap();
        let shown = dir.path().display().to_string();
        let config = parse_config(
            r#"{"benchmarkSlug": "b", "benchmarkName": "B", "allowedHosts": ["https://api.example.com"], "participants": [{"name": "p", "requiredEnvVars": []}]}"#,
        )
        .unwrap();
        let asked = |dirs: &[String]| {
            let flags = SandboxOverrides {
                allow_dirs: dirs.to_vec(),
                ..SandboxOverrides::default()
            };
            let grants = RunGrants::resolve(&config, &flags).unwrap();
            grants
                .for_participant(&config, &config.participants[0], |_| None)
                .unwrap()
        };
        let operator = |hosts: &[&str], dirs: &[String]| {
            let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
            OperatorGrants::parse(&hosts, dirs, &[]).unwrap()
        };
        let read_only = vec![shown.clone()];
        let writable = vec![format!("{shown}:/data:rw")];
        assert_eq!(operator(&["*.example.com"], &[]).admit(&asked(&[])), Ok(()));
        assert_eq!(
            operator(&["*.example.com"], &writable).admit(&asked(&read_only)),
            Ok(())
        );
        assert!(operator(&[], &[]).admit(&asked(&[])).unwrap_err().contains(
            "asks for the host https://api.example.com, which this worker does not allow"
        ));
        assert!(operator(&["*"], &read_only)
            .admit(&asked(&writable))
            .unwrap_err()
            .contains("(writable), which this worker does not allow (bench worker --allow-dir)"));
        assert!(operator(&["*"], &[]).admit(&asked(&read_only)).is_err());
        let served = OperatorGrants::parse(&[], &[], &["PATH".to_owned()]).unwrap();
        assert!(served.env("PATH").is_some());
        assert_eq!(
            served.env("HOME"),
            None,
            "only the names the operator serves"
        );
    }

    #[test]
    fn http_keep_alive_is_on_unless_the_config_or_the_flag_turns_it_off() {
        assert!(keep_alive("", None));
        assert!(!keep_alive(r#", "httpKeepAlive": false"#, None));
        assert!(keep_alive(r#", "httpKeepAlive": false"#, Some(true)));
        assert!(!keep_alive(r#", "httpKeepAlive": true"#, Some(false)));
    }
}
