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
use object_store::{ObjectStore, ObjectStoreExt};

use crate::dataset::manifest::{Manifest, TableEntry};
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
    /// Settings of the store given here, over the environment's ([`ObjectUrl::with`]).
    settings: Vec<(String, String)>,
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
        Ok(ObjectUrl { bucket: bucket.to_string(), prefix: prefix.to_string(), settings: Vec::new() })
    }

    /// The store's setting `key` (as its environment variable is named: `AWS_ENDPOINT_URL`)
    /// given here, over the environment's: for a program that reaches two stores, or one
    /// whose environment is not its own to set.
    pub fn with(mut self, key: &str, value: &str) -> ObjectUrl {
        self.settings.push((key.to_string(), value.to_string()));
        self
    }

    /// The prefix `under` this one (`versions/ID`): a folder of the dataset.
    pub fn under(&self, under: &str) -> ObjectUrl {
        let prefix = [self.prefix.as_str(), under].iter().filter(|p| !p.is_empty()).copied().collect::<Vec<_>>().join("/");
        ObjectUrl { prefix, ..self.clone() }
    }

    /// The objects' prefix, as the object store names it.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn prefix(&self) -> object_store::path::Path {
        object_store::path::Path::from(self.prefix.as_str())
    }

    /// The URL the SQL engine reaches the bucket by (the object store is registered under it).
    pub(crate) fn bucket_url(&self) -> String {
        format!("s3://{}", self.bucket)
    }

    /// An object of the dataset, by its file name (`manifest.json`, `outcomes.parquet`).
    pub(crate) fn key(&self, file: &str) -> object_store::path::Path {
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
        let mut builder = AmazonS3Builder::from_env();
        for (key, value) in &self.settings {
            let key = key.to_ascii_lowercase().parse().map_err(|_| Error::remote(self.to_string(), format!("has no setting {key}")))?;
            builder = builder.with_config(key, value);
        }
        let store = builder.with_bucket_name(&self.bucket).with_retry(retry).build();
        store.map(Arc::new).map_err(|e| Error::remote(self.to_string(), format!("cannot be opened: {}", said(&e))))
    }
}

/// The object stores of a cluster's processes (the client, the scheduler, each executor):
/// every `s3://BUCKET` a plan names, opened when it is first named, from this process's AWS
/// environment variables (each machine is set up on its own); every other URL as
/// DataFusion's own registry has it (files on this machine).
#[cfg(feature = "cluster")]
#[derive(Debug, Default)]
pub(crate) struct Buckets(datafusion::execution::object_store::DefaultObjectStoreRegistry);

#[cfg(feature = "cluster")]
impl datafusion::execution::object_store::ObjectStoreRegistry for Buckets {
    fn register_store(&self, url: &url::Url, store: Arc<dyn ObjectStore>) -> Option<Arc<dyn ObjectStore>> {
        self.0.register_store(url, store)
    }

    fn deregister_store(&self, url: &url::Url) -> datafusion::common::Result<Arc<dyn ObjectStore>> {
        self.0.deregister_store(url)
    }

    fn get_store(&self, url: &url::Url) -> datafusion::common::Result<Arc<dyn ObjectStore>> {
        match (self.0.get_store(url), url.scheme(), url.host_str()) {
            (Ok(store), _, _) => Ok(store),
            (Err(_), "s3", Some(bucket)) => {
                let opened = ObjectUrl::parse(&format!("s3://{bucket}")).and_then(|u| u.store());
                let store: Arc<dyn ObjectStore> = opened.map_err(|e| datafusion::common::DataFusionError::External(Box::new(e)))?;
                self.0.register_store(url, store.clone());
                Ok(store)
            }
            (Err(e), _, _) => Err(e),
        }
    }
}

/// A runtime environment for a cluster's process, its object stores [`Buckets`] (`temp`:
/// where it spills, when not the system's temporary folder).
#[cfg(feature = "cluster")]
pub(crate) fn cluster_runtime(buckets: Arc<Buckets>, temp: Option<&Path>) -> datafusion::common::Result<Arc<datafusion::execution::runtime_env::RuntimeEnv>> {
    let mut env = datafusion::execution::runtime_env::RuntimeEnvBuilder::new().with_object_store_registry(buckets);
    if let Some(temp) = temp {
        env = env.with_temp_file_path(temp);
    }
    env.build_arc()
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
    upload_version(dir, url, None)
}

