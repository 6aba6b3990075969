//! The PNG encoder: the display list rasterized here at `scale` pixels per unit, each shape
//! anti-aliased by the share of a pixel it covers, text from the embedded bitmap font
//! ([`super::font`]); then an RGB PNG (filter 0, zlib), the same bytes for the same figure.

use std::io::Write;

use super::font::{font, Glyph};
use super::{rgb, Anchor, Drawing, Fill, Item, HATCH_OPACITY, HATCH_STEP, HATCH_WIDTH};

/// An RGB image being drawn, 0-255 per channel as floats so blending does not round.
pub(crate) struct Canvas {
    pub(crate) w: usize,
    pub(crate) h: usize,
    pub(crate) px: Vec<[f32; 3]>,
}

fn color(c: &str) -> [f32; 3] {
    rgb(c).map(f32::from)
}

impl Canvas {
    pub(crate) fn new(w: usize, h: usize) -> Canvas {
        Canvas { w, h, px: vec![[255.0; 3]; w * h] }
    }

    /// `c` over pixel (x, y) at opacity `a` (0-1).
    fn blend(&mut self, x: usize, y: usize, c: [f32; 3], a: f32) {
        if let Some(p) = self.px.get_mut(y * self.w + x) {
            for (v, c) in p.iter_mut().zip(c) {
                *v += (c - *v) * a;
            }
        }
    }

