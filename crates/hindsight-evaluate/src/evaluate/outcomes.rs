//! The `outcomes` table, built straight into Arrow columns: one row per (safe output,
//! window), sorted by run, item and window so the bytes never depend on the order in which
//! parallel work finished.
//!
//! While outputs are judged a row is held compact: what the verdict says (its status,
//! strength and confidence as small numbers, its signal and rule id as numbered names, its
//! details as a numbered name too while few enough distinct ones are seen, else as text, its
//! notes as text) and its sort key, which names the output and the window. The
//! columns that repeat the output (id, run, type, target, ...) and the window's are filled
//! in only as the table is written, from the outputs themselves: a held (or spilled) row is
//! about a third of the table's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanBuilder, Float64Builder, Int64Array, Int64Builder, StringBuilder, TimestampMicrosecondArray, TimestampMicrosecondBuilder,
    UInt32Builder, UInt8Builder,
};
use arrow::datatypes::{DataType, Field, Int64Type, Schema, SchemaRef, TimeUnit, UInt32Type, UInt8Type};
use arrow::error::ArrowError;
use arrow::record_batch::RecordBatch;

use super::{Confidence, EvidenceStrength, Status, Verdict, Window};
use crate::dataset::read::{OutputFields, SafeOutputTable};
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

pub(crate) fn schema() -> SchemaRef {
    let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
    Arc::new(Schema::new(COLUMNS.iter().map(|(n, t)| Field::new(*n, if *t == DataType::Null { utc.clone() } else { t.clone() }, true)).collect::<Vec<_>>()))
}

/// The columns of a held row, in this order (a spill file's, before its key columns).
const HELD: &[(&str, DataType)] = &[
    ("evaluated_at", DataType::Int64),
    ("outcome_status", DataType::UInt8),
    ("evidence_strength", DataType::UInt8),
    ("human_check_signal", DataType::UInt32),
    ("target_resolved", DataType::Boolean),
    ("confidence", DataType::UInt8),
    ("visible_non_bot_actor_count", DataType::UInt32),
    ("bot_actor_count", DataType::UInt32),
    ("time_to_outcome_hours", DataType::Float64),
    ("partial_score", DataType::Float64),
    ("details", DataType::Utf8),
    ("notes", DataType::Utf8),
    ("rule_id", DataType::UInt32),
    // Not a column of the table: the details' number, when they were given one (their text
    // is then empty in `details`).
    ("details_name", DataType::UInt32),
];

/// The held columns that are the table's last columns, in its order (`details_name` is not
/// one: it goes into `details`).
const HELD_IN_TABLE: usize = 13;

/// The schema of held rows.
pub(crate) fn held_schema() -> SchemaRef {
    Arc::new(Schema::new(HELD.iter().map(|(n, t)| Field::new(*n, t.clone(), true)).collect::<Vec<_>>()))
}

/// The window's place in the sort: by hours, the snapshot window last.
pub(crate) fn window_order(w: Window) -> i64 {
    match w {
        Window::Hours(h) => h,
        Window::Snapshot => i64::MAX,
    }
}

/// The window at a place in the sort (`window_order`'s inverse).
fn window_at(order: i64) -> Window {
    match order {
        i64::MAX => Window::Snapshot,
        h => Window::Hours(h),
    }
}

/// A row's place in the table: (rank of its output's (run id, item index), window order,
/// output's position in `safe_outputs`).
pub(crate) type RowKey = (usize, i64, usize);

/// A held row's key and where it is: (part, row within the part).
pub(crate) type KeyedRow = (RowKey, (usize, usize));

/// The outputs a row's position (the key's last part) refers to.
pub trait Outputs: Sync {
    /// The output at `seq`, `None` past the end.
    fn fields(&self, seq: usize) -> Option<OutputFields<'_>>;
}

impl Outputs for [SafeOutput<'_>] {
    fn fields(&self, seq: usize) -> Option<OutputFields<'_>> {
        self.get(seq).map(OutputFields::from)
    }
}

impl<T: Outputs + ?Sized> Outputs for &T {
    fn fields(&self, seq: usize) -> Option<OutputFields<'_>> {
        (**self).fields(seq)
    }
}

impl Outputs for crate::dataset::stream::HeldOutputs<'_> {
    fn fields(&self, seq: usize) -> Option<OutputFields<'_>> {
        crate::dataset::stream::HeldOutputs::fields(self, seq)
    }
}

