//! A figure as a display list (rectangles, lines, text, in SVG user units: px, y down),
//! drawn once by the charts and written by one of three encoders: SVG (what the HTML report
//! shows inline), PDF (vector, the base-14 Helvetica) and PNG (rasterized here, with an
//! embedded bitmap font). One drawing, so the three files show the same figure.

mod afm;
mod font;
mod pdf;
mod png;
mod svg;

use std::path::Path;

use crate::error::{Error, Result};

/// A figure's file format: `--figure FILE`'s extension, or `--figure-format` for `--figures`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum FigureFormat {
    /// SVG: vector, what the HTML report shows; for the web and LaTeX (via svg or Inkscape).
    #[default]
    Svg,
    /// PNG: a raster at --scale times the figure's size (2: sharp on screens and in print).
    Png,
    /// PDF: vector, one page the figure's size, Helvetica; for LaTeX's \includegraphics.
    Pdf,
}

impl FigureFormat {
    /// The format a file's extension names; anything else is a usage error.
    pub fn of_path(path: &Path) -> Result<FigureFormat> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => Ok(FigureFormat::Svg),
            Some("png") => Ok(FigureFormat::Png),
            Some("pdf") => Ok(FigureFormat::Pdf),
            _ => Err(Error::usage(format!("--figure {}: the file name must end in .svg, .png or .pdf (the format it is written in)", path.display()))),
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            FigureFormat::Svg => "svg",
            FigureFormat::Png => "png",
            FigureFormat::Pdf => "pdf",
        }
    }
}

/// How a figure is written: its format, and for PNG the pixels per SVG unit.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    pub format: FigureFormat,
    /// PNG's pixels per unit of the figure's width (2: a 860-wide figure is 1720 px).
    pub scale: f64,
}

impl Default for Encoding {
    fn default() -> Self {
        Encoding { format: FigureFormat::Svg, scale: 2.0 }
    }
}

/// What SVG says of an item beyond its look: its class, `data-*` attributes, and a tooltip
/// (`<title>`); the HTML report's tests and readers' scripts find bars and n by these.
#[derive(Clone, Debug, Default)]
pub(crate) struct Meta {
    pub(crate) class: Option<&'static str>,
    pub(crate) data: Vec<(&'static str, String)>,
    pub(crate) title: Option<String>,
}

impl Meta {
    pub(crate) fn class(class: &'static str) -> Meta {
        Meta { class: Some(class), ..Meta::default() }
    }
}

/// A rectangle's fill: a colour (`#rrggbb` or `#rgb`), or the white diagonal hatching that
/// marks a small sample over what is beneath.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fill {
    Color(&'static str),
    Hatch,
}

/// The hatching: stripes `HATCH_WIDTH` wide, centred every `HATCH_STEP` units along the
/// diagonal x + y (in the figure's own coordinates, so hatched bars line up), white at
/// `HATCH_OPACITY` over the bar's colour.
pub(crate) const HATCH_STEP: f64 = 6.0;
pub(crate) const HATCH_WIDTH: f64 = 2.5;
pub(crate) const HATCH_OPACITY: f64 = 0.8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

/// One thing drawn, in order, later over earlier.
#[derive(Clone, Debug)]
pub(crate) enum Item {
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        fill: Fill,
        stroke: Option<(&'static str, f64)>,
        meta: Meta,
    },
    /// Straight segments `[x1, y1, x2, y2]` in one colour and width (a whisker is three).
    Lines {
        segments: Vec<[f64; 4]>,
        color: &'static str,
        width: f64,
        meta: Meta,
    },
    /// A line through `points` in order, joined and ended round (a line chart's series).
    Polyline {
        points: Vec<[f64; 2]>,
        color: &'static str,
        width: f64,
        meta: Meta,
    },
    /// A closed shape through `points` filled at `opacity` (0-1) over what is beneath, no
    /// outline (an interval's band, translucent so the lines beneath still show).
    Polygon {
        points: Vec<[f64; 2]>,
        fill: &'static str,
        opacity: f64,
        meta: Meta,
    },
    /// A circle at (cx, cy) of radius `r`, filled, with an optional outline (colour,
    /// width): a line chart's marker; white with an outline is a hollow one.
    Circle {
        cx: f64,
        cy: f64,
        r: f64,
        fill: &'static str,
        stroke: Option<(&'static str, f64)>,
        meta: Meta,
    },
    /// Text on its baseline at (x, y); `vertical`: turned a quarter anticlockwise (read
    /// bottom to top, as an axis title along the left edge).
    Text {
        x: f64,
        y: f64,
        text: String,
        size: f64,
        bold: bool,
        anchor: Anchor,
        color: Option<&'static str>,
        vertical: bool,
        meta: Meta,
    },
    /// Items SVG groups under one class (a legend entry).
    Group {
        class: &'static str,
        items: Vec<Item>,
    },
}

/// A whole figure: its name (SVG's `data-figure`, the hatch pattern's id), its caption (the
/// title every format carries), its size, base font size, and what is drawn.
#[derive(Clone, Debug)]
pub(crate) struct Drawing {
    pub(crate) name: String,
    pub(crate) caption: String,
    pub(crate) width: f64,
    pub(crate) height: f64,
    pub(crate) font_size: f64,
    pub(crate) items: Vec<Item>,
}

impl Drawing {
    /// The `<svg>` element alone, as the HTML report draws it inline.
    pub(crate) fn svg(&self) -> String {
        svg::element(self)
    }

