//! Where a dataset is: a folder on this machine, or a prefix in an S3-compatible object
//! store (`s3://bucket/prefix`: AWS S3, MinIO, Ceph, Cloudflare R2 ...), read by `sql`,
//! `report` and `check`.
//!
//! An object store's dataset is not pinned the way a folder's is (`dataset::pin`): there
//! are no hard links to take, and none are needed, because a table's object is written
//! once and never replaced in place, and `manifest.json` is the object a writer switches
//! last ([`upload`]: each version's objects under a prefix of their own, which the manifest
//! names). A session reads the manifest once and then only the tables it lists.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::ObjectStoreExt;

use crate::dataset::manifest::Manifest;
use crate::error::{Error, Result};

/// A dataset's place, as `--dataset` gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatasetLocation {
    /// A folder on this machine (or on a filesystem it mounts).
    Local(PathBuf),
    /// A prefix in an S3-compatible object store.
    ObjectStore(ObjectUrl),
}

impl From<&Path> for DatasetLocation {
    fn from(p: &Path) -> Self {
        DatasetLocation::Local(p.to_path_buf())
    }
}

impl From<PathBuf> for DatasetLocation {
    fn from(p: PathBuf) -> Self {
        DatasetLocation::Local(p)
    }
}

impl std::fmt::Display for DatasetLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatasetLocation::Local(p) => write!(f, "{}", p.display()),
            DatasetLocation::ObjectStore(u) => write!(f, "{u}"),
        }
    }
}

/// Whether `given` is written as a URL (`s3://...`, `gs://...`) rather than a path.
pub fn is_url(given: &Path) -> bool {
    let s = given.to_string_lossy();
    s.split_once("://").is_some_and(|(scheme, _)| !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-'))
}

impl DatasetLocation {
    /// `--dataset` as given: an `s3://` URL, or a path.
    pub fn parse(given: &Path) -> Result<DatasetLocation> {
        if !is_url(given) {
            return Ok(DatasetLocation::Local(given.to_path_buf()));
        }
        ObjectUrl::parse(&given.to_string_lossy()).map(DatasetLocation::ObjectStore)
    }

    /// The folder, for a dataset on this machine.
    pub fn local(&self) -> Option<&Path> {
        match self {
            DatasetLocation::Local(p) => Some(p),
            DatasetLocation::ObjectStore(_) => None,
        }
    }

    /// The dataset's manifest, checked as [`Manifest::load`] checks it.
    pub fn manifest(&self) -> Result<Manifest> {
        match self {
            DatasetLocation::Local(p) => Ok(Manifest::load(p)?),
            DatasetLocation::ObjectStore(u) => {
                runtime(u, "reader")?.block_on(read_manifest(&*u.store()?, u))
            }
        }
    }
}

/// `s3://bucket/prefix`: a dataset's objects are `prefix/manifest.json` and
/// `prefix/<table>.parquet` in `bucket`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectUrl {
    bucket: String,
    /// Without a `/` at either end; empty: the bucket's top.
    prefix: String,
}

impl std::fmt::Display for ObjectUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.prefix.is_empty() {
            true => write!(f, "s3://{}", self.bucket),
            false => write!(f, "s3://{}/{}", self.bucket, self.prefix),
        }
    }
}

