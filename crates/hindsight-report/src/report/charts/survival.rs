//! Time to outcome as step curves (queries/time_to_outcome.sql, the method in docs/REPORT.md,
//! "Time to outcome, with censoring"): per workflow (an AIDev import: agent) and safe-output
//! type, the share not yet accepted (Kaplan-Meier) with its 95% band shaded, and the shares
//! accepted and rejected by each hour (Aalen-Johansen cumulative incidence), each a step
//! function: flat until a time an output left the curve, then straight up or down. The
//! groups with the most outputs on the curve are drawn; the caption says how many are not.

use std::collections::BTreeMap;

use serde_json::Value;

use super::lines::BAND_OPACITY;
use super::{
    axis_title, cell, fmt_num, legend, line, nice_ticks, num, palette, text, text_width, with_meta, Anchor, Figure, Item, LegendItem, Mark, Meta, Row, Style,
};

/// The query the curves are drawn from: on no dashboard (a row per time), run for the
/// figures of the page and `--figures` alone.
pub(crate) const CURVES: &str = "time_to_outcome";

/// The dashboard section the curves go with: drawn where it is shown.
pub(crate) const CURVES_SUMMARY: &str = "time_to_outcome_summary";

/// Workflow × type groups drawn at most: the ones with the most outputs on the curve.
pub(crate) const MOST_CURVES: usize = 4;

/// A time axis spanning this many times its smallest positive time, or more, is logarithmic.
const LOG_SPAN: f64 = 100.0;

/// What an output is, and what it belongs to, in the dataset's words.
struct Words {
    who: &'static str,
    outputs: &'static str,
    created: &'static str,
}

fn words(aidev: bool) -> Words {
    if aidev {
        Words { who: "agent", outputs: "PRs", created: "Hours since the PR was opened" }
    } else {
        Words { who: "workflow", outputs: "outputs", created: "Hours since the output was created" }
    }
}

/// Why there is no curve to draw, said in place of the figures: nothing on the curves, or
/// nothing decided on any of them (every one flat); `None` when there is a curve.
pub(crate) fn no_curve(rows: &[Row], aidev: bool) -> Option<String> {
    let o = words(aidev).outputs;
    if rows.is_empty() {
        return Some(format!(
            "No time-to-outcome curve: none of the snapshot window's {o} was accepted or rejected with a dated event, or still open with a capture time, so none can be followed over time (unknown and skipped {o} are never on the curve)."
        ));
    }
    groups(rows).iter().all(|g| !g.decided()).then(|| {
        format!("No time-to-outcome curve: every one of the {} {o} on the curves was still open at capture (censored); with none accepted or rejected yet, each curve would be flat.", fmt_num(groups(rows).iter().map(Group::on_curve).sum()))
    })
}

/// One workflow × type: its name, and its rows in time order.
struct Group<'a> {
    workflow: String,
    kind: String,
    rows: Vec<&'a Row>,
}

impl Group<'_> {
    /// Outputs on the curve: all at risk at its first time.
    fn on_curve(&self) -> f64 {
        self.rows.first().and_then(|r| num(r.get("n_at_risk"))).unwrap_or(0.0)
    }

    /// `(hours, value × scale)` of each row that has both.
    fn series(&self, col: &str, scale: f64) -> Vec<(f64, f64)> {
        self.rows.iter().filter_map(|r| Some((num(r.get("hours"))?, num(r.get(col))? * scale))).collect()
    }

    /// Whether an output on it was accepted or rejected: else its curves are flat.
    fn decided(&self) -> bool {
        self.sum("accepted_events") + self.sum("rejected_events") > 0.0
    }

    fn sum(&self, col: &str) -> f64 {
        self.rows.iter().filter_map(|r| num(r.get(col))).sum()
    }
}

/// The rows by workflow and type, the groups with the most outputs on the curve first (ties
/// in name order), each group's rows by time.
fn groups(rows: &[Row]) -> Vec<Group<'_>> {
    let mut by: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        let key = (cell(r.get("workflow_name").unwrap_or(&Value::Null)), cell(r.get("safe_output_type").unwrap_or(&Value::Null)));
        by.entry(key).or_default().push(r);
    }
    let mut groups: Vec<Group> = by
        .into_iter()
        .map(|((workflow, kind), mut rows)| {
            rows.sort_by(|a, b| num(a.get("hours")).unwrap_or(0.0).total_cmp(&num(b.get("hours")).unwrap_or(0.0)));
            Group { workflow, kind, rows }
        })
        .collect();
    groups.sort_by(|a, b| b.on_curve().total_cmp(&a.on_curve()));
    groups
}

