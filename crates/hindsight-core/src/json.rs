//! Lenient access to JSON values, canonical JSON and hashing.
//!
//! GitHub bodies vary by API version and capture tool, so every accessor returns `None`
//! for a missing *or* wrong-typed field instead of failing the whole record.

use serde_json::value::RawValue;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// `v[key]` as a string, `None` when missing, null or not a string.
/// What kind of JSON value `v` is, in words, for reasons ("expected an object, found an array").
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What the lenient accessors below need of a JSON value. `Value` answers it, and so does
/// `snapshot::sparse::Sparse`, the reading of a captured body for its typed views: each
/// accessor, and each view built on them, is written once for both.
pub trait Json: Sized {
    fn get(&self, key: &str) -> Option<&Self>;
    fn as_str(&self) -> Option<&str>;
    fn as_bool(&self) -> Option<bool>;
    /// An integer, or a string holding one ([`as_int`]).
    fn as_int(&self) -> Option<i64>;
    fn as_array(&self) -> Option<&[Self]>;
    fn is_object(&self) -> bool;
    fn is_null(&self) -> bool;
}

impl Json for Value {
    fn get(&self, key: &str) -> Option<&Value> {
        Value::get(self, key)
    }
    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }
    fn as_bool(&self) -> Option<bool> {
        Value::as_bool(self)
    }
    fn as_int(&self) -> Option<i64> {
        as_int(self)
    }
    fn as_array(&self) -> Option<&[Value]> {
        Value::as_array(self).map(Vec::as_slice)
    }
    fn is_object(&self) -> bool {
        Value::is_object(self)
    }
    fn is_null(&self) -> bool {
        Value::is_null(self)
    }
}

pub fn str_at<'a, J: Json>(v: &'a J, key: &str) -> Option<&'a str> {
    v.get(key).and_then(J::as_str)
}

/// `v[key]` as an integer; numeric strings ("42") are accepted, as some capture tools
/// write ids as strings.
pub fn int_at<J: Json>(v: &J, key: &str) -> Option<i64> {
    v.get(key)?.as_int()
}

/// Digits only, and too many for an `i64`: a number that was written, and is lost if read
/// as "no number".
pub(crate) fn overflows_i64(digits: &str) -> bool {
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && digits.parse::<i64>().is_err()
}

pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_u64().and_then(|u| i64::try_from(u).ok())),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub fn bool_at<J: Json>(v: &J, key: &str) -> Option<bool> {
    v.get(key).and_then(J::as_bool)
}

/// A nested path such as `["user", "login"]`.
pub(crate) fn path<'a, J: Json>(v: &'a J, keys: &[&str]) -> Option<&'a J> {
    keys.iter().try_fold(v, |acc, k| acc.get(k))
}

pub fn str_path<'a, J: Json>(v: &'a J, keys: &[&str]) -> Option<&'a str> {
    path(v, keys).and_then(J::as_str)
}

/// Strings of an array field; non-string elements, and objects with a `name`, are handled
/// (labels come as `["bug"]` or `[{"name": "bug"}]`).
pub(crate) fn names_at<J: Json>(v: &J, key: &str) -> Option<Vec<String>> {
    names(v.get(key)?)
}

pub fn names<J: Json>(v: &J) -> Option<Vec<String>> {
    let arr = v.as_array()?;
    Some(
        arr.iter()
            .filter_map(|e| match e.as_str() {
                Some(s) => Some(s.to_string()),
                None if e.is_object() => str_at(e, "name").or_else(|| str_at(e, "login")).map(str::to_string),
                None => None,
            })
            .collect(),
    )
}