/// Where the rows being written find their outputs' columns: a table held whole, or read
/// forward through `safe_outputs` as the rows (in the table's order) ask for them.
pub(crate) trait OutputSource {
    type Held<'s>: Outputs
    where
        Self: 's;
    /// The outputs the rows of `keys` point at (in the table's order: ranks never go back).
    fn cover(&mut self, keys: &[RowKey]) -> crate::error::Result<Self::Held<'_>>;
}

impl<T: Outputs + ?Sized> OutputSource for &T {
    type Held<'s>
        = &'s T
    where
        Self: 's;
    fn cover(&mut self, _: &[RowKey]) -> crate::error::Result<&T> {
        Ok(*self)
    }
}

impl OutputSource for crate::dataset::stream::OutputStream {
    type Held<'s> = crate::dataset::stream::HeldOutputs<'s>;
    /// From the first row's rank (no row of these keys, nor after them, points before it:
    /// a rank is the position of the first output with the key) to the last position.
    fn cover(&mut self, keys: &[RowKey]) -> crate::error::Result<Self::Held<'_>> {
        let from = keys.first().map_or(0, |k| k.0);
        let to = keys.iter().map(|k| k.2).max().unwrap_or(from);
        crate::dataset::stream::OutputStream::cover(self, from, to)
    }
}

impl Outputs for SafeOutputTable {
    /// The output's columns as `get` makes them, without copying them.
    fn fields(&self, seq: usize) -> Option<OutputFields<'_>> {
        SafeOutputTable::fields(self, seq)
    }
}

/// Signals, rule ids and details, held as numbers while rows are judged and spilled. The
/// numbers never outlive the run (spill files are the run's own), so the order in which
/// parallel work gave them does not reach the table.
#[derive(Default)]
struct Names {
    ids: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
    /// Bytes of details numbered so far (see `DETAIL_NAME_BYTES`).
    detail_bytes: usize,
    /// `names` as last handed out, until a name is added.
    handed: Option<Arc<Vec<Arc<str>>>>,
}

/// Details are numbered until this many bytes of distinct details have been: they repeat
/// a great deal (a state's basis, the labels added, who replied), and a number is 4 bytes
/// held and spilled where the text is ~40. Past it (details that rarely repeat) a row's
/// details are held as text, so the table of names stays this small.
const DETAIL_NAME_BYTES: usize = 16 << 20;

fn names() -> &'static Mutex<Names> {
    static NAMES: OnceLock<Mutex<Names>> = OnceLock::new();
    NAMES.get_or_init(Mutex::default)
}

/// The number of a name, given on first sight.
fn name_id(name: &str) -> u32 {
    let mut n = names().lock().unwrap_or_else(|e| e.into_inner());
    match n.ids.get(name) {
        Some(id) => *id,
        None => n.add(name),
    }
}

/// The number of a row's details: given on first sight while fewer than
/// `DETAIL_NAME_BYTES` of details have been numbered, `None` once past that.
fn detail_id(details: &str) -> Option<u32> {
    let mut n = names().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(id) = n.ids.get(details) {
        return Some(*id);
    }
    if n.detail_bytes + details.len() > DETAIL_NAME_BYTES {
        return None;
    }
    n.detail_bytes += details.len();
    Some(n.add(details))
}

impl Names {
    fn add(&mut self, name: &str) -> u32 {
        let id = self.names.len() as u32;
        let name: Arc<str> = name.into();
        self.names.push(name.clone());
        self.ids.insert(name, id);
        self.handed = None;
        id
    }
}

/// Bytes of names a thread remembers (`KNOWN`) before it starts afresh.
const KNOWN_BYTES: usize = 1 << 20;

/// Names a thread has numbered or looked up, with their numbers.
#[derive(Default)]
struct Known {
    ids: HashMap<Box<str>, u32, foldhash::fast::FixedState>,
    bytes: usize,
}

thread_local! {
    /// What this thread has met, so that most rows take no lock: kept across parts (a part
    /// of 64 outputs that kept its own met each name once and asked the shared table, under
    /// its lock, for each), up to `KNOWN_BYTES` of names. Numbers are the process's, never
    /// taken back, so a remembered one stays right.
    static KNOWN: std::cell::RefCell<Known> = std::cell::RefCell::default();
}

/// The number this thread remembers for `name`.
fn known(name: &str) -> Option<u32> {
    KNOWN.with_borrow(|k| k.ids.get(name).copied())
}

