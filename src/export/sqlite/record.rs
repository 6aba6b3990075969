//! SQLite's record format (sqlite.org/fileformat2.html, "Record Format"): a header of
//! serial types, one per column, then the values, each in the smallest encoding that holds
//! it.

/// The longest row SQLite reads back (its default `SQLITE_MAX_LENGTH` bounds a row as well
/// as a value): a longer one would be unreadable there.
pub(crate) const MAX_ROW_BYTES: usize = 1_000_000_000;

/// SQLite's variable-length integer: 1 to 9 bytes, big-endian, seven bits a byte with the
/// high bit saying "more", except the ninth byte, whose eight bits all count.
pub(crate) fn put_varint(out: &mut Vec<u8>, v: u64) {
    if v <= 0x7f {
        out.push(v as u8);
        return;
    }
    if v >> 56 != 0 {
        let mut buf = [0u8; 9];
        buf[8] = v as u8;
        let mut rest = v >> 8;
        for b in buf[..8].iter_mut().rev() {
            *b = (rest & 0x7f) as u8 | 0x80;
            rest >>= 7;
        }
        out.extend_from_slice(&buf);
        return;
    }
    let mut buf = [0u8; 8];
    let mut i = buf.len();
    let mut rest = v;
    while rest != 0 {
        i -= 1;
        buf[i] = (rest & 0x7f) as u8 | 0x80;
        rest >>= 7;
    }
    buf[7] &= 0x7f;
    out.extend_from_slice(&buf[i..]);
}

/// How many bytes [`put_varint`] writes for `v`.
pub(crate) fn varint_len(v: u64) -> usize {
    match v {
        _ if v >> 56 != 0 => 9,
        0 => 1,
        _ => (64 - v.leading_zeros() as usize).div_ceil(7),
    }
}

/// One row being encoded: its serial types and its values, kept apart until
/// [`Record::encode`] joins them (the header's length comes first).
#[derive(Default)]
pub(crate) struct Record {
    types: Vec<u8>,
    body: Vec<u8>,
}

impl Record {
    pub(crate) fn clear(&mut self) {
        self.types.clear();
        self.body.clear();
    }

    pub(crate) fn null(&mut self) {
        put_varint(&mut self.types, 0);
    }

    /// An integer in the fewest bytes: 0 and 1 take none (serial types 8 and 9, schema
    /// format 4), then 1, 2, 3, 4, 6 or 8 bytes, big-endian two's complement.
    pub(crate) fn int(&mut self, v: i64) {
        let (serial, bytes) = match v {
            0 => (8, 0),
            1 => (9, 0),
            -0x80..=0x7f => (1, 1),
            -0x8000..=0x7fff => (2, 2),
            -0x80_0000..=0x7f_ffff => (3, 3),
            -0x8000_0000..=0x7fff_ffff => (4, 4),
            -0x8000_0000_0000..=0x7fff_ffff_ffff => (5, 6),
            _ => (6, 8),
        };
        put_varint(&mut self.types, serial);
        self.body.extend_from_slice(&v.to_be_bytes()[8 - bytes..]);
    }

    /// A float as IEEE 754 big-endian; NaN as NULL, as SQLite itself stores it.
    pub(crate) fn real(&mut self, v: f64) {
        if v.is_nan() {
            return self.null();
        }
        put_varint(&mut self.types, 7);
        self.body.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn text(&mut self, v: &str) {
        put_varint(&mut self.types, 2 * v.len() as u64 + 13);
        self.body.extend_from_slice(v.as_bytes());
    }

    pub(crate) fn blob(&mut self, v: &[u8]) {
        put_varint(&mut self.types, 2 * v.len() as u64 + 12);
        self.body.extend_from_slice(v);
    }

    /// Text written by `f` straight into the record (a timestamp, a JSON value), without
    /// a string of its own first.
    pub(crate) fn text_with(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        let start = self.body.len();
        f(&mut self.body);
        put_varint(&mut self.types, 2 * (self.body.len() - start) as u64 + 13);
    }

    /// The record's bytes: the header's length (itself included), the serial types, the values.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let n = self.types.len();
        // The length counts its own varint, whose size depends on the length.
        let mut header = n + 1;
        while varint_len(header as u64) + n != header {
            header = varint_len(header as u64) + n;
        }
        out.clear();
        put_varint(out, header as u64);
        out.extend_from_slice(&self.types);
        out.extend_from_slice(&self.body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, v);
        out
    }

    /// Decoded as fileformat2 describes, independently of the encoder.
    fn decode(b: &[u8]) -> (u64, usize) {
        let mut v = 0u64;
        for (i, &byte) in b.iter().enumerate().take(8) {
            v = (v << 7) | u64::from(byte & 0x7f);
            if byte & 0x80 == 0 {
                return (v, i + 1);
            }
        }
        ((v << 8) | u64::from(b[8]), 9)
    }

    #[test]
    fn varints_round_trip_at_every_length() {
        assert_eq!(varint(0), [0]);
        assert_eq!(varint(0x7f), [0x7f]);
        assert_eq!(varint(0x80), [0x81, 0x00]);
        assert_eq!(varint(u64::MAX), [0xff; 9]);
        for shift in 0..64 {
            for v in [1u64 << shift, (1u64 << shift) - 1, (1u64 << shift) + 1] {
                let b = varint(v);
                assert_eq!(b.len(), varint_len(v), "{v}");
                assert_eq!(decode(&b), (v, b.len()), "{v}");
            }
        }
    }

    #[test]
    fn integers_take_the_smallest_serial_type() {
        let cases: &[(i64, u8, usize)] = &[
            (0, 8, 0),
            (1, 9, 0),
            (2, 1, 1),
            (-1, 1, 1),
            (127, 1, 1),
            (128, 2, 2),
            (-32768, 2, 2),
            (40000, 3, 3),
            (1 << 30, 4, 4),
            (1 << 40, 5, 6),
            (i64::MIN, 6, 8),
        ];
        for &(v, serial, bytes) in cases {
            let mut r = Record::default();
            r.int(v);
            assert_eq!((r.types[0], r.body.len()), (serial, bytes), "{v}");
            let mut wide = [if v < 0 { 0xff } else { 0 }; 8];
            wide[8 - bytes..].copy_from_slice(&r.body);
            if bytes > 0 {
                assert_eq!(i64::from_be_bytes(wide), v);
            }
        }
    }

    #[test]
    fn a_record_counts_its_own_header_length() {
        let mut r = Record::default();
        r.text("hi");
        r.null();
        r.real(f64::NAN);
        let mut out = Vec::new();
        r.encode(&mut out);
        assert_eq!(out, [4, 17, 0, 0, b'h', b'i']);
        // 200 columns: the header's length takes two bytes and counts them.
        r.clear();
        (0..200).for_each(|_| r.null());
        r.encode(&mut out);
        assert_eq!(decode(&out), (202, 2));
    }
}
