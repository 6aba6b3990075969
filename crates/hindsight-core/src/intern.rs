//! Names numbered in the order first seen. An index over millions of rows (AIDev's PRs)
//! holds a number per row, not a string: each distinct name is kept once, its bytes in one
//! buffer, and costs its length and about 17 bytes more (its end, and a slot of the table).

use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use hashbrown::HashTable;

/// Names numbered 0, 1, ... in the order first seen.
#[derive(Clone)]
pub struct Interner {
    /// Every name's bytes, one after another.
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<usize>,
    /// Name numbers, found by their name's hash.
    table: HashTable<u32>,
    hasher: FixedState,
}

impl Default for Interner {
    fn default() -> Interner {
        Interner { text: String::new(), ends: Vec::new(), table: HashTable::new(), hasher: FixedState::with_seed(0) }
    }
}

impl Interner {
    /// The name's number, given one if it is new. Names past `u32::MAX - 1` (more than four
    /// billion distinct names) are not numbered: `None`.
    pub fn id(&mut self, name: &str) -> Option<u32> {
        if let Some(i) = self.find(name) {
            return Some(i);
        }
        let i = u32::try_from(self.ends.len()).ok().filter(|&i| i != u32::MAX)?;
        self.text.push_str(name);
        self.ends.push(self.text.len());
        let (text, ends, hasher) = (&self.text, &self.ends, &self.hasher);
        let hash = hasher.hash_one(name);
        self.table.insert_unique(hash, i, |&k| hasher.hash_one(name_in(text, ends, k)));
        Some(i)
    }

    /// The number of a name seen before.
    pub fn find(&self, name: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(name);
        self.table.find(hash, |&k| name_in(&self.text, &self.ends, k) == name).copied()
    }

    /// The name numbered `id` ("" for a number never given).
    pub fn name(&self, id: u32) -> &str {
        name_in(&self.text, &self.ends, id)
    }

    /// How many names are numbered.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

fn name_in<'a>(text: &'a str, ends: &[usize], id: u32) -> &'a str {
    let i = id as usize;
    let Some(&end) = ends.get(i) else { return "" };
    let start = if i == 0 { 0 } else { ends[i - 1] };
    text.get(start..end).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::Interner;

    #[test]
    fn numbers_names_in_the_order_first_seen_and_finds_them_again() {
        let mut names = Interner::default();
        let words: Vec<String> = (0..5000).map(|k| format!("owner-{}/repo-{}", k % 97, k % 1013)).collect();
        let mut seen: Vec<&str> = Vec::new();
        for w in &words {
            let id = names.id(w).expect("numbered");
            match seen.iter().position(|s| s == w) {
                Some(p) => assert_eq!(id as usize, p),
                None => {
                    assert_eq!(id as usize, seen.len());
                    seen.push(w);
                }
            }
        }
        assert_eq!(names.len(), seen.len());
        for (k, w) in seen.iter().enumerate() {
            assert_eq!(names.name(k as u32), *w);
            assert_eq!(names.find(w), Some(k as u32));
        }
        assert_eq!(names.find("absent/name"), None);
        assert_eq!(names.name(u32::MAX - 1), "");
        // The empty name is a name like any other.
        let e = names.id("").expect("numbered");
        assert_eq!(names.name(e), "");
        assert_eq!(names.find(""), Some(e));
    }
}
