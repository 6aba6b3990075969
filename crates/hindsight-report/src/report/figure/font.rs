//! The bitmap font PNG figures are drawn with: DejaVu Sans and Sans Bold at one master size
//! (`assets/figure-font.bin`, made by `scripts/make-figure-font.py`; licence in
//! `assets/README.md`), each glyph scaled down to the size drawn.

use std::collections::HashMap;
use std::io::Read;
use std::sync::OnceLock;

const ASSET: &[u8] = include_bytes!("../../../assets/figure-font.bin");

/// One glyph at the master size: its advance, where its bitmap sits from the pen on the
/// baseline (y down), and its 8-bit coverage, row by row.
pub(crate) struct Glyph {
    pub(crate) advance: f64,
    pub(crate) x_off: f64,
    pub(crate) y_off: f64,
    pub(crate) w: usize,
    pub(crate) h: usize,
    pub(crate) coverage: Vec<u8>,
}

#[derive(Default)]
pub(crate) struct Font {
    /// The master size in px (the em).
    pub(crate) master: f64,
    /// Regular, then bold: each character's glyph.
    pub(crate) faces: [HashMap<char, Glyph>; 2],
}

impl Font {
    /// A character's glyph in a face; `?` for one the font lacks.
    pub(crate) fn glyph(&self, c: char, bold: bool) -> Option<&Glyph> {
        let face = &self.faces[usize::from(bold)];
        face.get(&c).or_else(|| face.get(&'?'))
    }
}

/// The font, read once; empty (text not drawn) were the asset unreadable, which the unit
/// test below rules out.
pub(crate) fn font() -> &'static Font {
    static FONT: OnceLock<Font> = OnceLock::new();
    FONT.get_or_init(|| parse(ASSET).unwrap_or_default())
}

/// Little-endian reads from the front of a slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (head, tail) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = tail;
        Some(head)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn i16(&mut self) -> Option<i16> {
        self.take(2).map(|b| i16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

fn parse(compressed: &[u8]) -> Option<Font> {
    let mut data = Vec::new();
    flate2::read::ZlibDecoder::new(compressed).read_to_end(&mut data).ok()?;
    let mut r = Reader(&data);
    if r.take(4)? != b"HSF1" {
        return None;
    }
    let master = f64::from(r.u16()?);
    let faces = r.take(1)?[0];
    let chars = r.u16()?;
    let mut font = Font { master, faces: Default::default() };
    for face in 0..usize::from(faces).min(2) {
        for _ in 0..chars {
            let c = char::from_u32(r.u32()?)?;
            let advance = f64::from(r.u16()?) / 64.0;
            let (x_off, y_off) = (f64::from(r.i16()?), f64::from(r.i16()?));
            let (w, h) = (usize::from(r.u16()?), usize::from(r.u16()?));
            let coverage = r.take(w * h)?.to_vec();
            font.faces[face].insert(c, Glyph { advance, x_off, y_off, w, h, coverage });
        }
    }
    Some(font)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_font_reads_whole() {
        let f = parse(ASSET).unwrap();
        assert_eq!(f.master, 48.0);
        for face in &f.faces {
            assert!(face.len() > 200);
            let h = &face[&'H'];
            assert!(h.w > 20 && h.h > 30 && h.y_off < -30.0 && h.coverage.iter().any(|c| *c == 255));
            assert!(face.contains_key(&'–') && face.contains_key(&'×') && face.contains_key(&'·'));
        }
        assert!(f.faces[1][&'H'].advance > f.faces[0][&'H'].advance, "bold is wider");
    }
}
