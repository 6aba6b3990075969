//! Text from inputs, made safe to print: a workflow name or a quarantined line may hold
//! terminal control sequences (ANSI escapes that recolour, move the cursor or retitle the
//! window), which must reach the terminal as visible text, never as commands.

use std::borrow::Cow;

/// `s` with every control character other than newline and tab (C0, DEL, C1) written as a
/// visible `\u{..}` escape; text without any is returned as is.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_control(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// An error and its causes on one line, each said once: library errors already name their
/// cause in their own text, and so do DataFusion's. Control characters are escaped.
pub fn error_message(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    let mut cause = Some(e);
    while let Some(c) = cause {
        let t = c.to_string();
        if !text.contains(t.as_str()) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&t);
        }
        cause = c.source();
    }
    printable(&text).into_owned()
}

/// Characters that change how text shows without showing themselves: bidirectional
/// embeddings, overrides and isolates, zero-width spaces and joiners, word joiners and
/// invisible operators, the byte-order mark, the soft hyphen.
pub(crate) fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{61c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

fn is_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_reach_the_terminal_as_text() {
        assert_eq!(printable("plain name"), "plain name");
        assert_eq!(printable("a\u{1b}[31mred\u{7}"), "a\\u{1b}[31mred\\u{7}");
        assert_eq!(printable("c1 \u{9b}2J"), "c1 \\u{9b}2J");
        assert_eq!(printable("two\nlines\tand tab"), "two\nlines\tand tab");
    }
}

/// The candidate closest to a mistyped `name` ("did you mean"): by edit distance (a
/// transposition counts one), case ignored, at most a third of the name's length away (at
/// least 1, at most 3); a candidate that starts with `name` also counts. `None` when
/// nothing is that close.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let name = name.to_lowercase();
    let most = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .filter_map(|c| {
            let lc = c.to_lowercase();
            let d = if lc.starts_with(&name) && !name.is_empty() { 1 } else { edit_distance(&name, &lc) };
            (d <= most && lc != name).then_some((d, c))
        })
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
/// transpositions, each 1.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * w + j] = if i == 0 {
                j
            } else if j == 0 {
                i
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1).min(d[(i - 1) * w + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * w + j - 2] + 1);
                }
                v
            };
        }
    }
    d[a.len() * w + b.len()]
}

#[cfg(test)]
mod closest_tests {
    use super::closest;

    #[test]
    fn the_closest_name_within_a_third_of_its_length() {
        let tables = ["outcomes", "safe_outputs", "runs", "reviews"];
        assert_eq!(closest("outcome", tables), Some("outcomes"));
        assert_eq!(closest("rnu", ["run", "report", "rules"]), Some("run"));
        assert_eq!(closest("ouput", ["out", "windows", "policy"]), None);
        assert_eq!(closest("--ouput", ["--out", "--output"]), Some("--output"));
        assert_eq!(closest("safe_ouptuts", tables), Some("safe_outputs"));
        assert_eq!(closest("zzz", tables), None);
        assert_eq!(closest("OUTCOMES", tables), None, "the same name is no suggestion");
    }
}