fn remember(name: &str, id: u32) {
    KNOWN.with_borrow_mut(|k| {
        if k.bytes + name.len() > KNOWN_BYTES {
            *k = Known::default();
        }
        k.bytes += name.len();
        k.ids.insert(name.into(), id);
    })
}

/// Every name given a number so far, at its number (shared: the table is written a row
/// group at a time, after every name was given).
fn named() -> Arc<Vec<Arc<str>>> {
    let mut n = names().lock().unwrap_or_else(|e| e.into_inner());
    if n.handed.is_none() {
        n.handed = Some(Arc::new(n.names.clone()));
    }
    n.handed.clone().unwrap_or_default()
}

// Statuses, strengths and confidences as held (`as u8`), and back.
const STATUSES: [Status; 6] = [Status::Accepted, Status::Rejected, Status::Pending, Status::Ignored, Status::Skipped, Status::Unknown];
const STRENGTHS: [EvidenceStrength; 4] = [EvidenceStrength::Strong, EvidenceStrength::Medium, EvidenceStrength::Weak, EvidenceStrength::None];
const CONFIDENCES: [Confidence; 3] = [Confidence::High, Confidence::Medium, Confidence::Low];

/// Rows as they are judged, in any order, held compact (see the module's doc); `finish`
/// sorts them and fills in the output's and the window's columns.
#[derive(Default)]
pub struct OutcomeRows {
    /// (rank of the output's (run id, item index), window order, output's position in its
    /// table) of each row.
    keys: Vec<RowKey>,
    /// Set once details stopped being numbered (`detail_id`): they are held as text.
    details_as_text: bool,
    /// A row's details as JSON text, before they go in their column.
    scratch: Vec<u8>,
    evaluated_at: Int64Builder,
    outcome_status: UInt8Builder,
    evidence_strength: UInt8Builder,
    human_check_signal: UInt32Builder,
    target_resolved: BooleanBuilder,
    confidence: UInt8Builder,
    visible_non_bot_actor_count: UInt32Builder,
    bot_actor_count: UInt32Builder,
    time_to_outcome_hours: Float64Builder,
    partial_score: Float64Builder,
    details: StringBuilder,
    notes: StringBuilder,
    rule_id: UInt32Builder,
    details_name: UInt32Builder,
}

impl OutcomeRows {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Room for `rows` rows and no more: a builder's default room is 1,024 rows, and a
    /// part of a few rows held that for each of its fourteen columns.
    pub(crate) fn with_capacity(rows: usize) -> OutcomeRows {
        OutcomeRows {
            keys: Vec::with_capacity(rows),
            evaluated_at: Int64Builder::with_capacity(rows),
            outcome_status: UInt8Builder::with_capacity(rows),
            evidence_strength: UInt8Builder::with_capacity(rows),
            human_check_signal: UInt32Builder::with_capacity(rows),
            target_resolved: BooleanBuilder::with_capacity(rows),
            confidence: UInt8Builder::with_capacity(rows),
            visible_non_bot_actor_count: UInt32Builder::with_capacity(rows),
            bot_actor_count: UInt32Builder::with_capacity(rows),
            time_to_outcome_hours: Float64Builder::with_capacity(rows),
            partial_score: Float64Builder::with_capacity(rows),
            // Most rows' details are a number and their notes empty.
            details: StringBuilder::with_capacity(rows, 0),
            notes: StringBuilder::with_capacity(rows, 0),
            rule_id: UInt32Builder::with_capacity(rows),
            details_name: UInt32Builder::with_capacity(rows),
            // Not `..OutcomeRows::default()`: that would make fourteen builders of 1,024
            // rows only to drop them.
            details_as_text: false,
            scratch: Vec::new(),
        }
    }

    /// The position (`seq`) of the first row's output.
    #[cfg(test)]
    pub(crate) fn first_position(&self) -> usize {
        self.keys.first().map_or(usize::MAX, |k| k.2)
    }

    /// The rows as they are held until spilled: the buffer a row's details were written in
    /// is let go.
    pub(crate) fn done(mut self) -> OutcomeRows {
        self.scratch = Vec::new();
        self
    }

    fn name(&mut self, name: &str) -> u32 {
        if let Some(id) = known(name) {
            return id;
        }
        let id = name_id(name);
        remember(name, id);
        id
    }

