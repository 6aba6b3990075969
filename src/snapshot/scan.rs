//! [`Sparse::parse`]'s fast path: one pass over a body's bytes that keeps a view's keys and
//! steps over everything else, without serde's visitor machinery. Most of a captured body
//! is skipped (a pull request's `head`, `base` and `body`, every actor's URLs), and skipping
//! with serde_json was a tenth of the evaluate stage's CPU at a million outputs.
//!
//! It answers only where it reads the text exactly as serde_json does (`Sparse`'s serde
//! path is the definition), and `None` otherwise: on anything that is not JSON, and on the
//! few valid shapes it leaves to serde_json (a kept number with a fraction or exponent or
//! more than 18 digits, `-0`, an escaped key, nesting deeper than [`MAX_DEPTH`]). `None`
//! sends the body down the serde path, which decides. A test compares the two on every
//! body of the fixtures, on edge cases and on random text.

use std::borrow::Cow;

use super::sparse::{Keys, Sparse};

/// Nesting this scanner follows; deeper bodies go to serde_json (whose limit for the values
/// it keeps is 128).
const MAX_DEPTH: usize = 100;

/// `text` read keeping the keys `keys` knows, or `None` where serde_json must decide.
pub(super) fn parse<'a>(text: &'a str, keys: Keys) -> Option<Sparse<'a>> {
    let mut s = Scan { text, b: text.as_bytes(), i: 0, keys };
    s.ws();
    let v = s.value(0)?;
    s.ws();
    (s.i == s.b.len()).then_some(v)
}

struct Scan<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    keys: Keys,
}

