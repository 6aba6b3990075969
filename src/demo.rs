//! The bundled demo study, embedded in the binary so `hindsight run` works from any
//! directory with no checkout.

use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

use crate::error::{Error, Result};
use crate::pipeline::Study;

static DEMO: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/fixtures/demo");

/// A demo study written out to a temporary directory, removed on drop.
pub(crate) struct DemoStudy {
    root: PathBuf,
    pub(crate) study: Study,
}

impl DemoStudy {
    pub(crate) fn extract() -> Result<DemoStudy> {
        let root = std::env::temp_dir().join(format!("hindsight-demo-{}-{}", std::process::id(), unique()));
        write(&DEMO, &root)?;
        let study = Study {
            snapshot: root.join("snapshot"),
            runs: root.join("runs"),
            traces: vec![root.join("traces")],
            tasks: Some(root.join("tasks")),
            task_policy: None,
        };
        Ok(DemoStudy { root, study })
    }

}

impl Drop for DemoStudy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

fn write(dir: &Dir, root: &Path) -> Result<()> {
    for f in dir.files() {
        let p = root.join(f.path());
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        std::fs::write(&p, f.contents()).map_err(|e| Error::io(&p, e))?;
    }
    for d in dir.dirs() {
        write(d, root)?;
    }
    Ok(())
}
