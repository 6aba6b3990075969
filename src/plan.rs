//! A locked analysis plan: what a study's figures will be computed with, fixed before its
//! outcomes are seen (a pre-registration a reviewer can check).
//!
//! `hindsight plan lock --out plan.json` records the windows, the evaluation policy and the
//! PR risk policy in force (in full, as a dataset's manifest records them), and the sha256 of
//! every bundled query's SQL. `hindsight plan check --plan plan.json --dataset DS` (and
//! `report --plan`, `package --plan`) lists every way the study departs from it: another
//! window, a policy switch set otherwise, a query whose SQL changed, added or removed. The
//! plan file is written once and never replaced, and its own sha256 is what a paper cites.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dataset::manifest::Manifest;
use crate::evaluate::Settings;
use crate::{Error, Result};

/// The plan file's format.
const FORMAT: &str = "hindsight-plan/1";

/// What a study is to be analysed with.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub format: String,
    /// The hindsight that locked it.
    pub hindsight: String,
    pub windows: Vec<String>,
    pub policy: Value,
    pub risk_policy: Value,
    /// The quality policy (absent from a plan locked before quality findings: not compared).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub quality_policy: Value,
    /// sha256 of each bundled query's SQL, by name.
    pub queries: BTreeMap<String, String>,
}

/// The bundled queries' SQL, hashed, as this hindsight carries them.
fn queries() -> BTreeMap<String, String> {
    crate::report::CATALOGUE.iter().map(|q| (q.name.to_string(), crate::json::sha256_hex(q.sql.as_bytes()))).collect()
}

impl Plan {
    /// The plan of evaluating under `settings` with this hindsight's queries.
    pub fn of(settings: &Settings) -> Plan {
        Plan {
            format: FORMAT.into(),
            hindsight: crate::VERSION.into(),
            windows: settings.windows.iter().map(|w| w.to_string()).collect(),
            policy: settings.policy.to_json(),
            risk_policy: settings.risk_policy.to_json(),
            quality_policy: settings.quality_policy.to_json(),
            queries: queries(),
        }
    }

    pub fn load(path: &Path) -> Result<Plan> {
        let text = crate::inputs::read_text_file(path, "plan file")?;
        let plan: Plan = serde_json::from_str(&text).map_err(|e| {
            Error::Core(hindsight_core::Error::Input { path: path.to_path_buf(), line: e.line(), message: format!("not a hindsight plan: {e}") })
        })?;
        if plan.format != FORMAT {
            return Err(Error::Core(hindsight_core::Error::Input {
                path: path.to_path_buf(),
                line: 1,
                message: format!("field `format`: `{}` is not {FORMAT}", crate::text::printable(&plan.format)),
            }));
        }
        Ok(plan)
    }

    /// Write the plan to the new file `out` (a plan is never replaced: that would unlock it).
    pub fn lock(&self, out: &Path) -> Result<String> {
        let text = serde_json::to_string_pretty(self)? + "\n";
        if let Some(why) = crate::output::unwritable(out, None) {
            return Err(Error::usage(format!("plan lock --out {}: {why}", out.display())));
        }
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(out).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Error::usage(format!("plan lock --out {}: already exists; a locked plan is never replaced (write a new one, and say why it departs)", out.display()))
            } else {
                Error::io(out, e)
            }
        })?;
        std::io::Write::write_all(&mut f, text.as_bytes()).map_err(|e| Error::io(out, e))?;
        Ok(crate::json::sha256_hex(text.as_bytes()))
    }

    /// Every way the dataset whose manifest is `m`, read by this hindsight, departs from the
    /// plan. The manifest records all a plan fixes (windows, policies; the queries are this
    /// hindsight's), so a dataset is checked wherever it is: on this machine or in a store.
    pub fn deviations(&self, m: &Manifest) -> Vec<String> {
        let mut out = Vec::new();
        if m.windows != self.windows {
            out.push(format!("windows: planned {}, evaluated {}", list(&self.windows), list(&m.windows)));
        }
        differences("policy", &self.policy, m.policy.as_ref(), &mut out);
        differences("risk policy", &self.risk_policy, m.risk_policy.as_ref(), &mut out);
        if !self.quality_policy.is_null() {
            differences("quality policy", &self.quality_policy, m.quality_policy.as_ref(), &mut out);
        }
        let now = queries();
        for (name, planned) in &self.queries {
            match now.get(name) {
                None => out.push(format!("query {name}: planned, not in this hindsight")),
                Some(h) if h != planned => out.push(format!("query {name}: its SQL differs from the planned one")),
                Some(_) => {}
            }
        }
        for name in now.keys().filter(|n| !self.queries.contains_key(*n)) {
            out.push(format!("query {name}: not in the plan"));
        }
        out
    }
}

fn list(windows: &[String]) -> String {
    if windows.is_empty() {
        "none".into()
    } else {
        windows.join(",")
    }
}

/// Each key of `planned` (a policy as JSON) that `used` sets otherwise, named with both.
fn differences(what: &str, planned: &Value, used: Option<&Value>, out: &mut Vec<String>) {
    let Some(used) = used else {
        out.push(format!("{what}: planned, but the dataset records none (not evaluated yet?)"));
        return;
    };
    match (planned.as_object(), used.as_object()) {
        (Some(p), Some(u)) => {
            let keys: std::collections::BTreeSet<&String> = p.keys().chain(u.keys()).collect();
            for k in keys {
                let (a, b) = (p.get(k), u.get(k));
                if a != b {
                    let show = |v: Option<&Value>| v.map_or("unset".to_string(), Value::to_string);
                    out.push(format!("{what} `{k}`: planned {}, used {}", show(a), show(b)));
                }
            }
        }
        _ if planned != used => out.push(format!("{what}: planned {planned}, used {used}")),
        _ => {}
    }
}

/// What `report` and `package` say of a study and its plan, one line each.
pub fn verdict(plan_path: &Path, deviations: &[String]) -> String {
    if deviations.is_empty() {
        format!("The study matches its analysis plan ({}).\n", plan_path.display())
    } else {
        let mut s = format!("The study departs from its analysis plan ({}) in {} way(s):\n", plan_path.display(), deviations.len());
        for d in deviations {
            s.push_str(&format!("- {d}\n"));
        }
        s
    }
}
