//! The `outcomes` table, built straight into Arrow columns: one row per (safe output,
//! window), sorted by run, item and window so the bytes never depend on the order in which
//! parallel work finished.

use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanBuilder, Float64Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow::error::ArrowError;
use arrow::record_batch::RecordBatch;

use super::{Verdict, Window};
use crate::runs::SafeOutput;
use crate::time::{self, Instant};

const COLUMNS: &[(&str, DataType)] = &[
    ("safe_output_id", DataType::Utf8),
    ("run_id", DataType::Utf8),
    ("item_index", DataType::Int64),
    ("workflow_name", DataType::Utf8),
    ("safe_output_type", DataType::Utf8),
    ("target_repo", DataType::Utf8),
    ("target_kind", DataType::Utf8),
    ("target_number", DataType::Int64),
    ("created_at", DataType::Null), // a UTC timestamp; see `schema`
    ("eval_window", DataType::Utf8),
    ("window_order", DataType::Int64),
    ("evaluation_window_hours", DataType::Int64),
    ("evaluated_at", DataType::Null),
    ("outcome_status", DataType::Utf8),
    ("evidence_strength", DataType::Utf8),
    ("human_check_signal", DataType::Utf8),
    ("target_resolved", DataType::Boolean),
    ("confidence", DataType::Utf8),
    ("visible_non_bot_actor_count", DataType::Int64),
    ("bot_actor_count", DataType::Int64),
    ("time_to_outcome_hours", DataType::Float64),
    ("partial_score", DataType::Float64),
    ("details", DataType::Utf8),
    ("notes", DataType::Utf8),
    ("rule_id", DataType::Utf8),
];

pub fn schema() -> SchemaRef {
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    Arc::new(Schema::new(COLUMNS.iter().map(|(n, t)| Field::new(*n, if *t == DataType::Null { utc.clone() } else { t.clone() }, true)).collect::<Vec<_>>()))
}

/// The window's place in the sort: by hours, the snapshot window last.
pub fn window_order(w: Window) -> i64 {
    match w {
        Window::Hours(h) => h,
        Window::Snapshot => i64::MAX,
    }
}

/// A row's place in the table: (rank of its output's (run id, item index), window order,
/// output's position in `safe_outputs`).
pub(crate) type RowKey = (usize, i64, usize);

/// Rows as they are judged, in any order; `finish` sorts them.
pub struct OutcomeRows {
    /// (rank of the output's (run id, item index), window order, output's position in its
    /// table) of each row.
    keys: Vec<RowKey>,
    safe_output_id: StringBuilder,
    run_id: StringBuilder,
    item_index: Int64Builder,
    workflow_name: StringBuilder,
    safe_output_type: StringBuilder,
    target_repo: StringBuilder,
    target_kind: StringBuilder,
    target_number: Int64Builder,
    created_at: TimestampMicrosecondBuilder,
    eval_window: StringBuilder,
    window_order: Int64Builder,
    evaluation_window_hours: Int64Builder,
    evaluated_at: TimestampMicrosecondBuilder,
    outcome_status: StringBuilder,
    evidence_strength: StringBuilder,
    human_check_signal: StringBuilder,
    target_resolved: BooleanBuilder,
    confidence: StringBuilder,
    visible_non_bot_actor_count: Int64Builder,
    bot_actor_count: Int64Builder,
    time_to_outcome_hours: Float64Builder,
    partial_score: Float64Builder,
    details: StringBuilder,
    notes: StringBuilder,
    rule_id: StringBuilder,
}

