//! bench's own config fields (not in upstream): what participants' sandboxes may reach and
//! their limits. `allowedHosts` and `passEnv` exist at the benchmark level and per
//! participant; `httpKeepAlive` and `limits` at the benchmark level.

use crate::ceilings::{ConfigLimits, LimitField, LIMITS};
use crate::env;
use crate::js;
use serde_json::{Map, Value};

/// Sandbox grants and limits declared by the config.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxConfig {
    /// Outbound HTTP destinations every participant may reach (`https://api.example.com`,
    /// `http://127.0.0.1:*`).
    pub allowed_hosts: Vec<String>,
    /// Host environment variables passed through to every participant (besides each
    /// participant's own `requiredEnvVars`).
    pub pass_env: Vec<String>,
    /// `httpKeepAlive`: `false` opens one connection per outbound request (default `true`:
    /// connections are kept alive per destination).
    pub http_keep_alive: Option<bool>,
    /// What `limits` asks for (`memoryMb`, `taskTimeoutMs`, `maxSteps`…): each may only
    /// lower the operator's ceiling ([`crate::ceilings`]).
    pub limits: ConfigLimits,
}

/// The `limits` fields that are numbers of any size (the others are whole numbers).
const NUMBER_LIMITS: [LimitField; 2] = [LimitField::Memory, LimitField::TaskTimeout];

/// Validates the sandbox fields of the config and of every participant.
pub(super) fn validate(config: &Map<String, Value>) -> Result<(), String> {
    for key in ["allowedHosts", "passEnv"] {
        string_list(config.get(key), key)?;
    }
    no_reserved_env(config.get("passEnv"), "passEnv")?;
    if let Some(value) = config.get("httpKeepAlive") {
        if !value.is_boolean() {
            return Err(format!(
                "httpKeepAlive must be true or false (got {})",
                js::value_to_string(value)
            ));
        }
    }
    if let Some(participants) = config.get("participants").and_then(Value::as_array) {
        for (i, participant) in participants.iter().enumerate() {
            for key in ["allowedHosts", "passEnv"] {
                string_list(participant.get(key), &format!("participants[{i}].{key}"))?;
            }
            for key in ["requiredEnvVars", "passEnv"] {
                let field = format!("participants[{i}].{key}");
                no_reserved_env(participant.get(key), &field)?;
            }
        }
    }
    match config.get("limits") {
        None => Ok(()),
        Some(Value::Object(limits)) => {
            for key in NUMBER_LIMITS.map(|field| field.spec().key) {
                if let Some(value) = limits.get(key) {
                    if !value.as_f64().is_some_and(|x| x.is_finite() && x > 0.0) {
                        return Err(format!(
                            "limits.{key} must be a number > 0 (got {})",
                            js::value_to_string(value)
                        ));
                    }
                }
            }
            let whole = LIMITS
                .iter()
                .filter(|spec| !NUMBER_LIMITS.contains(&spec.field));
            for (key, most) in whole.map(|spec| (spec.key, spec.most)) {
                if let Some(value) = limits.get(key) {
                    if !value.as_u64().is_some_and(|n| (1..=most).contains(&n)) {
                        return Err(format!(
                            "limits.{key} must be a whole number from 1 to {most} (got {})",
                            js::value_to_string(value)
                        ));
                    }
                }
            }
            Ok(())
        }
        Some(_) => Err("limits must be a plain object".into()),
    }
}

/// Reads the benchmark-level sandbox fields of a validated config.
pub(super) fn typed(config: &Map<String, Value>) -> SandboxConfig {
    let mut limits = ConfigLimits::default();
    if let Some(Value::Object(asked)) = config.get("limits") {
        for spec in &LIMITS {
            if let Some(value) = asked.get(spec.key).and_then(Value::as_f64) {
                limits.request(spec.field, value);
            }
        }
    }
    SandboxConfig {
        allowed_hosts: strings(config.get("allowedHosts")),
        pass_env: strings(config.get("passEnv")),
        http_keep_alive: config.get("httpKeepAlive").and_then(Value::as_bool),
        limits,
    }
}

/// The strings of a validated string list (empty when absent).
pub(crate) fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// Refuses a list of variable names that asks for one of bench's own variables.
fn no_reserved_env(value: Option<&Value>, field: &str) -> Result<(), String> {
    let names = value.and_then(Value::as_array).into_iter().flatten();
    match names
        .filter_map(Value::as_str)
        .find(|name| env::is_reserved(name))
    {
        Some(name) => Err(format!(
            "{field} asks for {name}, one of bench's own variables (platform credentials and \
             settings are never passed to a task)"
        )),
        None => Ok(()),
    }
}

