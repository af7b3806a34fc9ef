//! The reproduction runner behind `cargo run --release`.
//!
//! Each paper crate registers one [`Reproduction`] in
//! [`crate::reproduce::registry`]: its id (the crate's name), the paper, the
//! headline claim in one sentence, and [`Reproduction::run`], which runs the
//! experiment at a [`Budget`] and returns an [`Outcome`]: the declared
//! [`Check`]s (measured value, relation, threshold and the threshold's
//! source), informative [`Figure`]s and [`Plot`]s. The runner, not the
//! reproduction, evaluates the checks and gives each reproduction a
//! [`Status`]: **held** (every check passes), **not held** (one fails),
//! **incomplete** (none fails but one cannot be decided at this budget or
//! with this data), **error** (the run returned an error or panicked).
//!
//! Each reproduction runs on its own thread under `catch_unwind`, so a panic
//! is reported as `error` and the others still run. After each one the
//! runner rewrites `report.md` and `report.json` in the output folder, so an
//! interrupted run keeps what finished.
//!
//! Exit status: 0 every selected reproduction held; 1 one is not held or
//! errored; 3 none failed but some are incomplete; 2 usage error. With
//! `--expect FILE` (one `<id> held|not-held|incomplete` per line; an id not
//! listed must be held): 0 when every status is the expected one, 1 otherwise
//! — what CI runs, so that a documented finding (`not held`) does not fail
//! the build but any change of a verdict, and any error, does.

mod check;
mod cli;
mod plot;
mod report;

pub use check::{Check, CheckStatus, Relation, Status};
pub use cli::{Args, USAGE, UsageError};

use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How much compute a reproduction may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Minutes for all papers together on 2 cores: the default, and what CI could afford.
    Quick,
    /// The paper's own scale where feasible on a workstation.
    Full,
}

impl std::str::FromStr for Budget {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "quick" => Ok(Budget::Quick),
            "full" => Ok(Budget::Full),
            other => Err(format!("unknown budget {other:?} (expected quick or full)")),
        }
    }
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Budget::Quick => "quick",
            Budget::Full => "full",
        })
    }
}

/// What a reproduction gets to run with: the budget, the seed, the data
/// folder, and a progress bar.
pub struct Context {
    budget: Budget,
    seed: u64,
    data: PathBuf,
    progress: ProgressBar,
}

/// The default data folder: `data/` of this repository, where every vendored
/// data set lives with its licence, `SOURCE.md` and `SHA256SUMS`.
pub fn default_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

impl Context {
    /// A context with a hidden progress bar (for tests and library use).
    pub fn new(budget: Budget, seed: u64, data: PathBuf) -> Self {
        Context {
            budget,
            seed,
            data,
            progress: ProgressBar::hidden(),
        }
    }

    /// The vendored data set `name` (`<data>/<name>`), opened with its
    /// checksums; every file read through it is verified
    /// ([`mlcore::data::Dataset`]). A missing folder or `SHA256SUMS` is an
    /// error, which makes the reproduction's status `error`.
    pub fn dataset(&self, name: &str) -> Result<mlcore::data::Dataset, BoxError> {
        Ok(mlcore::data::Dataset::open(self.data.join(name))?)
    }

    /// The budget to run at.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// The master seed; derive every RNG of the experiment from it.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Announces `total` steps of work (repeats, sizes, epochs) for the progress bar.
    pub fn set_steps(&self, total: u64) {
        self.progress.set_length(total);
        self.progress.set_position(0);
    }

    /// Marks one step done.
    pub fn step(&self) {
        self.progress.inc(1);
    }

    /// Shows what is running now.
    pub fn set_message(&self, msg: impl Into<String>) {
        self.progress.set_message(msg.into());
    }
}

/// One measured figure of a reproduction, as it appears in the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// What was measured, e.g. `"coverage (APS, α = 0.1)"`.
    pub name: String,
    /// The measured value.
    pub value: f64,
    /// What the claim needs of it, e.g. `"≥ 0.9"`, or the paper's value.
    pub target: Option<String>,
}

impl Figure {
    /// A figure without a target.
    pub fn new(name: impl Into<String>, value: f64) -> Self {
        Figure {
            name: name.into(),
            value,
            target: None,
        }
    }

    /// The figure with what the claim needs of it.
    pub fn with_target(mut self, target: impl Into<String>) -> Self {
        self.target = Some(target.into());
        self
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}", self.name, format_value(self.value))?;
        if let Some(t) = &self.target {
            write!(f, " (target {t})")?;
        }
        Ok(())
    }
}

