//! The HTML document around a page's data: the data as JSON in a
//! `<script type="application/json">` element, the page script and styles, and the vendored
//! chart library (Apache ECharts, `assets/vendor/echarts`), inline or linked. No script is
//! allowed by `unsafe-inline`: the one-file report's Content-Security-Policy names its two
//! inline scripts by their SHA-256 and keeps the page from loading anything; the dashboard
//! links both scripts from its own origin and sends its policy as a header.

use base64::Engine as _;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Apache ECharts, minified (see `assets/vendor/echarts/README.md`).
pub const CHARTS_JS: &str = include_str!("../../assets/vendor/echarts/echarts.min.js");

/// The script that draws every page from its data.
pub const PAGE_JS: &str = include_str!("../../assets/report/page.js");

/// The pages' styles (also those of the dashboard's login page).
pub const STYLES: &str = include_str!("../../assets/report/page.css");

/// Where a page's scripts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scripts<'a> {
    /// Everything inline: one file that works offline (the HTML report).
    Inline,
    /// Both scripts from URLs of the same origin (the dashboard, whose policy is a header).
    Linked {
        /// The chart library's path, e.g. `/assets/echarts.min.js`.
        charts: &'a str,
        /// The page script's path, e.g. `/assets/page.js`.
        page: &'a str,
    },
}

/// The HTML page showing `data` (a run page's data, or a dashboard page's) titled `title`,
/// with a bar of `links` (label, href) above it.
pub fn render(
    title: &str,
    data: &impl Serialize,
    scripts: Scripts<'_>,
    links: &[(&str, &str)],
) -> String {
    let (policy, scripts) = match scripts {
        Scripts::Inline => {
            let policy = format!(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src {} {}; style-src 'unsafe-inline'; img-src data:\">\n",
                script_hash(CHARTS_JS),
                script_hash(PAGE_JS)
            );
            let scripts = format!("<script>{CHARTS_JS}</script>\n<script>{PAGE_JS}</script>");
            (policy, scripts)
        }
        Scripts::Linked { charts, page } => (
            String::new(),
            format!(
                "<script src=\"{}\"></script>\n<script src=\"{}\"></script>",
                escape_html(charts),
                escape_html(page)
            ),
        ),
    };
    let bar: String = if links.is_empty() {
        String::new()
    } else {
        let anchors: Vec<String> = links
            .iter()
            .map(|(label, href)| {
                format!(
                    "<a href=\"{}\">{}</a>",
                    escape_html(href),
                    escape_html(label)
                )
            })
            .collect();
        format!("<header class=\"bar\">{}</header>\n", anchors.join(""))
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n{policy}\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLES}</style>\n</head>\n<body>\n{bar}<main></main>\n\
         <script type=\"application/json\" id=\"bench-data\">{data}</script>\n{scripts}\n\
         </body>\n</html>\n",
        title = escape_html(title),
        data = script_json(data),
    )
}

/// A Content-Security-Policy source allowing the inline script `script`: `'sha256-<base64>'`.
fn script_hash(script: &str) -> String {
    let digest = Sha256::digest(script.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// JSON that cannot end its `<script>` element or open a comment: `<`, `>` and `&` written
/// as `\u` escapes (the same value to `JSON.parse`).
fn script_json(data: &impl Serialize) -> String {
    let text = serde_json::to_string(data).expect("JSON serializes");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Text safe in HTML content and attribute values.
pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn data_cannot_close_its_script_element() {
        let data = json!({"name": "</script><script>alert(1)</script><!--", "x": "a&b"});
        let page = render("t", &data, Scripts::Inline, &[]);
        let start = page.find("id=\"bench-data\">").unwrap() + "id=\"bench-data\">".len();
        let end = start + page[start..].find("</script>").unwrap();
        let inline = &page[start..end];
        assert!(!inline.contains('<') && !inline.contains('>'), "{inline}");
        let parsed: serde_json::Value = serde_json::from_str(inline).unwrap();
        assert_eq!(parsed, data);
    }

    #[test]
    fn the_title_and_links_are_escaped() {
        let page = render(
            "<b>\"x\"",
            &json!({}),
            Scripts::Linked {
                charts: "/a.js",
                page: "/p.js",
            },
            &[("<i>", "/x?a=1&b=\"2\"")],
        );
        assert!(page.contains("<title>&lt;b&gt;&quot;x&quot;</title>"));
        assert!(page.contains("<a href=\"/x?a=1&amp;b=&quot;2&quot;\">&lt;i&gt;</a>"));
        assert!(page.contains("<script src=\"/a.js\"></script>\n<script src=\"/p.js\"></script>"));
        assert!(!page.contains(CHARTS_JS) && !page.contains(PAGE_JS));
        assert!(!page.contains("<script>"), "no inline script");
    }

    #[test]
    fn inline_scripts_cannot_end_their_element_early() {
        for script in [CHARTS_JS, PAGE_JS] {
            assert!(!script.to_ascii_lowercase().contains("</script"));
            assert!(!script.contains("<!--"));
        }
    }

    #[test]
    fn an_inline_page_has_everything_and_loads_nothing() {
        let page = render("t", &json!({}), Scripts::Inline, &[]);
        assert!(page.contains(CHARTS_JS));
        assert!(page.contains("default-src 'none'; script-src 'sha256-"));
        assert!(
            !page.contains("unsafe-inline'; style") && !page.contains("script-src 'unsafe-inline'")
        );
        assert!(!page.contains("<script src"));
        // Each inline script is allowed by its own hash, as a browser computes it.
        let digest = Sha256::digest(PAGE_JS.as_bytes());
        let hash = base64::engine::general_purpose::STANDARD.encode(digest);
        assert!(page.contains(&format!("'sha256-{hash}'")));
    }
}