/// Canonical JSON text: keys sorted (serde_json's map is ordered without `preserve_order`),
/// no insignificant white space. The basis of every payload hash.
pub fn canonical(v: &Value) -> String {
    // serde_json::Value serialization cannot fail (keys are strings).
    serde_json::to_string(v).unwrap_or_default()
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The deepest nesting of arrays and objects serde_json parses (found by test below): deeper
/// text fails every later parse, so a reader refuses it up front.
pub(crate) const MAX_DEPTH: usize = 127;

/// How deeply arrays and objects nest in a JSON text (strings skipped). One linear pass; a
/// string is crossed by jumping to its next quote or backslash (most of a body is strings).
pub(crate) fn nesting_depth(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut max, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // Inside the string: the next quote not escaped ends it.
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &bytes[i.min(bytes.len())..]) {
                        None => return max,
                        Some(k) if bytes[i + k] == b'\\' => i += k + 2,
                        Some(k) => {
                            i += k;
                            break;
                        }
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

/// The quarantine reason for a text nested deeper than the parser reads, if it is.
pub(crate) fn too_deep(text: &str) -> Option<String> {
    let d = nesting_depth(text);
    (d > MAX_DEPTH).then(|| format!("nested {d} levels deep; the JSON parser reads at most {MAX_DEPTH}"))
}

/// A JSON value that keeps its text: numbers as written (an integer beyond 64 bits is not
/// turned into a float) and object members in their order.
#[derive(Debug)]
pub(crate) enum Raw<'a> {
    /// `null`, `true`, `false` or a number, as written.
    Scalar(&'a str),
    Str(String),
    Array(Vec<Raw<'a>>),
    Object(Vec<(String, Raw<'a>)>),
}

/// An object's members in their order, each value's text borrowed.
pub struct Members<'a>(pub(crate) Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Members<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut m: M) -> Result<Members<'a>, M::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl<'a> Members<'a> {
    /// The text of member `key` (the last, if it repeats, as a parser keeps it).
    pub fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

/// Parse a file hindsight reads as configuration or expectations (a policy, a gate or task
/// record, published figures), refusing a key that repeats in any object at any depth: two
/// readers of the file could take different copies, so the file says two things at once.
/// The error names the key's path and, through serde_json, its line and column.
pub fn from_str_unique<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    unique_keys(text)?;
    serde_json::from_str(text)
}

/// `Ok` when no object in `text` repeats a key (and `text` is one JSON value).
pub(crate) fn unique_keys(text: &str) -> serde_json::Result<()> {
    walk_keys(text, &std::cell::RefCell::new(None))
}

/// The path (`a.b[2].c`) of the first key that repeats in an object of `text`, if any.
pub fn repeated_key(text: &str) -> Option<String> {
    let found = std::cell::RefCell::new(None);
    let _ = walk_keys(text, &found);
    found.into_inner()
}

fn walk_keys(text: &str, found: &std::cell::RefCell<Option<String>>) -> serde_json::Result<()> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    Unique { path: "", found }.deserialize(&mut de)?;
    de.end()
}

/// Walks a JSON value, keeping the path for the error.
struct Unique<'p> {
    path: &'p str,
    found: &'p std::cell::RefCell<Option<String>>,
}

impl<'de> serde::de::DeserializeSeed<'de> for Unique<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Unique<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            let path = format!("{}[{i}]", self.path);
            if seq.next_element_seed(Unique { path: &path, found: self.found })?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() { key.clone() } else { format!("{}.{key}", self.path) };
            if !seen.insert(key) {
                let message = format!(
                    "repeated key `{}`: it appears twice in one object, and readers could take either copy, so the file is ambiguous",
                    crate::text::printable(&path)
                );
                *self.found.borrow_mut() = Some(path);
                return Err(serde::de::Error::custom(message));
            }
            map.next_value_seed(Unique { path: &path, found: self.found })?;
        }
        Ok(())
    }
}

/// The members of a JSON object text, in order; `None` when the text is not an object.
pub fn members(text: &str) -> Option<Members<'_>> {
    serde_json::from_str(text).ok()
}