    /// Rows whose details are held as text, as they are once too many distinct details
    /// were numbered (for tests: the table must not tell the two apart).
    #[cfg(test)]
    pub(crate) fn holding_details_as_text() -> OutcomeRows {
        OutcomeRows { details_as_text: true, ..OutcomeRows::default() }
    }

    /// A number for details not numbered in this part yet, unless details stopped being
    /// numbered.
    fn detail_name(&mut self, details: &str) -> Option<u32> {
        if self.details_as_text {
            return None;
        }
        let id = detail_id(details);
        match id {
            Some(id) => remember(details, id),
            None => self.details_as_text = true,
        }
        id
    }

    /// One row; `rank` orders the output's (run id, item index) (see `ranks`) and `seq`, its
    /// position in the outputs given to `finish` (`safe_outputs`), is the last sort key.
    pub fn push(&mut self, o: &SafeOutput, rank: usize, seq: usize, window: Window, evaluated_at: Option<Instant>, v: &Verdict) {
        self.keys.push((rank, window_order(window), seq));
        let tto = match (o.created_at, v.decided_at) {
            (Some(a), Some(b)) if b >= a => Some((time::hours_between(&a, &b) * 1000.0).round() / 1000.0),
            _ => None,
        };
        self.evaluated_at.append_option(evaluated_at.map(|t| t.timestamp_micros()));
        self.outcome_status.append_value(v.status as u8);
        self.evidence_strength.append_value(v.strength as u8);
        let signal = self.name(v.signal);
        self.human_check_signal.append_value(signal);
        self.target_resolved.append_value(v.target_resolved);
        self.confidence.append_value(v.confidence as u8);
        // Counts of distinct people, held in 32 bits (four billion actors would not fit in
        // memory); the table's columns are 64-bit.
        self.visible_non_bot_actor_count.append_value(u32::try_from(v.visible_non_bot_actors).unwrap_or(u32::MAX));
        self.bot_actor_count.append_value(u32::try_from(v.bot_actors).unwrap_or(u32::MAX));
        self.time_to_outcome_hours.append_option(tto);
        self.partial_score.append_option(v.partial_score);
        // Serialized into one buffer reused row after row (a map of JSON values always
        // serializes, to UTF-8).
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let _ = serde_json::to_writer(&mut scratch, &v.details);
        self.hold_details(std::str::from_utf8(&scratch).unwrap_or_default());
        self.scratch = scratch;
        match v.notes.as_slice() {
            [] => self.notes.append_value(""),
            [one] => self.notes.append_value(one),
            many => {
                use std::fmt::Write;
                for (i, n) in many.iter().enumerate() {
                    // Writing to a builder cannot fail.
                    let _ = if i == 0 { self.notes.write_str(n) } else { write!(self.notes, "; {n}") };
                }
                self.notes.append_value("");
            }
        }
        let rule = self.name(&v.rule_id);
        self.rule_id.append_value(rule);
    }

    /// A row's details (JSON text): their number when they have one, else the text.
    fn hold_details(&mut self, details: &str) {
        match known(details).or_else(|| self.detail_name(details)) {
            Some(id) => {
                self.details.append_value("");
                self.details_name.append_value(id);
            }
            None => {
                self.details.append_value(details);
                self.details_name.append_null();
            }
        }
    }

