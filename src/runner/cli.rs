//! Command-line arguments of the runner.

use super::{Budget, Reproduction};
use std::path::PathBuf;

/// The usage text printed by `--help` and after a usage error.
pub const USAGE: &str = "\
Reproduces the headline claims of the icml24 papers.

usage: icml24 [OPTIONS] [NAME...]

  NAME...               run only these reproductions (crate names; default: all)
  --list                list the registered reproductions and exit
  --budget quick|full   compute budget (default: quick)
  --out DIR             report folder (default: target/report)
  --seed N              master seed (default: 0)
  --data DIR            vendored data sets, one folder each (default: data/ of the repository)
  --expect FILE         compare each status with FILE (lines `<id> held|not-held|incomplete`;
                        an id not listed must be held): exit 0 when all match, 1 otherwise
  -h, --help            this text

The runner evaluates each reproduction's declared checks (value, relation,
threshold, source) and writes report.md and report.json after each one.

exit status: 0 every selected reproduction held; 1 one is not held or ended in
an error (or panic); 3 none failed but some are incomplete (the budget or the
data cannot decide a check); 2 usage error (unknown name, bad --budget,
unwritable --out)";

/// A command line the runner cannot act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Parsed command-line arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// `--list`.
    pub list: bool,
    /// `--help`.
    pub help: bool,
    /// `--budget`.
    pub budget: Budget,
    /// `--out`.
    pub out: PathBuf,
    /// `--seed`.
    pub seed: u64,
    /// `--data`.
    pub data: PathBuf,
    /// `--expect`: the expected statuses.
    pub expect: Option<PathBuf>,
    /// The `NAME…` selection; empty means all.
    pub names: Vec<String>,
}

impl Args {
    /// Parses arguments (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, UsageError> {
        let mut parsed = Args {
            list: false,
            help: false,
            budget: Budget::Quick,
            out: PathBuf::from("target/report"),
            seed: 0,
            data: super::default_data_dir(),
            expect: None,
            names: Vec::new(),
        };
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| {
                inline
                    .clone()
                    .or_else(|| it.next())
                    .ok_or_else(|| UsageError(format!("{name} needs a value")))
            };
            match flag.as_str() {
                "--list" => parsed.list = true,
                "-h" | "--help" => parsed.help = true,
                "--budget" => parsed.budget = value("--budget")?.parse().map_err(UsageError)?,
                "--out" => parsed.out = PathBuf::from(value("--out")?),
                "--data" => parsed.data = PathBuf::from(value("--data")?),
                "--expect" => parsed.expect = Some(PathBuf::from(value("--expect")?)),
                "--seed" => {
                    let v = value("--seed")?;
                    parsed.seed = v
                        .parse()
                        .map_err(|_| UsageError(format!("--seed {v:?} is not a u64")))?;
                }
                f if f.starts_with('-') => return Err(UsageError(format!("unknown option {f}"))),
                _ => parsed.names.push(arg),
            }
        }
        Ok(parsed)
    }

    /// The selected reproductions, in registry order; an unknown name is a usage error.
    pub fn select<'a>(
        &self,
        registry: &'a [Box<dyn Reproduction>],
    ) -> Result<Vec<&'a dyn Reproduction>, UsageError> {
        if let Some(unknown) = self
            .names
            .iter()
            .find(|n| !registry.iter().any(|r| r.id() == n.as_str()))
        {
            let known: Vec<&str> = registry.iter().map(|r| r.id()).collect();
            return Err(UsageError(format!(
                "no reproduction named {unknown:?} (registered: {})",
                list_or_none(&known)
            )));
        }
        Ok(registry
            .iter()
            .filter(|r| self.names.is_empty() || self.names.iter().any(|n| n == r.id()))
            .map(|r| r.as_ref())
            .collect())
    }
}

fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