impl<'a> Raw<'a> {
    pub(crate) fn parse(text: &'a str) -> serde_json::Result<Raw<'a>> {
        let v: &'a RawValue = serde_json::from_str(text)?;
        Self::of(v)
    }

    fn of(v: &'a RawValue) -> serde_json::Result<Raw<'a>> {
        let t = v.get();
        Ok(match t.as_bytes().first() {
            Some(b'{') => {
                let m: Members<'a> = serde_json::from_str(t)?;
                Raw::Object(m.0.into_iter().map(|(k, v)| Ok((k, Self::of(v)?))).collect::<serde_json::Result<_>>()?)
            }
            Some(b'[') => {
                let a: Vec<&'a RawValue> = serde_json::from_str(t)?;
                Raw::Array(a.into_iter().map(Self::of).collect::<serde_json::Result<_>>()?)
            }
            Some(b'"') => Raw::Str(serde_json::from_str(t)?),
            _ => Raw::Scalar(t),
        })
    }

    /// Object members sorted by key, the last of a repeated key kept (as `Value` does).
    pub(crate) fn sorted_members<'m>(m: &'m [(String, Raw<'a>)]) -> Vec<(&'m str, &'m Raw<'a>)> {
        let map: std::collections::BTreeMap<&'m str, &'m Raw<'a>> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
        map.into_iter().collect()
    }

    /// Canonical JSON text (see `canonical`), but an integer too big for 64 bits keeps its
    /// digits instead of becoming a float. Equal to `canonical` for every other value, so
    /// ordinary payload hashes are unchanged.
    pub(crate) fn canonical(&self) -> String {
        let mut out = String::new();
        self.write_canonical(&mut out);
        out
    }

    fn write_canonical(&self, out: &mut String) {
        match self {
            Raw::Scalar(t) => out.push_str(&number_text(t, |n| n.to_string())),
            Raw::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
            Raw::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    x.write_canonical(out);
                }
                out.push(']');
            }
            Raw::Object(m) => {
                out.push('{');
                for (i, (k, x)) in Self::sorted_members(m).into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).unwrap_or_default());
                    out.push(':');
                    x.write_canonical(out);
                }
                out.push('}');
            }
        }
    }
}

/// A scalar's text for output: an integer literal beyond 64 bits as written; any other
/// number as `fmt` prints serde_json's reading of it; `null`, `true`, `false` as they are.
pub(crate) fn number_text(t: &str, fmt: impl Fn(&serde_json::Number) -> String) -> String {
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Number(n)) if n.is_f64() && is_big_integer(t) => t.to_string(),
        Ok(Value::Number(n)) => fmt(&n),
        _ => t.to_string(),
    }
}

/// An integer literal (no fraction, no exponent) other than `-0`: when serde_json reads
/// one as a float, it was too big for 64 bits.
fn is_big_integer(t: &str) -> bool {
    let digits = t.strip_prefix('-').unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.trim_start_matches('0').is_empty()
}

/// Canonical JSON of a text (keys sorted, no white space), big integers kept exactly.
pub(crate) fn canonical_text(text: &str) -> serde_json::Result<String> {
    Ok(Raw::parse(text)?.canonical())
}