    /// The pixels a rectangle (x0, y0)-(x1, y1) touches, within the image.
    fn span(&self, x0: f64, y0: f64, x1: f64, y1: f64) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let clamp = |v: f64, max: usize| v.clamp(0.0, max as f64) as usize;
        (clamp(x0.floor(), self.w)..clamp(x1.ceil(), self.w), clamp(y0.floor(), self.h)..clamp(y1.ceil(), self.h))
    }

    /// A rectangle in pixels, each pixel covered by the share of its area inside it.
    pub(crate) fn fill_rect(&mut self, [x0, y0, x1, y1]: [f64; 4], c: [f32; 3], a: f32) {
        let (xs, ys) = self.span(x0, y0, x1, y1);
        for y in ys {
            let cy = (y1.min(y as f64 + 1.0) - y0.max(y as f64)).max(0.0);
            for x in xs.clone() {
                let cx = (x1.min(x as f64 + 1.0) - x0.max(x as f64)).max(0.0);
                self.blend(x, y, c, a * (cx * cy) as f32);
            }
        }
    }

    /// Each pixel of a rectangle covered by the share of `n`×`n` points inside it for
    /// which `inside` holds, at opacity `a`.
    fn sampled(&mut self, [x0, y0, x1, y1]: [f64; 4], n: usize, c: [f32; 3], a: f32, inside: impl Fn(f64, f64) -> bool) {
        let (xs, ys) = self.span(x0, y0, x1, y1);
        let step = 1.0 / n as f64;
        for y in ys {
            for x in xs.clone() {
                let mut hits = 0;
                for (i, j) in (0..n * n).map(|k| (k % n, k / n)) {
                    let (sx, sy) = (x as f64 + (i as f64 + 0.5) * step, y as f64 + (j as f64 + 0.5) * step);
                    hits += usize::from((x0..x1).contains(&sx) && (y0..y1).contains(&sy) && inside(sx, sy));
                }
                if hits > 0 {
                    self.blend(x, y, c, a * hits as f32 / (n * n) as f32);
                }
            }
        }
    }

    /// A line `width` pixels wide with square ends at its end points (SVG's butt caps):
    /// a rectangle when level or upright, else sampled.
    pub(crate) fn line(&mut self, [x1, y1, x2, y2]: [f64; 4], width: f64, c: [f32; 3]) {
        let half = width / 2.0;
        if x1 == x2 || y1 == y2 {
            let r = [x1.min(x2) - if x1 == x2 { half } else { 0.0 }, y1.min(y2) - if y1 == y2 { half } else { 0.0 }];
            return self.fill_rect([r[0], r[1], x1.max(x2) + if x1 == x2 { half } else { 0.0 }, y1.max(y2) + if y1 == y2 { half } else { 0.0 }], c, 1.0);
        }
        let (dx, dy) = (x2 - x1, y2 - y1);
        let len = dx.hypot(dy);
        let bbox = [x1.min(x2) - half, y1.min(y2) - half, x1.max(x2) + half, y1.max(y2) + half];
        self.sampled(bbox, 4, c, 1.0, |x, y| {
            let along = ((x - x1) * dx + (y - y1) * dy) / len;
            let across = ((x - x1) * dy - (y - y1) * dx).abs() / len;
            (0.0..=len).contains(&along) && across <= half
        });
    }

    /// A line through `points` (pixels), `width` wide, joined and ended round: each
    /// segment sampled as a capsule, less what the segment before it covered, so a joint
    /// is inked once.
    pub(crate) fn polyline(&mut self, points: &[[f64; 2]], width: f64, c: [f32; 3]) {
        let half = width / 2.0;
        for (i, [a, b]) in points.windows(2).filter_map(|w| <[[f64; 2]; 2]>::try_from(w).ok()).enumerate() {
            let before = i.checked_sub(1).and_then(|j| points.get(j..j + 2)).and_then(|w| <[[f64; 2]; 2]>::try_from(w).ok());
            let bbox = [a[0].min(b[0]) - half, a[1].min(b[1]) - half, a[0].max(b[0]) + half, a[1].max(b[1]) + half];
            self.sampled(bbox, 4, c, 1.0, |x, y| segment_distance([x, y], a, b) <= half && before.map_or(true, |[p, q]| segment_distance([x, y], p, q) > half));
        }
        if let [only] = points {
            self.circle([only[0], only[1], half], c, 1.0);
        }
    }

    /// A disc (cx, cy, r in pixels) at opacity `a`.
    pub(crate) fn circle(&mut self, [cx, cy, r]: [f64; 3], c: [f32; 3], a: f32) {
        self.sampled([cx - r, cy - r, cx + r, cy + r], 4, c, a, |x, y| (x - cx).hypot(y - cy) <= r);
    }

    /// A circle's outline `width` wide, centred on radius `r`.
    fn ring(&mut self, [cx, cy, r]: [f64; 3], width: f64, c: [f32; 3]) {
        let out = r + width / 2.0;
        self.sampled([cx - out, cy - out, cx + out, cy + out], 4, c, 1.0, |x, y| ((x - cx).hypot(y - cy) - r).abs() <= width / 2.0);
    }

    /// A polygon (pixels) filled at opacity `a`, inside by the even-odd rule (as SVG's
    /// default nonzero for the bands drawn, which never cross themselves).
    pub(crate) fn polygon(&mut self, points: &[[f64; 2]], c: [f32; 3], a: f32) {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in points {
            lo = [lo[0].min(p[0]), lo[1].min(p[1])];
            hi = [hi[0].max(p[0]), hi[1].max(p[1])];
        }
        if points.len() < 3 {
            return;
        }
        self.sampled([lo[0], lo[1], hi[0], hi[1]], 4, c, a, |x, y| inside_polygon(points, x, y));
    }

    /// The hatching over a rectangle, its stripes where SVG's pattern puts them.
    fn hatch(&mut self, rect: [f64; 4], scale: f64) {
        let period = HATCH_STEP * std::f64::consts::SQRT_2 * scale;
        self.sampled(rect, 4, [255.0; 3], HATCH_OPACITY as f32, |x, y| {
            let along = (x + y) / period * HATCH_STEP;
            (along.rem_euclid(HATCH_STEP) - HATCH_STEP / 2.0).abs() <= HATCH_WIDTH / 2.0
        });
    }
}

/// The distance from `p` to the segment from `a` to `b`.
fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 { (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p[0] - a[0] - t * dx).hypot(p[1] - a[1] - t * dy)
}

