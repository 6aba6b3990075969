//! A captured body read for the typed views of `github.rs` without building a
//! `serde_json::Value`: only the keys the view being built reads are kept (at any depth;
//! each view names its own with `keys!`), strings borrow from the body's text where they hold
//! no escape, and objects are short vectors rather than B-trees. A pull request's view skips
//! its `body`, which a comment's keeps: bodies are most of a capture's text. Evaluate reads
//! most bodies only through the typed views, so most bodies never become a `Value` at all
//! (see `Entry`'s views).
//!
//! `crate::json::Json` is what the views need of a JSON value; `Value` and [`Sparse`] both
//! answer it, so each view is written once and reads either the same way. A test compares
//! the two, for every view, on every captured body in the fixtures.

use std::borrow::Cow;
use std::fmt;

use crate::json::Json;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A JSON value with only the keys of one view kept in its objects.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Sparse<'a> {
    Null,
    Bool(bool),
    Int(i64),
    /// A number that is no `i64` (a fraction, or past `i64::MAX`): never an integer.
    Number,
    Str(Cow<'a, str>),
    Array(Vec<Sparse<'a>>),
    /// Kept members in input order; a repeated key keeps its last value, as `Value` does.
    Object(Vec<(&'static str, Sparse<'a>)>),
}

/// The keys a view reads: the kept key a member's key is, or `None` for one it never reads.
pub(crate) type Keys = fn(&str) -> Option<&'static str>;

impl<'a> Sparse<'a> {
    /// Parse a body keeping the keys `keys` knows; text that is not JSON reads as `null`, as
    /// it does for `Value`.
    pub(crate) fn parse(text: &'a str, keys: Keys) -> Sparse<'a> {
        Sparse::try_parse(text, keys).unwrap_or(Sparse::Null)
    }

    /// Parse a body keeping the keys `keys` knows; `None` for text that is not JSON (the
    /// typed tables skip such a page, as they skip one `Value` cannot read).
    pub(crate) fn try_parse(text: &'a str, keys: Keys) -> Option<Sparse<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        Seed(keys).deserialize(&mut de).and_then(|v| de.end().map(|_| v)).ok()
    }
}

impl Json for Sparse<'_> {
    fn get(&self, key: &str) -> Option<&Self> {
        match self {
            Sparse::Object(m) => m.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Sparse::Str(s) => Some(s),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            Sparse::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn as_int(&self) -> Option<i64> {
        match self {
            Sparse::Int(n) => Some(*n),
            Sparse::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<&[Self]> {
        match self {
            Sparse::Array(a) => Some(a),
            _ => None,
        }
    }
    fn is_object(&self) -> bool {
        matches!(self, Sparse::Object(_))
    }
    fn is_null(&self) -> bool {
        matches!(self, Sparse::Null)
    }
}

/// `keys!(fn name: "a", "b", ...)`: a [`Keys`] function knowing exactly those keys. A key a
/// view reads and its list lacks reads as absent: the equivalence test over the fixtures
/// finds it.
macro_rules! keys {
    ($(#[$m:meta])* $v:vis fn $name:ident: $($k:literal),+ $(,)?) => {
        $(#[$m])*
        $v fn $name(k: &str) -> Option<&'static str> {
            match k {
                $($k => Some($k),)+
                _ => None,
            }
        }
    };
}
pub(crate) use keys;

/// Deserializes a [`Sparse`] keeping the keys its function knows, at every depth.
#[derive(Clone, Copy)]
struct Seed(Keys);

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Sparse<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(SparseVisitor(self.0))
    }
}

struct SparseVisitor(Keys);

impl<'de> Visitor<'de> for SparseVisitor {
    type Value = Sparse<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Int(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Sparse<'de>, E> {
        Ok(i64::try_from(n).map(Sparse::Int).unwrap_or(Sparse::Number))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Number)
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Str(Cow::Owned(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Str(Cow::Owned(s)))
    }
    fn visit_unit<E>(self) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Null)
    }
    fn visit_none<E>(self) -> Result<Sparse<'de>, E> {
        Ok(Sparse::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Sparse<'de>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(Seed(self.0))? {
            out.push(v);
        }
        Ok(Sparse::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Sparse<'de>, A::Error> {
        let mut out: Vec<(&'static str, Sparse<'de>)> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed(self.0))? {
            match key {
                Some(k) => {
                    let v: Sparse<'de> = map.next_value_seed(Seed(self.0))?;
                    match out.iter_mut().find(|(x, _)| *x == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Sparse::Object(out))
    }
}

/// A member's key: the kept key it is, or `None` for a key the view does not read.
struct KeySeed(Keys);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<&'static str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Option<&'static str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok((self.0)(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    keys!(fn some_keys: "user", "login", "id");

    #[test]
    fn only_known_keys_are_kept_and_the_last_of_a_repeated_key_wins() {
        let s = Sparse::parse(r#"{"user": {"login": "a\u0062", "avatar_url": "x"}, "noise": [1, {"login": 2}], "id": 1, "id": "7", "n": 1.5}"#, some_keys);
        assert_eq!(s.get("user").and_then(|u| u.get("login")).and_then(Json::as_str), Some("ab"));
        assert!(s.get("user").unwrap().get("avatar_url").is_none());
        assert!(s.get("noise").is_none());
        assert_eq!(s.get("id").and_then(Json::as_int), Some(7));
        assert_eq!(
            Sparse::parse("[1, 18446744073709551615, 2.0, true, null]", some_keys).as_array().map(|a| a.iter().map(Json::as_int).collect::<Vec<_>>()),
            Some(vec![Some(1), None, None, None, None])
        );
        assert_eq!(Sparse::parse("{not json", some_keys), Sparse::Null);
        assert_eq!(Sparse::parse("{} x", some_keys), Sparse::Null, "trailing text is no JSON, as for `Value`");
        // A key the function does not know is not kept, at any depth.
        assert_eq!(Sparse::parse(r#"{"name": {"id": 2}}"#, some_keys), Sparse::Object(vec![]));
    }
}

#[cfg(test)]
pub(crate) mod equivalence {
    use super::*;
    use crate::snapshot::github::{self, View};
    use serde_json::Value;

    /// Every object and array inside `v`, `v` included.
    fn subtrees<'v>(v: &'v Value, out: &mut Vec<&'v Value>) {
        match v {
            Value::Array(a) => {
                out.push(v);
                a.iter().for_each(|x| subtrees(x, out));
            }
            Value::Object(m) => {
                out.push(v);
                m.values().for_each(|x| subtrees(x, out));
            }
            _ => {}
        }
    }

    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "json" || x == "jsonl") {
                out.push(p);
            }
        }
    }

    fn same<T: View + std::fmt::Debug>(v: &Value, text: &str) -> bool {
        format!("{:?}", T::read(v)) == format!("{:?}", T::read(&Sparse::parse(text, T::KEYS)))
    }

    /// Every JSON document in the fixtures (real recorded bodies among them) and in GitHub's
    /// REST shapes beside the project: whole files, or each line of a JSON-lines file.
    pub(crate) fn fixture_documents() -> Vec<Value> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut paths = Vec::new();
        files(&root.join("fixtures"), &mut paths);
        files(&root.join("../shared/formats/github-rest"), &mut paths);
        paths.sort();
        let mut docs: Vec<Value> = Vec::new();
        for p in &paths {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            match serde_json::from_str::<Value>(&text) {
                Ok(v) => docs.push(v),
                Err(_) => docs.extend(text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok())),
            }
        }
        docs
    }

    /// Every object and list inside the fixtures' documents, as text: each is a body some
    /// capture could hold.
    pub(crate) fn fixture_bodies() -> Vec<String> {
        let docs = fixture_documents();
        let mut trees = Vec::new();
        docs.iter().for_each(|d| subtrees(d, &mut trees));
        trees.iter().map(|v| v.to_string()).collect()
    }

    /// The typed views read the same from a `Value` and from a `Sparse` body, for every
    /// object and list in the fixtures (real recorded bodies among them) and in GitHub's
    /// REST shapes beside the project.
    #[test]
    fn views_read_the_same_from_value_and_sparse() {
        let docs = fixture_documents();
        let mut trees = Vec::new();
        docs.iter().for_each(|d| subtrees(d, &mut trees));
        assert!(trees.len() > 1000, "only {} bodies found", trees.len());
        let mut differ = Vec::new();
        for v in trees {
            let text = serde_json::to_string(v).unwrap();
            let ok = same::<github::Issue>(v, &text)
                && same::<github::PullRequest>(v, &text)
                && same::<github::Events>(v, &text)
                && same::<Vec<github::Comment>>(v, &text)
                && same::<Vec<github::Review>>(v, &text)
                && same::<Vec<github::Commit>>(v, &text)
                && same::<Vec<github::Reaction>>(v, &text)
                && same::<github::Comment>(v, &text)
                && same::<github::Commit>(v, &text)
                && same::<github::Names>(v, &text);
            if !ok {
                differ.push(text.chars().take(200).collect::<String>());
            }
        }
        assert!(differ.is_empty(), "{} bodies read differently, e.g. {:?}", differ.len(), &differ[..differ.len().min(3)]);
    }

    /// Escaped keys and values, repeated keys and odd types read the same both ways.
    #[test]
    fn escapes_repeats_and_odd_types_read_the_same() {
        for text in [
            r#"{"us\u0065r": {"login": "x\ny", "type": "Bot"}, "number": "12", "state": "CLOSED", "labels": ["a", {"name": "b"}, {"login": "c"}, 3, null]}"#,
            r#"{"number": 1, "number": 2.5, "merged": "yes", "merged_at": "2026-01-01T00:00:00Z", "head": [1], "user": "someone"}"#,
            r#"[{"event": "line-commented", "comments": [{"user": {"login": "r"}, "created_at": "2026-01-02T00:00:00Z", "id": 9}, 7]}, {"event": "closed", "actor": 5, "user": {"login": "u"}}, {"event": "review_dismissed", "dismissed_review": {"review_id": "4"}, "rename": {"from": "a", "to": "b"}, "requested_team": {"slug": "t"}, "source": {"issue": {"number": 3, "pull_request": null, "user": {"login": "s"}}}}]"#,
            r#"[1, "two", {"id": 18446744073709551615, "sha": "abc", "commit": {"message": "m", "author": {"date": "bad"}}}]"#,
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert!(same::<github::Issue>(&v, text) && same::<github::PullRequest>(&v, text) && same::<github::Events>(&v, text), "{text}");
            assert!(same::<Vec<github::Commit>>(&v, text) && same::<Vec<github::Comment>>(&v, text) && same::<Vec<github::Review>>(&v, text), "{text}");
            assert!(same::<Vec<github::Reaction>>(&v, text) && same::<github::Names>(&v, text), "{text}");
        }
    }
}
