//! Lenient access to JSON values, canonical JSON and hashing.
//!
//! GitHub bodies vary by API version and capture tool, so every accessor returns `None`
//! for a missing *or* wrong-typed field instead of failing the whole record.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `v[key]` as a string, `None` when missing, null or not a string.
pub fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `v[key]` as an integer; numeric strings ("42") are accepted, as some capture tools
/// write ids as strings.
pub fn int_at(v: &Value, key: &str) -> Option<i64> {
    as_int(v.get(key)?)
}

pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_u64().and_then(|u| i64::try_from(u).ok())),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub fn bool_at(v: &Value, key: &str) -> Option<bool> {
    v.get(key).and_then(Value::as_bool)
}

/// A nested path such as `["user", "login"]`.
pub fn path<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().try_fold(v, |acc, k| acc.get(*k))
}

pub fn str_path<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    path(v, keys).and_then(Value::as_str)
}

/// Strings of an array field; non-string elements, and objects with a `name`, are handled
/// (labels come as `["bug"]` or `[{"name": "bug"}]`).
pub fn names_at(v: &Value, key: &str) -> Option<Vec<String>> {
    v.get(key).and_then(names)
}

pub fn names(v: &Value) -> Option<Vec<String>> {
    let arr = v.as_array()?;
    Some(
        arr.iter()
            .filter_map(|e| match e {
                Value::String(s) => Some(s.clone()),
                Value::Object(_) => str_at(e, "name").or_else(|| str_at(e, "login")).map(str::to_string),
                _ => None,
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
