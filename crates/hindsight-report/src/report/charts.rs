//! The dashboard's charts as figures fit for a paper: axis titles with units, legends in
//! the researcher's words, a colour-blind-safe palette (Okabe & Ito), each rate's 95% Wilson
//! interval as an error bar, each group's n (the n its rate or median is computed over),
//! ticks at round values. Each chart is laid out once as a display list
//! ([`super::figure::Drawing`]): the HTML report draws it inline as SVG, and `report
//! --figures DIR` or `--figure FILE` write it alone as SVG, PNG or PDF.

use serde_json::{Map, Value};

use super::figure::{Anchor, Drawing, Fill, Item, Meta};
pub use super::figure::{Encoding, FigureFormat};
use super::section::{cell, Section};

mod lines;
mod survival;

pub(crate) use survival::{CURVES, CURVES_SUMMARY};

type Row = Map<String, Value>;

/// Samples below this are marked on the charts (hatched bars, "small n" beside the n): a
/// rate over fewer outputs moves a lot with one more.
pub(crate) const SMALL_N: f64 = 10.0;

/// Okabe & Ito's colour-blind-safe palette.
pub(crate) mod palette {
    pub(crate) const BLUE: &str = "#0072B2";
    pub(crate) const ORANGE: &str = "#E69F00";
    pub(crate) const BLUISH_GREEN: &str = "#009E73";
    pub(crate) const VERMILLION: &str = "#D55E00";
    pub(crate) const SKY_BLUE: &str = "#56B4E9";
    pub(crate) const REDDISH_PURPLE: &str = "#CC79A7";
    pub(crate) const YELLOW: &str = "#F0E442";
    pub(crate) const GREY: &str = "#999999";
    pub(crate) const LIGHT_GREY: &str = "#DDDDDD";
}

/// The three acceptance rates: column, legend label, colour.
pub const RATES: &[(&str, &str, &str)] = &[
    ("strict_acceptance_rate", "strict (strong evidence)", palette::BLUE),
    ("human_check_acceptance_rate", "human-check (strong or medium evidence)", palette::ORANGE),
    ("sticky_artifact_rate", "sticky (weak evidence or existence only)", palette::BLUISH_GREEN),
];

const SMALL_COLOR: &str = "#B00020";

/// How figures look, the same for the dashboard's and a query's: the width (SVG units, px
/// at 100%; PDF points), the font size of labels (other text in proportion), and whether
/// shares are drawn as 0-1 (the default) or as percent.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub width: f64,
    pub font_size: f64,
    pub percent: bool,
}

impl Default for Style {
    /// 860 wide, 12 px labels, shares 0-1: one text size across a paper's figures.
    fn default() -> Self {
        Style { width: 860.0, font_size: 12.0, percent: false }
    }
}

impl Style {
    /// Text and spacing in proportion to the font size (1 at 12).
    fn k(&self) -> f64 {
        self.font_size / 12.0
    }

    /// What a share is multiplied by to be drawn: 1, or 100 for percent.
    fn share_scale(&self) -> f64 {
        if self.percent {
            100.0
        } else {
            1.0
        }
    }

    /// A share axis's title with its unit: "... (0–1)" or "... (%)".
    fn share_axis(&self, title: &str) -> String {
        format!("{title} ({})", if self.percent { "%" } else { "0–1" })
    }
}

/// One chart: `name` (its query, and what it shows of it) names its file; `caption` says
/// what it shows and what its n is; `drawing` is the figure, for any format.
pub struct Figure {
    pub(crate) name: String,
    pub(crate) caption: String,
    pub(crate) drawing: Drawing,
}

impl Figure {
    /// A chart `height` tall (to the next whole unit, so each format has the same size) of
    /// the style's width.
    fn new(name: &str, caption: &str, style: &Style, height: f64, items: Vec<Item>) -> Figure {
        let drawing = Drawing { name: name.into(), caption: caption.into(), width: style.width, height: height.ceil(), font_size: style.font_size, items };
        Figure { name: name.into(), caption: caption.into(), drawing }
    }

    /// The `<svg>` element alone, as the HTML report draws it inline.
    pub(crate) fn svg(&self) -> String {
        self.drawing.svg()
    }

    /// The file name: the name with `/` as `-`, and the format's extension.
    pub(crate) fn file_name(&self, format: FigureFormat) -> String {
        format!("{}.{}", self.name.replace('/', "-"), format.extension())
    }

    /// The figure written to `path` in `encoding`'s format.
    pub fn write_to(&self, path: &std::path::Path, encoding: Encoding) -> crate::error::Result<()> {
        let bytes = self.drawing.encode(encoding).map_err(|e| crate::error::Error::io(path, e))?;
        std::fs::write(path, bytes).map_err(|e| crate::error::Error::io(path, e))
    }
}

fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

/// A number as a label: no trailing `.0`, no float noise (at most 6 decimals).
pub fn fmt_num(v: f64) -> String {
    let r = (v * 1e6).round() / 1e6 + 0.0;
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r}")
    }
}

/// Round axis ticks from 0 to at least `max`: a step of 1, 2, 2.5 or 5 × 10^k giving about
/// `target` intervals ("nice numbers"), and the axis end, a whole number of steps.
pub(crate) fn nice_ticks(max: f64, target: usize) -> Vec<f64> {
    if !(max > 0.0 && max.is_finite()) {
        return vec![0.0, 1.0];
    }
    let raw = max / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw * (1.0 - 1e-9)).unwrap_or(10.0 * mag);
    let steps = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=steps).map(|i| (i as f64 * step * 1e9).round() / 1e9).collect()
}

