//! A query's result as lines (`report --figure FILE --chart line`): the rows along x in the
//! query's order (or placed by a numeric first column), a line per series with a marker per
//! row, its 95% interval a translucent band, small samples' markers hollow. The same
//! series, colours, axis titles and legend as the bars ([`super::Bars`]) it is laid out from.

use super::{axis_title, fmt_num, legend, line, nice_ticks, text, with_meta, Anchor, Bars, Figure, Item, LegendItem, Mark, Meta, Series, SMALL_N};

/// How opaque an interval's band is: light enough that the lines and other bands show
/// through where bands overlap.
pub(super) const BAND_OPACITY: f64 = 0.18;

/// A line chart: the bars' series and labels, and where each row sits on a numeric x axis
/// (`None`: the rows evenly spaced in order, each labelled).
pub(super) struct Lines<'a> {
    pub(super) bars: Bars<'a>,
    pub(super) xs: Option<Vec<Option<f64>>>,
}

/// The x axis as laid out: each row's x (`None` when it has no x), and the height used
/// under the axis line by its tick labels.
struct XAxis {
    at: Vec<Option<f64>>,
    below: f64,
}

impl Lines<'_> {
    /// The figure: value axis up the left, x along the bottom, bands, lines, markers, legend.
    pub(super) fn draw(&self) -> Figure {
        let b = &self.bars;
        let k = b.style.k();
        let data_max = b.series.iter().flat_map(|s| s.values.iter().flatten().copied().chain(s.intervals.iter().flatten().map(|i| i.1))).fold(0.0, f64::max);
        let ticks = nice_ticks(b.max.unwrap_or(data_max), 5);
        let end = *ticks.last().unwrap_or(&1.0);
        let tick_w = ticks.iter().map(|t| super::text_width(&fmt_num(*t), 11.0 * k)).fold(0.0, f64::max);
        let left = 30.0 * k + tick_w + 10.0 * k;
        let width = (b.style.width - left - 20.0 * k).max(10.0);
        let (top, height) = (10.0 + 6.0 * k, (width * 0.45).clamp(160.0 * k, 360.0 * k));
        let axis_y = top + height;
        let y_of = |v: f64| axis_y - (v / end).clamp(0.0, 1.0) * height;
        let mut items = Vec::new();
        for t in &ticks {
            let y = y_of(*t);
            items.push(line(left, y, left + width, y, "#e6e6e6"));
            items.push(line(left - 5.0, y, left, y, "#444"));
            items.push(with_meta(text(left - 8.0, y + 4.0 * k, fmt_num(*t), 11.0 * k, Anchor::End), Meta::class("tick")));
        }
        items.push(axis_title(14.0 * k, (top + axis_y) / 2.0, b.value_axis, 12.0 * k, true));
        let x = self.x_axis(&mut items, left, width, axis_y);
        items.push(line(left, top, left, axis_y, "#444"));
        items.push(line(left, axis_y, left + width, axis_y, "#444"));
        let title_y = axis_y + x.below + 18.0 * k;
        items.push(axis_title(left + width / 2.0, title_y, b.category, 12.0 * k, false));
        for s in &b.series {
            band(&mut items, s, &x.at, y_of);
        }
        for s in &b.series {
            self.series_line(&mut items, s, &x.at, y_of);
        }
        let legend_top = title_y + 26.0 * k;
        let legend_h = legend(&mut items, left, b.style.width - 10.0, legend_top, &self.legend_items(), k);
        Figure::new(&b.name, &b.caption, &b.style, legend_top + legend_h, items)
    }

    /// The x axis under the plot: the rows' labels (or a numeric axis's round ticks), its
    /// tick marks; where each row sits.
    fn x_axis(&self, out: &mut Vec<Item>, left: f64, width: f64, axis_y: f64) -> XAxis {
        let k = self.bars.style.k();
        if let Some(xs) = &self.xs {
            let (lo, hi) = xs.iter().flatten().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
            let ticks = span_ticks(lo, hi, 6, xs.iter().flatten().all(|v| v.fract() == 0.0));
            let (t0, t1) = (ticks.first().copied().unwrap_or(0.0), ticks.last().copied().unwrap_or(1.0));
            let x_of = |v: f64| left + (v - t0) / (t1 - t0).max(f64::MIN_POSITIVE) * width;
            for t in &ticks {
                let x = x_of(*t);
                out.push(line(x, axis_y, x, axis_y + 5.0, "#444"));
                out.push(with_meta(text(x, axis_y + 5.0 + 13.0 * k, fmt_num(*t), 11.0 * k, Anchor::Middle), Meta::class("tick")));
            }
            return XAxis { at: xs.iter().map(|v| v.map(x_of)).collect(), below: 5.0 + 18.0 * k };
        }
        let labels: Vec<String> = self.bars.labels.iter().enumerate().map(|(i, l)| if l.is_empty() { (i + 1).to_string() } else { l.clone() }).collect();
        let slot = width / labels.len().max(1) as f64;
        let longest = labels.iter().map(|l| super::text_width(l, 11.0 * k)).fold(0.0, f64::max);
        // Labels wider than their slot are turned upright, so none overlaps the next.
        let upright = longest > slot - 6.0 * k;
        let at: Vec<Option<f64>> = (0..labels.len()).map(|i| Some(left + (i as f64 + 0.5) * slot)).collect();
        for (label, x) in labels.iter().zip(at.iter().flatten()) {
            out.push(line(*x, axis_y, *x, axis_y + 5.0, "#444"));
            let item = if upright {
                Item::Text {
                    x: x + 4.0 * k,
                    y: axis_y + 8.0,
                    text: label.clone(),
                    size: 11.0 * k,
                    bold: false,
                    anchor: Anchor::End,
                    color: None,
                    vertical: true,
                    meta: Meta::class("x-label"),
                }
            } else {
                with_meta(text(*x, axis_y + 5.0 + 13.0 * k, label.clone(), 11.0 * k, Anchor::Middle), Meta::class("x-label"))
            };
            out.push(item);
        }
        XAxis { at, below: if upright { 8.0 + longest } else { 5.0 + 18.0 * k } }
    }

    /// A series' line through its rows that have a value and an x, in x order, and a
    /// marker on each: filled, or hollow when the row's sample is small.
    fn series_line(&self, out: &mut Vec<Item>, s: &Series, at: &[Option<f64>], y_of: impl Fn(f64) -> f64) {
        let k = self.bars.style.k();
        let points = placed(at, &s.values);
        let meta = Meta { class: Some("series"), data: vec![("series", s.label.clone())], title: Some(s.label.clone()) };
        out.push(Item::Polyline { points: points.iter().map(|(_, x, v)| [*x, y_of(*v)]).collect(), color: s.color, width: 2.0 * k, meta });
        for (i, x, v) in points {
            let n = s.ns.get(i).copied().unwrap_or(f64::INFINITY);
            let small = n < SMALL_N;
            let label = self.bars.labels.get(i).filter(|l| !l.is_empty()).cloned().unwrap_or_else(|| (i + 1).to_string());
            let n_said = if n.is_finite() { format!(", n = {}{}", fmt_num(n), if small { " (small n)" } else { "" }) } else { String::new() };
            let what = match s.intervals.get(i).copied().flatten() {
                Some((lo, hi)) => format!("{}, {label}: {} (95% interval {} to {}){n_said}", s.label, fmt_num(v), fmt_num(lo), fmt_num(hi)),
                None => format!("{}, {label}: {}{n_said}", s.label, fmt_num(v)),
            };
            let meta =
                Meta { class: Some(if small { "point small-n" } else { "point" }), data: vec![("n", fmt_num(n)), ("value", fmt_num(v))], title: Some(what) };
            let (fill, stroke) = if small { ("#fff", (s.color, 1.5 * k)) } else { (s.color, ("#fff", 1.0 * k)) };
            out.push(Item::Circle { cx: x, cy: y_of(v), r: 3.5 * k, fill, stroke: Some(stroke), meta });
        }
    }

    /// The legend: a line and marker per series, then the band and the hollow marker when
    /// the chart has them.
    fn legend_items(&self) -> Vec<LegendItem> {
        let series = &self.bars.series;
        let has_ci = series.iter().any(|s| s.intervals.iter().any(Option::is_some));
        let has_small = series.iter().any(|s| s.ns.iter().zip(&s.values).any(|(n, v)| *n < SMALL_N && v.is_some()));
        let mut items: Vec<LegendItem> = series.iter().map(|s| LegendItem { mark: Mark::Line(s.color), label: s.label.clone() }).collect();
        if has_ci {
            items.push(LegendItem { mark: Mark::Band("#444"), label: "95% interval (Wilson)".into() });
        }
        if has_small {
            items.push(LegendItem { mark: Mark::Hollow, label: format!("n < {}: small sample", fmt_num(SMALL_N)) });
        }
        items
    }
}

