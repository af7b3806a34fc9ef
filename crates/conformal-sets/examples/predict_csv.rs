//! Split-conformal prediction sets from probability matrices in plain files:
//! a command-line bridge for checking this crate against other
//! implementations (`scripts/compare/conformal_sets.py` uses it to compare
//! with MAPIE, crepes and a numpy port of the official RAPS code).
//!
//! ```text
//! predict_csv --cal-probs P_CAL --cal-labels Y_CAL --test-probs P_TEST
//!             --score lac|aps|raps|topk-rank [--alpha 0.1] [--rule finite|higher]
//!             [--randomized] [--allow-empty] [--lambda 0.5] [--k-reg 5]
//!             [--seed 0 | --u-cal U_CAL --u-test U_TEST] [--out SETS]
//!             [--cpu-runs R]
//! predict_csv synth --n 10000 --classes 1000 [--concentration 0.1] [--seed 7] --out-dir DIR
//! ```
//!
//! Matrices are text, one row per line, numbers separated by commas,
//! semicolons or whitespace (`#` starts a comment line), or `.npy` files
//! (little-endian `f8`/`i8`, C order; recognised by their magic bytes).
//! Labels are one integer per line (or any layout of integers).
//!
//! The sets are written one per line, labels ascending and separated by a
//! space (an empty line is an empty set), to `--out` or standard output; a
//! summary with `q_hat=…` and the wall times of calibration and prediction
//! goes to standard error.
//!
//! Randomised scores (`--randomized` for `aps`/`raps`) draw one `U ~ Unif[0,1)`
//! per row, from `seeded(--seed)` unless `--u-cal`/`--u-test` give the `U` of
//! every calibration and test row: each must be a multiple of 2⁻⁵³ in
//! `[0, 1)` (as numpy's `random_sample` draws are) and is replayed exactly
//! through the crate's own RNG interface, so another implementation's
//! randomisation can be reproduced bit for bit.
//!
//! `--cpu-runs R` (seeded `U` only) then repeats calibration + batch
//! prediction (the flat `PredictionSets`, what the criterion benchmark
//! times) `R` more times and prints each run's CPU time of this thread
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`) as `cpu_ms=t1,…,tR` and their
//! median as `cpu_median_ms=…`: on a loaded machine CPU time, unlike wall
//! time, does not count the time the thread waits for a core.
//!
//! `synth` writes the inputs of the criterion benchmark `benches/conformal_sets.rs`
//! (the synthetic Dirichlet classifier, calibration rows then test rows from
//! one `seeded(seed)` stream) to `DIR/{cal_probs.npy, cal_labels.txt,
//! test_probs.npy, test_labels.txt}`, so other libraries can be timed on the
//! very same arrays.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use conformal_sets::calibrate::{Calibrated, QuantileRule, SplitConformal};
use conformal_sets::score::{ConformityScore, Lac, PredictionSet, Raps, TopKRank, aps};
use conformal_sets::synthetic::dirichlet_classifier;
use mlcore::sampling::seeded;
use ndarray::Array2;
use rand::{Rng, RngExt, TryRng};

type Res<T> = std::result::Result<T, String>;

const USAGE: &str = "usage:
  predict_csv --cal-probs P_CAL --cal-labels Y_CAL --test-probs P_TEST
              --score lac|aps|raps|topk-rank [--alpha 0.1] [--rule finite|higher]
              [--randomized] [--allow-empty] [--lambda 0.5] [--k-reg 5]
              [--seed 0 | --u-cal U_CAL --u-test U_TEST] [--out SETS]
              [--cpu-runs R]
  predict_csv synth --n N --classes K [--concentration 0.1] [--seed 7] --out-dir DIR";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("synth") => synth(&args[1..]),
        Some("-h" | "--help") | None => Err(USAGE.to_string()),
        _ => predict(&args),
    };
    if let Err(e) = result {
        eprintln!("predict_csv: {e}");
        std::process::exit(2);
    }
}

// ---------------------------------------------------------------- arguments

/// `--name value` options and bare `--flag`s.
struct Args {
    values: HashMap<String, String>,
    flags: Vec<String>,
}

const FLAGS: [&str; 2] = ["--randomized", "--allow-empty"];