/// [`upload`] of a dataset that was [`download`]ed from `url` and changed here (`evaluate`):
/// a table or file the change left as it was is copied inside the object store, not sent
/// again, and the manifest is switched only if it is still the one `base` read (a
/// conditional write, `If-Match`): two commands changing one dataset at once never lose
/// one's change to the other's without a word.
pub fn upload_over(dir: &Path, url: &ObjectUrl, base: &Downloaded) -> Result<String> {
    upload_version(dir, url, Some(base))
}

fn upload_version(dir: &Path, url: &ObjectUrl, base: Option<&Downloaded>) -> Result<String> {
    let mut manifest = Manifest::load(dir)?;
    let text = std::fs::read(dir.join("manifest.json")).map_err(|e| Error::io(dir.join("manifest.json"), e))?;
    let under = format!("versions/{}", &crate::json::sha256_hex(&text)[..16]);
    let objects = objects_of(&manifest);
    manifest.tables_under = Some(under.clone());
    let mut text = serde_json::to_string_pretty(&manifest)?;
    text.push('\n');
    let rt = runtime(url, "writer")?;
    let store = url.store()?;
    rt.block_on(async {
        for (name, entry) in &objects {
            let to = format!("{under}/{name}");
            match base.and_then(|b| b.unchanged(name, entry)) {
                Some(from) if from == to => {}
                Some(from) => {
                    let said_as = |e: object_store::Error| Error::remote(url.object(&to), format!("cannot be copied from {}: {}", url.object(&from), said(&e)));
                    store.copy(&url.key(&from), &url.key(&to)).await.map_err(said_as)?;
                }
                None => put_file(&store, &dir.join(name), url, &to).await?,
            }
        }
        let mode = match base {
            Some(b) => object_store::PutMode::Update(b.version.clone()),
            None => object_store::PutMode::Overwrite,
        };
        let at = url.object("manifest.json");
        store.put_opts(&url.key("manifest.json"), text.into(), mode.into()).await.map_err(|e| match e {
            object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. } => Error::remote(
                at.clone(),
                format!("changed while this command ran: another command switched the dataset to a version of its own. Nothing was switched (this command's tables are under {under}/, which no manifest names); run it again on the dataset as it is now"),
            ),
            object_store::Error::NotImplemented { .. } => Error::remote(at.clone(), format!("cannot be switched safely: this object store does not take conditional writes (If-Match): {}", said(&e))),
            e => Error::remote(at.clone(), format!("cannot be written: {}", said(&e))),
        })?;
        Ok(under)
    })
}

/// A dataset's objects other than its manifest: each table's and file's name, with what the
/// manifest says of its bytes.
fn objects_of(m: &Manifest) -> Vec<(String, TableEntry)> {
    let tables = m.tables.iter().map(|(t, e)| (format!("{t}.parquet"), e.clone()));
    tables.chain(m.files.iter().map(|(f, e)| (f.clone(), e.clone()))).collect()
}

/// A dataset in an object store, copied into a folder here by [`download`].
pub struct Downloaded {
    /// The manifest as the object store has it (`tables_under` naming the version copied).
    pub manifest: Manifest,
    /// The manifest object's version: the switch to a changed dataset is conditional on it.
    version: object_store::UpdateVersion,
}

/// A name no other run takes, for a temporary folder or prefix of `what`: the process and
/// the time, to the nanosecond (`what-PID-NANOS`), unique across the machines of a cluster.
pub fn fresh_name(what: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    format!("{what}-{}-{nanos}", std::process::id())
}

/// A dataset in an object store evaluated on a cluster whose executors share no folder with
/// this machine: they read its tables there, and the evaluation's staging is there too.
#[derive(Clone, Debug)]
pub struct OnCluster {
    /// Where the tables of the version copied here are.
    pub tables: ObjectUrl,
    /// A prefix of the evaluation's own (`staging/ID`): the plan, the bands' outputs and
    /// results, removed when the evaluation ends.
    pub staging: ObjectUrl,
}

