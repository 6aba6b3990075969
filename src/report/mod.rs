//! Reporting: DataFusion SQL over the dataset's Parquet. Every table is registered under
//! its file name without `.parquet`. Queries live in `queries/*.sql`, one statement per
//! file, and are embedded in the binary so a report needs no source checkout.

pub mod check;
pub mod format;
pub mod html;

use std::path::Path;

use arrow::record_batch::RecordBatch;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

use crate::error::{Error, Result};

pub use format::Format;

/// The bundled queries, by name.
pub const QUERIES: &[(&str, &str)] = &[
    ("summary", include_str!("../../queries/summary.sql")),
    ("acceptance_by_window", include_str!("../../queries/acceptance_by_window.sql")),
    ("accepted_over_time", include_str!("../../queries/accepted_over_time.sql")),
    ("acceptance_by_type", include_str!("../../queries/acceptance_by_type.sql")),
    ("by_workflow", include_str!("../../queries/by_workflow.sql")),
    ("by_run", include_str!("../../queries/by_run.sql")),
    ("gh_aw_summary", include_str!("../../queries/gh_aw_summary.sql")),
];

/// The dashboard: every bundled query, in this order, with a title each. The JSON report is
/// an object with one array of rows per query name (see docs/REPORT.md).
pub const DASHBOARD: &[(&str, &str)] = &[
    ("summary", "Outcomes by window (seed 000 §12)"),
    ("acceptance_by_window", "Acceptance rates by window (seed 000 §9; denominator: evaluable outputs)"),
    ("accepted_over_time", "Accepted at 24h, at 7d, and durably at 30d (seed 000 §5)"),
    ("acceptance_by_type", "By safe-output type and window"),
    ("by_workflow", "By workflow and window"),
    ("by_run", "By run and window"),
    ("gh_aw_summary", "gh-aw's own summary, for comparison (mixes evidence strengths)"),
];

pub fn query_text(name_or_file: &str) -> Result<String> {
    if let Some((_, sql)) = QUERIES.iter().find(|(n, _)| *n == name_or_file) {
        return Ok(sql.to_string());
    }
    let p = Path::new(name_or_file);
    if p.extension().is_some_and(|e| e == "sql") {
        return std::fs::read_to_string(p).map_err(|e| Error::io(p, e));
    }
    let names: Vec<&str> = QUERIES.iter().map(|(n, _)| *n).collect();
    Err(Error::Usage(format!("no query `{name_or_file}`: give a .sql file or one of {}", names.join(", "))))
}

/// A query session over one dataset directory.
pub struct Session {
    rt: tokio::runtime::Runtime,
    ctx: SessionContext,
}

impl Session {
    pub fn open(dataset: &Path) -> Result<Session> {
        // Workers run whole queries side by side (the dashboard's); within a query one
        // partition keeps result order and float sums independent of the core count.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(rayon::current_num_threads().max(1))
            .enable_all()
            .build()
            .map_err(|e| Error::io(dataset, e))?;
        let cfg = SessionConfig::new().with_target_partitions(1);
        let ctx = SessionContext::new_with_config(cfg);
        let mut entries: Vec<_> = std::fs::read_dir(dataset)
            .map_err(|e| Error::io(dataset, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect();
        entries.sort();
        if entries.is_empty() {
            return Err(Error::Dataset {
                path: dataset.to_path_buf(),
                message: "no .parquet tables: is this a hindsight dataset? (run `hindsight convert` first)".into(),
            });
        }
        for p in entries {
            let name = p.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let path = p.to_string_lossy().to_string();
            rt.block_on(ctx.register_parquet(name.as_str(), path.as_str(), ParquetReadOptions::default()))?;
        }
        Ok(Session { rt, ctx })
    }

    pub fn sql(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        let statements = strip_comments(sql).split(';').filter(|s| !s.trim().is_empty()).count();
        if statements > 1 {
            return Err(Error::Usage("one SQL statement at a time".into()));
        }
        self.rt
            .block_on(async {
                let df = self.ctx.sql(sql).await?;
                df.collect().await
            })
            .map_err(Error::from)
    }

    /// Several statements at once, results in the order given.
    pub fn sql_all(&self, sqls: &[String]) -> Result<Vec<Vec<RecordBatch>>> {
        self.rt.block_on(async {
            let tasks: Vec<_> = sqls
                .iter()
                .map(|sql| {
                    let ctx = self.ctx.clone();
                    let sql = sql.clone();
                    tokio::spawn(async move { ctx.sql(&sql).await?.collect().await })
                })
                .collect();
            let mut out = Vec::with_capacity(tasks.len());
            for t in tasks {
                let batches = t.await.map_err(|e| Error::Usage(format!("a dashboard query stopped: {e}")))??;
                out.push(batches);
            }
            Ok(out)
        })
    }

    pub fn has_table(&self, name: &str) -> bool {
        self.ctx.table_exist(name).unwrap_or(false)
    }
}

fn strip_comments(s: &str) -> String {
    s.lines().filter(|l| !l.trim_start().starts_with("--")).collect::<Vec<_>>().join("\n")
}

/// The whole dashboard, formatted.
pub fn dashboard(dataset: &Path, fmt: Format) -> Result<String> {
    let session = Session::open(dataset)?;
    if !session.has_table("outcomes") {
        return Err(Error::Dataset { path: dataset.to_path_buf(), message: "no outcomes table: run `hindsight evaluate` first".into() });
    }
    let sqls: Vec<String> = DASHBOARD.iter().map(|(name, _)| query_text(name)).collect::<Result<_>>()?;
    let results = session.sql_all(&sqls)?;
    let sections: Vec<_> = DASHBOARD.iter().zip(results).map(|((name, title), batches)| (*name, *title, batches)).collect();
    format::sections(&sections, fmt)
}
