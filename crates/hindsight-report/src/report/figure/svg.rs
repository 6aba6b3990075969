//! The SVG encoder: one standalone `<svg>` element (namespace, view box and size, font, an
//! accessible title, the hatch pattern), each item with its class, data and tooltip.

use std::fmt::Write;

use super::{Anchor, Drawing, Fill, Item, Meta, HATCH_OPACITY, HATCH_STEP, HATCH_WIDTH};
use crate::report::section::esc;

/// The font every figure names, so a figure alone renders as it does in the page.
const FONT: &str = "Helvetica, Arial, sans-serif";

/// A coordinate to a tenth of a unit, without a trailing `.0`.
fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0 + 0.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

/// The id of a figure's hatch pattern, unique to the figure, as figures share a page.
pub(crate) fn hatch_id(name: &str) -> String {
    format!("hatch-{}", name.replace(|c: char| !c.is_ascii_alphanumeric(), "-"))
}

pub(super) fn element(d: &Drawing) -> String {
    let (w, h) = (d.width, d.height);
    let id = hatch_id(&d.name);
    let (step, mid) = (n(HATCH_STEP), n(HATCH_STEP / 2.0));
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" font-family="{FONT}" font-size="{}" role="img" data-figure="{}"><title>{}</title><defs><pattern id="{id}" patternUnits="userSpaceOnUse" width="{step}" height="{step}" patternTransform="rotate(45)"><rect width="{step}" height="{step}" fill="none"/><line x1="{mid}" y1="0" x2="{mid}" y2="{step}" stroke="#fff" stroke-width="{}" stroke-opacity="{HATCH_OPACITY}"/></pattern></defs><rect width="100%" height="100%" fill="#fff"/>"##,
        n(d.font_size),
        esc(&d.name),
        esc(&d.caption),
        n(HATCH_WIDTH),
    );
    for item in &d.items {
        write_item(&mut s, item, &id);
    }
    s.push_str("</svg>");
    s
}