fn string_list(value: Option<&Value>, field: &str) -> Result<(), String> {
    match value {
        None => Ok(()),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => Ok(()),
        Some(_) => Err(format!("{field} must be an array of strings")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(config: Value) -> Result<(), String> {
        validate(config.as_object().unwrap())
    }

    #[test]
    fn sandbox_fields_are_validated_with_clear_messages() {
        assert_eq!(
            check(json!({"allowedHosts": "x"})),
            Err("allowedHosts must be an array of strings".into())
        );
        assert_eq!(
            check(json!({"participants": [{"name": "a", "passEnv": [1]}]})),
            Err("participants[0].passEnv must be an array of strings".into())
        );
        assert_eq!(
            check(json!({"limits": {"memoryMb": 0}})),
            Err("limits.memoryMb must be a number > 0 (got 0)".into())
        );
        assert_eq!(
            check(json!({"limits": []})),
            Err("limits must be a plain object".into())
        );
        assert_eq!(
            check(json!({"httpKeepAlive": "no"})),
            Err("httpKeepAlive must be true or false (got no)".into())
        );
        assert_eq!(
            check(
                json!({"allowedHosts": ["http://127.0.0.1:*"], "limits": {"taskTimeoutMs": 500}})
            ),
            Ok(())
        );
    }

    #[test]
    fn count_limits_are_whole_numbers_within_their_ceiling() {
        assert_eq!(
            check(json!({"limits": {"maxSteps": 0}})),
            Err("limits.maxSteps must be a whole number from 1 to 1000000 (got 0)".into())
        );
        assert_eq!(
            check(json!({"limits": {"maxDataBytes": 1.5}})),
            Err("limits.maxDataBytes must be a whole number from 1 to 67108864 (got 1.5)".into())
        );
        assert_eq!(
            check(json!({"limits": {"maxSandboxes": "many"}})),
            Err("limits.maxSandboxes must be a whole number from 1 to 100000000 (got many)".into())
        );
        let config =
            json!({"limits": {"maxSteps": 5, "maxTaskLogBytes": 100, "maxSandboxes": 20000}});
        assert_eq!(check(config.clone()), Ok(()));
        let typed = typed(config.as_object().unwrap());
        assert_eq!(typed.limits.get(LimitField::Steps), Some(5.0));
        assert_eq!(typed.limits.get(LimitField::TaskLogBytes), Some(100.0));
        assert_eq!(typed.limits.get(LimitField::Sandboxes), Some(20_000.0));
        assert_eq!(typed.limits.get(LimitField::ParticipantLogBytes), None);
    }

    #[test]
    fn a_config_asking_for_benchs_own_variables_is_refused() {
        let refused = " one of bench's own variables (platform credentials and settings are \
                       never passed to a task)";
        assert_eq!(
            check(json!({"participants": [
                {"name": "a"},
                {"name": "b", "requiredEnvVars": ["API_KEY", "BENCHMARKS_PLATFORM_API_KEY"]},
            ]})),
            Err(format!(
                "participants[1].requiredEnvVars asks for BENCHMARKS_PLATFORM_API_KEY,{refused}"
            ))
        );
        assert_eq!(
            check(json!({"passEnv": ["BENCHMARKS_PLATFORM_TOKEN"]})),
            Err(format!(
                "passEnv asks for BENCHMARKS_PLATFORM_TOKEN,{refused}"
            ))
        );
        assert_eq!(
            check(json!({"participants": [{"name": "a", "passEnv": ["BENCHSDK_NO_INGEST"]}]})),
            Err(format!(
                "participants[0].passEnv asks for BENCHSDK_NO_INGEST,{refused}"
            ))
        );
        assert_eq!(
            check(
                json!({"passEnv": ["HOME"], "participants": [{"name": "a", "requiredEnvVars": ["API_KEY"]}]})
            ),
            Ok(())
        );
    }

    #[test]
    fn typed_values_are_read() {
        let config = json!({"allowedHosts": ["https://a.example"], "passEnv": ["HOME"], "httpKeepAlive": false, "limits": {"memoryMb": 64}});
        let typed = typed(config.as_object().unwrap());
        assert_eq!(typed.allowed_hosts, ["https://a.example"]);
        assert_eq!(typed.pass_env, ["HOME"]);
        assert_eq!(typed.http_keep_alive, Some(false));
        assert_eq!(typed.limits.get(LimitField::Memory), Some(64.0));
        assert_eq!(typed.limits.get(LimitField::TaskTimeout), None);
        assert_eq!(typed.limits.get(LimitField::Sandboxes), None);
    }
}