impl ObjectUrl {
    /// `s3://bucket/prefix`. The prefix keeps to letters, digits, `.`, `_`, `-` and `/`, so a
    /// table's URL reads the same to the object store and to the SQL engine (no escaping).
    pub fn parse(url: &str) -> Result<ObjectUrl> {
        let bad = |why: &str| Error::usage(format!("--dataset `{}`: {why}", crate::text::printable(url)));
        let Some(rest) = url.strip_prefix("s3://") else {
            return Err(bad("hindsight reads a dataset in an object store from an S3-compatible one only: s3://BUCKET/PREFIX (AWS S3, MinIO, Ceph, R2 ...)"));
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = bucket.len() >= 3 && bucket.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
        if !bucket_ok {
            return Err(bad("the bucket's name is 3 or more lowercase letters, digits, `.` and `-`"));
        }
        let prefix = prefix.trim_end_matches('/');
        if !prefix.is_empty() && !crate::dataset::manifest::is_relative_folder(prefix) {
            return Err(bad("the prefix is names of letters, digits, `.`, `_` and `-` between single `/`s"));
        }
        Ok(ObjectUrl { bucket: bucket.to_string(), prefix: prefix.to_string() })
    }

    /// The URL the SQL engine reaches the bucket by (the object store is registered under it).
    pub(crate) fn bucket_url(&self) -> String {
        format!("s3://{}", self.bucket)
    }

    /// An object of the dataset, by its file name (`manifest.json`, `outcomes.parquet`).
    fn key(&self, file: &str) -> object_store::path::Path {
        match self.prefix.is_empty() {
            true => object_store::path::Path::from(file),
            false => object_store::path::Path::from(format!("{}/{file}", self.prefix)),
        }
    }

    /// The URL of an object of the dataset.
    pub(crate) fn object(&self, file: &str) -> String {
        format!("{self}/{file}")
    }

    /// The bucket's store, configured from the standard AWS environment variables
    /// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
    /// `AWS_ALLOW_HTTP` ...). Credentials stay in the store: no message says them.
    pub(crate) fn store(&self) -> Result<Arc<AmazonS3>> {
        // A few retries over half a minute: a server that does not answer is said soon, not
        // after the library's default three minutes.
        let retry = object_store::RetryConfig { max_retries: 3, retry_timeout: std::time::Duration::from_secs(30), ..Default::default() };
        let store = AmazonS3Builder::from_env().with_bucket_name(&self.bucket).with_retry(retry).build();
        store.map(Arc::new).map_err(|e| Error::remote(self.to_string(), format!("cannot be opened: {}", said(&e))))
    }
}

/// A table's or file's name as the dataset's manifest places it: under its version's prefix
/// (`versions/ID/outcomes.parquet`), or beside the manifest.
pub(crate) fn in_version(m: &Manifest, file: &str) -> String {
    match &m.tables_under {
        Some(under) => format!("{under}/{file}"),
        None => file.to_string(),
    }
}

/// The dataset in the folder `dir` (as `run` writes it) written to `url`: its tables and
/// files under a prefix of their own, `versions/ID` (ID from the manifest, so the same
/// dataset written again goes to the same objects), then `manifest.json`, naming that
/// prefix, last. A reader opens the manifest that was there or the new one, never a mix of
/// versions; an upload stopped midway leaves the old manifest, and the objects of a version
/// no manifest names are never read (the older versions' objects stay until removed by
/// hand). Returns the version's prefix.
pub fn upload(dir: &Path, url: &ObjectUrl) -> Result<String> {
    let mut manifest = Manifest::load(dir)?;
    let text = std::fs::read(dir.join("manifest.json")).map_err(|e| Error::io(dir.join("manifest.json"), e))?;
    let under = format!("versions/{}", &crate::json::sha256_hex(&text)[..16]);
    let names: Vec<String> = manifest.tables.keys().map(|t| format!("{t}.parquet")).chain(manifest.files.keys().cloned()).collect();
    manifest.tables_under = Some(under.clone());
    let mut text = serde_json::to_string_pretty(&manifest)?;
    text.push('\n');
    let rt = runtime(url, "writer")?;
    let store = url.store()?;
    rt.block_on(async {
        for name in &names {
            put_file(&store, &dir.join(name), url, &format!("{under}/{name}")).await?;
        }
        let at = url.key("manifest.json");
        store.put(&at, text.into()).await.map_err(|e| Error::remote(url.object("manifest.json"), format!("cannot be written: {}", said(&e))))?;
        Ok(under)
    })
}

/// A runtime on this thread for the requests to `url` (its `role`, reader or writer, said
/// should it fail to start).
fn runtime(url: &ObjectUrl, role: &str) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::remote(url.to_string(), format!("cannot start its {role}: {e}")))
}