/// `class`, then each `data-*`, as attributes.
fn meta_attrs(s: &mut String, meta: &Meta) {
    if let Some(c) = meta.class {
        let _ = write!(s, r#" class="{c}""#);
    }
    for (k, v) in &meta.data {
        let _ = write!(s, r#" data-{k}="{}""#, esc(v));
    }
}

/// The element's end: self-closing, or its tooltip inside it.
fn close(s: &mut String, tag: &str, meta: &Meta) {
    match &meta.title {
        Some(t) => {
            let _ = write!(s, "><title>{}</title></{tag}>", esc(t));
        }
        None => s.push_str("/>"),
    }
}

fn write_item(s: &mut String, item: &Item, hatch: &str) {
    match item {
        Item::Rect { x, y, w, h, fill, stroke, meta } => {
            let fill = match fill {
                Fill::Color(c) => c.to_string(),
                Fill::Hatch => format!("url(#{hatch})"),
            };
            let _ = write!(s, r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}""#, n(*x), n(*y), n(*w), n(*h));
            if let Some((c, sw)) = stroke {
                let _ = write!(s, r#" stroke="{c}" stroke-width="{}""#, n(*sw));
            }
            meta_attrs(s, meta);
            close(s, "rect", meta);
        }
        Item::Lines { segments, color, width, meta } => lines(s, segments, color, *width, meta),
        Item::Polyline { points, color, width, meta } => {
            let _ = write!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="{}" stroke-linejoin="round" stroke-linecap="round""#,
                point_list(points),
                n(*width)
            );
            meta_attrs(s, meta);
            close(s, "polyline", meta);
        }
        Item::Polygon { points, fill, opacity, meta } => {
            let _ = write!(s, r#"<polygon points="{}" fill="{fill}" fill-opacity="{}""#, point_list(points), n2(*opacity));
            meta_attrs(s, meta);
            close(s, "polygon", meta);
        }
        Item::Circle { cx, cy, r, fill, stroke, meta } => {
            let _ = write!(s, r#"<circle cx="{}" cy="{}" r="{}" fill="{fill}""#, n(*cx), n(*cy), n(*r));
            if let Some((c, sw)) = stroke {
                let _ = write!(s, r#" stroke="{c}" stroke-width="{}""#, n(*sw));
            }
            meta_attrs(s, meta);
            close(s, "circle", meta);
        }
        Item::Text { .. } => text(s, item),
        Item::Group { class, items } => {
            let _ = write!(s, r#"<g class="{class}">"#);
            for i in items {
                write_item(s, i, hatch);
            }
            s.push_str("</g>");
        }
    }
}

/// Points as SVG's `points` attribute: `x,y x,y ...`.
fn point_list(points: &[[f64; 2]]) -> String {
    points.iter().map(|[x, y]| format!("{},{}", n(*x), n(*y))).collect::<Vec<_>>().join(" ")
}

/// An opacity to two decimals (0.18, not 0.2 rounded to a tenth).
fn n2(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0 + 0.0;
    r.to_string()
}

/// One segment as `<line>`; several as one `<path>`.
fn lines(s: &mut String, segments: &[[f64; 4]], color: &str, width: f64, meta: &Meta) {
    let stroke_width = if width == 1.0 { String::new() } else { format!(r#" stroke-width="{}""#, n(width)) };
    if let [[x1, y1, x2, y2]] = segments {
        let _ = write!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{color}"{stroke_width}"#, n(*x1), n(*y1), n(*x2), n(*y2));
        meta_attrs(s, meta);
        return close(s, "line", meta);
    }
    let d: String = segments.iter().map(|[x1, y1, x2, y2]| format!("M{} {}L{} {}", n(*x1), n(*y1), n(*x2), n(*y2))).collect();
    let _ = write!(s, r#"<path d="{d}" stroke="{color}"{stroke_width} fill="none""#);
    meta_attrs(s, meta);
    close(s, "path", meta);
}

fn text(s: &mut String, item: &Item) {
    let Item::Text { x, y, text, size, bold, anchor, color, vertical, meta } = item else { return };
    let (x, y) = (n(*x), n(*y));
    let _ = write!(s, r#"<text x="{x}" y="{y}""#);
    if *vertical {
        let _ = write!(s, r#" transform="rotate(-90 {x} {y})""#);
    }
    let _ = write!(s, r#" font-size="{}""#, n(*size));
    if *bold {
        s.push_str(r#" font-weight="600""#);
    }
    match anchor {
        Anchor::Start => {}
        Anchor::Middle => s.push_str(r#" text-anchor="middle""#),
        Anchor::End => s.push_str(r#" text-anchor="end""#),
    }
    if let Some(c) = color {
        let _ = write!(s, r#" fill="{c}""#);
    }
    meta_attrs(s, meta);
    let _ = write!(s, ">{}</text>", esc(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A polyline, a band and a marker are written with their points in order, the band
    /// translucent, the hollow marker white with its colour's outline.
    #[test]
    fn line_chart_primitives() {
        let items = vec![
            Item::Polygon { points: vec![[1.0, 2.0], [3.0, 4.0], [5.0, 2.0]], fill: "#0072B2", opacity: 0.18, meta: Meta::class("band") },
            Item::Polyline { points: vec![[1.0, 2.5], [3.0, 4.0], [5.25, 6.0]], color: "#0072B2", width: 2.0, meta: Meta::class("series") },
            Item::Circle { cx: 3.0, cy: 4.0, r: 3.5, fill: "#fff", stroke: Some(("#0072B2", 1.5)), meta: Meta::class("point") },
        ];
        let d = Drawing { name: "t".into(), caption: "t".into(), width: 10.0, height: 10.0, font_size: 12.0, items };
        let svg = element(&d);
        assert!(svg.contains(r##"<polygon points="1,2 3,4 5,2" fill="#0072B2" fill-opacity="0.18" class="band"/>"##), "{svg}");
        assert!(svg.contains(r##"<polyline points="1,2.5 3,4 5.3,6" fill="none" stroke="#0072B2" stroke-width="2" stroke-linejoin="round" stroke-linecap="round" class="series"/>"##), "{svg}");
        assert!(svg.contains(r##"<circle cx="3" cy="4" r="3.5" fill="#fff" stroke="#0072B2" stroke-width="1.5" class="point"/>"##), "{svg}");
    }
}