impl Args {
    fn parse(args: &[String]) -> Res<Args> {
        let mut values = HashMap::new();
        let mut flags = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if !a.starts_with("--") {
                return Err(format!("unexpected argument {a:?}\n{USAGE}"));
            }
            if FLAGS.contains(&a.as_str()) {
                flags.push(a.clone());
            } else {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                values.insert(a.clone(), v.clone());
            }
        }
        Ok(Args { values, flags })
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    fn required(&self, name: &str) -> Res<&str> {
        self.get(name)
            .ok_or_else(|| format!("{name} is required\n{USAGE}"))
    }

    fn parsed<T: std::str::FromStr>(&self, name: &str, default: T) -> Res<T> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("{name}: cannot parse {v:?}")),
        }
    }

    fn check_known(&self, known: &[&str]) -> Res<()> {
        match self.values.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(format!("unknown option {k}\n{USAGE}")),
            None => Ok(()),
        }
    }
}

// ------------------------------------------------------------------ reading

/// A matrix from a text or `.npy` file.
fn read_matrix(path: &Path) -> Res<Array2<f64>> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (rows, cols, data) = if bytes.starts_with(NPY_MAGIC) {
        read_npy(&bytes).map_err(|e| format!("{}: {e}", path.display()))?
    } else {
        read_text(&bytes).map_err(|e| format!("{}: {e}", path.display()))?
    };
    Array2::from_shape_vec((rows, cols), data).map_err(|e| format!("{}: {e}", path.display()))
}

/// All numbers of a text or `.npy` file, in order.
fn read_numbers(path: &Path) -> Res<Vec<f64>> {
    Ok(read_matrix(path)?.into_iter().collect())
}

/// Labels: non-negative integers.
fn read_labels(path: &Path) -> Res<Vec<usize>> {
    read_numbers(path)?
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(53) {
                Ok(v as usize)
            } else {
                Err(format!(
                    "{}: label {i} = {v} is not a class index",
                    path.display()
                ))
            }
        })
        .collect()
}

/// Text: one row per line; fields split on commas, semicolons and whitespace.
fn read_text(bytes: &[u8]) -> Res<(usize, usize, Vec<f64>)> {
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    let mut data = Vec::new();
    let (mut rows, mut cols) = (0, None);
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let before = data.len();
        for field in line
            .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
            .filter(|f| !f.is_empty())
        {
            let v: f64 = field
                .parse()
                .map_err(|_| format!("line {}: {field:?} is not a number", no + 1))?;
            data.push(v);
        }
        let width = data.len() - before;
        match cols {
            None => cols = Some(width),
            Some(c) if c != width => {
                return Err(format!("line {}: {width} fields, expected {c}", no + 1));
            }
            Some(_) => {}
        }
        rows += 1;
    }
    Ok((rows, cols.unwrap_or(0), data))
}

const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// A 1-D or 2-D `.npy` array of little-endian `f8` or `i8`, C order.
fn read_npy(bytes: &[u8]) -> Res<(usize, usize, Vec<f64>)> {
    let short = || "truncated .npy header".to_string();
    let major = *bytes.get(6).ok_or_else(short)?;
    let (len, start) = match major {
        1 => {
            let b: [u8; 2] = bytes.get(8..10).ok_or_else(short)?.try_into().unwrap();
            (u16::from_le_bytes(b) as usize, 10)
        }
        2 | 3 => {
            let b: [u8; 4] = bytes.get(8..12).ok_or_else(short)?.try_into().unwrap();
            (u32::from_le_bytes(b) as usize, 12)
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes.get(start..start + len).ok_or_else(short)?;
    let header = std::str::from_utf8(header).map_err(|e| e.to_string())?;
    let field = |key: &str| -> Res<&str> {
        let at = header
            .find(&format!("'{key}':"))
            .ok_or_else(|| format!("no {key} in .npy header"))?;
        Ok(header[at + key.len() + 3..].trim_start())
    };
    let descr = field("descr")?;
    let is_float = if descr.starts_with("'<f8'") {
        true
    } else if descr.starts_with("'<i8'") {
        false
    } else {
        return Err(format!(
            "unsupported .npy dtype {descr:.6}: expected '<f8' or '<i8'"
        ));
    };
    if !field("fortran_order")?.starts_with("False") {
        return Err("Fortran-order .npy arrays are not supported".into());
    }
    let shape = field("shape")?;
    let shape = &shape[1..shape.find(')').ok_or_else(short)?];
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("bad .npy shape ({shape})")))
        .collect::<Res<_>>()?;
    let (rows, cols) = match dims[..] {
        [n] => (n, 1),
        [n, k] => (n, k),
        _ => {
            return Err(format!(
                "expected a 1-D or 2-D .npy array, got shape ({shape})"
            ));
        }
    };
    let body = &bytes[start + len..];
    if body.len() != rows * cols * 8 {
        return Err(format!("{} data bytes for shape ({shape})", body.len()));
    }
    let data = body
        .chunks_exact(8)
        .map(|c| {
            let b: [u8; 8] = c.try_into().unwrap();
            if is_float {
                f64::from_le_bytes(b)
            } else {
                i64::from_le_bytes(b) as f64
            }
        })
        .collect();
    Ok((rows, cols, data))
}

