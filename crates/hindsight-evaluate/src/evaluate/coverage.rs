//! The capture plan counted against the snapshot while evaluate judges: for each
//! repository, the paths its outputs' rules read ([`rules::reads`], answered by its index)
//! and its repository-level lists, as `capture --plan --snapshot` plans them
//! ([`crate::snapshot::plan`]), each present when its own capture answered. Only counts are
//! kept; the manifest records them (`capture_coverage`) and the dashboard warns from there.
//!
//! Memory: a repository's paths are a set while it is judged (each repository is judged
//! once, in one chunk or in the rest), then counts. Paths outside a repository (a team's
//! members, a project) are read by outputs of many, so they are held for the run, to be
//! counted once: as few as the teams and projects the outputs name.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, Int64Array, StringArray};
use arrow::record_batch::RecordBatch;
use rayon::prelude::*;

use super::repository::RepositoryFacts;
use super::rules;
use crate::dataset::manifest::CaptureCoverage;
use crate::runs::SafeOutput;
use crate::snapshot::{paths, plan, SnapshotIndex};

/// The plan's paths counted so far.
#[derive(Default)]
pub(crate) struct Tally {
    planned: u64,
    present: u64,
    missing: BTreeMap<String, u64>,
    /// Paths of no repository (or of another one), with whether they were answered.
    elsewhere: HashMap<String, bool>,
}

impl Tally {
    fn count(&mut self, path: &str, present: bool) {
        self.planned += 1;
        if present {
            self.present += 1;
        } else {
            *self.missing.entry(plan::kind(path)).or_default() += 1;
        }
    }

    /// Both tallies as one (counts add up; paths elsewhere are still counted once).
    pub(crate) fn add(mut self, other: Tally) -> Tally {
        self.planned += other.planned;
        self.present += other.present;
        for (k, n) in other.missing {
            *self.missing.entry(k).or_default() += n;
        }
        for (p, answered) in other.elsewhere {
            // Either way the same: every index falls back on the same captures of no repository.
            *self.entry(p) |= answered;
        }
        self
    }

    fn entry(&mut self, path: String) -> &mut bool {
        self.elsewhere.entry(path).or_default()
    }

    /// The counts as the manifest keeps them: kinds most missing first, then by name.
    pub(crate) fn finish(mut self) -> CaptureCoverage {
        for (p, answered) in std::mem::take(&mut self.elsewhere) {
            self.count(&p, answered);
        }
        let mut missing_by_kind: Vec<(String, u64)> = self.missing.into_iter().collect();
        missing_by_kind.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        CaptureCoverage { planned: self.planned, present: self.present, missing_by_kind }
    }
}

/// The name of a cluster partition's counts among the tables its executor sends back.
pub(crate) const TABLE: &str = "capture_coverage";

/// What each row of [`TABLE`] counts: `n` of `planned` and `present` (no name), missing
/// captures of a kind (`missing`, the kind), or a path elsewhere (`elsewhere`, the path; `n`
/// is 1 when answered).
const ROWS: [&str; 4] = ["planned", "present", "missing", "elsewhere"];

impl Tally {
    /// The counts as a table, for a cluster's executor to send back (string keys only).
    pub(crate) fn to_batch(&self) -> crate::error::Result<RecordBatch> {
        let counts = [(ROWS[0], None, self.planned), (ROWS[1], None, self.present)].into_iter();
        let missing = self.missing.iter().map(|(k, n)| (ROWS[2], Some(k.as_str()), *n));
        let elsewhere = self.elsewhere.iter().map(|(p, a)| (ROWS[3], Some(p.as_str()), u64::from(*a)));
        let rows: Vec<(&str, Option<&str>, u64)> = counts.chain(missing).chain(elsewhere).collect();
        let n = rows.iter().map(|r| i64::try_from(r.2).unwrap_or(i64::MAX));
        Ok(RecordBatch::try_from_iter(vec![
            ("count", Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0))) as ArrayRef),
            ("name", Arc::new(StringArray::from_iter(rows.iter().map(|r| r.1))) as ArrayRef),
            ("n", Arc::new(Int64Array::from_iter_values(n)) as ArrayRef),
        ])?)
    }

    /// The counts a cluster's executor sent back ([`Tally::to_batch`]'s table).
    pub(crate) fn from_batch(batch: &RecordBatch) -> std::result::Result<Tally, String> {
        let col = |name: &str| batch.column_by_name(name).ok_or_else(|| format!("the cluster's {TABLE} rows have no `{name}` column"));
        let (count, name, n) = (col("count")?, col("name")?, col("n")?);
        let (Some(count), Some(name), Some(n)) =
            (count.as_any().downcast_ref::<StringArray>(), name.as_any().downcast_ref::<StringArray>(), n.as_any().downcast_ref::<Int64Array>())
        else {
            return Err(format!("the cluster's {TABLE} rows are not (text, text, integer)"));
        };
        let mut tally = Tally::default();
        for i in 0..batch.num_rows() {
            let v = u64::try_from(n.value(i)).map_err(|_| format!("the cluster's {TABLE} rows count {} captures", n.value(i)))?;
            let named = || name.is_valid(i).then(|| name.value(i).to_string()).ok_or_else(|| format!("the cluster's {TABLE} row {i} names nothing"));
            match count.value(i) {
                "planned" => tally.planned += v,
                "present" => tally.present += v,
                "missing" => *tally.missing.entry(named()?).or_default() += v,
                "elsewhere" => *tally.entry(named()?) |= v > 0,
                other => return Err(format!("the cluster's {TABLE} rows count `{other}`, not one of {ROWS:?}")),
            }
        }
        Ok(tally)
    }
}

/// The plan of one repository's outputs (all of one target repository, or all of none)
/// against its index: what their rules read, answered by `index` and `facts` as the judging
/// is, and the repository-level lists.
pub(crate) fn repository(outputs: &[&SafeOutput<'_>], index: &SnapshotIndex, facts: &RepositoryFacts) -> Tally {
    let mut tally = Tally::default();
    let Some(first) = outputs.first() else { return tally };
    let repo = first.target_repo.as_deref();
    let read: HashSet<String> = outputs
        .par_iter()
        .flat_map_iter(|o| rules::reads(o, index, facts).into_iter().filter_map(move |r| r.path(o.target_repo.as_deref())))
        .flat_map_iter(|p| plan::planned(&p))
        .collect();
    let mut planned = read;
    planned.extend(repo.map(plan::repository_paths).into_iter().flatten());
    for p in planned {
        let answered = index.get(&p).is_some_and(|e| e.answered());
        match repo.is_some() && paths::repo_of(&p) == repo {
            true => tally.count(&p, answered),
            false => *tally.entry(p) |= answered,
        }
    }
    tally
}

/// The plan of outputs of any repositories against one index (those with no captures of
/// their own, and those of no repository: the captures of no repository alone), one
/// repository at a time.
pub(crate) fn each_repository(outputs: &[&SafeOutput<'_>], index: &SnapshotIndex, facts: &RepositoryFacts) -> Tally {
    let mut sorted = outputs.to_vec();
    sorted.sort_by(|a, b| a.target_repo.cmp(&b.target_repo));
    let groups: Vec<&[&SafeOutput]> = sorted.chunk_by(|a, b| a.target_repo == b.target_repo).collect();
    groups.into_par_iter().map(|g| repository(g, index, facts)).reduce(Tally::default, Tally::add)
}