impl Downloaded {
    /// The version copied here, evaluated on a cluster from `url` (the dataset's place).
    pub fn on_cluster(&self, url: &ObjectUrl) -> OnCluster {
        let tables = url.under(self.manifest.tables_under.as_deref().unwrap_or(""));
        OnCluster { tables, staging: url.under(&format!("staging/{}", fresh_name("evaluate"))) }
    }

    /// Where the copied version holds the object `name`, if it is the same bytes as `entry`.
    fn unchanged(&self, name: &str, entry: &TableEntry) -> Option<String> {
        let (table, file) = (name.strip_suffix(".parquet").and_then(|t| self.manifest.tables.get(t)), self.manifest.files.get(name));
        // A single copy request takes at most 5 GiB; a larger object is sent again.
        table.or(file).filter(|was| *was == entry && entry.bytes < 5 << 30).map(|_| in_version(&self.manifest, name))
    }
}

/// The dataset at `url` copied into the folder `dir` (made here), as `run` writes a dataset:
/// its tables and files beside a manifest without `tables_under`, but those `left` names
/// (tables a cluster's executors read where they are). Each object is checked against the
/// size and SHA-256 the manifest gives it as it is written, so a copy is the version the
/// manifest names or an error.
pub fn download(url: &ObjectUrl, dir: &Path, left: &[&str]) -> Result<Downloaded> {
    let rt = runtime(url, "reader")?;
    let store = url.store()?;
    rt.block_on(async {
        let (manifest, version) = read_manifest_versioned(&store, url).await?;
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        // The names are plain file names (`Manifest::parse`): files of this folder.
        for (name, entry) in objects_of(&manifest).into_iter().filter(|(n, _)| !left.iter().any(|t| n.strip_suffix(".parquet") == Some(*t))) {
            get_file(&store, url, &in_version(&manifest, &name), &dir.join(&name), &entry).await?;
        }
        let mut here = manifest.clone();
        here.tables_under = None;
        here.save(dir)?;
        Ok(Downloaded { manifest, version })
    })
}

/// The object `name` of `url` written to the file `to`, a part at a time, and checked
/// against `entry`.
async fn get_file(store: &AmazonS3, url: &ObjectUrl, name: &str, to: &Path, entry: &TableEntry) -> Result<()> {
    let Some((bytes, sha256)) = save_object(store, &url.key(name), &url.object(name), to).await? else {
        return Err(Error::remote(url.object(name), "cannot be read: not found, though the manifest names it"));
    };
    if bytes != entry.bytes || sha256 != entry.sha256 {
        let says = format!("is not what the manifest names: {bytes} bytes, SHA-256 {sha256}, where the manifest says {} bytes, {}", entry.bytes, entry.sha256);
        return Err(Error::remote(url.object(name), says));
    }
    Ok(())
}