// ------------------------------------------------------------- U replaying

/// An RNG that hands out given `U` values to the crate's `random::<f64>()`
/// calls, one per `u64` draw, and counts the draws.
struct Replay {
    draws: Vec<u64>,
    next: usize,
}

/// `2⁵³`: `random::<f64>()` returns `(x >> 11) · 2⁻⁵³` for a `u64` draw `x`.
const TWO_53: f64 = 9_007_199_254_740_992.0;

impl Replay {
    /// Encodes each `U` as the `u64` draw that yields it, and checks the round trip.
    fn new(us: &[f64], what: &str) -> Res<Replay> {
        let draws = us
            .iter()
            .enumerate()
            .map(|(i, &u)| {
                let m = u * TWO_53;
                if !(0.0..1.0).contains(&u) || m.fract() != 0.0 {
                    return Err(format!(
                        "{what}: U[{i}] = {u:?} is not a multiple of 2^-53 in [0, 1)"
                    ));
                }
                let draw = (m as u64) << 11;
                let back: f64 = Replay {
                    draws: vec![draw],
                    next: 0,
                }
                .random();
                if back == u {
                    Ok(draw)
                } else {
                    Err(format!("{what}: U[{i}] = {u:?} replays as {back:?}"))
                }
            })
            .collect::<Res<_>>()?;
        Ok(Replay { draws, next: 0 })
    }
}

impl TryRng for Replay {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        panic!("U replay serves only f64 draws, but a u32 was requested");
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let draw = *self
            .draws
            .get(self.next)
            .expect("more U draws requested than U values given");
        self.next += 1;
        Ok(draw)
    }

    fn try_fill_bytes(&mut self, _dst: &mut [u8]) -> Result<(), Infallible> {
        panic!("U replay serves only f64 draws, but bytes were requested");
    }
}

// ----------------------------------------------------------------- predict

/// What to calibrate with and where to write.
struct Job {
    cpu_runs: usize,
    cal_probs: Array2<f64>,
    cal_labels: Vec<usize>,
    test_probs: Array2<f64>,
    alpha: f64,
    rule: QuantileRule,
    seed: u64,
    u_cal: Option<Vec<f64>>,
    u_test: Option<Vec<f64>>,
}

