//! Durations as the summary and the progress bar show them: milliseconds in a unit that
//! fits (`850 µs`, `12.3 ms`, `1.23 s`, `2 m 05 s`).

/// Milliseconds in a unit that fits: `850 µs`, `12.3 ms`, `1.23 s`, `2 m 05 s` (`durationUs`
/// times tasks to the nanosecond; older records' whole milliseconds show as such).
pub(crate) fn duration(ms: f64) -> String {
    if ms < 1.0 {
        format!("{} \u{b5}s", three_digits(ms * 1000.0))
    } else if ms < 1000.0 {
        format!("{} ms", three_digits(ms))
    } else if ms < 60_000.0 {
        format!("{} s", three_digits(ms / 1000.0))
    } else {
        let seconds = (ms / 1000.0).round() as u64;
        format!("{} m {:02} s", seconds / 60, seconds % 60)
    }
}

/// Three significant digits, no trailing zeros after the point (`12.3`, `123`, `1.5`).
fn three_digits(value: f64) -> String {
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit_that_fits() {
        assert_eq!(duration(0.25), "250 \u{b5}s");
        assert_eq!(duration(0.001234), "1.23 \u{b5}s");
        assert_eq!(duration(0.0), "0 \u{b5}s");
        assert_eq!(duration(1.0), "1 ms");
        assert_eq!(duration(12.34), "12.3 ms");
        assert_eq!(duration(123.4), "123 ms");
        assert_eq!(duration(1500.0), "1.5 s");
        assert_eq!(duration(125_000.0), "2 m 05 s");
    }
}