/// A bar series: its legend label, colour, and per group its value, 95% interval and n.
struct Series {
    label: String,
    color: &'static str,
    values: Vec<Option<f64>>,
    intervals: Vec<Option<(f64, f64)>>,
    ns: Vec<f64>,
}

/// Grouped horizontal bars.
struct Bars<'a> {
    name: String,
    caption: String,
    /// The category axis's title (what a group is): "Window", "Agent"...
    category: &'a str,
    /// The value axis's title, with its unit.
    value_axis: &'a str,
    labels: Vec<String>,
    /// The n line under each group's label.
    n_text: Vec<String>,
    series: Vec<Series>,
    /// The value axis's end when fixed (rates: 1, or 100 in percent); else from the data.
    max: Option<f64>,
    style: Style,
}

/// A text's width for the layout (about Helvetica's average letter), whatever the format.
fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.58
}

fn text(x: f64, y: f64, text: impl Into<String>, size: f64, anchor: Anchor) -> Item {
    Item::Text { x, y, text: text.into(), size, bold: false, anchor, color: None, vertical: false, meta: Meta::default() }
}

/// An axis title: bold, its class naming it one.
fn axis_title(x: f64, y: f64, title: &str, size: f64, vertical: bool) -> Item {
    let meta = Meta::class("axis-title");
    Item::Text { x, y, text: title.into(), size, bold: true, anchor: Anchor::Middle, color: None, vertical, meta }
}

/// An item with SVG's class, data and tooltip set.
fn with_meta(mut item: Item, m: Meta) -> Item {
    if let Item::Text { meta, .. }
    | Item::Rect { meta, .. }
    | Item::Lines { meta, .. }
    | Item::Polyline { meta, .. }
    | Item::Polygon { meta, .. }
    | Item::Circle { meta, .. } = &mut item
    {
        *meta = m;
    }
    item
}

/// Text in a colour.
fn colored(mut item: Item, c: &'static str) -> Item {
    if let Item::Text { color, .. } = &mut item {
        *color = Some(c);
    }
    item
}

fn line(x1: f64, y1: f64, x2: f64, y2: f64, color: &'static str) -> Item {
    Item::Lines { segments: vec![[x1, y1, x2, y2]], color, width: 1.0, meta: Meta::default() }
}

/// An interval's whisker: its two ends and the line between, at height `y`.
fn whisker(x0: f64, x1: f64, y: f64, half: f64, meta: Meta) -> Item {
    let segments = vec![[x0, y - half, x0, y + half], [x0, y, x1, y], [x1, y - half, x1, y + half]];
    Item::Lines { segments, color: "#222", width: 1.2, meta }
}

/// Where a chart's plot is: its left edge and width, its top, and the value axis's line.
#[derive(Clone, Copy)]
struct Plot {
    left: f64,
    width: f64,
    top: f64,
    axis_y: f64,
}

/// The value axis under the plot: gridlines, ticks at round values, and its title.
fn value_axis(out: &mut Vec<Item>, plot: &Plot, ticks: &[f64], end: f64, title: &str, k: f64) {
    let Plot { left, width, top, axis_y: y } = *plot;
    for t in ticks {
        let x = left + width * t / end;
        out.push(line(x, top, x, y, "#e6e6e6"));
        out.push(line(x, y, x, y + 5.0, "#444"));
        out.push(with_meta(text(x, y + 5.0 + 13.0 * k, fmt_num(*t), 11.0 * k, Anchor::Middle), Meta::class("tick")));
    }
    out.push(line(left, y, left + width, y, "#444"));
    out.push(axis_title(left + width / 2.0, y + 5.0 + 31.0 * k, title, 12.0 * k, false));
}

/// The category axis's title, turned along the left edge.
fn category_axis(out: &mut Vec<Item>, top: f64, bottom: f64, title: &str, k: f64) {
    out.push(axis_title(14.0 * k, (top + bottom) / 2.0, title, 12.0 * k, true));
}

/// Legend entries, flowing left to right and wrapping at `right`; returns the height used.
fn legend(out: &mut Vec<Item>, left: f64, right: f64, top: f64, items: &[LegendItem], k: f64) -> f64 {
    let (mut x, mut y) = (left, top);
    let (sw, sh) = (14.0 * k, 10.0 * k);
    for item in items {
        let w = 22.0 * k + text_width(&item.label, 11.0 * k) + 18.0 * k;
        if x > left && x + w > right {
            x = left;
            y += 18.0 * k;
        }
        let swatch = |fill| Item::Rect { x, y: y - 9.0 * k, w: sw, h: sh, fill, stroke: None, meta: Meta::default() };
        let mut entry = match &item.mark {
            Mark::Swatch(color) => vec![swatch(Fill::Color(color))],
            Mark::Hatch => vec![swatch(Fill::Color("#888")), swatch(Fill::Hatch)],
            Mark::Whisker => vec![whisker(x, x + sw, y - 4.0 * k, 4.0 * k, Meta::default())],
            Mark::Line(color) => vec![
                Item::Polyline { points: vec![[x, y - 4.0 * k], [x + sw, y - 4.0 * k]], color, width: 2.0 * k, meta: Meta::default() },
                Item::Circle { cx: x + sw / 2.0, cy: y - 4.0 * k, r: 3.5 * k, fill: color, stroke: Some(("#fff", k)), meta: Meta::default() },
            ],
            Mark::Band(fill) => {
                let points = vec![[x, y - 9.0 * k], [x + sw, y - 9.0 * k], [x + sw, y + k], [x, y + k]];
                vec![Item::Polygon { points, fill, opacity: lines::BAND_OPACITY, meta: Meta::default() }]
            }
            Mark::Stroke(color) => vec![Item::Polyline { points: vec![[x, y - 4.0 * k], [x + sw, y - 4.0 * k]], color, width: 2.0 * k, meta: Meta::default() }],
            Mark::Tick(color) => {
                vec![Item::Lines { segments: vec![[x + sw / 2.0, y - 9.0 * k, x + sw / 2.0, y + k]], color, width: 1.5 * k, meta: Meta::default() }]
            }
            Mark::Hollow => {
                vec![Item::Circle { cx: x + sw / 2.0, cy: y - 4.0 * k, r: 3.5 * k, fill: "#fff", stroke: Some(("#555", 1.5 * k)), meta: Meta::default() }]
            }
        };
        entry.push(text(x + 20.0 * k, y, item.label.clone(), 11.0 * k, Anchor::Start));
        out.push(Item::Group { class: "legend", items: entry });
        x += w;
    }
    y - top + 18.0 * k
}