    /// Rows a cluster's executor judged, in [`to_wire`]'s form, held as this process holds
    /// rows it judged: each keyed by its output's position and rank (`ranks`, by position),
    /// its names numbered here. The table written from them is the one rows judged here
    /// give. An error says which row is at fault.
    pub(crate) fn from_wire(batch: &RecordBatch, ranks: &[usize]) -> Result<OutcomeRows, String> {
        if batch.schema() != wire_schema() {
            return Err(format!("outcome rows from a cluster's executor have the columns {:?}, not those of this hindsight", batch.schema().fields().iter().map(|f| f.name()).collect::<Vec<_>>()));
        }
        let text = |c: usize| batch.column(c).as_string::<i32>();
        let position = batch.column(0).as_primitive::<arrow::datatypes::UInt64Type>();
        let (signal, details, notes, rule) = (text(5), text(12), text(13), text(14));
        let order = batch.column(1).as_primitive::<Int64Type>();
        let evaluated_at = batch.column(2).as_primitive::<Int64Type>();
        let (status, strength, confidence) =
            (batch.column(3).as_primitive::<UInt8Type>(), batch.column(4).as_primitive::<UInt8Type>(), batch.column(7).as_primitive::<UInt8Type>());
        let resolved = batch.column(6).as_boolean();
        let (visible, bots) = (batch.column(8).as_primitive::<UInt32Type>(), batch.column(9).as_primitive::<UInt32Type>());
        let (tto, partial) = (batch.column(10).as_primitive::<arrow::datatypes::Float64Type>(), batch.column(11).as_primitive::<arrow::datatypes::Float64Type>());
        let mut rows = OutcomeRows::default();
        for r in 0..batch.num_rows() {
            let at = |what: &str| format!("outcome row {r} from a cluster's executor (output at position {}): {what}", position.value(r));
            let seq = usize::try_from(position.value(r)).map_err(|_| at("not a position"))?;
            let rank = *ranks.get(seq).ok_or_else(|| at("past the dataset's safe_outputs"))?;
            if [position.is_null(r), order.is_null(r), status.is_null(r), strength.is_null(r), signal.is_null(r), resolved.is_null(r), confidence.is_null(r)]
                .into_iter()
                .chain([visible.is_null(r), bots.is_null(r), details.is_null(r), notes.is_null(r), rule.is_null(r)])
                .any(|null| null)
            {
                return Err(at("a column that is never empty is empty"));
            }
            if STATUSES.get(status.value(r) as usize).is_none() || STRENGTHS.get(strength.value(r) as usize).is_none() || CONFIDENCES.get(confidence.value(r) as usize).is_none() {
                return Err(at("a status, strength or confidence this hindsight does not know"));
            }
            rows.keys.push((rank, order.value(r), seq));
            rows.evaluated_at.append_option(evaluated_at.is_valid(r).then(|| evaluated_at.value(r)));
            rows.outcome_status.append_value(status.value(r));
            rows.evidence_strength.append_value(strength.value(r));
            let signal = rows.name(signal.value(r));
            rows.human_check_signal.append_value(signal);
            rows.target_resolved.append_value(resolved.value(r));
            rows.confidence.append_value(confidence.value(r));
            rows.visible_non_bot_actor_count.append_value(visible.value(r));
            rows.bot_actor_count.append_value(bots.value(r));
            rows.time_to_outcome_hours.append_option(tto.is_valid(r).then(|| tto.value(r)));
            rows.partial_score.append_option(partial.is_valid(r).then(|| partial.value(r)));
            rows.hold_details(details.value(r));
            rows.notes.append_value(notes.value(r));
            let rule = rows.name(rule.value(r));
            rows.rule_id.append_value(rule);
        }
        Ok(rows)
    }