/// The curves' figures: one per group of the [`MOST_CURVES`] with the most outputs on the
/// curve among those with an output decided (the others' curves are flat), named
/// `time_to_outcome-1`, `-2`... in that order.
pub(super) fn figures(rows: &[Row], style: &Style, aidev: bool) -> Vec<Figure> {
    let all = groups(rows);
    let drawn: Vec<&Group> = all.iter().filter(|g| g.decided()).take(MOST_CURVES).collect();
    let left_out = LeftOut { groups: all.len() - drawn.len(), flat: all.iter().filter(|g| !g.decided()).count() };
    drawn.iter().enumerate().map(|(i, g)| draw(g, i + 1, &left_out, style, &words(aidev))).collect()
}

/// The groups not drawn: how many, and how many of them had nothing decided.
struct LeftOut {
    groups: usize,
    flat: usize,
}

/// A step function through `points` (time, value) from `(0, start)`: flat to each time its
/// value changes, then straight to the new value; flat on to the last time. Times at which
/// it does not change (censoring alone) add no vertex.
pub(crate) fn steps(points: &[(f64, f64)], start: f64) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, start)];
    let mut prev = start;
    for &(t, v) in points {
        if v != prev {
            out.push((t, prev));
            out.push((t, v));
            prev = v;
        }
    }
    if let Some(&(t, _)) = points.last() {
        if out.last().map(|p| p.0) != Some(t) {
            out.push((t, prev));
        }
    }
    out
}

/// The time axis: linear from 0, or logarithmic between powers of ten when the times span
/// [`LOG_SPAN`] or more (times at or under its start drawn at its left end).
#[derive(Clone, Copy)]
enum Scale {
    Linear(f64),
    Log(i32, i32),
}

impl Scale {
    fn of(hours: &[f64]) -> Scale {
        let hi = hours.iter().copied().fold(0.0, f64::max);
        let lo = hours.iter().copied().filter(|h| *h > 0.0).fold(f64::INFINITY, f64::min);
        if lo.is_finite() && hi / lo >= LOG_SPAN {
            let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
            return Scale::Log(a, b.max(a + 1));
        }
        Scale::Linear(*nice_ticks(hi, 6).last().unwrap_or(&1.0))
    }

    fn ticks(self) -> Vec<f64> {
        match self {
            Scale::Linear(end) => nice_ticks(end, 6),
            Scale::Log(a, b) => (a..=b).map(|e| 10f64.powi(e)).collect(),
        }
    }

    /// Where `t` sits along the axis, 0 to 1.
    fn at(self, t: f64) -> f64 {
        match self {
            Scale::Linear(end) => (t / end).clamp(0.0, 1.0),
            Scale::Log(a, b) => ((t.max(10f64.powi(a)).log10() - a as f64) / (b - a) as f64).clamp(0.0, 1.0),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Scale::Linear(_) => "linear",
            Scale::Log(..) => "log",
        }
    }
}

/// The plot's place in the figure, its time axis and the share axis's end.
struct Area {
    left: f64,
    width: f64,
    top: f64,
    axis_y: f64,
    end: f64,
    x: Scale,
}

impl Area {
    fn px(&self, t: f64) -> f64 {
        self.left + self.x.at(t) * self.width
    }

    fn py(&self, v: f64) -> f64 {
        self.axis_y - (v / self.end).clamp(0.0, 1.0) * (self.axis_y - self.top)
    }

    fn path(&self, points: &[(f64, f64)]) -> Vec<[f64; 2]> {
        points.iter().map(|(t, v)| [self.px(*t), self.py(*v)]).collect()
    }
}