impl Default for OutcomeRows {
    fn default() -> Self {
        OutcomeRows {
            keys: Vec::new(),
            safe_output_id: StringBuilder::new(),
            run_id: StringBuilder::new(),
            item_index: Int64Builder::new(),
            workflow_name: StringBuilder::new(),
            safe_output_type: StringBuilder::new(),
            target_repo: StringBuilder::new(),
            target_kind: StringBuilder::new(),
            target_number: Int64Builder::new(),
            created_at: TimestampMicrosecondBuilder::new(),
            eval_window: StringBuilder::new(),
            window_order: Int64Builder::new(),
            evaluation_window_hours: Int64Builder::new(),
            evaluated_at: TimestampMicrosecondBuilder::new(),
            outcome_status: StringBuilder::new(),
            evidence_strength: StringBuilder::new(),
            human_check_signal: StringBuilder::new(),
            target_resolved: BooleanBuilder::new(),
            confidence: StringBuilder::new(),
            visible_non_bot_actor_count: Int64Builder::new(),
            bot_actor_count: Int64Builder::new(),
            time_to_outcome_hours: Float64Builder::new(),
            partial_score: Float64Builder::new(),
            details: StringBuilder::new(),
            notes: StringBuilder::new(),
            rule_id: StringBuilder::new(),
        }
    }
}

impl OutcomeRows {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// One row; `rank` orders the output's (run id, item index) (see `ranks`) and `seq`, its
    /// position in `safe_outputs`, is the last sort key.
    pub fn push(&mut self, o: &SafeOutput, rank: usize, seq: usize, window: Window, evaluated_at: Option<Instant>, v: &Verdict) {
        let order = window_order(window);
        self.keys.push((rank, order, seq));
        let tto = match (o.created_at, v.decided_at) {
            (Some(a), Some(b)) if b >= a => Some((time::hours_between(&a, &b) * 1000.0).round() / 1000.0),
            _ => None,
        };
        let micros = |t: Option<Instant>| t.map(|x| x.timestamp_micros());
        self.safe_output_id.append_value(&o.safe_output_id);
        self.run_id.append_value(&o.run_id);
        self.item_index.append_value(o.item_index);
        self.workflow_name.append_option(o.workflow_name.as_deref());
        self.safe_output_type.append_value(&o.output_type);
        self.target_repo.append_option(o.target_repo.as_deref());
        self.target_kind.append_option(o.target_kind.as_deref());
        self.target_number.append_option(o.target_number);
        self.created_at.append_option(micros(o.created_at));
        self.eval_window.append_value(window.to_string());
        self.window_order.append_value(order);
        self.evaluation_window_hours.append_option(window.hours());
        self.evaluated_at.append_option(micros(evaluated_at));
        self.outcome_status.append_value(v.status.as_str());
        self.evidence_strength.append_value(v.strength.as_str());
        self.human_check_signal.append_value(v.signal);
        self.target_resolved.append_value(v.target_resolved);
        self.confidence.append_value(v.confidence.as_str());
        self.visible_non_bot_actor_count.append_value(v.visible_non_bot_actors as i64);
        self.bot_actor_count.append_value(v.bot_actors as i64);
        self.time_to_outcome_hours.append_option(tto);
        self.partial_score.append_option(v.partial_score);
        // A map of JSON values always serializes.
        self.details.append_value(serde_json::to_string(&v.details).unwrap_or_default());
        self.notes.append_value(v.notes.join("; "));
        self.rule_id.append_value(&v.rule_id);
    }

    /// The rows sorted by run id, item index, window and position.
    pub fn finish(self) -> Result<RecordBatch, ArrowError> {
        Self::merge(vec![self])
    }

    /// The rank of each (run id, item index) among all of them, equal keys equal ranks:
    /// sorting rows by (rank, window, position) is then a sort of integers, in the order of
    /// (run id, item index, window, position).
    pub fn ranks(keys: &[(&str, i64)]) -> Vec<usize> {
        use rayon::prelude::*;
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.par_sort_unstable_by(|&a, &b| keys[a].cmp(&keys[b]).then(a.cmp(&b)));
        let mut rank = vec![0; keys.len()];
        let mut r = 0;
        for (n, w) in order.iter().enumerate() {
            if n > 0 && keys[order[n - 1]] != keys[*w] {
                r += 1;
            }
            rank[*w] = r;
        }
        rank
    }

    /// Rows built in parts (one per worker), merged and sorted by run id, item index, window
    /// and position: the bytes do not depend on how the work was split.
    pub fn merge(parts: Vec<OutcomeRows>) -> Result<RecordBatch, ArrowError> {
        Ok(Self::merge_keyed(parts)?.1)
    }