    /// The figure as a file's bytes in `encoding`'s format.
    pub(crate) fn encode(&self, encoding: Encoding) -> std::io::Result<Vec<u8>> {
        Ok(match encoding.format {
            FigureFormat::Svg => format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n", self.svg()).into_bytes(),
            FigureFormat::Pdf => pdf::document(self),
            FigureFormat::Png => png::image(self, encoding.scale)?,
        })
    }
}

/// A colour (`#rrggbb` or `#rgb`) as RGB; anything else is black (the charts name only hex
/// colours, so this is never reached from input).
pub(crate) fn rgb(color: &str) -> [u8; 3] {
    let hex = color.trim_start_matches('#');
    let digit = |i: usize, n: usize| u8::from_str_radix(hex.get(i..i + n).unwrap_or("0"), 16).unwrap_or(0);
    match hex.len() {
        3 => [digit(0, 1) * 17, digit(1, 1) * 17, digit(2, 1) * 17],
        6 => [digit(0, 2), digit(2, 2), digit(4, 2)],
        _ => [0, 0, 0],
    }
}

/// A character in WinAnsi (cp1252), the encoding of PDF's base-14 fonts and of the PNG
/// font's glyphs; `None` when it has none.
pub(crate) fn win_ansi(c: char) -> Option<u8> {
    const HIGH: [(char, u8); 27] = [
        ('€', 0x80),
        ('‚', 0x82),
        ('ƒ', 0x83),
        ('„', 0x84),
        ('…', 0x85),
        ('†', 0x86),
        ('‡', 0x87),
        ('ˆ', 0x88),
        ('‰', 0x89),
        ('Š', 0x8A),
        ('‹', 0x8B),
        ('Œ', 0x8C),
        ('Ž', 0x8E),
        ('‘', 0x91),
        ('’', 0x92),
        ('“', 0x93),
        ('”', 0x94),
        ('•', 0x95),
        ('–', 0x96),
        ('—', 0x97),
        ('˜', 0x98),
        ('™', 0x99),
        ('š', 0x9A),
        ('›', 0x9B),
        ('œ', 0x9C),
        ('ž', 0x9E),
        ('Ÿ', 0x9F),
    ];
    match c as u32 {
        0x20..=0x7E | 0xA0..=0xFF => Some(c as u8),
        _ => HIGH.iter().find(|(h, _)| *h == c).map(|(_, b)| *b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_names_the_format() {
        assert_eq!(FigureFormat::of_path(Path::new("a/b.PNG")).unwrap(), FigureFormat::Png);
        assert_eq!(FigureFormat::of_path(Path::new("b.pdf")).unwrap(), FigureFormat::Pdf);
        assert_eq!(FigureFormat::of_path(Path::new("b.svg")).unwrap(), FigureFormat::Svg);
        let e = FigureFormat::of_path(Path::new("b.jpg")).unwrap_err().to_string();
        assert!(e.contains(".svg, .png or .pdf"), "{e}");
    }

    #[test]
    fn colours_and_win_ansi() {
        assert_eq!(rgb("#0072B2"), [0, 0x72, 0xB2]);
        assert_eq!(rgb("#fff"), [255, 255, 255]);
        assert_eq!(win_ansi('–'), Some(0x96));
        assert_eq!(win_ansi('×'), Some(0xD7));
        assert_eq!(win_ansi('a'), Some(b'a'));
        assert_eq!(win_ansi('→'), None);
    }
}