/// The rows that have both an x and a value: (row, x, value), in x order (rows in the
/// query's order are already; a numeric x may not be).
fn placed(at: &[Option<f64>], values: &[Option<f64>]) -> Vec<(usize, f64, f64)> {
    let mut points: Vec<(usize, f64, f64)> = at.iter().zip(values).enumerate().filter_map(|(i, (x, v))| Some((i, (*x)?, (*v)?))).collect();
    points.sort_by(|a, b| a.1.total_cmp(&b.1));
    points
}

/// A series' interval as a band: along the upper ends in x order, back along the lower.
fn band(out: &mut Vec<Item>, s: &Series, at: &[Option<f64>], y_of: impl Fn(f64) -> f64) {
    let his: Vec<Option<f64>> = s.intervals.iter().map(|i| i.map(|i| i.1)).collect();
    let los: Vec<Option<f64>> = s.intervals.iter().map(|i| i.map(|i| i.0)).collect();
    let upper = placed(at, &his);
    if upper.is_empty() {
        return;
    }
    let mut points: Vec<[f64; 2]> = upper.iter().map(|(_, x, v)| [*x, y_of(*v)]).collect();
    points.extend(placed(at, &los).iter().rev().map(|(_, x, v)| [*x, y_of(*v)]));
    let meta = Meta { class: Some("band"), data: vec![("series", s.label.clone())], title: Some(format!("{}: 95% interval", s.label)) };
    out.push(Item::Polygon { points, fill: s.color, opacity: BAND_OPACITY, meta });
}

