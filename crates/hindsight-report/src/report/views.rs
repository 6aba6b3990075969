//! `hindsight views`: the statements that register every table of a dataset in another SQL
//! engine, then hindsight's functions the queries call (as DuckDB macros), and then the views
//! the bundled queries read ([`VIEWS`]), so the queries (which name tables and views, not
//! files) run there unchanged.
//!
//! Paths are written as `--dataset` names them, joined with each table's file: a relative
//! dataset gives relative paths, which DuckDB and datafusion-cli resolve from the directory
//! they run in; `--absolute` writes absolute paths that work from anywhere.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The views the bundled queries read, by name: each defines, once, a fact several queries
/// count (docs/DATASET.md, "Views"); one `SELECT` a file. hindsight's session registers
/// them over the dataset's tables and [`definitions`] prints them for other engines.
pub const VIEWS: &[(&str, &str)] = &[
    ("output_flags", include_str!("../../../../queries/views/output_flags.sql")),
    ("pr_memory_figures", include_str!("../../../../queries/views/pr_memory_figures.sql")),
    ("pr_decisions", include_str!("../../../../queries/views/pr_decisions.sql")),
];

/// The statement defining a view of [`VIEWS`] on one line, its comments left out; the same
/// in DuckDB, DataFusion and hindsight's session (`CREATE OR REPLACE VIEW` is in all three).
pub(crate) fn create_view(name: &str, sql: &str) -> String {
    let body: Vec<&str> = sql.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("--")).collect();
    format!("CREATE OR REPLACE VIEW \"{}\" AS {};", name.replace('"', "\"\""), body.join(" "))
}

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
/// The views follow them ([`definitions`]).
pub fn tables(dataset: &Path, dialect: Dialect, absolute: bool) -> Result<String> {
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
        let path = file.to_str().ok_or_else(|| Error::usage(format!("{}: not UTF-8, which SQL cannot name", file.display())))?;
        let (ident, lit) = (format!("\"{}\"", name.replace('"', "\"\"")), format!("'{}'", path.replace('\'', "''")));
        out.push_str(&match dialect {
            Dialect::Duckdb => format!("CREATE OR REPLACE VIEW {ident} AS SELECT * FROM read_parquet({lit});\n"),
            Dialect::Datafusion => format!("CREATE EXTERNAL TABLE IF NOT EXISTS {ident} STORED AS PARQUET LOCATION {lit};\n"),
        });
    }
    Ok(out)
}

/// The statements defining hindsight's SQL functions the bundled queries call
/// (`wilson_low`, `wilson_high`: [`super::wilson`]) where `dialect` can define them, then
/// `defined`, the views of [`VIEWS`] hindsight has on a dataset (a view over a table or column
/// an older dataset lacks is left out, as in hindsight's own session), one a line after a
/// comment each; no view statements when there is none.
pub fn definitions(dialect: Dialect, defined: &[(&str, &str)]) -> String {
    let mut out = String::new();
    match dialect {
        Dialect::Duckdb => {
            out.push_str("-- hindsight's functions the bundled queries call, as DuckDB macros: the 95% Wilson score interval of k of n (docs/REPORT.md).\n");
            out.push_str(&super::wilson::duckdb_macros());
        }
        // datafusion-cli has no `CREATE FUNCTION` (DataFusion leaves it to the application).
        Dialect::Datafusion => out.push_str(
            "-- The queries with rate intervals call hindsight's functions wilson_low(k, n) and wilson_high(k, n) (docs/REPORT.md), which datafusion-cli cannot define; a DataFusion SessionContext registers them with hindsight::report::wilson::register.\n",
        ),
    }
    if !defined.is_empty() {
        out.push_str("-- The views the bundled queries read, as hindsight defines them (docs/DATASET.md, Views).\n");
    }
    for (name, sql) in defined {
        out.push_str(&create_view(name, sql));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view's file is one statement whose comments are whole lines: on one line, with the
    /// comments left out, it is the same statement.
    #[test]
    fn each_view_is_one_statement_with_whole_line_comments() {
        for (name, sql) in VIEWS {
            let code: Vec<&str> = sql.lines().filter(|l| !l.trim_start().starts_with("--")).collect();
            assert!(code.iter().all(|l| !l.contains("--") && !l.contains(';')), "{name}: a comment or `;` inside the statement");
            assert!(code.first().is_some_and(|l| l.starts_with("SELECT")), "{name}: not a SELECT");
            let one = create_view(name, sql);
            assert!(one.starts_with(&format!("CREATE OR REPLACE VIEW \"{name}\" AS SELECT ")) && !one.contains('\n'), "{one}");
        }
    }
}