enum Mark {
    Swatch(&'static str),
    Hatch,
    Whisker,
    /// A line chart's series: a stroke with its marker.
    Line(&'static str),
    /// An interval's band, in its colour.
    Band(&'static str),
    /// A line without markers (a step curve).
    Stroke(&'static str),
    /// A small sample's hollow marker.
    Hollow,
    /// A short upright stroke on a curve (a censoring time).
    Tick(&'static str),
}

struct LegendItem {
    mark: Mark,
    label: String,
}

/// A bar's thickness, and the gap between the bars of one group (at 12 px text).
const BAR_H: f64 = 12.0;
const BAR_GAP: f64 = 3.0;

impl Bars<'_> {
    /// The figure: value and category axes, each group's label and n, its bars, the legend.
    fn draw(&self) -> Figure {
        let k = self.style.k();
        let n_series = self.series.len().max(1) as f64;
        let bars_h = (BAR_H * n_series + BAR_GAP * (n_series - 1.0)) * k;
        let group_h = (bars_h + 14.0 * k).max(36.0 * k);
        let longest = self
            .labels
            .iter()
            .map(|l| text_width(l, 12.0 * k))
            .chain(self.n_text.iter().map(|l| text_width(&format!("{l} (small n)"), 11.0 * k)))
            .fold(0.0, f64::max);
        let total_w = self.style.width;
        let left = (longest + 40.0).max(110.0 * k).min(330.0 * k).min(total_w / 2.0);
        let width = (total_w - left - 60.0 * k).max(10.0);
        let top = 10.0;
        let axis_y = top + group_h * self.labels.len() as f64;
        let data_max = self.series.iter().flat_map(|s| s.values.iter().flatten().copied().chain(s.intervals.iter().flatten().map(|i| i.1))).fold(0.0, f64::max);
        let ticks = nice_ticks(self.max.unwrap_or(data_max), 5);
        let end = *ticks.last().unwrap_or(&1.0);
        let mut items = Vec::new();
        let plot = Plot { left, width, top, axis_y };
        value_axis(&mut items, &plot, &ticks, end, self.value_axis, k);
        category_axis(&mut items, top, axis_y, self.category, k);
        for (gi, label) in self.labels.iter().enumerate() {
            let y0 = top + gi as f64 * group_h;
            let by = y0 + (group_h - bars_h) / 2.0;
            self.group_label(&mut items, gi, label, left, y0 + group_h / 2.0);
            for (si, series) in self.series.iter().enumerate() {
                bar(&mut items, &plot, end, by + si as f64 * (BAR_H + BAR_GAP) * k, series, gi, k);
            }
        }
        let legend_top = axis_y + 5.0 + 57.0 * k;
        let legend_h = legend(&mut items, left, total_w - 10.0, legend_top, &self.legend_items(), k);
        Figure::new(&self.name, &self.caption, &self.style, legend_top + legend_h, items)
    }

    /// The legend's entries: a swatch per series, then the interval's whisker and the small
    /// sample's hatching when a bar has them.
    fn legend_items(&self) -> Vec<LegendItem> {
        let has_ci = self.series.iter().any(|s| s.intervals.iter().any(Option::is_some));
        let has_small = self.series.iter().any(|s| s.ns.iter().any(|n| *n < SMALL_N));
        let mut items: Vec<LegendItem> = self.series.iter().map(|s| LegendItem { mark: Mark::Swatch(s.color), label: s.label.clone() }).collect();
        if has_ci {
            items.push(LegendItem { mark: Mark::Whisker, label: "95% interval (Wilson)".into() });
        }
        if has_small {
            items.push(LegendItem { mark: Mark::Hatch, label: format!("n < {}: small sample", fmt_num(SMALL_N)) });
        }
        items
    }

    /// Group `gi`'s label, and under it its n (marked when the sample is small), left of
    /// the axis at height `cy`.
    fn group_label(&self, out: &mut Vec<Item>, gi: usize, label: &str, left: f64, cy: f64) {
        let k = self.style.k();
        let small = self.series.iter().any(|s| s.ns.get(gi).is_some_and(|n| *n < SMALL_N));
        out.push(text(left - 8.0, cy - 2.0 * k, label, 12.0 * k, Anchor::End));
        let n_first = self.series.first().and_then(|s| s.ns.get(gi)).copied().unwrap_or(0.0);
        let said = format!("{}{}", self.n_text.get(gi).map(String::as_str).unwrap_or_default(), if small { " (small n)" } else { "" });
        let meta = Meta { class: Some("n"), data: vec![("n", fmt_num(n_first))], title: None };
        let n = colored(text(left - 8.0, cy + 11.0 * k, said, 11.0 * k, Anchor::End), if small { SMALL_COLOR } else { "#555" });
        out.push(with_meta(n, meta));
    }
}

/// One series' bar in group `gi` at height `y`: the bar with its value and n, hatched when
/// the sample is small, its 95% interval, and the value written after it.
fn bar(out: &mut Vec<Item>, plot: &Plot, end: f64, y: f64, series: &Series, gi: usize, k: f64) {
    let (left, width, bar_h) = (plot.left, plot.width, BAR_H * k);
    let n = series.ns.get(gi).copied().unwrap_or(0.0);
    let Some(v) = series.values.get(gi).copied().flatten() else { return };
    let x_of = |v: f64| left + (v / end).clamp(0.0, 1.0) * width;
    // A zero is a sliver in the series' colour, so its hue still says which rate it is.
    let w = (x_of(v) - left).max(2.0);
    let interval = series.intervals.get(gi).copied().flatten();
    // A figure of a result with no count has no n to say.
    let n_said = if n.is_finite() { format!(", n = {}", fmt_num(n)) } else { String::new() };
    let what = match interval {
        Some((lo, hi)) => format!("{}: {} (95% interval {} to {}){n_said}", series.label, fmt_num(v), fmt_num(lo), fmt_num(hi)),
        None => format!("{}: {}{n_said}", series.label, fmt_num(v)),
    };
    let meta = Meta { class: Some("bar"), data: vec![("n", fmt_num(n)), ("value", fmt_num(v))], title: Some(what) };
    out.push(Item::Rect { x: left, y, w, h: bar_h, fill: Fill::Color(series.color), stroke: None, meta });
    if n < SMALL_N {
        out.push(Item::Rect { x: left, y, w, h: bar_h, fill: Fill::Hatch, stroke: None, meta: Meta::class("small-n") });
    }
    let mut label_x = x_of(v);
    if let Some((lo, hi)) = interval {
        let (x0, x1) = (x_of(lo), x_of(hi));
        let meta = Meta { class: Some("ci"), data: vec![("ci-low", fmt_num(lo)), ("ci-high", fmt_num(hi))], title: None };
        out.push(whisker(x0, x1, y + bar_h / 2.0, 4.0 * k, meta));
        label_x = label_x.max(x1);
    }
    out.push(with_meta(text(label_x + 4.0, y + bar_h - 2.0 * k, fmt_num(v), 10.0 * k, Anchor::Start), Meta::class("value")));
}

/// Stacked horizontal bars: one bar per group, its parts as shares of its total, the n.
struct Stacked<'a> {
    name: String,
    caption: String,
    category: &'a str,
    value_axis: &'a str,
    labels: Vec<String>,
    parts: Vec<(&'a str, &'static str, Vec<f64>)>,
    style: Style,
}

impl Stacked<'_> {
    fn draw(&self) -> Figure {
        let k = self.style.k();
        let left = (self.labels.iter().map(|l| text_width(l, 12.0 * k)).fold(0.0, f64::max) + 40.0).max(90.0 * k).min(self.style.width / 2.0);
        let total_w = self.style.width;
        let width = (total_w - left - 70.0 * k).max(10.0);
        let (top, row) = (10.0, 26.0 * k);
        let axis_y = top + row * self.labels.len() as f64;
        let end = self.style.share_scale();
        let mut items = Vec::new();
        value_axis(&mut items, &Plot { left, width, top, axis_y }, &nice_ticks(end, 5), end, self.value_axis, k);
        category_axis(&mut items, top, axis_y, self.category, k);
        for (i, label) in self.labels.iter().enumerate() {
            self.row(&mut items, i, label, [left, width, top + i as f64 * row + 4.0 * k]);
        }
        let legend_items: Vec<LegendItem> = self.parts.iter().map(|(label, color, _)| LegendItem { mark: Mark::Swatch(color), label: label.to_string() }).collect();
        let legend_top = axis_y + 5.0 + 57.0 * k;
        let legend_h = legend(&mut items, left, total_w - 10.0, legend_top, &legend_items, k);
        Figure::new(&self.name, &self.caption, &self.style, legend_top + legend_h, items)
    }

    /// Group `i`'s row at height `y`: its label, its n after the plot, its parts.
    fn row(&self, out: &mut Vec<Item>, i: usize, label: &str, [left, width, y]: [f64; 3]) {
        let k = self.style.k();
        let total: f64 = self.parts.iter().map(|(_, _, v)| v.get(i).copied().unwrap_or(0.0)).sum();
        out.push(text(left - 8.0, y + 13.0 * k, label, 12.0 * k, Anchor::End));
        let meta = Meta { class: Some("n"), data: vec![("n", fmt_num(total))], title: None };
        let n = colored(text(left + width + 6.0, y + 13.0 * k, format!("n = {}", fmt_num(total)), 11.0 * k, Anchor::Start), "#555");
        out.push(with_meta(n, meta));
        let mut x = left;
        for (name, color, vals) in &self.parts {
            let v = vals.get(i).copied().unwrap_or(0.0);
            if v <= 0.0 || total <= 0.0 {
                continue;
            }
            let w = v / total * width;
            let title = format!("{name}: {} of {} ({}%)", fmt_num(v), fmt_num(total), fmt_num((v / total * 1000.0).round() / 10.0));
            let meta = Meta { title: Some(title), ..Meta::default() };
            out.push(Item::Rect { x, y, w, h: 18.0 * k, fill: Fill::Color(color), stroke: Some(("#fff", 0.5)), meta });
            x += w;
        }
    }
}

/// A rate's value and its interval (`RATE_ci_low`, `RATE_ci_high`) in a row.
fn rate_of(r: &Row, rate: &str) -> (Option<f64>, Option<(f64, f64)>) {
    let ci = num(r.get(&format!("{rate}_ci_low"))).zip(num(r.get(&format!("{rate}_ci_high"))));
    (num(r.get(rate)), ci)
}

/// What a chart is: its file name, caption, and its axes' titles.
struct Frame {
    name: &'static str,
    caption: &'static str,
    /// What a group is ("Window", "Agent"...).
    category: &'static str,
    /// The values' axis: with its unit, or for shares without (the style adds it).
    value_axis: &'static str,
    /// Shares: 0-1, or percent.
    share: bool,
}

/// A chart's groups: rows, the column labelling each, the column of its n, and what the n
/// counts (said beside it).
struct Groups<'a> {
    rows: &'a [Row],
    label: &'static str,
    n: &'static str,
    n_what: &'static str,
}

impl Groups<'_> {
    fn ns(&self) -> Vec<f64> {
        self.rows.iter().map(|r| num(r.get(self.n)).unwrap_or(0.0)).collect()
    }

