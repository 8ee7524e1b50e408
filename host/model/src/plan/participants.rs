//! Which participants run: `--provider`/`defaultProviders` selection and the required-env
//! gate (spec §1.5).

use super::PlanError;
use crate::config::Participant;
use crate::text::escape_control;

/// The participants named by `--provider` (or `defaultProviders`), in config order; all of
/// them when `names` is `None`. An empty list selects nobody.
pub fn select_participants(
    all: &[Participant],
    names: Option<&[String]>,
) -> Result<Vec<Participant>, PlanError> {
    let Some(names) = names else {
        return Ok(all.to_vec());
    };
    let unknown: Vec<String> = names
        .iter()
        .filter(|name| !all.iter().any(|p| &p.name == *name))
        .cloned()
        .collect();
    if !unknown.is_empty() {
        return Err(PlanError::UnknownParticipants {
            unknown,
            available: all.iter().map(|p| p.name.clone()).collect(),
        });
    }
    Ok(all
        .iter()
        .filter(|p| names.contains(&p.name))
        .cloned()
        .collect())
}

/// A participant left out because some of its required env vars are unset or empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Participant name.
    pub name: String,
    /// The missing variables, in declared order.
    pub missing: Vec<String>,
}

impl Skipped {
    /// The console line upstream prints: `Skipping <name>: missing <A, B>` (control
    /// characters escaped).
    pub fn line(&self) -> String {
        format!(
            "Skipping {}: missing {}",
            escape_control(&self.name),
            escape_control(&self.missing.join(", "))
        )
    }
}

/// Splits participants into those whose required env vars all have non-empty values
/// (per `lookup`) and those skipped.
pub fn filter_by_env(
    list: Vec<Participant>,
    lookup: impl Fn(&str) -> Option<String>,
) -> (Vec<Participant>, Vec<Skipped>) {
    let mut available = Vec::new();
    let mut skipped = Vec::new();
    for participant in list {
        let missing: Vec<String> = participant
            .required_env_vars
            .iter()
            .filter(|var| lookup(var).is_none_or(|value| value.is_empty()))
            .cloned()
            .collect();
        if missing.is_empty() {
            available.push(participant);
        } else {
            skipped.push(Skipped {
                name: participant.name,
                missing,
            });
        }
    }
    (available, skipped)
}

/// The `NoAvailableParticipantsError` message (a clean exit upstream).
pub fn no_participants_message(skipped: &[Skipped]) -> String {
    let mut message =
        String::from("No participants have their required env vars set — nothing to run");
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped.iter().map(|s| s.name.as_str()).collect();
        message.push_str(&format!(
            " (skipped: {})",
            escape_control(&names.join(", "))
        ));
    }
    message.push('.');
    message
}