/// The object `key` of `store` written to the file `to`, a part at a time, hashed as it is
/// written: its size and SHA-256, or none when there is no such object (`shown`: its URL,
/// for what an error says).
pub(crate) async fn save_object(store: &dyn ObjectStore, key: &object_store::path::Path, shown: &str, to: &Path) -> Result<Option<(u64, String)>> {
    use futures::StreamExt;
    use std::io::Write;
    let said_as = |e: object_store::Error| Error::remote(shown, format!("cannot be read: {}", said(&e)));
    let mut parts = match store.get(key).await {
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        got => got.map_err(said_as)?.into_stream(),
    };
    let mut file = crate::dataset::Hashed::new(std::fs::File::create(to).map_err(|e| Error::io(to, e))?);
    while let Some(part) = parts.next().await {
        file.write_all(&part.map_err(said_as)?).map_err(|e| Error::io(to, e))?;
    }
    Ok(Some(file.finish()))
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

/// What band `k` of a cluster's evaluation reads, fetched on an executor: from `staging`,
/// the plan and the band's outputs into the folder `plan`; from `tables`, the band's share
/// of the tables into the folder `data` ([`crate::mirror::fetch_band`]). The bytes fetched.
#[cfg(feature = "cluster")]
pub(crate) fn fetch_for_band(tables: &ObjectUrl, staging: &ObjectUrl, k: usize, data: &Path, plan: &Path) -> Result<u64> {
    let store = tables.store()?;
    runtime(tables, "reader")?.block_on(async {
        let mut fetched = 0;
        for name in crate::evaluate::partitions::band_files(k).0 {
            fetched += save_object(&*store, &staging.key(&name), &staging.object(&name), &plan.join(&name)).await?.map_or(0, |(bytes, _)| bytes);
        }
        let range = crate::evaluate::stage::band_range(plan, k)?;
        let shown = crate::mirror::Tables { store: &*store, prefix: tables.prefix(), shown: tables.to_string() };
        Ok(fetched + crate::mirror::fetch_band(&shown, data, &range).await?)
    })
}

/// The files `names` of the folder `dir` written under `url`, those a folder holds under
/// their path in it (`partitions/part-00000.parquet`).
#[cfg(feature = "cluster")]
pub(crate) fn put_files(dir: &Path, names: &[String], url: &ObjectUrl) -> Result<()> {
    let store = url.store()?;
    runtime(url, "writer")?.block_on(async {
        for name in names {
            put_file(&store, &dir.join(name), url, name).await?;
        }
        Ok(())
    })
}

/// The objects `names` of `url` written into the folder `dir`; an error names one missing.
#[cfg(feature = "cluster")]
pub(crate) fn get_files(url: &ObjectUrl, names: &[String], dir: &Path) -> Result<()> {
    let store = url.store()?;
    runtime(url, "reader")?.block_on(async {
        for name in names {
            if save_object(&*store, &url.key(name), &url.object(name), &dir.join(name)).await?.is_none() {
                return Err(Error::remote(url.object(name), "not found"));
            }
        }
        Ok(())
    })
}

/// Every object under `url` removed (a cluster's staging, when its evaluation ends).
#[cfg(feature = "cluster")]
pub(crate) fn remove_all(url: &ObjectUrl) -> Result<()> {
    use futures::{StreamExt, TryStreamExt};
    let store = url.store()?;
    let said_as = |e: object_store::Error| Error::remote(url.to_string(), format!("cannot be removed: {}", said(&e)));
    runtime(url, "writer")?.block_on(async {
        let prefix = url.prefix();
        let keys: Vec<object_store::path::Path> = store.list(Some(&prefix)).map_ok(|m| m.location).try_collect().await.map_err(said_as)?;
        let mut gone = store.delete_stream(futures::stream::iter(keys.into_iter().map(Ok)).boxed());
        while let Some(done) = gone.next().await {
            done.map_err(said_as)?;
        }
        Ok(())
    })
}

/// The manifest at `url`, through `store`.
pub(crate) async fn read_manifest(store: &AmazonS3, url: &ObjectUrl) -> Result<Manifest> {
    Ok(read_manifest_versioned(store, url).await?.0)
}

/// [`read_manifest`], with the version of the object read.
async fn read_manifest_versioned(store: &AmazonS3, url: &ObjectUrl) -> Result<(Manifest, object_store::UpdateVersion)> {
    let at = url.object("manifest.json");
    let said_as = |e: object_store::Error| match e {
        object_store::Error::NotFound { .. } => {
            Error::remote(at.clone(), "not found: is this a hindsight dataset? (no manifest.json under this prefix; `hindsight run` writes one)")
        }
        e => Error::remote(at.clone(), format!("cannot be read: {}", said(&e))),
    };
    let got = store.get(&url.key("manifest.json")).await.map_err(said_as)?;
    let version = object_store::UpdateVersion { e_tag: got.meta.e_tag.clone(), version: got.meta.version.clone() };
    let bytes = got.bytes().await.map_err(said_as)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| Error::remote(at.clone(), "not a hindsight manifest: not UTF-8 text"))?;
    Ok((Manifest::parse(text, Path::new(&at))?, version))
}

/// An object store's error in one line, with what it says of the server it could not
/// reach. Its text names URLs and statuses, never the credentials it signed with.
pub(crate) fn said(e: &object_store::Error) -> String {
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