    /// The rows sorted by run id, item index, window and position, the output's columns
    /// taken from `outputs` (where each row's position points).
    pub fn finish<O: Outputs + ?Sized>(self, outputs: &O) -> Result<RecordBatch, ArrowError> {
        Self::merge(vec![self], outputs)
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
    pub(crate) fn merge<O: Outputs + ?Sized>(parts: Vec<OutcomeRows>, outputs: &O) -> Result<RecordBatch, ArrowError> {
        let (keys, held) = Self::merge_keyed(parts)?;
        table_rows(outputs, &keys, &held)
    }

    /// The held rows of all parts sorted, with each row's sort key, in the rows' order.
    /// Sorts and gathers on rayon's threads.
    pub(crate) fn merge_keyed(parts: Vec<OutcomeRows>) -> Result<(Vec<RowKey>, RecordBatch), ArrowError> {
        use rayon::prelude::*;
        let (mut keys, batches) = Self::keyed(parts)?;
        if batches.is_empty() {
            return Ok((Vec::new(), RecordBatch::new_empty(held_schema())));
        }
        let mut offsets = Vec::with_capacity(batches.len());
        let mut offset = 0usize;
        for b in &batches {
            offsets.push(offset);
            offset += b.num_rows();
        }
        keys.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let order = arrow::array::UInt64Array::from_iter_values(keys.iter().map(|(_, (part, row))| (offsets[*part] + row) as u64));
        let keys: Vec<RowKey> = keys.into_iter().map(|(k, _)| k).collect();
        // One gather per column, the columns side by side: an interleave across many parts
        // was the slowest step at a million outputs.
        let schema = held_schema();
        let columns: Vec<ArrayRef> = (0..schema.fields().len())
            .into_par_iter()
            .map(|c| -> Result<ArrayRef, ArrowError> {
                let pieces: Vec<&dyn Array> = batches.iter().map(|b| b.column(c).as_ref()).collect();
                let whole = arrow::compute::concat(&pieces)?;
                arrow::compute::take(whole.as_ref(), &order, None)
            })
            .collect::<Result<_, _>>()?;
        drop(batches);
        Ok((keys, RecordBatch::try_new(schema, columns)?))
    }

    /// Every held row's key with where it is (part, row), sorted by key (keys are unique), and
    /// the parts as batches: nothing copied, on the calling thread alone (a spill thread, which
    /// a pool thread may be waiting for: with one thread in rayon's pool, handing it work would
    /// never end).
    pub(crate) fn sorted_here(parts: Vec<OutcomeRows>) -> Result<(Vec<KeyedRow>, Vec<RecordBatch>), ArrowError> {
        let (mut keys, batches) = Self::keyed(parts)?;
        keys.sort_unstable_by_key(|k| k.0);
        Ok((keys, batches))
    }

    /// The parts as batches, and each row's key with its (part, row), in no order.
    fn keyed(parts: Vec<OutcomeRows>) -> Result<(Vec<KeyedRow>, Vec<RecordBatch>), ArrowError> {
        let mut keys = Vec::with_capacity(parts.iter().map(OutcomeRows::len).sum());
        let mut batches = Vec::with_capacity(parts.len());
        for mut part in parts.into_iter().filter(|p| !p.is_empty()) {
            let at = batches.len();
            keys.extend(std::mem::take(&mut part.keys).into_iter().enumerate().map(|(r, k)| (k, (at, r))));
            batches.push(part.batch()?);
        }
        Ok((keys, batches))
    }

    /// Bytes the rows hold in memory, roughly: their text plus a fixed share per row for
    /// the numbers, offsets and key.
    pub(crate) fn bytes(&self) -> usize {
        self.details.values_slice().len() + self.notes.values_slice().len() + self.keys.len() * 96
    }

    fn batch(&mut self) -> Result<RecordBatch, ArrowError> {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(self.evaluated_at.finish()),
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
            Arc::new(self.details_name.finish()),
        ];
        RecordBatch::try_new(held_schema(), cols)
    }
}

/// The columns of outcome rows as a cluster's executor hands them to the client: the
/// output named by its id and the window by its order (the row's sort key in words, not
/// positions or numbers of the executor's process), then the held columns, the names in
/// full.
const WIRE: &[(&str, DataType)] = &[
    ("position", DataType::UInt64),
    ("window_order", DataType::Int64),
    ("evaluated_at", DataType::Int64),
    ("outcome_status", DataType::UInt8),
    ("evidence_strength", DataType::UInt8),
    ("human_check_signal", DataType::Utf8),
    ("target_resolved", DataType::Boolean),
    ("confidence", DataType::UInt8),
    ("visible_non_bot_actor_count", DataType::UInt32),
    ("bot_actor_count", DataType::UInt32),
    ("time_to_outcome_hours", DataType::Float64),
    ("partial_score", DataType::Float64),
    ("details", DataType::Utf8),
    ("notes", DataType::Utf8),
    ("rule_id", DataType::Utf8),
];

pub(crate) fn wire_schema() -> SchemaRef {
    Arc::new(Schema::new(WIRE.iter().map(|(n, t)| Field::new(*n, t.clone(), true)).collect::<Vec<_>>()))
}

/// Rows judged on a cluster's executor in the form it hands them to the client (`WIRE`),
/// sorted as the table is: each keyed by its output's position in `safe_outputs` (the
/// client's table is the same file), names and details in words.
pub(crate) fn to_wire(parts: Vec<OutcomeRows>) -> Result<RecordBatch, ArrowError> {
    let (keys, held) = OutcomeRows::merge_keyed(parts)?;
    let positions = arrow::array::UInt64Array::from_iter_values(keys.iter().map(|k| k.2 as u64));
    let orders = Int64Array::from_iter_values(keys.iter().map(|k| k.1));
    // The table's verdict columns give the names and details in full.
    let table = verdict_columns(&held)?;
    let named = |c: usize| table[c].clone();
    let held_col = |c: usize| held.column(c).clone();
    RecordBatch::try_new(
        wire_schema(),
        vec![
            Arc::new(positions),
            Arc::new(orders),
            held_col(0),
            held_col(1),
            held_col(2),
            named(3),
            held_col(4),
            held_col(5),
            held_col(6),
            held_col(7),
            held_col(8),
            held_col(9),
            named(10),
            held_col(11),
            named(12),
        ],
    )
}