fn predict(args: &[String]) -> Res<()> {
    let a = Args::parse(args)?;
    a.check_known(&[
        "--cal-probs",
        "--cal-labels",
        "--test-probs",
        "--score",
        "--alpha",
        "--rule",
        "--lambda",
        "--k-reg",
        "--seed",
        "--u-cal",
        "--u-test",
        "--out",
        "--cpu-runs",
    ])?;
    let cpu_runs: usize = a.parsed("--cpu-runs", 0)?;
    if cpu_runs > 0 && (a.get("--u-cal").is_some() || a.get("--u-test").is_some()) {
        return Err("--cpu-runs times the seeded draws, not --u-cal/--u-test".into());
    }
    let rule = match a.get("--rule").unwrap_or("finite") {
        "finite" => QuantileRule::FiniteSample,
        "higher" => QuantileRule::NumpyHigher,
        r => return Err(format!("--rule {r:?}: expected finite or higher")),
    };
    let u_cal = a
        .get("--u-cal")
        .map(|p| read_numbers(Path::new(p)))
        .transpose()?;
    let u_test = a
        .get("--u-test")
        .map(|p| read_numbers(Path::new(p)))
        .transpose()?;
    if u_cal.is_some() != u_test.is_some() {
        return Err("give both --u-cal and --u-test, or neither".into());
    }
    let job = Job {
        cpu_runs,
        cal_probs: read_matrix(Path::new(a.required("--cal-probs")?))?,
        cal_labels: read_labels(Path::new(a.required("--cal-labels")?))?,
        test_probs: read_matrix(Path::new(a.required("--test-probs")?))?,
        alpha: a.parsed("--alpha", 0.1)?,
        rule,
        seed: a.parsed("--seed", 0)?,
        u_cal,
        u_test,
    };
    let randomized = a.flag("--randomized");
    let allow_empty = a.flag("--allow-empty");
    let (lambda, k_reg): (f64, usize) = (a.parsed("--lambda", 0.5)?, a.parsed("--k-reg", 5)?);
    let score = a.required("--score")?;
    if !matches!(score, "aps" | "raps") && (randomized || allow_empty) {
        return Err(format!(
            "--randomized/--allow-empty apply to aps and raps only, not {score}"
        ));
    }
    let (q_hat, sets, name) = match score {
        "lac" => run(Lac, &job)?,
        "aps" => run(aps(randomized, allow_empty), &job)?,
        "raps" => {
            let raps = Raps {
                lambda,
                k_reg,
                randomized,
                allow_empty,
            };
            raps.check().map_err(|e| e.to_string())?;
            run(raps, &job)?
        }
        "topk-rank" => run(TopKRank, &job)?,
        s => {
            return Err(format!(
                "--score {s:?}: expected lac, aps, raps or topk-rank"
            ));
        }
    };

    let mut text = String::with_capacity(sets.len() * 8);
    for set in &sets {
        let mut first = true;
        for y in set.labels() {
            let sep = if first { "" } else { " " };
            first = false;
            write!(text, "{sep}{y}").expect("writing to a String");
        }
        text.push('\n');
    }
    match a.get("--out") {
        Some(p) => std::fs::write(p, text).map_err(|e| format!("{p}: {e}"))?,
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string())?,
    }
    let mean = sets.iter().map(PredictionSet::len).sum::<usize>() as f64 / sets.len().max(1) as f64;
    eprintln!(
        "score={name} rule={:?} alpha={} n_cal={} n_test={} K={} q_hat={q_hat:?} mean_size={mean:.4}",
        job.rule,
        job.alpha,
        job.cal_probs.nrows(),
        job.test_probs.nrows(),
        job.cal_probs.ncols(),
    );
    Ok(())
}

/// Calibrates and predicts, with replayed or seeded `U`s.
fn run<S: ConformityScore + Clone>(
    score: S,
    job: &Job,
) -> Res<(f64, Vec<PredictionSet>, &'static str)> {
    let name = score.name();
    let randomized = score.is_randomized();
    let cal = SplitConformal::new(score, job.alpha, job.rule).map_err(|e| e.to_string())?;
    let (fitted, sets, times) = match (&job.u_cal, &job.u_test) {
        (Some(uc), Some(ut)) => {
            if !randomized {
                return Err("--u-cal/--u-test need a randomised score (--randomized)".into());
            }
            let mut rc = Replay::new(uc, "--u-cal")?;
            let mut rt = Replay::new(ut, "--u-test")?;
            let out = calibrate_predict(&cal, job, &mut rc, Some(&mut rt))?;
            // One U per row, in row order: anything else means the replay is not faithful.
            for (what, r, rows) in [
                ("calibration", &rc, job.cal_probs.nrows()),
                ("test", &rt, job.test_probs.nrows()),
            ] {
                if r.next != rows || r.draws.len() != rows {
                    return Err(format!(
                        "{what}: {} U values given, {} drawn, {rows} rows",
                        r.draws.len(),
                        r.next
                    ));
                }
            }
            out
        }
        // As in the benchmark: one stream, calibration first.
        _ => calibrate_predict(&cal, job, &mut seeded(job.seed), None::<&mut Replay>)?,
    };
    eprintln!(
        "calibrate_ms={:.3} predict_ms={:.3}",
        times.0 * 1e3,
        times.1 * 1e3
    );
    if job.cpu_runs > 0 {
        let mut ms = Vec::with_capacity(job.cpu_runs);
        for _ in 0..job.cpu_runs {
            let mut rng = seeded(job.seed);
            let t0 = cpu_now();
            let fitted = cal
                .calibrate(job.cal_probs.view(), &job.cal_labels, &mut rng)
                .map_err(|e| e.to_string())?;
            let flat = fitted
                .predict(job.test_probs.view(), &mut rng)
                .map_err(|e| e.to_string())?;
            ms.push((cpu_now() - t0) * 1e3);
            std::hint::black_box(flat);
        }
        let text: Vec<String> = ms.iter().map(|t| format!("{t:.4}")).collect();
        ms.sort_by(f64::total_cmp);
        let mid = ms.len() / 2;
        let median = if ms.len() % 2 == 1 {
            ms[mid]
        } else {
            (ms[mid - 1] + ms[mid]) / 2.0
        };
        eprintln!("cpu_ms={} cpu_median_ms={median:.4}", text.join(","));
    }
    Ok((fitted.q_hat(), sets, name))
}