/// `new`, written so that whatever it shares with the JSON text `old` keeps `old`'s text:
/// object members keep their order and their values' exact text (big integers, white
/// space) where the value is unchanged; members `new` adds come after, in key order;
/// members it drops are dropped. Used to add blocks to a record without re-serializing it.
pub fn splice(old: &str, new: &Value) -> String {
    let same = |t: &str| serde_json::from_str::<Value>(t).ok().as_ref() == Some(new);
    if same(old) {
        return old.trim().to_string();
    }
    match (new, members(old)) {
        (Value::Object(n), Some(m)) => {
            let mut out = String::from("{");
            let mut first = true;
            let mut push = |out: &mut String, k: &str, v: String| {
                if !std::mem::take(&mut first) {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(':');
                out.push_str(&v);
            };
            let mut done = std::collections::HashSet::new();
            for (k, v) in &m.0 {
                // A repeated key: the last copy is the value; earlier copies go.
                if m.get(k).map(|last| std::ptr::eq(last, *v)) != Some(true) {
                    continue;
                }
                if let Some(nv) = n.get(k) {
                    push(&mut out, k, splice(v.get(), nv));
                    done.insert(k.as_str());
                }
            }
            for (k, nv) in n {
                if !done.contains(k.as_str()) {
                    push(&mut out, k, canonical(nv));
                }
            }
            out.push('}');
            out
        }
        _ => canonical(new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key repeated at any depth is refused with its path, line and column; the same key in
    /// two different objects is not a repeat.
    #[test]
    fn repeated_keys_are_found_at_any_depth() {
        assert!(unique_keys(r#"{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}"#).is_ok());
        for (text, path) in [
            (r#"{"a": 1, "a": 2}"#, "a"),
            ("{\"a\": {\"x\": 1,\n \"x\": 1}}", "a.x"),
            (r#"{"q": [{"n": 1}, {"n": 1, "n": 2}]}"#, "q[1].n"),
            (r#"{}"#, ""),
        ] {
            assert_eq!(repeated_key(text).unwrap_or_default(), path, "{text}");
            if !path.is_empty() {
                let e = from_str_unique::<Value>(text).unwrap_err().to_string();
                assert!(e.contains(&format!("repeated key `{path}`")) && e.contains("line "), "{e}");
            }
        }
        assert!(from_str_unique::<Value>("{} {}").is_err(), "trailing text is still an error");
    }

    /// serde_json's limit, found by trying: 127 nested arrays or objects parse, 128 do not.
    /// The byte-by-byte definition `nesting_depth` jumps through strings to compute.
    fn depth_byte_by_byte(text: &str) -> usize {
        let (mut depth, mut max, mut in_str, mut escaped) = (0usize, 0usize, false, false);
        for &b in text.as_bytes() {
            if in_str {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_str = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'[' | b'{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        max
    }

    #[test]
    fn nesting_depth_skips_strings_as_the_byte_by_byte_definition_does() {
        let texts = [
            r#"{"a": "[[[", "b": [[1]]}"#,
            r#"{"a": "quote \" [[ still inside", "b": [{}]}"#,
            r#"{"a": "ends in a backslash \\", "b": [[[]]]}"#,
            r#"["unterminated [[[ \"#,
            r#"["escaped at the end \"#,
            r#"[[["é [ ü", {"k": "\u005b"}]]]"#,
            "",
            r#""just a string [""#,
            r#"[[[[[[]]]]]] "x" [[]]"#,
        ];
        for t in texts {
            assert_eq!(nesting_depth(t), depth_byte_by_byte(t), "{t}");
        }
        // Every prefix of a mixed text, so a jump can end anywhere.
        let mixed = r#"{"a":["b\"c",{"d":"\\"},[["e"]]],"f":"]]]"}"#;
        for k in 0..=mixed.len() {
            assert_eq!(nesting_depth(&mixed[..k]), depth_byte_by_byte(&mixed[..k]), "{}", &mixed[..k]);
        }
    }

    #[test]
    fn max_depth_is_the_parsers() {
        let arr = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let obj = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        for (n, ok) in [(MAX_DEPTH, true), (MAX_DEPTH + 1, false)] {
            assert_eq!(serde_json::from_str::<Value>(&arr(n)).is_ok(), ok, "{n}");
            assert_eq!(serde_json::from_str::<Value>(&obj(n)).is_ok(), ok, "{n}");
            assert_eq!(too_deep(&obj(n)).is_none(), ok);
        }
        // Brackets inside strings do not count.
        assert_eq!(nesting_depth(r#"{"a": "[[[{\"", "b": [1]}"#), 2);
    }

    #[test]
    fn canonical_text_keeps_big_integers_and_equals_canonical_otherwise() {
        for t in [r#"{"b": [1, 2.0, -0, 1e5, null], "a": "é\n", "c": {"z": true, "y": -12}}"#, r#"{"k": 1, "k": 2}"#, "18446744073709551615"] {
            assert_eq!(canonical_text(t).unwrap(), canonical(&serde_json::from_str(t).unwrap()), "{t}");
        }
        assert_eq!(
            canonical_text(r#"{"z": 18446744073709551616, "a": -99999999999999999999}"#).unwrap(),
            r#"{"a":-99999999999999999999,"z":18446744073709551616}"#
        );
    }

    #[test]
    fn splice_keeps_order_and_digits_of_what_did_not_change() {
        let old = r#"{"z": 18446744073709551616, "m": {"y": 1, "x": [1, 2]}, "gone": 0}"#;
        let mut new: Value = serde_json::from_str(old).unwrap();
        new["m"]["w"] = Value::from(3);
        new["m"]["y"] = Value::from(2);
        new["a"] = Value::from("added");
        new.as_object_mut().unwrap().remove("gone");
        assert_eq!(splice(old, &new), r#"{"z":18446744073709551616,"m":{"y":2,"x":[1, 2],"w":3},"a":"added"}"#);
    }
}