/// Rows of the table from held rows (sorted, `keys` giving each one's output and window):
/// the output's and the window's columns filled in, numbers turned back into words.
pub(crate) fn table_rows<O: Outputs + ?Sized>(outputs: &O, keys: &[RowKey], held: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    let n = keys.len();
    if held.num_rows() != n || held.num_columns() != HELD.len() {
        return Err(ArrowError::InvalidArgumentError(format!("{} held rows of {} columns for {n} keys", held.num_rows(), held.num_columns())));
    }
    // The output's and window's columns beside the verdict's: two passes side by side.
    let (own, verdict) = rayon::join(|| own_columns(outputs, keys), || verdict_columns(held));
    RecordBatch::try_new(schema(), own?.into_iter().chain(verdict?).collect())
}

/// The columns repeating the output and the window, in the table's order.
fn own_columns<O: Outputs + ?Sized>(outputs: &O, keys: &[RowKey]) -> Result<Vec<ArrayRef>, ArrowError> {
    let n = keys.len();
    let mut safe_output_id = StringBuilder::with_capacity(n, n * 16);
    let mut run_id = StringBuilder::with_capacity(n, n * 16);
    let mut item_index = Int64Builder::with_capacity(n);
    let mut workflow_name = StringBuilder::with_capacity(n, n * 16);
    let mut output_type = StringBuilder::with_capacity(n, n * 16);
    let mut target_repo = StringBuilder::with_capacity(n, n * 16);
    let mut target_kind = StringBuilder::with_capacity(n, n * 8);
    let mut target_number = Int64Builder::with_capacity(n);
    let mut created_at = TimestampMicrosecondBuilder::with_capacity(n);
    let mut eval_window = StringBuilder::with_capacity(n, n * 4);
    let mut window_order = Int64Builder::with_capacity(n);
    let mut window_hours = Int64Builder::with_capacity(n);
    // A study has a handful of windows: each one's name made once.
    let mut window_names: Vec<(i64, String)> = Vec::new();
    // An output's rows are next to each other (one per window): its fields are looked up
    // once for all of them.
    let mut last: Option<(usize, OutputFields)> = None;
    for &(_, order, seq) in keys {
        let o = match last {
            Some((s, o)) if s == seq => o,
            _ => {
                let o =
                    outputs.fields(seq).ok_or_else(|| ArrowError::InvalidArgumentError(format!("an outcome row points at output {seq}, past the outputs")))?;
                last = Some((seq, o));
                o
            }
        };
        safe_output_id.append_value(o.safe_output_id);
        run_id.append_value(o.run_id);
        item_index.append_value(o.item_index);
        workflow_name.append_option(o.workflow_name);
        output_type.append_value(o.output_type);
        target_repo.append_option(o.target_repo);
        target_kind.append_option(o.target_kind);
        target_number.append_option(o.target_number);
        created_at.append_option(o.created_at.map(|t| t.timestamp_micros()));
        let w = window_at(order);
        match window_names.iter().find(|(k, _)| *k == order) {
            Some((_, name)) => eval_window.append_value(name),
            None => {
                let name = w.to_string();
                eval_window.append_value(&name);
                window_names.push((order, name));
            }
        }
        window_order.append_value(order);
        window_hours.append_option(w.hours());
    }
    let tz = |b: TimestampMicrosecondArray| -> ArrayRef { Arc::new(b.with_timezone("UTC")) };
    Ok(vec![
        Arc::new(safe_output_id.finish()),
        Arc::new(run_id.finish()),
        Arc::new(item_index.finish()),
        Arc::new(workflow_name.finish()),
        Arc::new(output_type.finish()),
        Arc::new(target_repo.finish()),
        Arc::new(target_kind.finish()),
        Arc::new(target_number.finish()),
        tz(created_at.finish()),
        Arc::new(eval_window.finish()),
        Arc::new(window_order.finish()),
        Arc::new(window_hours.finish()),
    ])
}

