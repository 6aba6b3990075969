//! A PR file's unified-diff `patch` (as GitHub's `pulls/N/files` gives it) read into hunks:
//! each line with its side and its line number on that side, from the `@@ -a,b +c,d @@`
//! headers. The rules read the new side (context and added lines) and, for duplication,
//! the context lines that stay in the file.

/// Which side of the diff a patch line is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// In both the old and the new file (a `' '` line).
    Context,
    /// Added by the PR (`+`).
    Added,
    /// Removed by the PR (`-`).
    Removed,
}

/// One line of a hunk, without its `+`, `-` or `' '` marker.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'p> {
    pub(crate) side: Side,
    pub(crate) text: &'p str,
    /// The line's number in the new file (context and added lines); `None` when removed.
    pub(crate) new: Option<i64>,
}

/// One hunk: its lines in patch order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Hunk<'p> {
    pub(crate) lines: Vec<Line<'p>>,
}

impl<'p> Hunk<'p> {
    /// The new side (context and added lines), in order: what the file holds after the PR
    /// around this hunk.
    pub(crate) fn new_side(&self) -> impl Iterator<Item = &Line<'p>> {
        self.lines.iter().filter(|l| l.side != Side::Removed)
    }
}

/// The new-side start of a header `@@ -a[,b] +c[,d] @@ ...`; `None` for any other line.
fn new_start(header: &str) -> Option<i64> {
    let rest = header.strip_prefix("@@ ")?;
    let plus = rest.split_whitespace().find(|w| w.starts_with('+'))?;
    plus[1..].split(',').next()?.parse().ok()
}

/// The hunks of `patch`. Lines before the first header, and a header that does not parse,
/// end what came before: nothing is numbered from a guess. `\ No newline at end of file`
/// is no line of the file.
pub(crate) fn hunks(patch: &str) -> Vec<Hunk<'_>> {
    let mut out: Vec<Hunk> = Vec::new();
    let mut next: Option<i64> = None;
    for raw in patch.lines() {
        if raw.starts_with("@@") {
            next = new_start(raw);
            if next.is_some() {
                out.push(Hunk::default());
            }
            continue;
        }
        let (Some(n), Some(hunk)) = (next, out.last_mut()) else { continue };
        let (side, text) = match raw.as_bytes().first() {
            Some(b'+') => (Side::Added, &raw[1..]),
            Some(b'-') => (Side::Removed, &raw[1..]),
            Some(b' ') => (Side::Context, &raw[1..]),
            Some(b'\\') => continue,
            // A context line whose single space was trimmed away: an empty line.
            None => (Side::Context, ""),
            Some(_) => continue,
        };
        let new = (side != Side::Removed).then_some(n);
        if new.is_some() {
            next = Some(n + 1);
        }
        hunk.lines.push(Line { side, text, new });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_on_the_new_side_from_the_headers() {
        let patch = "@@ -1,3 +1,4 @@ fn main() {\n a\n-b\n+c\n+d\n e\n\\ No newline at end of file\n@@ -20 +21,2 @@\n+x\n y";
        let h = hunks(patch);
        assert_eq!(h.len(), 2);
        let first: Vec<(Side, &str, Option<i64>)> = h[0].lines.iter().map(|l| (l.side, l.text, l.new)).collect();
        assert_eq!(
            first,
            [(Side::Context, "a", Some(1)), (Side::Removed, "b", None), (Side::Added, "c", Some(2)), (Side::Added, "d", Some(3)), (Side::Context, "e", Some(4))]
        );
        assert_eq!(h[1].new_side().map(|l| l.new).collect::<Vec<_>>(), [Some(21), Some(22)]);
        assert!(hunks("+no header\n").is_empty());
        assert!(hunks("@@ nonsense @@\n+x").is_empty());
    }
}
