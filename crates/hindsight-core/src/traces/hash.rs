//! The hashes opentraces uses, reproduced exactly.
//!
//! - A record's `content_hash`: sha256 of Python's `json.dumps(record minus trace_id and
//!   content_hash, sort_keys=True)`: separators `", "` and `": "`, non-ASCII escaped as
//!   `\uXXXX` (surrogate pairs above the BMP), floats as Python's `repr`.
//! - An attribution range's `content_hash`: for 0.2.0 records the first 8 hex digits of the
//!   MD5 of the range's text; from 0.3.0 on `murmur3:` + 32 hex digits of MurmurHash3
//!   x64-128 with seed 0 (as Python's `mmh3.hash128` prints it).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Python's `repr(float)`: the shortest round-tripping digits, in Python's layout.
fn py_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // `{:e}` gives the shortest round-trip digits as d.ddde±x.
    let e = format!("{f:e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if neg { "-" } else { "" };
    if (-4..16).contains(&exp) {
        // Positional notation, as Python uses for 1e-4 <= |f| < 1e16.
        let n = digits.len() as i32;
        let s = if exp >= 0 {
            let point = exp + 1;
            if n <= point {
                format!("{digits}{}.0", "0".repeat((point - n) as usize))
            } else {
                format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{s}")
    } else {
        let m = if digits.len() > 1 { format!("{}.{}", &digits[..1], &digits[1..]) } else { digits.clone() };
        format!("{sign}{m}e{}{:02}", if exp < 0 { "-" } else { "+" }, exp.abs())
    }
}

fn py_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `json.dumps(v, sort_keys=True)` as Python writes it.
pub(crate) fn python_json(v: &Value) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

fn write(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.is_f64() {
                out.push_str(&py_float(n.as_f64().unwrap_or(0.0)));
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => py_str(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            // serde_json's map is ordered by key bytes, which for UTF-8 is code point order,
            // the order Python's sort_keys gives.
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_str(k, out);
                out.push_str(": ");
                write(x, out);
            }
            out.push('}');
        }
    }
}

/// `python_json` of a JSON text, its integers exact however big (Python's `int` has no
/// limit; a float reading would print 18446744073709551616 as 1.8446744073709552e+19).
fn write_raw(v: &crate::json::Raw, out: &mut String) {
    use crate::json::Raw;
    match v {
        Raw::Scalar(t) => out.push_str(&crate::json::number_text(t, |n| if n.is_f64() { py_float(n.as_f64().unwrap_or(0.0)) } else { n.to_string() })),
        Raw::Str(s) => py_str(s, out),
        Raw::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_raw(x, out);
            }
            out.push(']');
        }
        Raw::Object(m) => {
            out.push('{');
            for (i, (k, x)) in Raw::sorted_members(m).into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_str(k, out);
                out.push_str(": ");
                write_raw(x, out);
            }
            out.push('}');
        }
    }
}

/// `record_hash` of a record's text, its numbers exact.
pub fn record_hash_text(text: &str) -> serde_json::Result<String> {
    let mut r = crate::json::Raw::parse(text)?;
    if let crate::json::Raw::Object(m) = &mut r {
        m.retain(|(k, _)| k != "trace_id" && k != "content_hash");
    }
    let mut out = String::new();
    write_raw(&r, &mut out);
    Ok(hex::encode(Sha256::digest(out.as_bytes())))
}

/// The text a record's `content_hash` is the sha256 of.
pub(crate) fn prehash_text(record: &Value) -> String {
    let mut r = record.clone();
    if let Some(o) = r.as_object_mut() {
        o.remove("trace_id");
        o.remove("content_hash");
    }
    python_json(&r)
}

pub fn record_hash(record: &Value) -> String {
    hex::encode(Sha256::digest(prehash_text(record).as_bytes()))
}

/// First 8 hex digits of MD5 (opentraces 0.2.0 range hashes).
pub(crate) fn md5_prefix(text: &str) -> String {
    format!("{:x}", md5_digest(text.as_bytes()))[..8].to_string()
}

/// MurmurHash3 x64-128, seed 0, printed as Python's `hex(mmh3.hash128(...))` without `0x`.
pub(crate) fn murmur3_hex(text: &str) -> String {
    let (h1, h2) = murmur3_x64_128(text.as_bytes(), 0);
    format!("{h2:016x}{h1:016x}")
}

