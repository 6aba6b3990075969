//! The opentraces schema versions hindsight reads, and what each changed in the `outcome`
//! and `attribution` blocks attach writes.
//!
//! From the `opentraces-schema` package's releases (0.2.0, 0.3.0, 0.6.0, 0.7.0 and 0.9.0 on
//! PyPI, read from their `models.py`) and, for the versions never published there, its
//! changelog (`RATIONALE-0.4.0.md`, `-0.5.0`, `-0.8.0` in JayFarei/opentraces: 0.4.0 and
//! 0.8.0 changed no trace block, 0.5.0 only added step and record cross-references):
//!
//! | versions | outcome | attribution | range hash |
//! |---|---|---|---|
//! | 0.2.x | `patch` (the session's unified diff) | `experimental`, `files`; conversation `contributor`, `url`, `ranges`; range `start_line`, `end_line`, `content_hash`, `confidence` | MD5, 8 hex digits |
//! | 0.3.0 – 0.5.x | as 0.2 | adds `revision`, `unaccounted_files`; conversation `ids`, `related`; range `change_type`, `original`, `contributor` | `murmur3:` + 32 hex digits |
//! | 0.6.0 – 0.9.x | `patch` removed: the changes are `TraceRecord.patches[]` | as 0.3 | as 0.3 |
//!
//! A version after 0.9 is not read: its blocks may have changed again, and writing a shape
//! hindsight does not know would be a guess.

use serde_json::{json, Value};

/// The newest schema version hindsight knows (major, minor).
pub(crate) const NEWEST: (u32, u32) = (0, 9);

/// The block shapes, in version order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    /// 0.2.x.
    V0_2,
    /// 0.3.0 to 0.5.x: attribution's fidelity fields, murmur3 range hashes.
    V0_3,
    /// 0.6.0 to 0.9.x: `outcome.patch` gone, `patches[]` instead.
    V0_6,
}

impl Shape {
    /// The shape of a record declaring `version` (a record without one is 0.2.0, the first
    /// version hindsight reads). `Err` says why the version is not read.
    pub(crate) fn of(version: Option<&str>) -> Result<Shape, String> {
        let Some(v) = version else { return Ok(Shape::V0_2) };
        let mut parts = v.split('.');
        let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
        let (Some(major), Some(minor)) = (number(parts.next()), number(parts.next())) else {
            return Err(format!("`{v}` is not a MAJOR.MINOR.PATCH version"));
        };
        match (major, minor) {
            (0, 0..=1) => Err(format!("`{v}`: hindsight reads 0.2.0 to {}.{}.x", NEWEST.0, NEWEST.1)),
            (0, 2) => Ok(Shape::V0_2),
            (0, 3..=5) => Ok(Shape::V0_3),
            (0, 6..=9) => Ok(Shape::V0_6),
            _ => Err(format!(
                "`{v}` is newer than {}.{}.x, the newest opentraces schema hindsight knows; its blocks would be written by guess",
                NEWEST.0, NEWEST.1
            )),
        }
    }

    /// The shape of a parsed record (its `schema_version`).
    pub fn of_record(record: &Value) -> Result<Shape, String> {
        Shape::of(crate::json::str_at(record, "schema_version"))
    }

    /// Whether `outcome` has `patch`.
    pub(crate) fn outcome_has_patch(self) -> bool {
        self < Shape::V0_6
    }

    /// Whether the attribution blocks carry 0.3.0's fields (`revision`, `unaccounted_files`,
    /// conversation `ids` and `related`, range `change_type`, `original` and `contributor`).
    pub(crate) fn attribution_fidelity(self) -> bool {
        self >= Shape::V0_3
    }

    /// Whether range hashes are murmur3 (else MD5's first 8 hex digits).
    pub(crate) fn murmur3_ranges(self) -> bool {
        self >= Shape::V0_3
    }

    /// Every field of `outcome` in this shape, with the schema's default.
    pub fn outcome_defaults(self) -> Vec<(&'static str, Value)> {
        let mut out =
            vec![("success", Value::Null), ("signal_source", json!("deterministic")), ("signal_confidence", json!("derived")), ("description", Value::Null)];
        if self.outcome_has_patch() {
            out.push(("patch", Value::Null));
        }
        out.extend([
            ("committed", json!(false)),
            ("commit_sha", Value::Null),
            ("terminal_state", Value::Null),
            ("reward", Value::Null),
            ("reward_source", Value::Null),
        ]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_shapes() {
        for (v, s) in
            [("0.2.0", Shape::V0_2), ("0.2.7", Shape::V0_2), ("0.3.0", Shape::V0_3), ("0.5.1", Shape::V0_3), ("0.6.0", Shape::V0_6), ("0.9.0", Shape::V0_6)]
        {
            assert_eq!(Shape::of(Some(v)), Ok(s), "{v}");
        }
        assert_eq!(Shape::of(None), Ok(Shape::V0_2));
        for v in ["0.1.1", "0.10.0", "1.0.0", "abc", "0"] {
            assert!(Shape::of(Some(v)).is_err(), "{v}");
        }
    }

    #[test]
    fn patch_leaves_the_outcome_at_0_6() {
        let names = |s: Shape| s.outcome_defaults().into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert!(names(Shape::V0_3).contains(&"patch"));
        assert!(!names(Shape::V0_6).contains(&"patch"));
        assert_eq!(names(Shape::V0_2).len(), names(Shape::V0_6).len() + 1);
    }
}
