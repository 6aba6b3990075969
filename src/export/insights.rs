//! `hindsight export --insights FILE`: the `insights` table as JSON Lines, one insight a
//! line with its keys sorted, the shape an agent platform's memory loads (docs/TASKS.md,
//! "The feedback loop"). The file is written beside FILE and renamed over it when complete.

use std::io::Write;
use std::path::Path;

use serde_json::{Map, Value};

use crate::dataset::read::{self, Cols};
use crate::{Error, Result};

/// The columns each line carries (`tokens` and `similarity` are the dataset's working).
const KEYS: [&str; 11] =
    ["insight_id", "task_id", "repo", "insight_type", "timestamp", "text", "source", "prompt_version", "prompt_section", "failure_category", "repeats_insight_id"];

/// Write the dataset's insights to `file` (replaced only with `force`); the lines written.
pub fn insights(dataset: &Path, file: &Path, force: bool) -> Result<u64> {
    if let Some(why) = crate::output::unwritable(file, Some(dataset)) {
        return Err(Error::usage(format!("export --insights: {why}")));
    }
    if file.exists() && !force {
        return Err(Error::usage(format!("export --insights {}: already exists; --force replaces it", file.display())));
    }
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
    let tmp = file.with_file_name(format!(".{}.tmp", file.file_name().map_or("insights.jsonl".into(), |n| n.to_string_lossy())));
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(&text).and_then(|()| f.sync_all())).and_then(|()| std::fs::rename(&tmp, file));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(file, e));
    }
    Ok(lines)
}
