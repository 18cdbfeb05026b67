//! Loading and validating scenario files.

use super::values::{build_info, parse_directive, parse_requester, parse_status, Vars};
use super::{Expect, Scenario, Step};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A scenario file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file or directory cannot be read.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// The file is not valid TOML or does not match the scenario format.
    #[error("{path}: {message}")]
    Syntax {
        /// The path.
        path: PathBuf,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A scenario is inconsistent.
    #[error("{path}: scenario {id:?}: {message}")]
    Invalid {
        /// The path.
        path: PathBuf,
        /// The scenario id.
        id: String,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    scenario: Vec<Scenario>,
}

/// Parse one file's text (`path` is used for messages and recorded in each scenario).
pub fn parse_file(path: &Path, text: &str) -> Result<Vec<Scenario>, LoadError> {
    let file: File = toml::from_str(text).map_err(|e| LoadError::Syntax {
        path: path.to_path_buf(),
        message: e.to_string().trim_end().to_string(),
    })?;
    if file.scenario.is_empty() {
        return Err(LoadError::Syntax {
            path: path.to_path_buf(),
            message: "no [[scenario]] in file".into(),
        });
    }
    let mut out = Vec::new();
    for mut s in file.scenario {
        s.file = path.to_path_buf();
        validate(&s).map_err(|message| LoadError::Invalid {
            path: path.to_path_buf(),
            id: s.id.clone(),
            message,
        })?;
        out.push(s);
    }
    Ok(out)
}

/// Load every `*.toml` under `dir` (sorted by name); scenario ids must be unique.
pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, LoadError> {
    let io = |e: std::io::Error| LoadError::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(LoadError::Io {
            path: dir.to_path_buf(),
            message: "no .toml scenario files".into(),
        });
    }
    let mut all = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| LoadError::Io {
            path: f.clone(),
            message: e.to_string(),
        })?;
        for s in parse_file(&f, &text)? {
            if let Some(prev) = seen.insert(s.id.clone(), f.clone()) {
                return Err(LoadError::Invalid {
                    path: f,
                    id: s.id,
                    message: format!("duplicate id (also in {})", prev.display()),
                });
            }
            all.push(s);
        }
    }
    Ok(all)
}

fn validate(s: &Scenario) -> Result<(), String> {
    if s.id.trim().is_empty() {
        return Err("empty id".into());
    }
    if s.requirement.trim().is_empty() {
        return Err("empty requirement".into());
    }
    if s.clauses.is_empty() {
        return Err(
            "no clauses: name at least one clause id from the catalogue (see SCENARIOS.md)".into(),
        );
    }
    for c in &s.clauses {
        if crate::spec::clause(c).is_none() {
            return Err(format!("unknown clause id {c:?}"));
        }
    }
    for r in &s.all_readings() {
        if super::reading(r).is_none() {
            let names: Vec<&str> = super::READINGS.iter().map(|r| r.id).collect();
            return Err(format!(
                "unknown reading {r:?} (known: {})",
                names.join(", ")
            ));
        }
    }
    if !matches!(s.steps.first(), Some(Step::DvmStart { .. })) {
        return Err("the first step must be dvm_start".into());
    }
    let mut vars = Vars::check_mode();
    for (i, step) in s.steps.iter().enumerate() {
        let at = |m: String| format!("step {} ({}): {m}", i + 1, step.op());
        match step {
            Step::DvmStart { unavailable, .. } => {
                for u in unavailable {
                    if !crate::model::OPTIONAL_ATTRIBUTES.contains(&u.as_str()) {
                        return Err(at(format!(
                            "unknown optional attribute {u:?} (one of {:?})",
                            crate::model::OPTIONAL_ATTRIBUTES
                        )));
                    }
                }
            }
            Step::Alloc {
                by,
                directive,
                info,
                bind,
                ..
            } => {
                parse_requester(by).map_err(at)?;
                parse_directive(directive).map_err(at)?;
                for x in info {
                    build_info(x, &vars).map_err(at)?;
                }
                if let Some(b) = bind {
                    if b.is_empty() || b.starts_with('$') {
                        return Err(at(format!("bind names a variable without `$`: {b:?}")));
                    }
                    if vars.is_bound(b) {
                        return Err(at(format!("variable ${b} is bound twice")));
                    }
                    vars.bind(b, String::new());
                }
            }
            Step::Spawn { by, info, .. } => {
                parse_requester(by).map_err(at)?;
                for x in info {
                    build_info(x, &vars).map_err(at)?;
                }
            }
            Step::CanSpawn { by, target, .. } => {
                parse_requester(by).map_err(at)?;
                vars.resolve(target).map_err(at)?;
            }
            Step::Reclaim { alloc, .. } | Step::TimeoutWarning { alloc, .. } => {
                vars.resolve(alloc).map_err(at)?;
            }
            Step::ToolConnect { .. }
            | Step::Terminate { .. }
            | Step::DvmTeardown { .. }
            | Step::Observe { .. } => {}
        }
        check_expect(step.expect(), &vars).map_err(at)?;
    }
    if s.subject_steps().is_empty() {
        return Err(
            "no subject: mark the step(s) carrying the requirement with `expect = { subject = true, ... }`"
                .into(),
        );
    }
    Ok(())
}

fn check_expect(e: &Expect, vars: &Vars) -> Result<(), String> {
    if let Some(s) = &e.status {
        parse_status(s)?;
    }
    if let Some(s) = &e.status_not {
        parse_status(s)?;
    }
    for s in e.status_in.iter().flatten() {
        parse_status(s)?;
    }
    if e.candidates.is_some() && e.candidates_in.is_some() {
        return Err("use only one of candidates, candidates_in".into());
    }
    if [
        e.status.is_some(),
        e.status_not.is_some(),
        e.status_in.is_some(),
    ]
    .iter()
    .filter(|x| **x)
    .count()
        > 1
    {
        return Err("use only one of status, status_not, status_in".into());
    }
    let mut strings: Vec<&String> = Vec::new();
    strings.extend(e.alloc_id.iter());
    if let Some(m) = &e.sessions {
        strings.extend(m.values());
    }
    if let Some(m) = &e.owners {
        strings.extend(m.keys());
    }
    if let Some(m) = &e.owning {
        strings.extend(m.keys());
    }
    if let Some(m) = &e.reserved {
        strings.extend(m.keys());
    }
    if let Some(m) = &e.alloc_nodes {
        strings.extend(m.keys());
    }
    for l in [&e.allocations, &e.gone].into_iter().flatten() {
        strings.extend(l.iter());
    }
    for ev in e.events.iter().flatten() {
        parse_status(&ev.code)?;
        strings.extend(ev.alloc_id.iter());
        if let Some((_, r)) = ev.to.split_once(':') {
            r.parse::<u32>()
                .map_err(|_| format!("bad rank in event recipient {:?}", ev.to))?;
        }
    }
    for s in strings {
        vars.resolve(s)?;
    }
    Ok(())
}
