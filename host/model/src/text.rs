//! Text a task controls made safe to show on a terminal or in a log line.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Text a task controls (names, error codes, messages, data) made safe to print: C0 and C1
/// control characters and DEL are shown escaped (`\n`, `\r`, `\t`, `\x1b`, `\u{9b}`), so the
/// text cannot move the cursor, clear the screen, set the window title or fake a line.
/// Everything else, backslashes included, is kept as it is.
pub fn escape_control(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c if u32::from(c) < 0x80 && c.is_control() => {
                let _ = write!(shown, "\\x{:02x}", u32::from(c));
            }
            c if c.is_control() => {
                let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
            }
            c => shown.push(c),
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(escape_control("bad\ncode\x1b[2J"), "bad\\ncode\\x1b[2J");
        assert_eq!(
            escape_control("\u{1b}]0;title\u{7}\r\t\u{7f}\u{9b}31m\0"),
            "\\x1b]0;title\\x07\\r\\t\\x7f\\u{9b}31m\\x00"
        );
    }

    #[test]
    fn ordinary_text_is_borrowed_unchanged() {
        for text in [
            "alpha",
            "FAILED \u{2014} Error",
            r"C:\dir",
            "naïve 名前 {\"a\":1}",
        ] {
            assert!(matches!(escape_control(text), Cow::Borrowed(t) if t == text));
        }
    }
}