/// The verdict's columns, in the table's order: numbers turned back into words.
fn verdict_columns(held: &RecordBatch) -> Result<Vec<ArrayRef>, ArrowError> {
    let n = held.num_rows();
    let words = |c: usize, word: &dyn Fn(u8) -> Option<&'static str>| -> Result<ArrayRef, ArrowError> {
        let mut b = StringBuilder::with_capacity(n, n * 8);
        for v in held.column(c).as_primitive::<UInt8Type>().values() {
            b.append_value(word(*v).ok_or_else(|| ArrowError::InvalidArgumentError(format!("`{}` held as {v}, not one of its values", HELD[c].0)))?);
        }
        Ok(Arc::new(b.finish()))
    };
    let named = named();
    // The name held as `v` in a column (`what` names it in the error).
    let name_of = |what: &str, v: u32| -> Result<&str, ArrowError> {
        named.get(v as usize).map(|s| s.as_ref()).ok_or_else(|| ArrowError::InvalidArgumentError(format!("`{what}` held as {v}, a number never given")))
    };
    let names = |c: usize| -> Result<ArrayRef, ArrowError> {
        let mut b = StringBuilder::with_capacity(n, n * 24);
        for v in held.column(c).as_primitive::<UInt32Type>().values() {
            b.append_value(name_of(HELD[c].0, *v)?);
        }
        Ok(Arc::new(b.finish()))
    };
    let evaluated = held.column(0).as_primitive::<Int64Type>();
    let evaluated_at = TimestampMicrosecondArray::new(evaluated.values().clone(), evaluated.nulls().cloned()).with_timezone("UTC");
    // Counts held in 32 bits, 64 in the table. Built from the values: `compute::cast` gives
    // equal values, but the table's bytes changed with it (bench/identity.sh).
    let wide =
        |c: usize| -> ArrayRef { Arc::new(Int64Array::from_iter_values(held.column(c).as_primitive::<UInt32Type>().values().iter().map(|v| i64::from(*v)))) };
    // Details given a number are that name; the others are their text.
    let details = {
        let (text, name) = (held.column(10).as_string::<i32>(), held.column(HELD_IN_TABLE).as_primitive::<UInt32Type>());
        let mut b = StringBuilder::with_capacity(n, text.values().len() + n * 16);
        for r in 0..n {
            match name.is_valid(r) {
                true => b.append_value(name_of("details", name.value(r))?),
                false => b.append_option(text.is_valid(r).then(|| text.value(r))),
            }
        }
        Arc::new(b.finish())
    };
    Ok(vec![
        Arc::new(evaluated_at),
        words(1, &|v| STATUSES.get(v as usize).map(|s| s.as_str()))?,
        words(2, &|v| STRENGTHS.get(v as usize).map(|s| s.as_str()))?,
        names(3)?,
        held.column(4).clone(),
        words(5, &|v| CONFIDENCES.get(v as usize).map(|s| s.as_str()))?,
        wide(6),
        wide(7),
        held.column(8).clone(),
        held.column(9).clone(),
        details,
        held.column(11).clone(),
        names(12)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_columns_are_the_tables_verdict_columns_in_order() {
        // `verdict_columns` turns held column c into the table's column 12 + c.
        let table: Vec<&str> = COLUMNS[COLUMNS.len() - HELD_IN_TABLE..].iter().map(|(n, _)| *n).collect();
        assert_eq!(HELD[..HELD_IN_TABLE].iter().map(|(n, _)| *n).collect::<Vec<_>>(), table);
        assert_eq!(COLUMNS[COLUMNS.len() - HELD_IN_TABLE].0, "evaluated_at");
        assert_eq!(HELD[HELD_IN_TABLE..].iter().map(|(n, _)| *n).collect::<Vec<_>>(), ["details_name"]);
    }

    #[test]
    fn held_codes_decode_to_what_was_held() {
        for s in STATUSES {
            assert_eq!(STATUSES[s as usize], s);
        }
        for s in STRENGTHS {
            assert_eq!(STRENGTHS[s as usize], s);
        }
        for c in CONFIDENCES {
            assert_eq!(CONFIDENCES[c as usize], c);
        }
        for &w in crate::evaluate::window::DEFAULT {
            assert_eq!(window_at(window_order(w)), w);
        }
        let (a, b) = (name_id("pull_request_merged"), name_id("create_issue/closed_completed"));
        assert_ne!(a, b);
        assert_eq!(name_id("pull_request_merged"), a);
        assert_eq!(named()[b as usize].as_ref(), "create_issue/closed_completed");
    }
}