    fn bars(&self, frame: &Frame, series: Vec<Series>, style: &Style) -> Figure {
        let (value_axis, max) = if frame.share { (style.share_axis(frame.value_axis), Some(style.share_scale())) } else { (frame.value_axis.into(), None) };
        Bars {
            name: frame.name.into(),
            caption: frame.caption.into(),
            category: frame.category,
            value_axis: &value_axis,
            labels: self.rows.iter().map(|r| cell(r.get(self.label).unwrap_or(&Value::Null))).collect(),
            n_text: self.ns().iter().map(|n| format!("n = {} {}", fmt_num(*n), self.n_what)).collect(),
            series,
            max,
            style: *style,
        }
        .draw()
    }
}

/// A share and its interval as drawn: times 100 in percent.
fn scaled((v, ci): (Option<f64>, Option<(f64, f64)>), by: f64) -> (Option<f64>, Option<(f64, f64)>) {
    (v.map(|v| v * by), ci.map(|(l, h)| (l * by, h * by)))
}

/// The three rates of each group, with their intervals, over the group's n.
fn three_rates(frame: &Frame, groups: &Groups, style: &Style) -> Figure {
    let ns = groups.ns();
    let series = RATES
        .iter()
        .map(|(col, legend, color)| {
            let (values, intervals) = groups.rows.iter().map(|r| scaled(rate_of(r, col), style.share_scale())).unzip();
            Series { label: legend.to_string(), color, values, intervals, ns: ns.clone() }
        })
        .collect();
    groups.bars(frame, series, style)
}

