//! `duplicated_block` (DRY).
//!
//! **What it checks.** A block of at least `duplicate_lines` (default 6) consecutive added
//! lines of code that repeats, line for line after whitespace is normalized, either lines
//! the PR added elsewhere (in the same file or another) or lines the patch shows staying in
//! the file (its context lines). Lines with no letter or digit (blank lines, lone braces)
//! are skipped, so they neither make nor break a block. Only code files are read (by
//! extension), and not those a tool generated: lock files, data and generated code repeat
//! by nature.
//!
//! **Why.** A copied block is logic to be kept in step twice; an agent that pastes rather
//! than extracts leaves the next change half done. A block equal to lines the PR *removed*
//! is a move, not a copy, and is not reported; code the patch does not show (the rest of
//! the repository) is not seen, so a copy of it is missed rather than guessed.
//!
//! **How.** Each window of `duplicate_lines` lines is hashed with a rolling polynomial hash
//! of its lines' hashes, and looked up in one table of first occurrences (the context lines
//! first, then the added lines in file order): linear in the lines of the PR, never a
//! comparison of every block with every other. A hit is confirmed line by line, so a hash
//! collision reports nothing; consecutive windows matching consecutive lines make one
//! finding for the whole block.
//!
//! **Example.** `src/session.ts` adds lines 30-37 validating a token; `src/auth.ts` adds the
//! same eight lines at 45-52: "Lines 45-52 of `src/auth.ts` duplicate lines 30-37 of
//! `src/session.ts` (added in this PR): 8 lines of code", suggesting a shared helper.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::patch::Side;
use super::policy::Effective;
use super::{File, Found, Rule, Severity};

/// Extensions of code files beside those with a grammar (`syntax::Language`).
const CODE: &[&str] = &["c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "kt", "kts", "swift", "scala", "sh", "lua", "dart", "ex", "exs", "m", "vue", "svelte"];

fn is_code(path: &str) -> bool {
    let ext = path.rsplit('/').next().and_then(|n| n.rsplit_once('.')).map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    super::syntax::Language::of(path).is_some() || CODE.contains(&ext.as_str())
}

/// A run of lines: added ones (what may be a copy) or context ones (what stays).
struct Run<'f> {
    file: &'f str,
    added: bool,
    /// What each line that counts is compared by (its normalized text, or that abstracted
    /// for near duplicates) and its new-file line.
    lines: Vec<(String, i64)>,
    /// Each line's normalized text, to tell a near duplicate from an exact one.
    texts: Vec<String>,
    hashes: Vec<u64>,
}

/// Whitespace collapsed to one space: a copy re-indented is still a copy.
fn normalize(text: &str) -> Option<String> {
    text.chars().any(char::is_alphanumeric).then(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Words that keep their meaning in an abstracted line (control flow and declarations of
/// the common languages): a near duplicate has the same shape, not merely the same
/// punctuation.
const KEYWORDS: &[&str] = &[
    "if", "else", "for", "while", "do", "return", "break", "continue", "switch", "case", "match", "try", "catch", "except", "finally", "throw", "raise",
    "fn", "def", "function", "func", "let", "const", "var", "mut", "pub", "class", "struct", "enum", "impl", "new", "await", "async", "yield", "in", "of",
    "and", "or", "not", "true", "false", "null", "None", "nil", "self", "this", "import", "from", "use",
];

/// A normalized line with its names and literals abstracted: identifiers (other than
/// [`KEYWORDS`]) as `_`, numbers as `0`, quoted strings as `""`.
fn abstracted(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let chars: Vec<char> = line.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c == '"' || c == '\'' || c == '`' {
            let end = (k + 1..chars.len()).find(|&j| chars[j] == c && chars[j - 1] != '\\').unwrap_or(chars.len() - 1);
            out.push_str("\"\"");
            k = end + 1;
        } else if c.is_ascii_digit() {
            while k < chars.len() && (chars[k].is_ascii_alphanumeric() || chars[k] == '.' || chars[k] == '_') {
                k += 1;
            }
            out.push('0');
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = k;
            while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_' || chars[k] == '$') {
                k += 1;
            }
            let word: String = chars[start..k].iter().collect();
            out.push_str(if KEYWORDS.contains(&word.as_str()) { &word } else { "_" });
        } else {
            out.push(c);
            k += 1;
        }
    }
    out
}

fn hash_of(s: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// The runs of each code file's hunks: a run ends where the side changes.
fn runs<'f>(files: &[&File<'f>], near: bool) -> Vec<Run<'f>> {
    let mut out: Vec<Run> = Vec::new();
    for f in files.iter().filter(|f| is_code(f.path)) {
        for h in &f.hunks {
            let mut last: Option<Side> = None;
            for l in &h.lines {
                if l.side == Side::Removed {
                    last = Some(Side::Removed);
                    continue;
                }
                if last != Some(l.side) {
                    out.push(Run { file: f.path, added: l.side == Side::Added, lines: Vec::new(), texts: Vec::new(), hashes: Vec::new() });
                    last = Some(l.side);
                }
                if let (Some(text), Some(run), Some(n)) = (normalize(l.text), out.last_mut(), l.new) {
                    let key = if near { abstracted(&text) } else { text.clone() };
                    run.hashes.push(hash_of(&key));
                    run.lines.push((key, n));
                    run.texts.push(text);
                }
            }
        }
    }
    out.retain(|r| !r.lines.is_empty());
    out
}

