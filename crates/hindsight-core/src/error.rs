//! Library errors. Each variant carries where the problem is (file, line, record) so a
//! researcher can open the offending input directly.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Input { path: PathBuf, line: usize, message: String },
    #[error("{path}: not a directory of the expected layout: {message}")]
    Layout { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Dataset { path: PathBuf, message: String },
    #[error("policy {path}: {message}")]
    Policy { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
    #[error("arrow: {0}")]
    Arrow(#[from] arrow::error::ArrowError),
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// A query's error from the SQL layer above, said in its one line (the layer above keeps
    /// DataFusion's error itself; this crate does not depend on it).
    #[error("query: {0}")]
    Query(String),
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// What hindsight was doing when `source` failed (`reading FILE`, `writing manual pages
    /// into DIR`), said before it.
    #[error("{doing}")]
    While {
        doing: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// What a joined thread answered: its own result, or, when it panicked, `message` about
    /// the file it was working on.
    pub fn joined<T>(answer: std::thread::Result<Result<T>>, path: impl Into<PathBuf>, message: &str) -> Result<T> {
        answer.unwrap_or_else(|_| Err(Error::Dataset { path: path.into(), message: message.into() }))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