/// Rows of the snapshot window with something in `n`.
fn snapshot_rows(rows: &[Row], n: &str) -> Vec<Row> {
    rows.iter().filter(|r| r.get("eval_window").and_then(Value::as_str) == Some("snapshot") && num(r.get(n)).unwrap_or(0.0) > 0.0).cloned().collect()
}

/// The median `value` of each group (its rows without one left out), over the group's n.
fn medians(frame: &Frame, groups: &Groups, (value, legend): (&str, &str), style: &Style) -> Figure {
    let rows: Vec<Row> = groups.rows.iter().filter(|r| num(r.get(value)).is_some() && num(r.get(groups.n)).unwrap_or(0.0) > 0.0).cloned().collect();
    let groups = Groups { rows: &rows, ..*groups };
    let series = vec![Series {
        label: legend.into(),
        color: palette::BLUE,
        values: rows.iter().map(|r| num(r.get(value))).collect(),
        intervals: vec![None; rows.len()],
        ns: groups.ns(),
    }];
    groups.bars(frame, series, style)
}

/// The charts, in the page's order: the dashboard section each draws (a bundled query's
/// name, [`super::CATALOGUE`]), and how.
type Chart = fn(&[Row], &Style) -> Vec<Figure>;
const CHARTS: &[(&str, Chart)] = &[
    ("acceptance_by_window", |rows, style| vec![rates_by_window(rows, style)]),
    ("acceptance_by_type", by_type),
    ("by_workflow", |rows, style| vec![by_workflow(rows, style)]),
    ("aidev/by_agent", by_agent),
    ("aidev/rates_by_window", |rows, style| vec![agent_rates(rows, style)]),
    ("summary", |rows, style| vec![outcome_mix(rows, style)]),
];

/// The dashboard's charts, from its sections (rows as the page shows them), in page order;
/// then the curves of time to outcome, where the sections have them ([`CURVES`]).
pub(crate) fn figures(sections: &[Section], style: &Style) -> Vec<Figure> {
    let charts = CHARTS.iter().filter_map(|(name, draw)| sections.iter().find(|s| s.name == *name).map(|s| draw(&s.rows, style))).flatten();
    let aidev = sections.iter().any(|s| s.name.starts_with("aidev/"));
    let curves = sections.iter().find(|s| s.name == CURVES).map(|s| survival::figures(&s.rows, style, aidev)).unwrap_or_default();
    charts.chain(curves).collect()
}