/// Bytes of a file read and sent at a time; a larger file goes up in parts of this size.
const PART: usize = 16 << 20;

/// The file at `path` written to the object `name` of `url`: in one request, or in parts,
/// four at a time, so a table of any size is held a few parts at a time.
async fn put_file(store: &AmazonS3, path: &Path, url: &ObjectUrl, name: &str) -> Result<()> {
    use std::io::Read;
    let said_as = |e: object_store::Error| Error::remote(url.object(name), format!("cannot be written: {}", said(&e)));
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if size <= PART as u64 {
        let mut bytes = Vec::with_capacity(size as usize);
        file.read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
        store.put(&url.key(name), bytes.into()).await.map_err(said_as)?;
        return Ok(());
    }
    let upload = store.put_multipart(&url.key(name)).await.map_err(said_as)?;
    let mut parts = object_store::WriteMultipart::new_with_chunk_size(upload, PART);
    let mut buf = vec![0u8; PART];
    loop {
        let n = file.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        parts.wait_for_capacity(4).await.map_err(said_as)?;
        parts.write(&buf[..n]);
    }
    parts.finish().await.map_err(said_as)?;
    Ok(())
}

/// The manifest at `url`, through `store`.
pub(crate) async fn read_manifest(store: &AmazonS3, url: &ObjectUrl) -> Result<Manifest> {
    let at = url.object("manifest.json");
    let got = match store.get(&url.key("manifest.json")).await {
        Ok(got) => got.bytes().await,
        Err(e) => Err(e),
    };
    let bytes = got.map_err(|e| match e {
        object_store::Error::NotFound { .. } => {
            Error::remote(at.clone(), "not found: is this a hindsight dataset? (no manifest.json under this prefix; `hindsight run` writes one)")
        }
        e => Error::remote(at.clone(), format!("cannot be read: {}", said(&e))),
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|_| Error::remote(at.clone(), "not a hindsight manifest: not UTF-8 text"))?;
    Ok(Manifest::parse(text, Path::new(&at))?)
}

/// An object store's error in one line, with what it says of the server it could not
/// reach. Its text names URLs and statuses, never the credentials it signed with.
fn said(e: &object_store::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    if text.contains("error sending request") || text.contains("Connection refused") || text.contains("dns error") {
        return format!("cannot reach the object store's endpoint (AWS_ENDPOINT_URL, else AWS's for AWS_REGION): {text}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_s3_url_is_a_bucket_and_a_plain_prefix() {
        let u = ObjectUrl::parse("s3://studies/2026-02/hindsight-out/").unwrap();
        assert_eq!(u.to_string(), "s3://studies/2026-02/hindsight-out");
        assert_eq!(u.key("manifest.json").as_ref(), "2026-02/hindsight-out/manifest.json");
        assert_eq!(u.object("outcomes.parquet"), "s3://studies/2026-02/hindsight-out/outcomes.parquet");
        let top = ObjectUrl::parse("s3://studies").unwrap();
        assert_eq!((top.to_string(), top.key("manifest.json").as_ref().to_string()), ("s3://studies".into(), "manifest.json".into()));
        for bad in ["s3://ab/x", "s3://Studies/x", "s3://studies/a//b", "s3://studies/../x", "s3://studies/a b", "gs://studies/x", "s3://"] {
            assert!(ObjectUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_url_is_told_from_a_path() {
        for url in ["s3://b/p", "gs://b", "https://host/x"] {
            assert!(is_url(Path::new(url)), "{url}");
        }
        for path in ["hindsight-out", "/data/s3:/x", "./s3", "://x", "dir/s3://x"] {
            assert!(!is_url(Path::new(path)), "{path}");
        }
        assert_eq!(DatasetLocation::parse(Path::new("ds")).unwrap(), DatasetLocation::Local("ds".into()));
    }
}
