//! A section of the dashboard as the JSON report has it, read by both the HTML page and
//! its charts (so neither reads the other for it), and the cell and HTML text helpers.

use serde_json::{Map, Value};

/// Text for HTML: `&`, `<`, `>` and `"` escaped.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A cell as the JSON report writes it.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

type Rows = Vec<Map<String, Value>>;

/// A section of the page: the query's name and title, its columns in the query's order,
/// and its rows as the JSON report has them.
pub(crate) struct Section<'a> {
    pub(crate) name: &'a str,
    pub(crate) title: &'a str,
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Rows,
}
