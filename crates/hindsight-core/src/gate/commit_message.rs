//! The commit message format of the commit protocol (docs/SPEC.md [SPEC-GATE-POLICY]):
//! `type(scope): summary`, exactly. Anything the format does not spell out is refused,
//! because an ambiguous message is a rejection:
//!
//! - one line: no line break anywhere, not even a trailing one (no body);
//! - `type`: lowercase ASCII letters, directly followed by `(`;
//! - `scope`: non-empty, no parentheses, no white space at either end;
//! - then `:`, exactly one space, and a summary that neither starts nor ends with white space;
//! - no control characters, and nothing between `)` and `:` (no breaking-change `!`).
//!
//! Whether the type is one the policy allows is checked apart (a `feature(x): y` is well
//! formed, with a type that is not allowed).

/// A well-formed message's parts, borrowed from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CommitMessage<'a> {
    pub(crate) kind: &'a str,
    pub(crate) scope: &'a str,
    pub(crate) summary: &'a str,
}

/// Split `message` into its parts, or say why it is not `type(scope): summary`.
pub(crate) fn parse(message: &str) -> Result<CommitMessage<'_>, &'static str> {
    // Unicode's own line and paragraph separators break a line as `\n` does in most
    // viewers: a second line hidden from a reader that splits on `\n` only.
    if message.contains(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}']) {
        return Err("more than one line (a line break; no body is allowed)");
    }
    if message.chars().any(char::is_control) {
        return Err("a control character");
    }
    if message.chars().any(crate::text::is_invisible_format) {
        return Err("an invisible formatting character (a bidirectional override or zero-width character shows a reader other text than is there)");
    }
    let open = message.find('(').ok_or("no `(scope)` after the type")?;
    let kind = &message[..open];
    if kind.is_empty() {
        return Err("no type before `(`");
    }
    if kind.ends_with(char::is_whitespace) {
        return Err("white space between the type and `(`");
    }
    if !kind.bytes().all(|b| b.is_ascii_lowercase()) {
        return Err("the type is not lowercase letters");
    }
    let rest = &message[open + 1..];
    let close = rest.find(')').ok_or("the scope's `(` is never closed")?;
    let scope = &rest[..close];
    if scope.contains('(') {
        return Err("parentheses inside the scope");
    }
    if scope.is_empty() {
        return Err("an empty scope");
    }
    if scope.trim().is_empty() {
        return Err("a blank scope");
    }
    if scope.trim() != scope {
        return Err("white space at an end of the scope");
    }
    let after = &rest[close + 1..];
    let summary = match after.strip_prefix(": ") {
        Some(s) => s,
        None if after.starts_with(')') => return Err("parentheses inside the scope"),
        None if after.starts_with(':') => return Err("no space after `:`"),
        None => return Err("`(scope)` not followed by `: `"),
    };
    if summary.is_empty() {
        return Err("an empty summary");
    }
    if summary.starts_with(char::is_whitespace) {
        return Err("more than one space after `:`");
    }
    if summary.ends_with(char::is_whitespace) {
        return Err("white space at the end of the summary");
    }
    Ok(CommitMessage { kind, scope, summary })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_messages_split_into_their_parts() {
        assert_eq!(parse("feat(gate): add the evaluation gate"), Ok(CommitMessage { kind: "feat", scope: "gate", summary: "add the evaluation gate" }));
        assert_eq!(parse("fix(cli/io): a: b (c)"), Ok(CommitMessage { kind: "fix", scope: "cli/io", summary: "a: b (c)" }));
        assert_eq!(parse("feature(x): y").map(|c| c.kind), Ok("feature"), "well formed; the type is checked against the policy apart");
        assert_eq!(parse("docs(read me): y").map(|c| c.scope), Ok("read me"));
    }

    #[test]
    fn near_misses_are_refused_with_their_reason() {
        let cases = [
            ("feat: y", "no `(scope)` after the type"),
            ("feat (x): y", "white space between the type and `(`"),
            ("feat(x):y", "no space after `:`"),
            ("Feat(x): y", "the type is not lowercase letters"),
            ("FEAT(x): y", "the type is not lowercase letters"),
            ("feat2(x): y", "the type is not lowercase letters"),
            ("feat(): y", "an empty scope"),
            ("feat(   ): y", "a blank scope"),
            ("feat( x): y", "white space at an end of the scope"),
            ("feat(x): ", "an empty summary"),
            ("feat(x):", "no space after `:`"),
            ("feat(x):  y", "more than one space after `:`"),
            ("feat(x): y ", "white space at the end of the summary"),
            ("feat(x): y\n", "more than one line (a line break; no body is allowed)"),
            ("feat(x): y\n\nthe body", "more than one line (a line break; no body is allowed)"),
            ("feat(x): y\r\n", "more than one line (a line break; no body is allowed)"),
            ("feat(x): y\u{1b}[2J", "a control character"),
            ("feat(x): y\u{2028}second line", "more than one line (a line break; no body is allowed)"),
            ("feat(x): y\u{2029}", "more than one line (a line break; no body is allowed)"),
            ("feat(x): y\u{85}z", "more than one line (a line break; no body is allowed)"),
            ("feat(x): y\u{202e}z", "an invisible formatting character (a bidirectional override or zero-width character shows a reader other text than is there)"),
            ("feat(x\u{200b}): y", "an invisible formatting character (a bidirectional override or zero-width character shows a reader other text than is there)"),
            ("feat(a(b)): y", "parentheses inside the scope"),
            ("feat(a)): y", "parentheses inside the scope"),
            ("feat(x)!: y", "`(scope)` not followed by `: `"),
            ("feat(x) : y", "`(scope)` not followed by `: `"),
            ("feat(x", "the scope's `(` is never closed"),
            ("(x): y", "no type before `(`"),
            ("", "no `(scope)` after the type"),
        ];
        for (message, reason) in cases {
            assert_eq!(parse(message), Err(reason), "{message:?}");
        }
    }
}