/// What the page says in place of a figure it cannot draw: the curves' when nothing is on
/// them (rather than an empty plot).
pub(crate) fn notes(sections: &[Section]) -> Vec<String> {
    let aidev = sections.iter().any(|s| s.name.starts_with("aidev/"));
    sections.iter().filter(|s| s.name == CURVES).filter_map(|s| survival::no_curve(&s.rows, aidev)).collect()
}

/// The three acceptance rates in every window that has evaluable outputs.
fn rates_by_window(rows: &[Row], style: &Style) -> Figure {
    let rows: Vec<Row> = rows.iter().filter(|r| num(r.get("evaluable_outputs")).unwrap_or(0.0) > 0.0).cloned().collect();
    three_rates(
        &Frame {
            name: "acceptance_by_window",
            caption: "The three acceptance rates by window, with 95% intervals (n: evaluable outputs)",
            category: "Window",
            value_axis: "Share of evaluable outputs",
            share: true,
        },
        &Groups { rows: &rows, label: "eval_window", n: "evaluable_outputs", n_what: "evaluable" },
        style,
    )
}

/// By safe-output type, in the snapshot window: the three acceptance rates, and the median
/// time to acceptance.
fn by_type(rows: &[Row], style: &Style) -> Vec<Figure> {
    // Types with nothing evaluable (system outputs) have no rates to draw.
    let snap = snapshot_rows(rows, "evaluable_outputs");
    let rates = three_rates(
        &Frame {
            name: "acceptance_by_type",
            caption: "The three acceptance rates by safe-output type, snapshot window, with 95% intervals (n: evaluable outputs)",
            category: "Safe-output type",
            value_axis: "Share of evaluable outputs",
            share: true,
        },
        &Groups { rows: &snap, label: "safe_output_type", n: "evaluable_outputs", n_what: "evaluable" },
        style,
    );
    let median_time = medians(
        &Frame {
            name: "acceptance_by_type-median_time",
            caption: "Median time to acceptance by safe-output type, snapshot window (n: accepted outputs with a time, the outputs the median is over)",
            category: "Safe-output type",
            value_axis: "Median time to acceptance (hours)",
            share: false,
        },
        &Groups { rows: &snap, label: "safe_output_type", n: "accepted_with_time", n_what: "accepted" },
        ("median_time_to_acceptance", "median time to acceptance"),
        style,
    );
    vec![rates, median_time]
}

/// The three acceptance rates by workflow, in the snapshot window.
fn by_workflow(rows: &[Row], style: &Style) -> Figure {
    let snap = snapshot_rows(rows, "evaluable_outputs");
    three_rates(
        &Frame {
            name: "by_workflow",
            caption: "The three acceptance rates by workflow, snapshot window, with 95% intervals (n: evaluable outputs)",
            category: "Workflow",
            value_axis: "Share of evaluable outputs",
            share: true,
        },
        &Groups { rows: &snap, label: "workflow_name", n: "evaluable_outputs", n_what: "evaluable" },
        style,
    )
}

/// An AIDev import's agents: merged and rejected PRs, and the median time to merge.
fn by_agent(rows: &[Row], style: &Style) -> Vec<Figure> {
    // Two rates over two denominators: merged of all PRs, rejected of the evaluable ones.
    let prs: Vec<f64> = rows.iter().map(|r| num(r.get("prs")).unwrap_or(0.0)).collect();
    let evaluable: Vec<f64> = rows.iter().map(|r| num(r.get("evaluable_prs")).unwrap_or(0.0)).collect();
    let series =
        [("merge_rate", "merged (of all PRs)", palette::BLUE, &prs), ("rejection_rate", "rejected (of evaluable PRs)", palette::VERMILLION, &evaluable)]
            .into_iter()
            .map(|(col, legend, color, ns)| {
                let (values, intervals) = rows.iter().map(|r| scaled(rate_of(r, col), style.share_scale())).unzip();
                Series { label: legend.into(), color, values, intervals, ns: ns.clone() }
            })
            .collect();
    let merged_rejected = Bars {
        name: "aidev/by_agent".into(),
        caption: "Pull requests merged and rejected by agent, snapshot window, with 95% intervals (n: PRs for merged, evaluable PRs for rejected)".into(),
        category: "Agent",
        value_axis: &style.share_axis("Share of the agent's PRs"),
        labels: rows.iter().map(|r| cell(r.get("agent").unwrap_or(&Value::Null))).collect(),
        n_text: prs.iter().zip(&evaluable).map(|(p, e)| format!("n = {} PRs, {} evaluable", fmt_num(*p), fmt_num(*e))).collect(),
        series,
        max: Some(style.share_scale()),
        style: *style,
    }
    .draw();
    let median_time = medians(
        &Frame {
            name: "aidev/by_agent-median_hours_to_merge",
            caption: "Median hours from opening to merge by agent (n: merged PRs, the PRs the median is over)",
            category: "Agent",
            value_axis: "Median time to merge (hours)",
            share: false,
        },
        &Groups { rows, label: "agent", n: "merged", n_what: "merged" },
        ("median_hours_to_merge", "median time to merge"),
        style,
    );
    vec![merged_rejected, median_time]
}

/// The three acceptance rates by agent (an AIDev import), in the snapshot window.
fn agent_rates(rows: &[Row], style: &Style) -> Figure {
    let snap = snapshot_rows(rows, "evaluable_prs");
    three_rates(
        &Frame {
            name: "aidev/rates_by_window",
            caption: "The three acceptance rates by agent, snapshot window, with 95% intervals (n: evaluable PRs)",
            category: "Agent",
            value_axis: "Share of evaluable PRs",
            share: true,
        },
        &Groups { rows: &snap, label: "agent", n: "evaluable_prs", n_what: "evaluable" },
        style,
    )
}

