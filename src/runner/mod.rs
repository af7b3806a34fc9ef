//! The reproduction runner behind `cargo run --release`.
//!
//! Each paper crate registers one [`Reproduction`] in
//! [`crate::reproduce::registry`]: its id (the crate's name), the paper, the
//! headline claim in one sentence, and [`Reproduction::run`], which runs the
//! experiment at a [`Budget`] and returns an [`Outcome`]: the measured
//! [`Figure`]s, whether the claim held, and its [`Plot`]s. The runner
//! prints a table, writes `index.md` and an SVG per plot, and exits
//! 0 when every selected claim held, 1 when one did not, 2 on a usage error.

mod cli;
mod plot;
mod report;

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

/// The default data folder: the fixtures beside a development checkout
/// (`../shared/fixtures` from the repository root). A plain clone has none;
/// pass `--data DIR` to point at downloaded copies.
pub fn default_data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures")
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

    /// The folder of external data for one crate, `<data>/<id>` (it may not exist:
    /// a reproduction says what is missing and runs what it can without it).
    pub fn data_dir(&self, id: &str) -> PathBuf {
        self.data.join(id)
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
    /// Whether the claim held at this budget.
    pub held: bool,
    /// The measured figures, in the order to report them.
    pub figures: Vec<Figure>,
    /// The plots for the report (`<id>.svg`, then `<id>-2.svg`, …).
    pub plots: Vec<Plot>,
    /// Free-text remarks (deviations, caveats) for the report.
    pub notes: Vec<String>,
}

/// An error a reproduction can return; the runner reports it as a claim not held.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A paper's headline claim, reproduced at a budget.
pub trait Reproduction {
    /// The crate's name, e.g. `"conformal-sets"`; what `NAME…` selects.
    fn id(&self) -> &'static str;
    /// The paper, short: `"Title (First author et al., ICML 2024)"`.
    fn paper(&self) -> &'static str;
    /// The claim, in one sentence.
    fn claim(&self) -> &'static str;
    /// Runs the experiment and says whether the claim held.
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
    /// The outcome, or the error message when the run failed.
    pub outcome: Result<Outcome, String>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
}

impl Record {
    /// Whether the claim held (a failed run did not hold).
    pub fn held(&self) -> bool {
        matches!(&self.outcome, Ok(o) if o.held)
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
    let records = run_all(&selected, args.budget, args.seed, &args.data);
    let _ = write!(out, "{}", report::table(&records));
    match report::write(&records, args.budget, &args.out) {
        Ok(()) => {
            let _ = writeln!(out, "\nReport: {}", args.out.join("index.md").display());
        }
        Err(e) => eprintln!(
            "warning: could not write the report to {}: {e}",
            args.out.display()
        ),
    }
    Ok(if records.iter().all(Record::held) {
        0
    } else {
        1
    })
}

/// Runs the reproductions in order, each with its own progress bar.
pub fn run_all(
    selected: &[&dyn Reproduction],
    budget: Budget,
    seed: u64,
    data: &Path,
) -> Vec<Record> {
    let style = ProgressStyle::with_template(
        "{prefix:>24} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg}",
    )
    .expect("valid template");
    selected
        .iter()
        .enumerate()
        .map(|(i, r)| {
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
            let outcome = r.run(&ctx).map_err(|e| e.to_string());
            ctx.progress.finish_and_clear();
            Record {
                id: r.id(),
                paper: r.paper(),
                claim: r.claim(),
                outcome,
                elapsed: start.elapsed(),
            }
        })
        .collect()
}

/// Writes the Markdown report and the plots under `dir` (created if needed).
pub fn write_report(records: &[Record], budget: Budget, dir: &Path) -> std::io::Result<()> {
    report::write(records, budget, dir)
}