/// One group's figure: axes, the band, the three step curves, censoring ticks, n, legend.
fn draw(g: &Group, rank: usize, left_out: &LeftOut, style: &Style, w: &Words) -> Figure {
    let k = style.k();
    let scale = style.share_scale();
    let y_ticks = nice_ticks(scale, 5);
    let tick_w = y_ticks.iter().map(|t| text_width(&fmt_num(*t), 11.0 * k)).fold(0.0, f64::max);
    let left = 30.0 * k + tick_w + 10.0 * k;
    let width = (style.width - left - 20.0 * k).max(10.0);
    let top = 10.0 + 20.0 * k;
    let axis_y = top + (width * 0.45).clamp(160.0 * k, 360.0 * k);
    let hours: Vec<f64> = g.rows.iter().filter_map(|r| num(r.get("hours"))).collect();
    let area = Area { left, width, top, axis_y, end: *y_ticks.last().unwrap_or(&1.0), x: Scale::of(&hours) };
    let mut items = Vec::new();
    axes(&mut items, &area, &y_ticks, style, w);
    curves(&mut items, &area, g, scale, k);
    let n = g.on_curve();
    let meta = Meta { class: Some("n"), data: vec![("n", fmt_num(n))], title: None };
    let said = format!("n = {} {} on the curve", fmt_num(n), w.outputs);
    items.push(with_meta(text(left + width, 10.0 + 12.0 * k, said, 11.0 * k, Anchor::End), meta));
    let legend_top = axis_y + 5.0 + 57.0 * k;
    let legend_h = legend(&mut items, left, style.width - 10.0, legend_top, &legend_items(), k);
    Figure::new(&format!("{CURVES}-{rank}"), &caption(g, area.x, left_out, w), style, legend_top + legend_h, items)
}

/// The share axis up the left and the time axis along the bottom: gridlines (their value in
/// `data-value`, so a reader can map the plot back to hours and shares), ticks, titles.
fn axes(out: &mut Vec<Item>, a: &Area, y_ticks: &[f64], style: &Style, w: &Words) {
    let k = style.k();
    for t in y_ticks {
        let y = a.py(*t);
        out.push(with_meta(line(a.left, y, a.left + a.width, y, "#e6e6e6"), Meta { class: Some("grid-y"), data: vec![("value", fmt_num(*t))], title: None }));
        out.push(line(a.left - 5.0, y, a.left, y, "#444"));
        out.push(with_meta(text(a.left - 8.0, y + 4.0 * k, fmt_num(*t), 11.0 * k, Anchor::End), Meta::class("tick")));
    }
    for t in a.x.ticks() {
        let x = a.px(t);
        out.push(with_meta(line(x, a.top, x, a.axis_y, "#e6e6e6"), Meta { class: Some("grid-x"), data: vec![("value", fmt_num(t))], title: None }));
        out.push(line(x, a.axis_y, x, a.axis_y + 5.0, "#444"));
        out.push(with_meta(text(x, a.axis_y + 5.0 + 13.0 * k, fmt_num(t), 11.0 * k, Anchor::Middle), Meta::class("tick")));
    }
    out.push(line(a.left, a.top, a.left, a.axis_y, "#444"));
    out.push(line(a.left, a.axis_y, a.left + a.width, a.axis_y, "#444"));
    out.push(axis_title(14.0 * k, (a.top + a.axis_y) / 2.0, &style.share_axis(&format!("Share of {}", w.outputs)), 12.0 * k, true));
    let x_title = match a.x {
        Scale::Linear(_) => w.created.to_string(),
        Scale::Log(..) => format!("{} (log scale)", w.created),
    };
    out.push(axis_title(a.left + a.width / 2.0, a.axis_y + 5.0 + 31.0 * k, &x_title, 12.0 * k, false));
}

/// The Kaplan-Meier band (a step polygon along the upper ends, back along the lower), the
/// three step curves, and a tick on the Kaplan-Meier curve at each time outputs were censored.
fn curves(out: &mut Vec<Item>, a: &Area, g: &Group, scale: f64, k: f64) {
    let mut band = a.path(&steps(&g.series("km_upper_95", scale), scale));
    band.extend(a.path(&steps(&g.series("km_lower_95", scale), scale)).into_iter().rev());
    let title = "95% pointwise interval of the share not yet accepted (log-log, Greenwood's variance)".to_string();
    out.push(Item::Polygon { points: band, fill: palette::BLUE, opacity: BAND_OPACITY, meta: Meta { class: Some("band"), data: vec![], title: Some(title) } });
    for (col, start, color, label) in SERIES {
        let meta = Meta { class: Some("step"), data: vec![("series", col.to_string()), ("scale", a.x.name().into())], title: Some(label.to_string()) };
        out.push(Item::Polyline { points: a.path(&steps(&g.series(col, scale), start * scale)), color, width: 2.0 * k, meta });
    }
    let censored: Vec<[f64; 4]> = g
        .rows
        .iter()
        .filter(|r| num(r.get("censored")).unwrap_or(0.0) > 0.0)
        .filter_map(|r| Some((a.px(num(r.get("hours"))?), a.py(num(r.get("km_not_accepted"))? * scale))))
        .map(|(x, y)| [x, y - 4.0 * k, x, y + 4.0 * k])
        .collect();
    if !censored.is_empty() {
        let meta = Meta { class: Some("censored"), data: vec![], title: Some(format!("censored: still open at capture ({} times)", censored.len())) };
        out.push(Item::Lines { segments: censored, color: palette::BLUE, width: 1.5 * k, meta });
    }
}