/// The outcome mix by window: each outcome's share of all outputs, stacked.
fn outcome_mix(rows: &[Row], style: &Style) -> Figure {
    use palette::*;
    let keys: [(&str, &str, &'static str); 8] = [
        ("accepted_strong", "accepted, strong evidence", BLUE),
        ("accepted_medium", "accepted, medium evidence", SKY_BLUE),
        ("accepted_weak", "accepted, weak evidence", BLUISH_GREEN),
        ("rejected", "rejected", VERMILLION),
        ("pending", "pending", YELLOW),
        ("ignored", "ignored", REDDISH_PURPLE),
        ("unknown", "unknown", GREY),
        ("skipped", "skipped", LIGHT_GREY),
    ];
    Stacked {
        name: "summary".into(),
        caption: "Outcome mix by window (share of all outputs; n: outputs)".into(),
        category: "Window",
        value_axis: &style.share_axis("Share of all outputs"),
        labels: rows.iter().map(|r| cell(r.get("eval_window").unwrap_or(&Value::Null))).collect(),
        parts: keys.iter().map(|(k, label, color)| (*label, *color, rows.iter().map(|r| num(r.get(*k)).unwrap_or(0.0)).collect())).collect(),
        style: *style,
    }
    .draw()
}

/// The kind of chart `report --figure` draws of a query's result (`--chart`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ChartKind {
    /// Grouped horizontal bars: a group per row, a bar per number column, with intervals.
    #[default]
    Bar,
    /// Lines over the rows in order (weeks, windows) or a numeric first column (hours): a
    /// line per number column, with a marker per row and its interval as a band.
    Line,
}

/// How a figure of any query's result is drawn (`report --query/--sql --figure FILE`).
#[derive(Clone, Debug, Default)]
pub struct FigureSpec {
    /// Bars or lines.
    pub chart: ChartKind,
    /// The value columns drawn, in order; empty: every number column that is neither an
    /// interval's end nor the count a rate is over.
    pub series: Vec<String>,
    /// Display text for column names and category labels (`--labels FILE.json`).
    pub labels: std::collections::BTreeMap<String, String>,
    /// The figure's caption (default: what it was drawn from).
    pub title: Option<String>,
    /// Its width, font size, and shares as 0-1 or percent.
    pub style: Style,
}

/// Series colours, in order: Okabe & Ito's.
const SERIES_COLORS: &[&str] = &[
    palette::BLUE,
    palette::ORANGE,
    palette::BLUISH_GREEN,
    palette::VERMILLION,
    palette::SKY_BLUE,
    palette::REDDISH_PURPLE,
    palette::YELLOW,
    palette::GREY,
];

/// Groups a figure of a query draws at most: more bars than a page can read.
const MOST_GROUPS: usize = 60;

/// The columns of a result: (name, is a number).
fn result_columns(batches: &[arrow::record_batch::RecordBatch]) -> Vec<(String, bool)> {
    batches.first().map(|b| b.schema().fields().iter().map(|f| (f.name().clone(), f.data_type().is_numeric())).collect()).unwrap_or_default()
}

/// A query's result as one standalone figure. Bars (the default): a group of bars per row,
/// labelled by its leading text columns; a bar per value column with its 95% interval where
/// the result has `COL_ci_low`/`COL_ci_high`; the n beside each group where the result has
/// a count a rate is over (`evaluable_outputs`, `prs`...), small samples hatched. Lines: the
/// rows in order along x (or a numeric first column's values), a line per value column, its
/// interval a band, small samples' markers hollow.
pub fn query_figure(name: &str, batches: &[arrow::record_batch::RecordBatch], spec: &FigureSpec) -> crate::error::Result<Figure> {
    use crate::error::Error;
    let cols = result_columns(batches);
    let rows: Vec<Row> = super::format::rows_of(batches)?;
    if rows.is_empty() || rows.len() > MOST_GROUPS {
        return Err(Error::usage(format!("--figure: the result has {} rows; a figure draws 1 to {MOST_GROUPS} (narrow the query)", rows.len())));
    }
    let n_col = super::terminal::DENOMINATORS.iter().find(|d| cols.iter().any(|(c, _)| c == *d)).copied();
    let x_col = if spec.chart == ChartKind::Line { numeric_x(&cols, spec, n_col) } else { None };
    let series_cols = series_columns(&cols, spec, n_col, x_col)?;
    let shown = |s: &str| spec.labels.get(s).cloned().unwrap_or_else(|| s.to_string());
    let label_cols: Vec<&str> = cols.iter().take_while(|(_, n)| !n).map(|(c, _)| c.as_str()).collect();
    let scale = spec.style.share_scale();
    let ns: Vec<f64> = rows.iter().map(|r| n_col.and_then(|c| num(r.get(c))).unwrap_or(f64::INFINITY)).collect();
    let series: Vec<Series> = series_cols
        .iter()
        .enumerate()
        .map(|(i, col)| {
            let (values, intervals): (Vec<_>, Vec<_>) = rows.iter().map(|r| scaled(rate_of(r, col), scale)).unzip();
            Series { label: shown(col), color: SERIES_COLORS[i % SERIES_COLORS.len()], values, intervals, ns: ns.clone() }
        })
        .collect();
    // Shares (every value and interval within 0-1) get a fixed axis, 0 to 1 or to 100%.
    let share = series.iter().all(|s| s.values.iter().flatten().chain(s.intervals.iter().flatten().map(|i| &i.1)).all(|v| (0.0..=scale).contains(v)));
    let value_axis = match (share, spec.style.percent) {
        (true, true) => "Percent (%)",
        (true, false) => "Share (0–1)",
        (false, true) => "Value × 100",
        (false, false) => "Value",
    };
    let category = x_col.map(shown).unwrap_or_else(|| label_cols.iter().map(|c| shown(c)).collect::<Vec<_>>().join(" · "));
    let labels: Vec<String> = rows.iter().map(|r| label_cols.iter().map(|c| shown(&cell(r.get(*c).unwrap_or(&Value::Null)))).collect::<Vec<_>>().join(" · ")).collect();
    let n_text = ns.iter().map(|n| if n.is_finite() { format!("n = {} ({})", fmt_num(*n), shown(n_col.unwrap_or_default())) } else { String::new() }).collect();
    let caption = spec.title.clone().unwrap_or_else(|| format!("{name}: {}", series_cols.iter().map(|c| shown(c)).collect::<Vec<_>>().join(", ")));
    let bars =
        Bars { name: name.to_string(), caption, category: &category, value_axis, labels, n_text, series, max: share.then_some(scale), style: spec.style };
    Ok(match spec.chart {
        ChartKind::Bar => bars.draw(),
        ChartKind::Line => lines::Lines { xs: x_col.map(|c| rows.iter().map(|r| num(r.get(c))).collect()), bars }.draw(),
    })
}