/// Whether (x, y) is inside the polygon: an odd number of its edges cross the ray to the right.
fn inside_polygon(points: &[[f64; 2]], x: f64, y: f64) -> bool {
    let mut inside = false;
    let mut j = points.len().wrapping_sub(1);
    for (i, p) in points.iter().enumerate() {
        let q = points.get(j).copied().unwrap_or(*p);
        if (p[1] > y) != (q[1] > y) && x < (q[0] - p[0]) * (y - p[1]) / (q[1] - p[1]) + p[0] {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// How text is laid: its pen's start in pixels, its size in pixels, and which way it reads.
struct Pen {
    x: f64,
    y: f64,
    size: f64,
    vertical: bool,
}

impl Canvas {
    /// One glyph at the pen: each pixel it may touch sampled from the master bitmap.
    fn glyph(&mut self, g: &Glyph, pen: &Pen, master: f64, c: [f32; 3]) {
        let f = pen.size / master;
        // Reading direction, and the glyph's downward direction.
        let (e1, e2) = if pen.vertical { ((0.0, -1.0), (1.0, 0.0)) } else { ((1.0, 0.0), (0.0, 1.0)) };
        let at = |u: f64, v: f64| (pen.x + f * (u * e1.0 + v * e2.0), pen.y + f * (u * e1.1 + v * e2.1));
        let (a, b) = (at(g.x_off, g.y_off), at(g.x_off + g.w as f64, g.y_off + g.h as f64));
        let bbox = [a.0.min(b.0), a.1.min(b.1), a.0.max(b.0), a.1.max(b.1)];
        let n = (2.0 / f).ceil().clamp(2.0, 8.0) as usize;
        let (xs, ys) = self.span(bbox[0], bbox[1], bbox[2], bbox[3]);
        let step = 1.0 / n as f64;
        for y in ys {
            for x in xs.clone() {
                let mut sum = 0u32;
                for (i, j) in (0..n * n).map(|k| (k % n, k / n)) {
                    let (dx, dy) = (x as f64 + (i as f64 + 0.5) * step - pen.x, y as f64 + (j as f64 + 0.5) * step - pen.y);
                    let (u, v) = ((dx * e1.0 + dy * e1.1) / f - g.x_off, (dx * e2.0 + dy * e2.1) / f - g.y_off);
                    if u >= 0.0 && v >= 0.0 && (u as usize) < g.w && (v as usize) < g.h {
                        sum += u32::from(g.coverage[v as usize * g.w + u as usize]);
                    }
                }
                if sum > 0 {
                    self.blend(x, y, c, sum as f32 / (255 * n * n) as f32);
                }
            }
        }
    }

    fn text(&mut self, item: &Item, scale: f64) {
        let Item::Text { x, y, text, size, bold, anchor, color: c, vertical, .. } = item else { return };
        let font = font();
        let size = size * scale;
        let f = size / font.master.max(1.0);
        let width: f64 = text.chars().filter_map(|ch| font.glyph(ch, *bold)).map(|g| g.advance * f).sum();
        let shift = match anchor {
            Anchor::Start => 0.0,
            Anchor::Middle => width / 2.0,
            Anchor::End => width,
        };
        let (x, y) = (x * scale, y * scale);
        let mut pen = if *vertical { Pen { x, y: y + shift, size, vertical: true } } else { Pen { x: x - shift, y, size, vertical: false } };
        let ink = color(c.unwrap_or("#000"));
        for g in text.chars().filter_map(|ch| font.glyph(ch, *bold)) {
            self.glyph(g, &pen, font.master, ink);
            if pen.vertical {
                pen.y -= g.advance * f;
            } else {
                pen.x += g.advance * f;
            }
        }
    }

    fn draw(&mut self, item: &Item, scale: f64) {
        match item {
            Item::Rect { x, y, w, h, fill, stroke, .. } => {
                let r = [x * scale, y * scale, (x + w) * scale, (y + h) * scale];
                match fill {
                    Fill::Color(c) => self.fill_rect(r, color(c), 1.0),
                    Fill::Hatch => self.hatch(r, scale),
                }
                if let Some((c, sw)) = stroke {
                    let [x0, y0, x1, y1] = r;
                    for seg in [[x0, y0, x1, y0], [x1, y0, x1, y1], [x1, y1, x0, y1], [x0, y1, x0, y0]] {
                        self.line(seg, sw * scale, color(c));
                    }
                }
            }
            Item::Lines { segments, color: c, width, .. } => {
                for [x1, y1, x2, y2] in segments {
                    self.line([x1 * scale, y1 * scale, x2 * scale, y2 * scale], width * scale, color(c));
                }
            }
            Item::Polyline { points, color: c, width, .. } => {
                let px: Vec<[f64; 2]> = points.iter().map(|[x, y]| [x * scale, y * scale]).collect();
                self.polyline(&px, width * scale, color(c));
            }
            Item::Polygon { points, fill, opacity, .. } => {
                let px: Vec<[f64; 2]> = points.iter().map(|[x, y]| [x * scale, y * scale]).collect();
                self.polygon(&px, color(fill), *opacity as f32);
            }
            Item::Circle { cx, cy, r, fill, stroke, .. } => {
                let at = [cx * scale, cy * scale, r * scale];
                self.circle(at, color(fill), 1.0);
                if let Some((c, sw)) = stroke {
                    self.ring(at, sw * scale, color(c));
                }
            }
            Item::Text { .. } => self.text(item, scale),
            Item::Group { items, .. } => items.iter().for_each(|i| self.draw(i, scale)),
        }
    }
}

/// The figure drawn at `scale`: its size in pixels is its size in units times `scale`.
pub(crate) fn raster(d: &Drawing, scale: f64) -> Canvas {
    let mut canvas = Canvas::new((d.width * scale).round() as usize, (d.height * scale).round() as usize);
    for item in &d.items {
        canvas.draw(item, scale);
    }
    canvas
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_be_bytes());
}

/// The figure as a PNG file: RGB, 8 bits, each row unfiltered; its resolution recorded as
/// 96 × `scale` dots per inch, so it prints at the size SVG shows.
pub(super) fn image(d: &Drawing, scale: f64) -> std::io::Result<Vec<u8>> {
    let c = raster(d, scale);
    let mut raw = Vec::with_capacity(c.h * (1 + 3 * c.w));
    for row in c.px.chunks(c.w.max(1)) {
        raw.push(0);
        raw.extend(row.iter().flat_map(|p| p.map(|v| v.round().clamp(0.0, 255.0) as u8)));
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw)?;
    let idat = z.finish()?;
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(c.w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(c.h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    let per_metre = ((96.0 * scale / 0.0254).round() as u32).to_be_bytes();
    chunk(&mut out, b"pHYs", &[&per_metre[..], &per_metre[..], &[1]].concat());
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::Meta;
    use super::*;

    fn at(c: &Canvas, x: usize, y: usize) -> [u8; 3] {
        c.px[y * c.w + x].map(|v| v.round() as u8)
    }

    /// A rectangle on whole pixels fills exactly those, in its colour; one on half pixels
    /// covers its edge pixels by half.
    #[test]
    fn a_rect_fills_exactly_its_pixels() {
        let rect = |x, y, w, h| Item::Rect { x, y, w, h, fill: Fill::Color("#0072B2"), stroke: None, meta: Meta::default() };
        let d = Drawing { name: "t".into(), caption: "t".into(), width: 20.0, height: 10.0, font_size: 12.0, items: vec![rect(2.0, 3.0, 5.0, 4.0)] };
        let c = raster(&d, 2.0);
        assert_eq!((c.w, c.h), (40, 20));
        for y in 0..c.h {
            for x in 0..c.w {
                let inside = (4..14).contains(&x) && (6..14).contains(&y);
                assert_eq!(at(&c, x, y), if inside { [0, 0x72, 0xB2] } else { [255; 3] }, "({x}, {y})");
            }
        }
        let half = raster(&Drawing { items: vec![rect(2.5, 3.0, 5.0, 4.0)], ..d }, 1.0);
        assert_eq!(at(&half, 2, 4), [128, 185, 217]);
        assert_eq!(at(&half, 3, 4), [0, 0x72, 0xB2]);
        assert_eq!(at(&half, 7, 4), [128, 185, 217]);
    }

    /// Text leaves ink where it is written and only there; anchored at its end, it ends at x.
    #[test]
    fn text_is_drawn_where_it_is_anchored() {
        let text = |anchor| Item::Text {
            x: 50.0,
            y: 20.0,
            text: "Wilson".into(),
            size: 12.0,
            bold: false,
            anchor,
            color: None,
            vertical: false,
            meta: Meta::default(),
        };
        let d = Drawing { name: "t".into(), caption: "t".into(), width: 100.0, height: 30.0, font_size: 12.0, items: vec![text(Anchor::End)] };
        let c = raster(&d, 1.0);
        let dark: Vec<(usize, usize)> = (0..c.h).flat_map(|y| (0..c.w).map(move |x| (x, y))).filter(|(x, y)| at(&c, *x, *y)[0] < 128).collect();
        assert!(dark.len() > 30, "{} dark pixels", dark.len());
        assert!(dark.iter().all(|(x, y)| *x < 51 && *x > 5 && *y <= 20 && *y > 8), "{dark:?}");
        assert!(dark.iter().any(|(x, _)| *x >= 47), "the text does not reach its end");
    }

    /// A polyline inks the pixels along its segments, its joint once (no darker seam), and
    /// nothing away from it; a band blends its colour at its opacity; a hollow marker is
    /// white inside its outline.
    #[test]
    fn line_chart_primitives_fill_their_pixels() {
        let blue = [0, 0x72, 0xB2];
        let items = vec![Item::Polyline { points: vec![[2.0, 10.0], [20.0, 10.0], [20.0, 2.0]], color: "#0072B2", width: 2.0, meta: Meta::default() }];
        let d = Drawing { name: "t".into(), caption: "t".into(), width: 30.0, height: 20.0, font_size: 12.0, items };
        let c = raster(&d, 1.0);
        for x in 3..19 {
            assert_eq!(at(&c, x, 9), blue, "({x}, 9)");
            assert_eq!(at(&c, x, 10), blue, "({x}, 10)");
            assert_eq!(at(&c, x, 5), [255; 3], "({x}, 5)");
        }
        for y in 3..9 {
            assert_eq!(at(&c, 19, y), blue, "(19, {y})");
        }
        assert_eq!(at(&c, 19, 10), blue, "the joint");
        assert_eq!(at(&c, 25, 15), [255; 3]);
        let band = Item::Polygon { points: vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]], fill: "#000", opacity: 0.5, meta: Meta::default() };
        let c = raster(&Drawing { items: vec![band], ..d.clone() }, 1.0);
        assert_eq!((at(&c, 5, 5), at(&c, 15, 5)), ([128; 3], [255; 3]));
        let hollow = Item::Circle { cx: 15.0, cy: 10.0, r: 5.0, fill: "#fff", stroke: Some(("#0072B2", 2.0)), meta: Meta::default() };
        let c = raster(&Drawing { items: vec![hollow], ..d }, 1.0);
        assert_eq!((at(&c, 15, 10), at(&c, 19, 9), at(&c, 10, 9)), ([255; 3], blue, blue));
        assert_eq!(at(&c, 15, 17), [255; 3]);
    }

    #[test]
    fn png_bytes_are_a_png_and_the_same_each_time() {
        let d = Drawing { name: "t".into(), caption: "t".into(), width: 3.0, height: 2.0, font_size: 12.0, items: vec![] };
        let png = image(&d, 1.0).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x03\0\0\0\x02"));
        // IHDR's CRC, as zlib's crc32 computes it over the type and data.
        assert_eq!(png[29..33], [0x12, 0x16, 0xf1, 0x4d]);
        assert_eq!(png, image(&d, 1.0).unwrap());
    }
}
