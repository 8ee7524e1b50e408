//! The environment a participant's sandbox sees: its own `requiredEnvVars` and the names the
//! config passes through, with values from the host; nothing else of the host environment.

/// The variables `names` that are set on the host, in order, without duplicates.
pub(crate) fn granted_env<'a>(
    names: impl IntoIterator<Item = &'a String>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let mut granted: Vec<(String, String)> = Vec::new();
    for name in names {
        if granted.iter().any(|(seen, _)| seen == name) {
            continue;
        }
        if let Some(value) = lookup(name) {
            granted.push((name.clone(), value));
        }
    }
    granted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_named_variables_that_are_set_are_granted() {
        let names = ["A".to_owned(), "B".to_owned(), "A".to_owned()];
        let lookup = |name: &str| (name == "A").then(|| "secret".to_owned());
        assert_eq!(
            granted_env(&names, lookup),
            [("A".to_owned(), "secret".to_owned())]
        );
    }
}