/// A calibrated predictor, its sets, and the calibration and prediction wall times (s).
type Outcome<S> = (Calibrated<S>, Vec<PredictionSet>, (f64, f64));

/// Calibrates with `rng`, predicts with `rng_test` (or `rng` again); returns
/// the wall times in seconds too.
fn calibrate_predict<S: ConformityScore + Clone, R: Rng, T: Rng>(
    cal: &SplitConformal<S>,
    job: &Job,
    rng: &mut R,
    rng_test: Option<&mut T>,
) -> Res<Outcome<S>> {
    let err = |e: conformal_sets::Error| e.to_string();
    let t0 = Instant::now();
    let fitted = cal
        .calibrate(job.cal_probs.view(), &job.cal_labels, rng)
        .map_err(err)?;
    let t1 = Instant::now();
    let flat = match rng_test {
        Some(r) => fitted.predict(job.test_probs.view(), r),
        None => fitted.predict(job.test_probs.view(), rng),
    }
    .map_err(err)?;
    let t2 = Instant::now();
    let sets = flat.to_sets();
    Ok((
        fitted,
        sets,
        ((t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64()),
    ))
}

// ------------------------------------------------------------------- synth

fn synth(args: &[String]) -> Res<()> {
    let a = Args::parse(args)?;
    a.check_known(&["--n", "--classes", "--concentration", "--seed", "--out-dir"])?;
    let n: usize = a.required("--n")?.parse().map_err(|_| "--n: not a count")?;
    let k: usize = a
        .required("--classes")?
        .parse()
        .map_err(|_| "--classes: not a count")?;
    let conc: f64 = a.parsed("--concentration", 0.1)?;
    let seed: u64 = a.parsed("--seed", 7)?;
    let dir = PathBuf::from(a.required("--out-dir")?);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;

    // As benches/conformal_sets.rs: calibration then test rows from one stream.
    let mut rng = seeded(seed);
    let (pc, yc) = dirichlet_classifier(n, k, conc, &mut rng).map_err(|e| e.to_string())?;
    let (pt, yt) = dirichlet_classifier(n, k, conc, &mut rng).map_err(|e| e.to_string())?;
    write_npy(&dir.join("cal_probs.npy"), &pc)?;
    write_npy(&dir.join("test_probs.npy"), &pt)?;
    for (name, y) in [("cal_labels.txt", &yc), ("test_labels.txt", &yt)] {
        let text: String = y.iter().map(|v| format!("{v}\n")).collect();
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    eprintln!(
        "wrote {n}+{n} rows, K={k}, Dirichlet({conc}), seed {seed} to {}",
        dir.display()
    );
    Ok(())
}

/// A 2-D `f8` `.npy` file (format version 1.0).
fn write_npy(path: &Path, m: &Array2<f64>) -> Res<()> {
    let mut header = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {}), }}",
        m.nrows(),
        m.ncols()
    );
    // Pad so that the data starts at a multiple of 64 bytes.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = Vec::with_capacity(10 + header.len() + m.len() * 8);
    bytes.extend_from_slice(NPY_MAGIC);
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for v in m.iter() {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The CPU clock this example times with, in seconds.
fn cpu_now() -> f64 {
    mlcore::timing::thread_cpu_seconds().expect("a CPU clock (Unix)")
}