/// The step curves: column, value at time 0, colour, legend.
const SERIES: [(&str, f64, &str, &str); 3] = [
    ("km_not_accepted", 1.0, palette::BLUE, "not yet accepted (Kaplan-Meier; a rejection censors)"),
    ("cif_accepted", 0.0, palette::BLUISH_GREEN, "accepted by then (cumulative incidence)"),
    ("cif_rejected", 0.0, palette::VERMILLION, "rejected by then (cumulative incidence)"),
];

fn legend_items() -> Vec<LegendItem> {
    let mut items: Vec<LegendItem> = SERIES.iter().map(|(_, _, color, label)| LegendItem { mark: Mark::Stroke(color), label: label.to_string() }).collect();
    items.insert(1, LegendItem { mark: Mark::Band(palette::BLUE), label: "95% interval (log-log)".into() });
    items.push(LegendItem { mark: Mark::Tick(palette::BLUE), label: "censored: still open at capture".into() });
    items
}

/// What the figure shows, its n, censoring in a researcher's words, the time axis's scale,
/// and the groups not drawn.
fn caption(g: &Group, x: Scale, left_out: &LeftOut, w: &Words) -> String {
    let o = w.outputs;
    let excluded = g.rows.first().and_then(|r| num(r.get("excluded"))).unwrap_or(0.0);
    let excluded = if excluded > 0.0 { format!("; {} left out: unknown, skipped, or decided with no date", fmt_num(excluded)) } else { String::new() };
    let (accepted, rejected, censored) = (g.sum("accepted_events"), g.sum("rejected_events"), g.sum("censored"));
    let axis = match x {
        Scale::Linear(_) => "Hours on a linear scale.".to_string(),
        Scale::Log(..) => format!("Hours on a log scale (the times span a factor of {} or more); a time of 0 hours sits at its left end.", fmt_num(LOG_SPAN)),
    };
    let flat = if left_out.flat > 0 { format!(", {} of them with no {o} accepted or rejected yet (a flat curve)", left_out.flat) } else { String::new() };
    let rest = if left_out.groups > 0 {
        format!(
            " Drawn: the {} × type groups with the most {o} on the curve, at most {MOST_CURVES}; {} more left out{flat}. `report --query time_to_outcome` has every curve.",
            w.who, left_out.groups
        )
    } else {
        String::new()
    };
    format!(
        "Time to outcome, {who} {wf} · {kind}, snapshot window (n: {n} {o} on the curve, {a} accepted, {r} rejected, {c} censored{excluded}): the share not yet accepted by each hour (Kaplan-Meier, its 95% pointwise band shaded) and the shares accepted and rejected by then (Aalen-Johansen cumulative incidence), each a step at the times {o} were decided. {O} still open at capture are censored, not failures: each counts as waiting up to the capture and is not followed after it (ticks on the curve). A rejection ends the wait for acceptance, so Kaplan-Meier treats it as censoring, while the cumulative incidences count it as the competing outcome. {axis}{rest}",
        who = w.who,
        wf = g.workflow,
        kind = g.kind,
        n = fmt_num(g.on_curve()),
        a = fmt_num(accepted),
        r = fmt_num(rejected),
        c = fmt_num(censored),
        O = capitalized(o),
    )
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A group's rows of the curve: (hours, at risk, accepted, rejected, censored, S, lower,
    /// upper, CIF accepted, CIF rejected).
    type Step = (f64, i64, i64, i64, i64, f64, f64, f64, f64, f64);

    fn curve_rows(workflow: &str, steps: &[Step]) -> Vec<Row> {
        steps
            .iter()
            .map(|(t, n, a, r, c, s, lo, hi, ca, cr)| {
                let v = json!({"workflow_name": workflow, "safe_output_type": "create_pull_request", "hours": t, "n_at_risk": n, "accepted_events": a,
                    "rejected_events": r, "censored": c, "excluded": 0, "km_not_accepted": s, "km_lower_95": lo, "km_upper_95": hi,
                    "cif_accepted": ca, "cif_rejected": cr});
                v.as_object().cloned().unwrap_or_default()
            })
            .collect()
    }

    /// tests/it/survival.rs's five PRs worked by hand: merged at 1 and 2 h, one open at capture
    /// at 2 h, one closed unmerged at 3 h, one merged at 4 h (the band's ends made up, inside).
    fn by_hand(workflow: &str) -> Vec<Row> {
        curve_rows(
            workflow,
            &[
                (1.0, 5, 1, 0, 0, 0.8, 0.3, 0.95, 0.2, 0.0),
                (2.0, 4, 1, 0, 1, 0.6, 0.2, 0.9, 0.4, 0.0),
                (3.0, 2, 0, 1, 0, 0.6, 0.2, 0.9, 0.4, 0.3),
                (4.0, 1, 1, 0, 0, 0.0, 0.0, 0.0, 0.7, 0.3),
            ],
        )
    }

    fn polylines(f: &Figure) -> Vec<(String, Vec<[f64; 2]>)> {
        f.drawing
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Polyline { points, meta, .. } if meta.class == Some("step") => Some((meta.data[0].1.clone(), points.clone())),
                _ => None,
            })
            .collect()
    }

    /// Each curve is a step function of its column: a horizontal run to each time its value
    /// changes, then a vertical one to the new value (the time unchanged); the band's outline
    /// is the upper ends' steps, then the lower ones' back, and holds the Kaplan-Meier curve.
    #[test]
    fn curves_are_steps_of_their_rows_within_the_band() {
        let rows = by_hand("fixer");
        let figures = figures(&rows, &Style::default(), false);
        assert_eq!(figures.len(), 1);
        let group = &groups(&rows)[0];
        let lines = polylines(&figures[0]);
        assert_eq!(lines.iter().map(|l| l.0.as_str()).collect::<Vec<_>>(), ["km_not_accepted", "cif_accepted", "cif_rejected"]);
        for (col, points) in &lines {
            let values: Vec<(f64, f64)> = group.series(col, 1.0);
            // A vertex pair per change of value, the start and the last time: 1 + 2 * changes (+ 1
            // when the last row changes nothing).
            let start = if col == "km_not_accepted" { 1.0 } else { 0.0 };
            let changes = values.iter().scan(start, |prev, (_, v)| Some(std::mem::replace(prev, *v) != *v)).filter(|c| *c).count();
            let last_flat = values.last().is_some_and(|(_, v)| values.len() > 1 && values[values.len() - 2].1 == *v);
            assert_eq!(points.len(), 1 + 2 * changes + usize::from(last_flat), "{col}: {points:?}");
            for w in points.windows(2) {
                assert!(w[0][0] == w[1][0] || w[0][1] == w[1][1], "{col}: a slanted segment {w:?}");
            }
            // The heights, top to bottom as drawn, in the order of the rows' values.
            let heights: Vec<f64> = points.iter().map(|p| p[1]).collect();
            let mut want: Vec<f64> = vec![start];
            want.extend(values.iter().map(|(_, v)| *v));
            want.dedup();
            let mut drawn = heights.clone();
            drawn.dedup();
            assert_eq!(drawn.len(), want.len(), "{col}: {heights:?} for {want:?}");
            for (a, b) in drawn.windows(2).zip(want.windows(2)) {
                assert_eq!(a[0] < a[1], b[0] > b[1], "{col}: a step the wrong way: {drawn:?} for {want:?}");
            }
        }
        let km = &lines[0].1;
        let band = figures[0].drawing.items.iter().find_map(|i| match i {
            Item::Polygon { points, meta, .. } if meta.class == Some("band") => Some(points.clone()),
            _ => None,
        });
        let band = band.unwrap_or_default();
        let (upper, lower) = band.split_at(band.len() / 2);
        let lower: Vec<[f64; 2]> = lower.iter().rev().copied().collect();
        // An edge's height just before x (its last vertex left of x), or at and after it.
        let at = |edge: &[[f64; 2]], x: f64, after: bool| edge.iter().rfind(|e| if after { e[0] <= x } else { e[0] < x }).map(|e| e[1]);
        // y grows downwards: the upper end is above (a smaller y than) the curve and the lower
        // below it, just before each vertex's time for the vertex before a step, just after it
        // otherwise.
        for (i, p) in km.iter().enumerate() {
            let after = i == 0 || km.get(i + 1).is_none_or(|q| q[0] != p[0]);
            let (above, below) = (at(upper, p[0], after), at(&lower, p[0], after));
            assert!(above.is_some_and(|a| a <= p[1] + 1e-9) && below.is_some_and(|b| p[1] <= b + 1e-9), "{p:?} outside the band ({above:?}, {below:?})");
        }
    }

    /// Nothing on the curves, or nothing decided on any: no figure, and a note saying why (the
    /// page shows it in place of the figures); something decided: a figure and no note.
    #[test]
    fn no_curve_is_said_not_drawn() {
        let style = Style::default();
        assert!(figures(&[], &style, false).is_empty());
        assert!(no_curve(&[], false).is_some_and(|n| n.contains("none of the snapshot window's outputs was accepted or rejected with a dated event")));
        let open = curve_rows("waiting", &[(5.0, 2, 0, 0, 1, 1.0, 1.0, 1.0, 0.0, 0.0), (9.0, 1, 0, 0, 1, 1.0, 1.0, 1.0, 0.0, 0.0)]);
        assert!(figures(&open, &style, false).is_empty());
        assert!(no_curve(&open, true).is_some_and(|n| n.contains("every one of the 2 PRs on the curves was still open at capture")), "{:?}", no_curve(&open, true));
        assert!(no_curve(&by_hand("fixer"), false).is_none());
        let section = |rows| crate::report::html::Section { name: CURVES, title: "", columns: vec![], rows };
        let page = crate::report::html::page("dashboard", &[section(vec![])], &[], None, None);
        assert!(page.contains(r#"<p class="no-figure">No time-to-outcome curve: "#) && !page.contains("<figure"), "{page}");
        let page = crate::report::html::page("dashboard", &[section(by_hand("fixer"))], &[], None, None);
        assert!(page.contains(r#"<figure id="figure-time_to_outcome-1">"#) && !page.contains("no-figure"));
        assert!(!page.contains(r#"<section id="time_to_outcome">"#), "the curves are not a table");
    }

    /// At most [`MOST_CURVES`] figures, the groups with the most outputs on the curve first;
    /// each caption says how many groups are left out and that one of them was flat.
    #[test]
    fn the_figures_are_bounded_and_say_what_is_left_out() {
        let mut all = Vec::new();
        // Group i has i + 1 outputs on the curve (its first row's at-risk count).
        let names = ["a", "b", "c", "d", "e", "f"];
        for (i, w) in names.iter().enumerate() {
            all.extend(curve_rows(w, &[(1.0, i as i64 + 1, 1, 0, 0, 0.5, 0.1, 0.9, 0.5, 0.0)]));
        }
        all.extend(curve_rows("flat", &[(1.0, 99, 0, 0, 99, 1.0, 1.0, 1.0, 0.0, 0.0)]));
        let figures = figures(&all, &Style::default(), false);
        assert_eq!(figures.len(), MOST_CURVES);
        let drawn: Vec<&str> = names.iter().rev().take(MOST_CURVES).copied().collect();
        // Six groups and the flat one, less those drawn.
        let left = names.len() + 1 - MOST_CURVES;
        for (i, (f, w)) in figures.iter().zip(&drawn).enumerate() {
            assert_eq!(f.name, format!("time_to_outcome-{}", i + 1));
            assert!(f.caption.contains(&format!("workflow {w} · create_pull_request")), "{}", f.caption);
            assert!(f.caption.contains(&format!("{left} more left out, 1 of them with no outputs accepted or rejected yet")), "{}", f.caption);
        }
    }

    /// The same rows in any order: the same bytes; times spanning two decades or more: a log
    /// axis, said in its title and the caption; fewer: linear.
    #[test]
    fn the_figure_is_deterministic_and_its_time_axis_said() {
        let style = Style::default();
        let rows = by_hand("fixer");
        let mut reversed = rows.clone();
        reversed.reverse();
        assert_eq!(figures(&rows, &style, false)[0].svg(), figures(&reversed, &style, false)[0].svg());
        let linear = &figures(&rows, &style, false)[0];
        assert!(linear.caption.contains("Hours on a linear scale") && linear.svg().contains(">Hours since the output was created</text>"));
        let wide = curve_rows("fixer", &[(0.5, 2, 1, 0, 0, 0.5, 0.1, 0.9, 0.5, 0.0), (400.0, 1, 1, 0, 0, 0.0, 0.0, 0.0, 1.0, 0.0)]);
        let log = &figures(&wide, &style, true)[0];
        assert!(log.caption.contains("log scale") && log.svg().contains(">Hours since the PR was opened (log scale)</text>"), "{}", log.caption);
        for tick in ["0.1", "1", "10", "100", "1000"] {
            assert!(log.svg().contains(&format!(r#"class="grid-x" data-value="{tick}""#)), "no tick at {tick}");
        }
    }
}
