//! Columns of JSON text (`outcomes.details`, `runs.errors` ...: the data dictionary's
//! [`json_columns`](crate::dataset::dictionary::json_columns)) printed as JSON values in
//! `--format json` and `ndjson`, not as strings of escaped JSON.
//!
//! Why: `"details": "{\"state_basis\":\"events\"}"` has to be parsed a second time by
//! whoever reads it; `"details": {"state_basis": "events"}` does not. The value is the text
//! itself, laid out again (indented as the document is, or on one line for NDJSON) but with
//! its keys in their own order and its numbers as written. A value that is not a JSON
//! object or array (a note, a number, broken text) stays a string; CSV, table and markdown
//! keep the text as it is.

use std::sync::{Arc, LazyLock};

use arrow::array::{Array, AsArray};
use arrow::datatypes::{DataType, Field, FieldRef};
use arrow::error::ArrowError;
use arrow::json::writer::{Encoder, EncoderFactory, EncoderOptions, NullableEncoder};

/// The dictionary's JSON columns, read once.
static NAMES: LazyLock<Vec<&'static str>> = LazyLock::new(crate::dataset::dictionary::json_columns);

/// Whether a result column is one of JSON text: one of the dictionary's JSON columns by name,
/// holding text.
pub(crate) fn is_json_column(field: &Field) -> bool {
    matches!(field.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) && NAMES.contains(&field.name().as_str())
}

/// `text` when it is one JSON object or array (whitespace around it allowed), else `None`.
pub(crate) fn object_or_array(text: &str) -> Option<&str> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    // Parsed only to be sure it is JSON; what is printed is the text.
    serde_json::from_str::<&serde_json::value::RawValue>(t).ok().map(|_| t)
}

/// `json` (valid JSON text, [`object_or_array`]) laid out as serde_json lays out a value:
/// with `Some(level)`, pretty, two spaces a level, its first line where it stands and its
/// closing bracket `level` levels in; with `None`, compact on one line. Only whitespace
/// outside strings changes.
pub(crate) fn layout(json: &str, level: Option<usize>) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 2);
    let (mut depth, mut in_string, mut escaped) = (level.unwrap_or(0), false, false);
    let newline = |out: &mut String, depth: usize| {
        if level.is_some() {
            out.push('\n');
            out.push_str(&"  ".repeat(depth));
        }
    };
    let mut chars = json.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            (escaped, in_string) = match (escaped, c) {
                (true, _) => (false, true),
                (false, '\\') => (true, true),
                (false, '"') => (false, false),
                _ => (false, true),
            };
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                while chars.next_if(|n| n.is_ascii_whitespace()).is_some() {}
                // An empty object or array stays `{}` / `[]`.
                match chars.next_if(|n| matches!(n, '}' | ']')) {
                    Some(close) => out.push(close),
                    None => {
                        depth += 1;
                        newline(&mut out, depth);
                    }
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(if level.is_some() { ": " } else { ":" }),
            c if c.is_ascii_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// The text of a JSON column's value as the JSON formats print it: the value laid out at
/// `level` ([`layout`]) when it is an object or array, else a JSON string.
pub(crate) fn value(text: &str, level: Option<usize>) -> String {
    match object_or_array(text) {
        Some(json) => layout(json, level),
        None => serde_json::Value::String(text.to_string()).to_string(),
    }
}

/// The encoders arrow's JSON writer uses for JSON columns (NDJSON): each value on one line
/// ([`value`]); other columns are encoded as arrow encodes them.
#[derive(Debug)]
pub(crate) struct Encoders;

/// One JSON column's values, whichever of arrow's string arrays holds them.
struct TextEncoder<'a>(&'a dyn Array);

impl TextEncoder<'_> {
    fn text(&self, i: usize) -> &str {
        match self.0.data_type() {
            DataType::LargeUtf8 => self.0.as_string::<i64>().value(i),
            DataType::Utf8View => self.0.as_string_view().value(i),
            _ => self.0.as_string::<i32>().value(i),
        }
    }
}

impl Encoder for TextEncoder<'_> {
    fn encode(&mut self, idx: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(value(self.text(idx), None).as_bytes());
    }
}

impl EncoderFactory for Encoders {
    fn make_default_encoder<'a>(&self, field: &'a FieldRef, array: &'a dyn Array, _: &'a EncoderOptions) -> Result<Option<NullableEncoder<'a>>, ArrowError> {
        // The field's type is checked against the array's: a dictionary column's values
        // come here with the dictionary's field.
        if !is_json_column(field) || array.data_type() != field.data_type() {
            return Ok(None);
        }
        Ok(Some(NullableEncoder::new(Box::new(TextEncoder(array)), array.nulls().cloned())))
    }
}

/// [`Encoders`], shared.
pub(crate) fn encoders() -> Arc<dyn EncoderFactory> {
    Arc::new(Encoders)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Laid out, a value is what serde_json's printers write for it (whose maps sort their
    /// keys: the samples' keys are sorted), pretty at any level and compact.
    #[test]
    fn the_layout_is_serde_jsons() {
        let samples = [
            r#"{"a":1,"b":[1,2,{"c":null}],"d":{},"e":[],"f":"x, y: {z} [w] \"q\" \\"}"#,
            r#"[ { "evidence" : [ "merged" ] , "zero_touch" : true } , 1.5e3 , -0 ]"#,
            "[]",
            "{\n  \"k\": \"\\u00e9\\n\"\n}",
        ];
        for text in samples {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            let pretty = serde_json::to_string_pretty(&v).unwrap();
            let relaid = layout(text, Some(0));
            // Numbers and escapes are kept as written; the structure is serde's.
            assert_eq!(serde_json::from_str::<serde_json::Value>(&relaid).unwrap(), v, "{relaid}");
            assert_eq!(relaid.lines().count(), pretty.lines().count(), "{relaid}\n{pretty}");
            let indents = |t: &str| t.lines().map(|l| l.len() - l.trim_start().len()).collect::<Vec<_>>();
            assert_eq!(indents(&relaid), indents(&pretty), "{relaid}\n{pretty}");
            let nested = layout(text, Some(2));
            assert_eq!(indents(&nested)[1..], indents(&pretty)[1..].iter().map(|n| n + 4).collect::<Vec<_>>()[..], "{nested}");
            assert!(!layout(text, None).contains('\n'));
            assert_eq!(serde_json::from_str::<serde_json::Value>(&layout(text, None)).unwrap(), v);
        }
        let sorted = r#"{"a":[1,{"b":"c"}],"d":"e"}"#;
        assert_eq!(layout(sorted, Some(0)), serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(sorted).unwrap()).unwrap());
        assert_eq!(layout(sorted, None), sorted);
    }

    /// Only an object or an array is JSON here; anything else stays a string.
    #[test]
    fn only_objects_and_arrays_are_json() {
        assert_eq!(object_or_array(" {\"a\": 1} "), Some("{\"a\": 1}"));
        for text in ["3", "\"x\"", "null", "{\"a\": 1", "{} trailing", "not json", ""] {
            assert_eq!(object_or_array(text), None, "{text}");
            assert_eq!(value(text, None), serde_json::to_string(text).unwrap());
        }
    }
}
