//! `hindsight views`: the statements that register every table of a dataset in another SQL
//! engine, so the bundled queries (which name tables, not files) run there unchanged.
//!
//! Paths are written as `--dataset` names them, joined with each table's file: a relative
//! dataset gives relative paths, which DuckDB and datafusion-cli resolve from the directory
//! they run in; `--absolute` writes absolute paths that work from anywhere.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The SQL engine the statements are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dialect {
    /// `CREATE OR REPLACE VIEW t AS SELECT * FROM read_parquet('...')`.
    Duckdb,
    /// `CREATE EXTERNAL TABLE IF NOT EXISTS t STORED AS PARQUET LOCATION '...'`
    /// (datafusion-cli, or a DataFusion `SessionContext`).
    Datafusion,
}

/// One statement a line, a table each, in name order, after a comment naming the dataset.
pub fn statements(dataset: &Path, dialect: Dialect, absolute: bool) -> Result<String> {
    let manifest = crate::dataset::manifest::Manifest::load(dataset)?;
    let dir: PathBuf = if absolute { std::fs::canonicalize(dataset).map_err(|e| Error::io(dataset, e))? } else { dataset.to_path_buf() };
    let mut out = format!(
        "-- The {} tables of the hindsight dataset {}; paths {}.\n",
        manifest.tables.len(),
        crate::text::printable(&dir.to_string_lossy()),
        if absolute { "absolute" } else { "as given to --dataset (relative ones resolve from where this runs)" }
    );
    if dialect == Dialect::Duckdb {
        // hindsight's times are UTC; DuckDB shows a TIMESTAMPTZ, and takes its parts
        // (EXTRACT, date_trunc), in the session's zone.
        out.push_str("SET TimeZone = 'UTC';\n");
    }
    for name in manifest.tables.keys() {
        let file = dir.join(format!("{name}.parquet"));
        let path = file.to_str().ok_or_else(|| Error::Usage(format!("{}: not UTF-8, which SQL cannot name", file.display())))?;
        let (ident, lit) = (format!("\"{}\"", name.replace('"', "\"\"")), format!("'{}'", path.replace('\'', "''")));
        out.push_str(&match dialect {
            Dialect::Duckdb => format!("CREATE OR REPLACE VIEW {ident} AS SELECT * FROM read_parquet({lit});\n"),
            Dialect::Datafusion => format!("CREATE EXTERNAL TABLE IF NOT EXISTS {ident} STORED AS PARQUET LOCATION {lit};\n"),
        });
    }
    Ok(out)
}
