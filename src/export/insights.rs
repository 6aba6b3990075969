//! `hindsight export --insights FILE`: the `insights` table as JSON Lines, one insight a
//! line with its keys sorted, the shape an agent platform's memory loads (docs/TASKS.md,
//! "The feedback loop"). The file is written beside FILE and renamed over it when complete.

use std::path::Path;

use serde_json::{Map, Value};

use crate::dataset::read::{self, Cols};
use crate::{Error, Result};

/// The columns each line carries (`tokens` and `similarity` are the dataset's working).
const KEYS: [&str; 11] =
    ["insight_id", "task_id", "repo", "insight_type", "timestamp", "text", "source", "prompt_version", "prompt_section", "failure_category", "repeats_insight_id"];

/// Write the dataset's insights to `file` (replaced only with `force`); the lines written.
pub fn insights(dataset: &Path, file: &Path, force: bool) -> Result<u64> {
    super::check_target("insights", file, dataset, force)?;
    if !dataset.join("insights.parquet").is_file() {
        return Err(Error::dataset(dataset, "has no insights table: convert with --tasks to read task records and their events".to_string()));
    }
    let mut text = Vec::new();
    let mut lines = 0;
    for batch in read::columns(dataset, "insights", &KEYS)? {
        let c = Cols::new("insights", &batch);
        let times = c.time("timestamp")?;
        let columns: Vec<Vec<Option<String>>> = KEYS.iter().map(|k| if *k == "timestamp" { Ok(Vec::new()) } else { c.str(k) }).collect::<hindsight_core::Result<_>>()?;
        for row in 0..batch.num_rows() {
            let mut line = Map::new();
            for (k, col) in KEYS.iter().zip(&columns) {
                let v = if *k == "timestamp" { times[row].map(|t| crate::time::format(&t)) } else { col[row].clone() };
                line.insert((*k).to_string(), v.map_or(Value::Null, Value::String));
            }
            serde_json::to_writer(&mut text, &Value::Object(line)).map_err(|e| Error::io(file, e.into()))?;
            text.push(b'\n');
            lines += 1;
        }
    }
    super::write_whole(file, &text)?;
    Ok(lines)
}