impl<'a> Scan<'a> {
    /// JSON's whitespace (serde_json's: no other).
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// `word` here, moving past it.
    #[inline]
    fn eat(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// A value that is kept: built as serde's path builds it.
    fn value(&mut self, depth: usize) -> Option<Sparse<'a>> {
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => {
                self.i += 1;
                self.string().map(Sparse::Str)
            }
            b'n' => self.eat(b"null").map(|_| Sparse::Null),
            b't' => self.eat(b"true").map(|_| Sparse::Bool(true)),
            b'f' => self.eat(b"false").map(|_| Sparse::Bool(false)),
            b'-' | b'0'..=b'9' => self.integer(),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<Sparse<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let mut out: Vec<(&'static str, Sparse<'a>)> = Vec::new();
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(Sparse::Object(out));
        }
        loop {
            let key = self.key()?;
            self.ws();
            self.eat(b":")?;
            self.ws();
            match key {
                Some(k) => {
                    let v = self.value(depth)?;
                    // A repeated key keeps its last value, in its first place (as serde's path).
                    match out.iter_mut().find(|(x, _)| *x == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                None => self.skip(depth)?,
            }
            self.ws();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                }
                b'}' => {
                    self.i += 1;
                    return Some(Sparse::Object(out));
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<Sparse<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.i += 1;
        let mut out = Vec::new();
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(Sparse::Array(out));
        }
        loop {
            out.push(self.value(depth)?);
            self.ws();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                }
                b']' => {
                    self.i += 1;
                    return Some(Sparse::Array(out));
                }
                _ => return None,
            }
        }
    }

    /// An object's key: the kept key it is, or `None` inside for one not kept. An escaped
    /// key is left to serde_json.
    fn key(&mut self) -> Option<Option<&'static str>> {
        if self.peek()? != b'"' {
            return None;
        }
        self.i += 1;
        let start = self.i;
        let end = self.string_end()?;
        if self.b[end] != b'"' {
            return None;
        }
        self.i = end + 1;
        Some((self.keys)(self.text.get(start..end)?))
    }

    /// The index of the next `"` or `\` from here; `None` at the end of the text or at a
    /// control character first (which JSON does not allow in a string).
    #[inline]
    fn string_end(&self) -> Option<usize> {
        let rest = self.b.get(self.i..)?;
        let at = memchr::memchr2(b'"', b'\\', rest)?;
        // A fold, not `any`: it has no early exit, so it runs vectorised.
        let control = rest[..at].iter().fold(false, |c, &x| c | (x < 0x20));
        (!control).then_some(self.i + at)
    }

    /// A kept string, after its opening quote: borrowed when it holds no escape.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.i;
        let end = self.string_end()?;
        if self.b[end] == b'"' {
            self.i = end + 1;
            return Some(Cow::Borrowed(self.text.get(start..end)?));
        }
        let mut out = String::with_capacity(end - start + 16);
        out.push_str(self.text.get(start..end)?);
        self.i = end;
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    return Some(Cow::Owned(out));
                }
                b'\\' => {
                    self.i += 1;
                    let c = self.peek()?;
                    self.i += 1;
                    out.push(match c {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode()?,
                        _ => return None,
                    });
                }
                _ => {
                    let from = self.i;
                    let end = self.string_end()?;
                    out.push_str(self.text.get(from..end)?);
                    self.i = end;
                }
            }
        }
    }

    /// The character of a `\u` escape, after the `u`: a surrogate pair makes one; a lone
    /// surrogate is no JSON serde_json reads (it decides).
    fn unicode(&mut self) -> Option<char> {
        let h = self.hex4()?;
        match h {
            0xD800..=0xDBFF => {
                self.eat(b"\\u")?;
                let l = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&l) {
                    return None;
                }
                char::from_u32(0x10000 + ((h - 0xD800) << 10) + (l - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            _ => char::from_u32(h),
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + 4)?;
        let mut n = 0u32;
        for d in digits {
            n = n * 16 + (*d as char).to_digit(16)?;
        }
        self.i += 4;
        Some(n)
    }

    /// A kept number: an integer of at most 18 digits (an `i64` whatever they are), other
    /// than `-0`; serde_json decides the rest (fractions, exponents, longer integers).
    fn integer(&mut self) -> Option<Sparse<'a>> {
        let negative = self.peek()? == b'-';
        if negative {
            self.i += 1;
        }
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        let digits = &self.b[start..self.i];
        let ok = matches!(digits.len(), 1..=18) && (digits[0] != b'0' || digits.len() == 1) && !(negative && digits == b"0");
        if !ok || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let n = digits.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
        Some(Sparse::Int(if negative { -n } else { n }))
    }

    /// Step over a value that is not kept, checking it is JSON as serde_json checks what
    /// it ignores.
    fn skip(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.i += 1;
                self.skip_string()
            }
            b'{' => {
                if depth + 1 > MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.eat(b"\"")?;
                    self.skip_string()?;
                    self.ws();
                    self.eat(b":")?;
                    self.ws();
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.i += 1;
                            self.ws();
                        }
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                if depth + 1 > MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.skip(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        b',' => {
                            self.i += 1;
                            self.ws();
                        }
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'n' => self.eat(b"null"),
            b't' => self.eat(b"true"),
            b'f' => self.eat(b"false"),
            b'-' | b'0'..=b'9' => self.skip_number(),
            _ => None,
        }
    }

    /// Past a string not kept, after its opening quote: escapes are checked, not decoded
    /// (as serde_json ignores one: a `\u` needs four hex digits, nothing more).
    fn skip_string(&mut self) -> Option<()> {
        loop {
            let end = self.string_end()?;
            self.i = end + 1;
            if self.b[end] == b'"' {
                return Some(());
            }
            match self.peek()? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                b'u' => {
                    self.i += 1;
                    self.hex4()?;
                }
                _ => return None,
            }
        }
    }

    /// Past a number not kept: JSON's grammar, whatever its size (serde_json checks no
    /// range for a number it ignores).
    fn skip_number(&mut self) -> Option<()> {
        if self.peek()? == b'-' {
            self.i += 1;
        }
        let digits = |s: &mut Self| {
            let from = s.i;
            while let Some(b'0'..=b'9') = s.peek() {
                s.i += 1;
            }
            s.i - from
        };
        match self.peek()? {
            b'0' => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return None;
                }
            }
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        Some(())
    }
}