/// Four significant digits, scientific notation outside `[1e-3, 1e5)`.
pub fn format_value(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || !v.is_finite() {
        format!("{v}")
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.3e}")
    } else {
        let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
        format!("{v:.decimals$}")
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesStyle {
    /// Points joined by a line.
    Line,
    /// Markers only.
    Points,
}

/// One named curve of a [`Plot`].
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// `(x, y)` points; non-finite ones are skipped when drawing.
    pub points: Vec<(f64, f64)>,
    /// Line or markers.
    pub style: SeriesStyle,
}

impl Series {
    /// A line series.
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            label: label.into(),
            points,
            style: SeriesStyle::Line,
        }
    }

    /// A scatter series.
    pub fn points(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            label: label.into(),
            points,
            style: SeriesStyle::Points,
        }
    }
}

/// A 2-D plot, drawn to SVG by the runner (reproductions never touch plotters).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plot {
    /// Title above the plot.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The curves.
    pub series: Vec<Series>,
    /// Logarithmic x axis (non-positive x are skipped).
    pub log_x: bool,
    /// Logarithmic y axis (non-positive y are skipped).
    pub log_y: bool,
}

/// The median of measured values (run times, per-seed results), for
/// reproductions; NaN for an empty or non-finite sample
/// ([`mlcore::stats::median`]).
pub fn median(values: &[f64]) -> f64 {
    mlcore::stats::median(ndarray::ArrayView1::from(values)).unwrap_or(f64::NAN)
}

/// The result of one reproduction run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// The declared checks; the runner evaluates them.
    pub checks: Vec<Check>,
    /// Informative measured figures (no verdict), in the order to report them.
    pub figures: Vec<Figure>,
    /// The plots for the report (`<id>.svg`, then `<id>-2.svg`, …).
    pub plots: Vec<Plot>,
    /// Free-text remarks (deviations, caveats) for the report.
    pub notes: Vec<String>,
}

/// An error a reproduction can return; the runner reports it as status `error`.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A paper's headline claim, reproduced at a budget. `Sync` because each
/// reproduction runs on a thread of its own.
pub trait Reproduction: Sync {
    /// The crate's name, e.g. `"conformal-sets"`; what `NAME…` selects.
    fn id(&self) -> &'static str;
    /// The paper, short: `"Title (First author et al., ICML 2024)"`.
    fn paper(&self) -> &'static str;
    /// The claim, in one sentence.
    fn claim(&self) -> &'static str;
    /// Runs the experiment and returns its declared checks, figures and plots.
    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError>;
}

/// One reproduction's line in the report.
#[derive(Debug, Clone)]
pub struct Record {
    /// [`Reproduction::id`].
    pub id: &'static str,
    /// [`Reproduction::paper`].
    pub paper: &'static str,
    /// [`Reproduction::claim`].
    pub claim: &'static str,
    /// The outcome, or the error (or panic) message when the run failed.
    pub outcome: Result<Outcome, String>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

impl Record {
    /// The status the runner derives: `error` for a failed run, otherwise
    /// from the declared checks ([`Status::of`]).
    pub fn status(&self) -> Status {
        match &self.outcome {
            Err(e) => Status::Error(e.clone()),
            Ok(o) => Status::of(&o.checks),
        }
    }

    /// Whether the reproduction held.
    pub fn held(&self) -> bool {
        self.status() == Status::Held
    }
}

/// The process exit status for these records: 0 all held, 1 any not held or
/// error, 3 only incomplete ones besides held.
pub fn exit_code(records: &[Record]) -> i32 {
    let statuses: Vec<Status> = records.iter().map(Record::status).collect();
    if statuses
        .iter()
        .any(|s| matches!(s, Status::NotHeld | Status::Error(_)))
    {
        1
    } else if statuses.contains(&Status::Incomplete) {
        3
    } else {
        0
    }
}

/// Runs the CLI on `args` (without the program name) over `registry`,
/// writing the table to `out`; returns the process exit status.
pub fn main_with(
    args: impl IntoIterator<Item = String>,
    registry: &[Box<dyn Reproduction>],
    out: &mut dyn Write,
) -> i32 {
    match run_cli(args, registry, out) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            2
        }
    }
}