    /// `merge`, with each row's sort key, in the rows' order (a spilled part keeps them).
    pub(crate) fn merge_keyed(parts: Vec<OutcomeRows>) -> Result<(Vec<RowKey>, RecordBatch), ArrowError> {
        use rayon::prelude::*;
        let mut keys = Vec::new();
        let mut batches = Vec::new();
        let mut offset = 0usize;
        for mut part in parts.into_iter() {
            keys.extend(std::mem::take(&mut part.keys).into_iter().enumerate().map(|(r, k)| (k, offset + r)));
            let b = part.batch()?;
            offset += b.num_rows();
            batches.push(b);
        }
        if batches.is_empty() {
            return Ok((Vec::new(), RecordBatch::new_empty(schema())));
        }
        keys.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let order = arrow::array::UInt64Array::from_iter_values(keys.iter().map(|(_, i)| *i as u64));
        let keys: Vec<RowKey> = keys.into_iter().map(|(k, _)| k).collect();
        // One gather per column, the columns side by side: an interleave across many parts
        // was the slowest step at a million outputs.
        let schema = schema();
        let columns: Vec<ArrayRef> = (0..schema.fields().len())
            .into_par_iter()
            .map(|c| -> Result<ArrayRef, ArrowError> {
                let pieces: Vec<&dyn arrow::array::Array> = batches.iter().map(|b| b.column(c).as_ref()).collect();
                let whole = arrow::compute::concat(&pieces)?;
                arrow::compute::take(whole.as_ref(), &order, None)
            })
            .collect::<Result<_, _>>()?;
        drop(batches);
        Ok((keys, RecordBatch::try_new(schema, columns)?))
    }

    /// Bytes the rows hold in memory, roughly: their text plus a fixed share per row for
    /// the numbers, offsets and key.
    pub(crate) fn bytes(&self) -> usize {
        let text = [
            &self.safe_output_id,
            &self.run_id,
            &self.workflow_name,
            &self.safe_output_type,
            &self.target_repo,
            &self.target_kind,
            &self.eval_window,
            &self.outcome_status,
            &self.evidence_strength,
            &self.human_check_signal,
            &self.confidence,
            &self.details,
            &self.notes,
            &self.rule_id,
        ];
        text.iter().map(|b| b.values_slice().len()).sum::<usize>() + self.keys.len() * 192
    }

    fn batch(&mut self) -> Result<RecordBatch, ArrowError> {
        let tz = |b: &mut TimestampMicrosecondBuilder| -> ArrayRef { Arc::new(b.finish().with_timezone("UTC")) };
        let cols: Vec<ArrayRef> = vec![
            Arc::new(self.safe_output_id.finish()),
            Arc::new(self.run_id.finish()),
            Arc::new(self.item_index.finish()),
            Arc::new(self.workflow_name.finish()),
            Arc::new(self.safe_output_type.finish()),
            Arc::new(self.target_repo.finish()),
            Arc::new(self.target_kind.finish()),
            Arc::new(self.target_number.finish()),
            tz(&mut self.created_at),
            Arc::new(self.eval_window.finish()),
            Arc::new(self.window_order.finish()),
            Arc::new(self.evaluation_window_hours.finish()),
            tz(&mut self.evaluated_at),
            Arc::new(self.outcome_status.finish()),
            Arc::new(self.evidence_strength.finish()),
            Arc::new(self.human_check_signal.finish()),
            Arc::new(self.target_resolved.finish()),
            Arc::new(self.confidence.finish()),
            Arc::new(self.visible_non_bot_actor_count.finish()),
            Arc::new(self.bot_actor_count.finish()),
            Arc::new(self.time_to_outcome_hours.finish()),
            Arc::new(self.partial_score.finish()),
            Arc::new(self.details.finish()),
            Arc::new(self.notes.finish()),
            Arc::new(self.rule_id.finish()),
        ];
        RecordBatch::try_new(schema(), cols)
    }
}
