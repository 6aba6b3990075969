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
pub fn is_invisible_format(c: char) -> bool {
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