/// A line chart's numeric x: the result's first column when it is a number that is not
/// drawn as a series (nor an interval's end or a count), and other number columns are.
fn numeric_x<'a>(cols: &'a [(String, bool)], spec: &FigureSpec, n_col: Option<&str>) -> Option<&'a str> {
    let (first, numeric) = cols.first()?;
    let is_end = first.ends_with("_ci_low") || first.ends_with("_ci_high");
    let usable = *numeric && !is_end && Some(first.as_str()) != n_col && !spec.series.contains(first);
    let others = series_columns(cols, spec, n_col, Some(first)).is_ok_and(|s| !s.is_empty());
    (usable && others).then_some(first.as_str())
}

/// The columns drawn: `--series`, or every number column that is neither x, an interval's
/// end nor the count a rate is over; a usage error when one named is not a number column
/// or there is none.
fn series_columns(cols: &[(String, bool)], spec: &FigureSpec, n_col: Option<&str>, x_col: Option<&str>) -> crate::error::Result<Vec<String>> {
    use crate::error::Error;
    let is_end = |c: &str| c.ends_with("_ci_low") || c.ends_with("_ci_high");
    let series_cols: Vec<String> = if spec.series.is_empty() {
        cols.iter().filter(|(c, n)| *n && !is_end(c) && Some(c.as_str()) != n_col && Some(c.as_str()) != x_col).map(|(c, _)| c.clone()).collect()
    } else {
        spec.series.clone()
    };
    let names = || cols.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>().join(", ");
    if let Some(bad) = series_cols.iter().find(|s| !cols.iter().any(|(c, n)| c == *s && *n)) {
        return Err(Error::usage(format!("--series {bad}: not a number column of the result (its columns: {})", names())));
    }
    if series_cols.is_empty() {
        return Err(match spec.chart {
            ChartKind::Bar => Error::usage("--figure: the result has no number column to draw"),
            ChartKind::Line => Error::usage(format!(
                "--chart line: the result has no number column to draw as a line (its columns: {}); a line chart draws number columns over the rows' order or a numeric first column",
                names()
            )),
        });
    }
    Ok(series_cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each chart draws a bundled query that is a section of a dashboard, each once.
    #[test]
    fn each_chart_draws_a_dashboard_section() {
        for (i, (name, _)) in CHARTS.iter().enumerate() {
            let q = super::super::bundled_query(name).unwrap_or_else(|| panic!("chart of `{name}`: no such bundled query"));
            assert!(q.title.is_some() || q.aidev_title.is_some(), "chart of `{name}`: on no dashboard");
            assert!(!CHARTS[..i].iter().any(|(n, _)| n == name), "`{name}` charted twice");
        }
    }

    /// Ticks are 0 and whole steps of 1, 2, 2.5 or 5 × 10^k, ending at or past the data's
    /// maximum within one step, about five of them; never 1.06, 2.11, 3.17.
    #[test]
    fn ticks_are_round_numbers() {
        for max in [0.004, 0.3, 1.0, 3.17, 4.23, 9.99, 17.0, 48.0, 100.0, 2729.0, 123456.0] {
            let t = nice_ticks(max, 5);
            let step = t[1] - t[0];
            let mag = 10f64.powf(step.log10().floor());
            let m = step / mag;
            assert!([1.0, 2.0, 2.5, 5.0].iter().any(|n| (m - n).abs() < 1e-9), "{max}: step {step}");
            assert_eq!(t[0], 0.0);
            for (i, v) in t.iter().enumerate() {
                assert!((v - i as f64 * step).abs() < 1e-9 * step.max(1.0), "{max}: {t:?}");
            }
            let end = *t.last().unwrap();
            assert!(end >= max && end - max < step, "{max}: ends at {end}");
            assert!((3..=11).contains(&(t.len() - 1)), "{max}: {} intervals", t.len() - 1);
        }
        assert_eq!(nice_ticks(1.0, 5), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(nice_ticks(3.17, 5).iter().map(|t| fmt_num(*t)).collect::<Vec<_>>(), ["0", "1", "2", "3", "4"]);
        assert_eq!(nice_ticks(48.0, 5), [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
    }
}