fn run_cli(
    args: impl IntoIterator<Item = String>,
    registry: &[Box<dyn Reproduction>],
    out: &mut dyn Write,
) -> Result<i32, UsageError> {
    let args = Args::parse(args)?;
    if args.help {
        let _ = writeln!(out, "{USAGE}");
        return Ok(0);
    }
    let selected = args.select(registry)?;
    if registry.is_empty() {
        let _ = writeln!(
            out,
            "No paper reproductions are registered yet: nothing to run."
        );
        return Ok(0);
    }
    if args.list {
        for r in &selected {
            let _ = writeln!(
                out,
                "{:<24} {}\n{:<24} claim: {}",
                r.id(),
                r.paper(),
                "",
                r.claim()
            );
        }
        return Ok(0);
    }
    report::prepare(&args.out).map_err(|e| {
        UsageError(format!(
            "cannot write the report to {}: {e}",
            args.out.display()
        ))
    })?;
    let expected = args.expect.as_deref().map(read_expectations).transpose()?;
    let mut write_failed = false;
    let records = run_all(&selected, args.budget, args.seed, &args.data, |done| {
        if let Err(e) = report::write(done, args.budget, &args.out) {
            if !write_failed {
                eprintln!(
                    "warning: could not write the report to {}: {e}",
                    args.out.display()
                );
            }
            write_failed = true;
        }
    });
    let _ = write!(out, "{}", report::table(&records));
    if !write_failed {
        let _ = writeln!(
            out,
            "\nReport: {} and {}",
            args.out.join("report.md").display(),
            args.out.join("report.json").display()
        );
    }
    if write_failed {
        return Ok(1);
    }
    match (&args.expect, expected) {
        (Some(path), Some(expected)) => {
            let mismatches = compare_expectations(&records, &expected);
            if mismatches.is_empty() {
                let _ = writeln!(
                    out,
                    "Every status is the one expected in {}.",
                    path.display()
                );
                Ok(0)
            } else {
                for m in &mismatches {
                    let _ = writeln!(out, "unexpected status: {m}");
                }
                Ok(1)
            }
        }
        _ => Ok(exit_code(&records)),
    }
}

/// Reads an expectations file for `--expect`: one `<id> <status>` per line
/// (`held`, `not-held`, `incomplete`; `#` starts a comment).
fn read_expectations(path: &Path) -> Result<Vec<(String, Status)>, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = || {
            UsageError(format!(
                "{}:{}: expected `<id> held|not-held|incomplete`",
                path.display(),
                i + 1
            ))
        };
        let mut words = line.split_whitespace();
        let (Some(id), Some(status), None) = (words.next(), words.next(), words.next()) else {
            return Err(bad());
        };
        let status = match status {
            "held" => Status::Held,
            "not-held" => Status::NotHeld,
            "incomplete" => Status::Incomplete,
            _ => return Err(bad()),
        };
        out.push((id.to_string(), status));
    }
    Ok(out)
}

/// The records whose status differs from the expectation (an error never
/// matches, and a record without an expectation must be `held`).
pub fn compare_expectations(records: &[Record], expected: &[(String, Status)]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| {
            let want = expected
                .iter()
                .find(|(id, _)| id == r.id)
                .map_or(Status::Held, |(_, s)| s.clone());
            let got = r.status();
            (got != want).then(|| format!("{}: {} (expected {})", r.id, got.label(), want.label()))
        })
        .collect()
}

/// The message of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Runs one reproduction on a thread of its own under `catch_unwind`: an
/// error or a panic becomes `Err(message)`.
pub fn run_one(r: &dyn Reproduction, ctx: &Context) -> Result<Outcome, String> {
    std::thread::scope(|s| {
        let handle =
            s.spawn(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.run(ctx))));
        match handle.join() {
            Ok(Ok(Ok(outcome))) => Ok(outcome),
            Ok(Ok(Err(e))) => Err(e.to_string()),
            Ok(Err(payload)) | Err(payload) => {
                Err(format!("panicked: {}", panic_message(payload.as_ref())))
            }
        }
    })
}

/// Runs the reproductions in order, each on its own thread with its own
/// progress bar, and calls `after_each` with the records so far once each
/// one has finished (the CLI rewrites the report there).
pub fn run_all(
    selected: &[&dyn Reproduction],
    budget: Budget,
    seed: u64,
    data: &Path,
    mut after_each: impl FnMut(&[Record]),
) -> Vec<Record> {
    let style = ProgressStyle::with_template(
        "{prefix:>24} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg}",
    )
    .expect("valid template");
    let mut records = Vec::with_capacity(selected.len());
    for (i, r) in selected.iter().enumerate() {
        let progress = ProgressBar::new(0)
            .with_style(style.clone())
            .with_prefix(r.id());
        progress.enable_steady_tick(Duration::from_millis(200));
        progress.set_message(format!("({}/{})", i + 1, selected.len()));
        let ctx = Context {
            budget,
            seed,
            data: data.to_path_buf(),
            progress,
        };
        let start = Instant::now();
        let outcome = run_one(*r, &ctx);
        ctx.progress.finish_and_clear();
        records.push(Record {
            id: r.id(),
            paper: r.paper(),
            claim: r.claim(),
            outcome,
            elapsed: start.elapsed(),
        });
        after_each(&records);
    }
    records
}

/// Writes `report.md`, `report.json` and the plots under `dir` (created if needed).
pub fn write_report(records: &[Record], budget: Budget, dir: &Path) -> std::io::Result<()> {
    report::write(records, budget, dir)
}