/// Round ticks spanning `lo` to `hi` (not from 0: years or hours of a day start where the
/// data does), a step of 1, 2, 2.5 or 5 × 10^k; `whole` (every x a whole number, as hours
/// and years are): whole steps, never 1.5 or 2.5.
fn span_ticks(lo: f64, hi: f64, target: usize, whole: bool) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) {
        return vec![0.0, 1.0];
    }
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 1.0, hi + 1.0) };
    let step = match nice_ticks(hi - lo, target)[..] {
        [a, b, ..] => b - a,
        _ => 1.0,
    };
    let step = if whole { step.max(1.0).floor() } else { step };
    let first = (lo / step + 1e-9).floor();
    let last = (hi / step - 1e-9).ceil();
    (0..=(last - first).max(1.0) as usize).map(|i| (((first + i as f64) * step) * 1e9).round() / 1e9 + 0.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_numeric_axis_spans_the_data_in_round_steps() {
        assert_eq!(span_ticks(0.0, 23.0, 6, true), [0.0, 5.0, 10.0, 15.0, 20.0, 25.0]);
        assert_eq!(span_ticks(2019.0, 2025.0, 6, true), [2019.0, 2020.0, 2021.0, 2022.0, 2023.0, 2024.0, 2025.0]);
        assert_eq!(span_ticks(3.0, 3.0, 6, false), [2.0, 2.5, 3.0, 3.5, 4.0]);
        assert_eq!(span_ticks(-0.5, 0.5, 4, false), [-0.5, -0.25, 0.0, 0.25, 0.5]);
        // Whole numbers (hours): whole steps.
        assert_eq!(span_ticks(1.0, 3.0, 6, true), [1.0, 2.0, 3.0]);
        assert_eq!(span_ticks(0.0, 15.0, 6, true), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0]);
    }
}
