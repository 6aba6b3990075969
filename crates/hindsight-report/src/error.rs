//! The SQL layer's errors: the layer below's, or a query's. DataFusion's error stays in this
//! crate, so the crates below never depend on the SQL engine.

use std::path::PathBuf;

use datafusion::error::DataFusionError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing the dataset, a usage error, anything the layer below reports.
    #[error(transparent)]
    Core(#[from] hindsight_core::Error),
    /// Said in one line: DataFusion's errors repeat their causes in their own text.
    /// (Not its `source`: that would say it twice.)
    #[error("query: {}", query_message(.0))]
    Query(DataFusionError),
    /// A dataset in an object store, named by its URL (`s3://bucket/prefix/manifest.json`).
    #[error("{url}: {message}")]
    Remote { url: String, message: String },
}

impl From<DataFusionError> for Error {
    fn from(e: DataFusionError) -> Self {
        Error::Query(e)
    }
}

fn query_message(e: &DataFusionError) -> String {
    match e {
        DataFusionError::SQL(p, _) => p.to_string(),
        e => e.strip_backtrace(),
    }
}

/// The layer below's own conversions (Arrow, Parquet, JSON), said as it says them.
macro_rules! through_core {
    ($($from:ty),*) => {$(
        impl From<$from> for Error {
            fn from(e: $from) -> Self {
                Error::Core(e.into())
            }
        }
    )*};
}
through_core!(arrow::error::ArrowError, parquet::errors::ParquetError, serde_json::Error);

impl Error {
    /// A usage error: what was asked cannot be done as asked.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Core(hindsight_core::Error::Usage(message.into()))
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Core(hindsight_core::Error::io(path, source))
    }

    pub fn dataset(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error::Core(hindsight_core::Error::Dataset { path: path.into(), message: message.into() })
    }

    /// A dataset in an object store, or one of its objects, and what went wrong there.
    pub fn remote(url: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Remote { url: url.into(), message: message.into() }
    }

    /// What hindsight was doing when `source` failed, said before it.
    pub fn while_doing(doing: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Error::Core(hindsight_core::Error::While { doing: doing.into(), source: source.into() })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Down to the layer below's error, for a stage that runs on the cluster (`pipeline`): a
/// query's error keeps its one-line text.
impl From<Error> for hindsight_core::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Core(e) => e,
            Error::Query(q) => hindsight_core::Error::Query(query_message(&q)),
            Error::Remote { url, message } => hindsight_core::Error::Dataset { path: url.into(), message },
        }
    }
}
