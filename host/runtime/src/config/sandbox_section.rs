//! bench's own config fields (not in upstream): what participants' sandboxes may reach and
//! their limits. `allowedHosts` and `passEnv` exist at the benchmark level and per
//! participant; `httpKeepAlive` and `limits` at the benchmark level.

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
    /// `limits.memoryMb`: largest memory of one sandbox, in MiB.
    pub memory_mb: Option<f64>,
    /// `limits.taskTimeoutMs`: longest time one task may run.
    pub task_timeout_ms: Option<f64>,
}

/// Validates the sandbox fields of the config and of every participant.
pub(super) fn validate(config: &Map<String, Value>) -> Result<(), String> {
    for key in ["allowedHosts", "passEnv"] {
        string_list(config.get(key), key)?;
    }
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
        }
    }
    match config.get("limits") {
        None => Ok(()),
        Some(Value::Object(limits)) => {
            for key in ["memoryMb", "taskTimeoutMs"] {
                if let Some(value) = limits.get(key) {
                    if !value.as_f64().is_some_and(|x| x.is_finite() && x > 0.0) {
                        return Err(format!(
                            "limits.{key} must be a number > 0 (got {})",
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
    let limit = |key: &str| {
        config
            .get("limits")
            .and_then(|l| l.get(key))
            .and_then(Value::as_f64)
    };
    SandboxConfig {
        allowed_hosts: strings(config.get("allowedHosts")),
        pass_env: strings(config.get("passEnv")),
        http_keep_alive: config.get("httpKeepAlive").and_then(Value::as_bool),
        memory_mb: limit("memoryMb"),
        task_timeout_ms: limit("taskTimeoutMs"),
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
    fn typed_values_are_read() {
        let config = json!({"allowedHosts": ["https://a.example"], "passEnv": ["HOME"], "httpKeepAlive": false, "limits": {"memoryMb": 64}});
        let typed = typed(config.as_object().unwrap());
        assert_eq!(typed.allowed_hosts, ["https://a.example"]);
        assert_eq!(typed.pass_env, ["HOME"]);
        assert_eq!(typed.http_keep_alive, Some(false));
        assert_eq!(typed.memory_mb, Some(64.0));
        assert_eq!(typed.task_timeout_ms, None);
    }
}
