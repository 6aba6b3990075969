//! The PDF encoder: PDF 1.4 written by hand, vector, one page the figure's size (one unit
//! is one point), text in the base-14 Helvetica and Helvetica-Bold (every viewer has them,
//! so nothing is embedded) in WinAnsi, measured with Helvetica's own widths so text
//! anchored at its middle or end sits where SVG puts it. The bytes depend on the figure
//! alone: no creation date, no document ID.

use std::fmt::Write;

use super::afm::{HELVETICA, HELVETICA_BOLD};
use super::{rgb, win_ansi, Anchor, Drawing, Fill, Item, HATCH_OPACITY, HATCH_STEP, HATCH_WIDTH};

/// A number as PDF writes it: at most two decimals, no trailing zeros.
fn n(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0 + 0.0;
    let s = format!("{r:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Text as WinAnsi bytes: a character it has no code for is `?`.
pub(crate) fn encode_text(text: &str) -> Vec<u8> {
    text.chars().map(|c| win_ansi(c).unwrap_or(b'?')).collect()
}

/// The width of WinAnsi bytes in Helvetica (or Bold) at `size`.
pub(crate) fn text_width(bytes: &[u8], size: f64, bold: bool) -> f64 {
    let table = if bold { &HELVETICA_BOLD } else { &HELVETICA };
    let unit = |b: u8| table.get(usize::from(b).wrapping_sub(32)).copied().filter(|w| *w > 0).unwrap_or(table[usize::from(b'?') - 32]);
    bytes.iter().map(|b| f64::from(unit(*b))).sum::<f64>() * size / 1000.0
}

/// A PDF string literal of bytes: parentheses and backslashes escaped, bytes past ASCII
/// in octal so the content stream stays text.
fn literal(bytes: &[u8]) -> String {
    let mut s = String::from("(");
    for b in bytes {
        match b {
            b'(' | b')' | b'\\' => {
                s.push('\\');
                s.push(char::from(*b));
            }
            0x20..=0x7E => s.push(char::from(*b)),
            _ => {
                let _ = write!(s, "\\{b:03o}");
            }
        }
    }
    s.push(')');
    s
}

fn color_op(color: &str, op: &str) -> String {
    let [r, g, b] = rgb(color);
    format!("{} {} {} {op}\n", n(f64::from(r) / 255.0), n(f64::from(g) / 255.0), n(f64::from(b) / 255.0))
}

/// The page's content: a white ground, then each item, y turned up (PDF's y runs up).
fn content(d: &Drawing) -> String {
    let mut s = color_op("#fff", "rg");
    let _ = writeln!(s, "0 0 {} {} re f", n(d.width), n(d.height));
    for item in &d.items {
        draw(&mut s, item, d.height);
    }
    s
}

fn draw(s: &mut String, item: &Item, page_h: f64) {
    match item {
        Item::Rect { x, y, w, h, fill: Fill::Color(c), stroke, .. } => {
            s.push_str(&color_op(c, "rg"));
            let _ = write!(s, "{} {} {} {} re ", n(*x), n(page_h - y - h), n(*w), n(*h));
            match stroke {
                Some((sc, sw)) => {
                    s.push_str(&color_op(sc, "RG"));
                    let _ = writeln!(s, "{} w B", n(*sw));
                }
                None => s.push_str("f\n"),
            }
        }
        Item::Rect { x, y, w, h, fill: Fill::Hatch, .. } => hatch(s, [*x, *y, *w, *h], page_h),
        Item::Lines { segments, color, width, .. } => {
            s.push_str(&color_op(color, "RG"));
            let _ = writeln!(s, "{} w", n(*width));
            for [x1, y1, x2, y2] in segments {
                let _ = writeln!(s, "{} {} m {} {} l S", n(*x1), n(page_h - y1), n(*x2), n(page_h - y2));
            }
        }
        Item::Polyline { points, color, width, .. } => {
            // Round joins and ends (1 J 1 j) as SVG's, kept to this line by q ... Q.
            s.push_str("q 1 J 1 j ");
            s.push_str(&color_op(color, "RG"));
            let _ = writeln!(s, "{} w {} S Q", n(*width), path(points, page_h));
        }
        Item::Polygon { points, fill, opacity, .. } => {
            let _ = write!(s, "q /{} gs ", alpha_name(*opacity));
            s.push_str(&color_op(fill, "rg"));
            let _ = writeln!(s, "{} h f Q", path(points, page_h));
        }
        Item::Circle { cx, cy, r, fill, stroke, .. } => circle(s, [*cx, page_h - cy, *r], fill, *stroke),
        Item::Text { .. } => text(s, item, page_h),
        Item::Group { items, .. } => items.iter().for_each(|i| draw(s, i, page_h)),
    }
}

/// Points as a path: a move to the first, a line to each after it.
fn path(points: &[[f64; 2]], page_h: f64) -> String {
    let ops = points.iter().enumerate().map(|(i, [x, y])| format!("{} {} {}", n(*x), n(page_h - y), if i == 0 { "m" } else { "l" }));
    ops.collect::<Vec<_>>().join(" ")
}

/// The graphics state a fill of `opacity` uses: `/A` and the opacity in percent.
fn alpha_name(opacity: f64) -> String {
    format!("A{}", (opacity.clamp(0.0, 1.0) * 100.0).round())
}

/// The opacities the drawing's polygons are filled at, as graphics states for the page's
/// resources (` /A18 << /ca 0.18 >>`); empty when it has none, so a figure without them
/// (every bar chart) is written as before.
fn alpha_states(items: &[Item]) -> String {
    fn collect(items: &[Item], out: &mut std::collections::BTreeSet<u64>) {
        for item in items {
            match item {
                Item::Polygon { opacity, .. } => {
                    out.insert((opacity.clamp(0.0, 1.0) * 100.0).round() as u64);
                }
                Item::Group { items, .. } => collect(items, out),
                _ => {}
            }
        }
    }
    let mut percents = std::collections::BTreeSet::new();
    collect(items, &mut percents);
    percents.iter().map(|p| format!(" /A{p} << /ca {} >>", n(*p as f64 / 100.0))).collect()
}

/// A circle (centre and radius in PDF's coordinates) as four Bézier quarters, filled, and
/// outlined when it has a stroke.
fn circle(s: &mut String, [x, y, r]: [f64; 3], fill: &str, stroke: Option<(&str, f64)>) {
    // The control points' distance that makes a cubic Bézier quarter closest to a circle.
    let k = 0.552_284_75 * r;
    s.push_str(&color_op(fill, "rg"));
    let _ = write!(s, "{} {} m ", n(x + r), n(y));
    for [c1x, c1y, c2x, c2y, ex, ey] in [
        [x + r, y + k, x + k, y + r, x, y + r],
        [x - k, y + r, x - r, y + k, x - r, y],
        [x - r, y - k, x - k, y - r, x, y - r],
        [x + k, y - r, x + r, y - k, x + r, y],
    ] {
        let _ = write!(s, "{} {} {} {} {} {} c ", n(c1x), n(c1y), n(c2x), n(c2y), n(ex), n(ey));
    }
    match stroke {
        Some((c, w)) => {
            s.push_str(&color_op(c, "RG"));
            let _ = writeln!(s, "{} w b", n(w));
        }
        None => s.push_str("h f\n"),
    }
}

/// Hatching over a rectangle: the stripes as white lines, clipped to it, half transparent.
fn hatch(s: &mut String, [x, y, w, h]: [f64; 4], page_h: f64) {
    let _ = writeln!(s, "q /Hatch gs {} {} {} {} re W n", n(x), n(page_h - y - h), n(w), n(h));
    s.push_str(&color_op("#fff", "RG"));
    let _ = writeln!(s, "{} w", n(HATCH_WIDTH));
    // A stripe's centre is where (x + y) / √2 is HATCH_STEP / 2 past a multiple of HATCH_STEP.
    let diag = std::f64::consts::SQRT_2;
    let first = ((x + y) / diag / HATCH_STEP).floor() as i64 - 1;
    let last = ((x + w + y + h) / diag / HATCH_STEP).ceil() as i64 + 1;
    for k in first..=last {
        let c = (k as f64 * HATCH_STEP + HATCH_STEP / 2.0) * diag;
        let (ya, yb) = (y - HATCH_WIDTH, y + h + HATCH_WIDTH);
        let _ = writeln!(s, "{} {} m {} {} l S", n(c - ya), n(page_h - ya), n(c - yb), n(page_h - yb));
    }
    s.push_str("Q\n");
}

fn text(s: &mut String, item: &Item, page_h: f64) {
    let Item::Text { x, y, text, size, bold, anchor, color, vertical, .. } = item else { return };
    let bytes = encode_text(text);
    let shift = match anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => text_width(&bytes, *size, *bold) / 2.0,
        Anchor::End => text_width(&bytes, *size, *bold),
    };
    // Along the reading direction: right, or up when turned.
    let (px, py, matrix) = if *vertical { (*x, page_h - y - shift, "0 1 -1 0") } else { (x - shift, page_h - y, "1 0 0 1") };
    let font = if *bold { "F2" } else { "F1" };
    let _ = write!(s, "BT /{font} {} Tf ", n(*size));
    s.push_str(&color_op(color.unwrap_or("#000"), "rg"));
    let _ = writeln!(s, "{matrix} {} {} Tm {} Tj ET", n(px), n(py), literal(&bytes));
}

/// A string as a PDF text string in UTF-16BE (the document's title may be any text).
fn utf16_hex(text: &str) -> String {
    let mut s = String::from("<FEFF");
    for unit in text.encode_utf16() {
        let _ = write!(s, "{unit:04X}");
    }
    s.push('>');
    s
}

/// The whole file: catalog, pages, the page, two fonts, the transparency the hatching
/// uses, the content stream, the document's title; then the cross-reference table.
pub(super) fn document(d: &Drawing) -> Vec<u8> {
    let stream = content(d);
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {} {}] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> /ExtGState << /Hatch 6 0 R{} >> >> /Contents 7 0 R >>",
            n(d.width),
            n(d.height),
            alpha_states(&d.items)
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_string(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".to_string(),
        format!("<< /Type /ExtGState /CA {HATCH_OPACITY} /ca {HATCH_OPACITY} >>"),
        format!("<< /Length {} >>\nstream\n{stream}endstream", stream.len()),
        format!("<< /Title {} /Producer (hindsight) >>", utf16_hex(&d.caption)),
    ];
    let mut out: Vec<u8> = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for o in offsets {
        let _ = write!(table, "{o:010} 00000 n \n");
    }
    let _ = write!(table, "trailer\n<< /Size {} /Root 1 0 R /Info {} 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1, objects.len());
    out.extend_from_slice(table.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::super::Meta;
    use super::*;

    fn drawing() -> Drawing {
        let items = vec![
            Item::Rect { x: 10.0, y: 10.0, w: 50.0, h: 12.0, fill: Fill::Color("#0072B2"), stroke: None, meta: Meta::default() },
            Item::Rect { x: 10.0, y: 10.0, w: 50.0, h: 12.0, fill: Fill::Hatch, stroke: None, meta: Meta::default() },
            Item::Text {
                x: 100.0,
                y: 50.0,
                text: "Share (0–1) (a\\b)".into(),
                size: 12.0,
                bold: true,
                anchor: Anchor::End,
                color: None,
                vertical: false,
                meta: Meta::default(),
            },
        ];
        Drawing { name: "t".into(), caption: "A title →".into(), width: 200.0, height: 80.0, font_size: 12.0, items }
    }

    /// Each object starts where the cross-reference table says; `startxref` points at it.
    #[test]
    fn xref_offsets_point_at_their_objects() {
        let pdf = drawing().encode(super::super::Encoding { format: super::super::FigureFormat::Pdf, scale: 1.0 }).unwrap();
        let text = String::from_utf8_lossy(&pdf);
        assert!(pdf.starts_with(b"%PDF-1.4\n") && pdf.ends_with(b"%%EOF\n"));
        let start: usize = text.split("startxref\n").nth(1).unwrap().lines().next().unwrap().parse().unwrap();
        assert!(pdf[start..].starts_with(b"xref\n0 9\n"));
        // The header's binary comment makes `text` longer than the bytes: index the bytes.
        let table = String::from_utf8_lossy(&pdf[start..]).to_string();
        let entries: Vec<&str> = table.lines().skip(3).take(8).collect();
        for (i, e) in entries.iter().enumerate() {
            let at: usize = e[..10].parse().unwrap();
            assert!(pdf[at..].starts_with(format!("{} 0 obj\n", i + 1).as_bytes()), "object {}", i + 1);
        }
        assert!(text.contains("/MediaBox [0 0 200 80]"));
        // Anchored at its end: it starts its width left of x, measured in Helvetica-Bold.
        let width = text_width(&encode_text("Share (0–1) (a\\b)"), 12.0, true);
        assert!(text.contains(&format!("1 0 0 1 {} 30 Tm (Share \\(0\\2261\\) \\(a\\\\b\\)) Tj", n(100.0 - width))), "{text}");
        assert_eq!(pdf, drawing().encode(super::super::Encoding { format: super::super::FigureFormat::Pdf, scale: 1.0 }).unwrap());
    }

    /// A band names its translucent state among the page's resources; a line, a band and
    /// a hollow marker are paths in their colours; a drawing without bands names none.
    #[test]
    fn line_chart_primitives_are_paths() {
        let items = vec![
            Item::Polygon { points: vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]], fill: "#000", opacity: 0.18, meta: Meta::default() },
            Item::Polyline { points: vec![[0.0, 10.0], [20.0, 30.0]], color: "#0072B2", width: 2.0, meta: Meta::default() },
            Item::Circle { cx: 20.0, cy: 30.0, r: 4.0, fill: "#fff", stroke: Some(("#0072B2", 1.5)), meta: Meta::default() },
        ];
        let d = Drawing { name: "t".into(), caption: "t".into(), width: 40.0, height: 40.0, font_size: 12.0, items };
        let text = String::from_utf8_lossy(&document(&d)).to_string();
        assert!(text.contains("/ExtGState << /Hatch 6 0 R /A18 << /ca 0.18 >> >>"), "{text}");
        assert!(text.contains("q /A18 gs 0 0 0 rg\n0 40 m 10 40 l 10 30 l h f Q"), "{text}");
        assert!(text.contains("q 1 J 1 j 0 0.45 0.7 RG\n2 w 0 30 m 20 10 l S Q"), "{text}");
        assert!(text.contains("1 1 1 rg\n24 10 m 24 12.21 22.21 14 20 14 c "), "{text}");
        assert!(text.contains("0 0.45 0.7 RG\n1.5 w b"), "{text}");
        assert!(String::from_utf8_lossy(&document(&drawing())).contains("/ExtGState << /Hatch 6 0 R >> >>"));
    }

    #[test]
    fn helvetica_widths() {
        // "Hi": H 722 + i 222 in Helvetica; H 722 + i 278 in Bold.
        assert_eq!(text_width(b"Hi", 10.0, false), 9.44);
        assert_eq!(text_width(b"Hi", 10.0, true), 10.0);
        assert_eq!(encode_text("a→b"), b"a?b");
    }
}
