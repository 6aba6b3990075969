//! The items of the rebuilt list captures (a PR's reviews, comments, commits, timeline) as
//! the Parquet releases give them: one row at a time, in the tables' file order, not grouped
//! by PR. Each row becomes an item keyed by its list's path and its place in the table; the
//! spill engine (`crate::spill`) sorts them in runs of bounded size, and the merge hands
//! them back a list at a time, so no table is held to group it.
//!
//! Every PR that gets a list also pushes an empty marker (place 0) for it: a PR with no row
//! in a table it has gets `[]`, which says "none", unlike a list never captured.

use std::cmp::Ordering;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use crate::spill::bytes::{at_end, put, string_of, u64_of};
use crate::spill::{Cleanup, Format, Merge, Record, Spill};

/// One list item, or a list's empty marker (`place` 0, no text).
pub(crate) struct Item {
    pub(crate) path: String,
    /// The row's place in its table, from 1 (0: the marker).
    pub(crate) place: u64,
    /// The row's line (its row in the table) for the capture's provenance.
    pub(crate) line: u64,
    pub(crate) text: String,
}

impl Item {
    /// Bytes the item holds in memory, roughly.
    fn weight(&self) -> usize {
        self.path.len() + self.text.len() + 64
    }

    fn key(&self) -> (&str, u64) {
        (&self.path, self.place)
    }
}

struct Items;

impl Format for Items {
    type Held = Item;
    type Run = Sorted;
    const NAME: &'static str = "list-items";
    const EXT: &'static str = "bin";
    const BESIDE: bool = false;

    fn write_run(p: &Path, mut held: Vec<Item>) -> Result<()> {
        held.sort_unstable_by(|a, b| a.key().cmp(&b.key()));
        crate::spill::write_run_in_frames(p, &held, Item::weight, |w, i| encode(w, i))
    }

    fn open(p: &Path) -> Result<Sorted> {
        Sorted::disk(p)
    }

    fn write_merged(p: &Path, mut runs: Merge<Sorted>) -> Result<()> {
        let mut w = crate::spill::create_run(p)?;
        while let Some(i) = runs.next(|_, r| r.take())?.flatten() {
            encode(&mut w, &i).map_err(|e| Error::io(p, e))?;
        }
        crate::spill::close_run(w, p)
    }
}

/// List items held to a budget of bytes, the rest in sorted runs on disk.
pub(crate) struct ListItems {
    spill: Spill<Items>,
}

impl ListItems {
    pub(crate) fn new(dir: &Path, budget: usize) -> ListItems {
        ListItems { spill: Spill::new(dir, budget) }
    }

    pub(crate) fn push(&mut self, item: Item) -> Result<()> {
        let bytes = item.weight();
        self.spill.push(item, bytes)
    }

    /// Every item in (path, place) order.
    pub(crate) fn merge(mut self) -> Result<Lists> {
        let mut left = self.spill.take_held();
        left.sort_unstable_by(|a, b| a.key().cmp(&b.key()));
        let (mut runs, cleanup) = self.spill.into_runs()?;
        if !left.is_empty() {
            runs.push(Sorted::memory(left)?);
        }
        Ok(Lists { runs: Merge::new(runs), _cleanup: cleanup })
    }
}

/// The merged items, a list at a time.
pub(crate) struct Lists {
    runs: Merge<Sorted>,
    _cleanup: Cleanup,
}

impl Lists {
    /// The next list: its path, the line of its first item (none when empty) and its items'
    /// texts in table order. `None` at the end.
    pub(crate) fn next_list(&mut self) -> Result<Option<(String, Option<u64>, Vec<String>)>> {
        let Some(first) = self.runs.next(|_, r| r.take())?.flatten() else { return Ok(None) };
        let path = first.path;
        let mut line = (first.place > 0).then_some(first.line);
        let mut texts = Vec::new();
        if first.place > 0 {
            texts.push(first.text);
        }
        while self.runs.first().and_then(|r| r.head.as_ref()).is_some_and(|h| h.path == path) {
            let Some(i) = self.runs.next(|_, r| r.take())?.flatten() else { break };
            if i.place > 0 {
                line = line.or(Some(i.line));
                texts.push(i.text);
            }
        }
        Ok(Some((path, line, texts)))
    }
}

impl Record for Item {
    fn cmp_key(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }

    fn decode(r: &mut crate::spill::RunReader) -> std::io::Result<Option<Item>> {
        if at_end(r)? {
            return Ok(None);
        }
        let path = string_of(r)?;
        let place = u64_of(r)?;
        let line = u64_of(r)?;
        let text = string_of(r)?;
        Ok(Some(Item { path, place, line, text }))
    }
}

type Sorted = crate::spill::Sorted<Item>;

fn encode(w: &mut impl Write, i: &Item) -> std::io::Result<()> {
    put(w, i.path.as_bytes())?;
    w.write_all(&i.place.to_le_bytes())?;
    w.write_all(&i.line.to_le_bytes())?;
    put(w, i.text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(path: &str, place: u64, text: &str) -> Item {
        Item { path: path.into(), place, line: place + 10, text: text.into() }
    }

    /// Items pushed in any order, spilled in several runs, come back a list at a time in
    /// table order; a list of markers alone is empty.
    #[test]
    fn lists_come_back_whole_and_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let mut items = ListItems::new(&tmp.path().join("spill"), 1);
        for i in [item("b", 3, "b3"), item("a", 2, "a2"), item("c", 0, ""), item("a", 0, ""), item("b", 1, "b1"), item("a", 1, "a1")] {
            items.push(i).unwrap();
        }
        let mut lists = items.merge().unwrap();
        let mut got = Vec::new();
        while let Some(l) = lists.next_list().unwrap() {
            got.push(l);
        }
        assert_eq!(
            got,
            vec![
                ("a".to_string(), Some(11), vec!["a1".to_string(), "a2".to_string()]),
                ("b".to_string(), Some(11), vec!["b1".to_string(), "b3".to_string()]),
                ("c".to_string(), None, vec![]),
            ]
        );
    }
}