/// The hash of each window of `n` lines of `hashes`, rolled (a polynomial in `B`).
fn windows(hashes: &[u64], n: usize) -> Vec<u64> {
    const B: u64 = 0x100000001b3;
    if hashes.len() < n {
        return Vec::new();
    }
    let top = (1..n).fold(1u64, |p, _| p.wrapping_mul(B));
    let mut h = hashes[..n].iter().fold(0u64, |h, &x| h.wrapping_mul(B).wrapping_add(x));
    let mut out = vec![h];
    for p in 1..=hashes.len() - n {
        h = h.wrapping_sub(hashes[p - 1].wrapping_mul(top)).wrapping_mul(B).wrapping_add(hashes[p + n - 1]);
        out.push(h);
    }
    out
}

/// A block being grown: windows `from..=to` of run `run` matching those from `target_from`
/// of run `target`.
struct Block {
    run: usize,
    from: usize,
    to: usize,
    target: usize,
    target_from: usize,
}

pub(crate) fn check(files: &[&File<'_>], policy: &Effective<'_>, out: &mut Vec<Found>) {
    let n = policy.duplicate_lines;
    let runs = runs(files, policy.near_duplicates);
    let mut first: HashMap<u64, (usize, usize)> = HashMap::new();
    // What stays in the files is the original: it is looked up first.
    let order = runs.iter().enumerate().filter(|(_, r)| !r.added).chain(runs.iter().enumerate().filter(|(_, r)| r.added));
    for (ri, run) in order {
        let mut block: Option<Block> = None;
        for (p, h) in windows(&run.hashes, n).into_iter().enumerate() {
            let same = |&(t, q): &(usize, usize)| (0..n).all(|k| runs[t].lines[q + k].0 == run.lines[p + k].0);
            let hit = first.get(&h).copied().filter(|t| run.added && same(t) && !(t.0 == ri && t.1 + n > p));
            // The next window of the block being grown, matching the next target window.
            let grows = matches!((hit, &block), (Some((t, q)), Some(b)) if b.target == t && b.to + 1 == p && b.target_from + (p - b.from) == q);
            if grows {
                if let Some(b) = block.as_mut() {
                    b.to = p;
                }
                continue;
            }
            flush(block.take(), &runs, n, out);
            match hit {
                Some((t, q)) => block = Some(Block { run: ri, from: p, to: p, target: t, target_from: q }),
                None => {
                    first.entry(h).or_insert((ri, p));
                }
            }
        }
        flush(block, &runs, n, out);
    }
}

fn flush(block: Option<Block>, runs: &[Run<'_>], n: usize, out: &mut Vec<Found>) {
    let Some(b) = block else { return };
    let (run, target) = (&runs[b.run], &runs[b.target]);
    let last = b.to + n - 1;
    let (a, z) = (run.lines[b.from].1, run.lines[last].1);
    let (c, d) = (target.lines[b.target_from].1, target.lines[b.target_from + (last - b.from)].1);
    let whence = if target.added { "added in this PR" } else { "already in the file" };
    let exact = (0..=last - b.from).all(|k| run.texts[b.from + k] == target.texts[b.target_from + k]);
    let kind = if exact { "duplicate" } else { "nearly duplicate (the same but for names and literals)" };
    out.push(Found {
        rule: Rule::DuplicatedBlock,
        severity: Severity::Warning,
        file: run.file.to_string(),
        line: Some(a),
        message: format!("Lines {a}-{z} of `{}` {kind} lines {c}-{d} of `{}` ({whence}): {} lines of code", run.file, target.file, last - b.from + 1),
        suggestion: format!("Extract the shared lines into one function (or constant) and call it from `{}` and `{}`.", run.file, target.file),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rolled_hash_is_the_hash_of_the_window() {
        let hashes: Vec<u64> = (0..20u64).map(|i| i.wrapping_mul(0x9e3779b97f4a7c15)).collect();
        let rolled = windows(&hashes, 6);
        let direct: Vec<u64> = (0..=14).map(|p| windows(&hashes[p..p + 6], 6)[0]).collect();
        assert_eq!(rolled, direct);
        assert!(windows(&hashes[..5], 6).is_empty());
    }
}