/// Range hash for a record of the given shape.
pub(crate) fn range_hash(shape: super::version::Shape, text: &str) -> String {
    if shape.murmur3_ranges() {
        format!("murmur3:{}", murmur3_hex(text))
    } else {
        md5_prefix(text)
    }
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    k
}

pub(crate) fn murmur3_x64_128(data: &[u8], seed: u64) -> (u64, u64) {
    const C1: u64 = 0x87c37b91114253d5;
    const C2: u64 = 0x4cf5ad432745937f;
    let (mut h1, mut h2) = (seed, seed);
    let blocks = data.len() / 16;
    for i in 0..blocks {
        let b = &data[i * 16..i * 16 + 16];
        let mut k1 = u64::from_le_bytes(b[0..8].try_into().unwrap_or([0; 8]));
        let mut k2 = u64::from_le_bytes(b[8..16].try_into().unwrap_or([0; 8]));
        k1 = k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1.rotate_left(27).wrapping_add(h2).wrapping_mul(5).wrapping_add(0x52dce729);
        k2 = k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 ^= k2;
        h2 = h2.rotate_left(31).wrapping_add(h1).wrapping_mul(5).wrapping_add(0x38495ab5);
    }
    let tail = &data[blocks * 16..];
    let (mut k1, mut k2) = (0u64, 0u64);
    for (i, &byte) in tail.iter().enumerate() {
        if i < 8 {
            k1 ^= (byte as u64) << (8 * i);
        } else {
            k2 ^= (byte as u64) << (8 * (i - 8));
        }
    }
    if tail.len() > 8 {
        k2 = k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 ^= k2;
    }
    if !tail.is_empty() {
        k1 = k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 ^= k1;
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// MD5 (RFC 1321), for the 0.2.0 range hashes; a few lines rather than a dependency.
fn md5_digest(input: &[u8]) -> u128 {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4,
        11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64).map(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32).collect();
    let (mut a0, mut b0, mut c0, mut d0) = (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
    let mut msg = input.to_vec();
    let bits = (input.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_le_bytes());
    for chunk in msg.chunks(64) {
        let m: Vec<u32> = chunk.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        for i in 0..64 {
            let (f, g) = match i {
                0..=15 => ((b & c) | (!b & d), i),
                16..=31 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                32..=47 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S[i]));
        }
        a0 = a0.wrapping_add(a);
        b0 = b0.wrapping_add(b);
        c0 = c0.wrapping_add(c);
        d0 = d0.wrapping_add(d);
    }
    let mut out = [0u8; 16];
    out[..4].copy_from_slice(&a0.to_le_bytes());
    out[4..8].copy_from_slice(&b0.to_le_bytes());
    out[8..12].copy_from_slice(&c0.to_le_bytes());
    out[12..].copy_from_slice(&d0.to_le_bytes());
    u128::from_be_bytes(out)
}

#[cfg(test)]
mod tests {
    use super::super::version::Shape;
    use super::*;

    #[test]
    fn known_vectors() {
        assert_eq!(md5_prefix("hello world"), "5eb63bbb");
        assert_eq!(murmur3_hex("hello world"), "ab97467d60eb63b1533f6046eb7f610e");
        assert_eq!(md5_prefix("def foo():\n    return 1\n"), "5e4cdad4");
        assert_eq!(range_hash(Shape::V0_2, "hello world"), "5eb63bbb");
        assert_eq!(range_hash(Shape::V0_3, "hello world"), "murmur3:ab97467d60eb63b1533f6046eb7f610e");
        assert_eq!(range_hash(Shape::V0_6, "hello world"), "murmur3:ab97467d60eb63b1533f6046eb7f610e");
        // Longer than one 16-byte block, with a tail of more than 8 bytes.
        assert_eq!(murmur3_hex("The quick brown fox jumps over the lazy dog").len(), 32);
    }

    #[test]
    fn python_float_repr() {
        for (f, s) in
            [(1.0, "1.0"), (0.5, "0.5"), (1e-7, "1e-07"), (1e16, "1e+16"), (123456.789, "123456.789"), (0.0001, "0.0001"), (-2.5, "-2.5"), (1e22, "1e+22")]
        {
            assert_eq!(py_float(f), s);
        }
    }

    #[test]
    fn python_json_layout() {
        let v: Value = serde_json::from_str(r#"{"b": [1, 2.0, null], "a": "é\n", "c": {"z": true, "y": "😀"}}"#).unwrap();
        assert_eq!(python_json(&v), r#"{"a": "\u00e9\n", "b": [1, 2.0, null], "c": {"y": "\ud83d\ude00", "z": true}}"#);
    }
}
