//! The runner's contract: selection, budgets, statuses, exit codes, the
//! crash-safe report (Markdown, JSON, SVG), checked on stand-in reproductions.

use icml24_runner::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
    format_value, main_with,
};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Holds;
impl Reproduction for Holds {
    fn id(&self) -> &'static str {
        "holds"
    }
    fn paper(&self) -> &'static str {
        "A paper whose claim holds (Doe et al., ICML 2024)"
    }
    fn claim(&self) -> &'static str {
        "Error decays like 1/n."
    }
    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        ctx.set_steps(3);
        let pts: Vec<(f64, f64)> = (1..=3)
            .map(|k| (10f64.powi(k), 10f64.powi(-k)))
            .inspect(|_| ctx.step())
            .collect();
        let full = f64::from(u8::from(ctx.budget() == Budget::Full));
        Ok(Outcome {
            checks: vec![
                Check::new(
                    "slope",
                    -1.0,
                    Relation::Within(0.1),
                    -1.0,
                    "paper Theorem 1",
                ),
                Check::new(
                    "coverage",
                    0.91,
                    Relation::IntervalContains,
                    0.9,
                    "spec: 1 − α",
                )
                .with_interval(0.88, 0.93)
                .with_seeds(20),
            ],
            figures: vec![Figure::new("full budget", full)],
            plots: vec![Plot {
                title: "error vs n".into(),
                x_label: "n".into(),
                y_label: "error".into(),
                series: vec![
                    Series::line("ours", pts.clone()),
                    Series::points("bound", pts),
                ],
                log_x: true,
                log_y: true,
            }],
            notes: vec!["a caveat".into()],
        })
    }
}

struct Fails;
impl Reproduction for Fails {
    fn id(&self) -> &'static str {
        "fails"
    }
    fn paper(&self) -> &'static str {
        "A paper whose claim fails"
    }
    fn claim(&self) -> &'static str {
        "Coverage ≥ 0.9."
    }
    fn run(&self, _: &Context) -> Result<Outcome, BoxError> {
        Ok(Outcome {
            checks: vec![Check::new(
                "coverage",
                0.5,
                Relation::AtLeast,
                0.9,
                "paper Table 1",
            )],
            ..Outcome::default()
        })
    }
}

struct Errors;
impl Reproduction for Errors {
    fn id(&self) -> &'static str {
        "errors"
    }
    fn paper(&self) -> &'static str {
        "A paper whose run errors"
    }
    fn claim(&self) -> &'static str {
        "Anything."
    }
    fn run(&self, _: &Context) -> Result<Outcome, BoxError> {
        Err("fixture data missing".into())
    }
}

struct Panics;
impl Reproduction for Panics {
    fn id(&self) -> &'static str {
        "panics"
    }
    fn paper(&self) -> &'static str {
        "A paper whose code panics"
    }
    fn claim(&self) -> &'static str {
        "Anything."
    }
    fn run(&self, _: &Context) -> Result<Outcome, BoxError> {
        let v: Vec<f64> = Vec::new();
        let i = v.len() + 3;
        Ok(Outcome {
            figures: vec![Figure::new("never", v[i])],
            ..Outcome::default()
        })
    }
}

struct Undecided;
impl Reproduction for Undecided {
    fn id(&self) -> &'static str {
        "undecided"
    }
    fn paper(&self) -> &'static str {
        "A paper the quick budget cannot decide"
    }
    fn claim(&self) -> &'static str {
        "A beats B over seeds."
    }
    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        Ok(Outcome {
            checks: vec![
                Check::new("bound", 0.2, Relation::AtMost, 1.0, "Theorem 2 bound"),
                Check::new(
                    "paired Wilcoxon p",
                    0.03,
                    Relation::PValueBelow,
                    0.05,
                    "rule: paired test over ≥ 10 seeds",
                )
                .with_seeds(4)
                .undecided_if(
                    ctx.budget() == Budget::Quick,
                    "4 seeds at quick; needs ≥ 10",
                ),
            ],
            ..Outcome::default()
        })
    }
}

struct NoChecks;
impl Reproduction for NoChecks {
    fn id(&self) -> &'static str {
        "no-checks"
    }
    fn paper(&self) -> &'static str {
        "A reproduction that declares nothing"
    }
    fn claim(&self) -> &'static str {
        "Anything."
    }
    fn run(&self, _: &Context) -> Result<Outcome, BoxError> {
        Ok(Outcome {
            figures: vec![Figure::new("x", 1.0)],
            ..Outcome::default()
        })
    }
}

/// Reads a vendored data set through the context, as real reproductions do.
struct NeedsData;
impl Reproduction for NeedsData {
    fn id(&self) -> &'static str {
        "needs-data"
    }
    fn paper(&self) -> &'static str {
        "A paper with a data file"
    }
    fn claim(&self) -> &'static str {
        "The file says 42."
    }
    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let text = ctx.dataset("answer")?.read_to_string("answer.txt")?;
        let value: f64 = text.trim().parse()?;
        Ok(Outcome {
            checks: vec![Check::new(
                "answer",
                value,
                Relation::Within(0.0),
                42.0,
                "spec",
            )],
            ..Outcome::default()
        })
    }
}

fn registry() -> Vec<Box<dyn Reproduction>> {
    vec![
        Box::new(Holds),
        Box::new(Fails),
        Box::new(Errors),
        Box::new(Panics),
        Box::new(Undecided),
        Box::new(NoChecks),
        Box::new(NeedsData),
    ]
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "icml24-runner-{}-{}-{name}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str], registry: &[Box<dyn Reproduction>]) -> (i32, String) {
    let mut out = Vec::new();
    let code = main_with(args.iter().map(|s| s.to_string()), registry, &mut out);
    (code, String::from_utf8(out).unwrap())
}

fn json(dir: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

fn status_of<'a>(report: &'a Value, id: &str) -> &'a str {
    report["reproductions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in the report"))["status"]
        .as_str()
        .unwrap()
}

#[test]
fn a_held_claim_exits_0_and_writes_report_json_and_svg() {
    let dir = tmp("held");
    let (code, out) = run(&["holds", "--out", dir.to_str().unwrap()], &registry());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("| holds |") && out.contains("2/2 checks pass") && out.contains("| held |")
    );
    assert!(out.contains("1 of 1 held"), "{out}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("Error decays like 1/n.")
            && md.contains("| slope | -1.000 | within 0.1000 of -1.000 | paper Theorem 1 | pass |")
            && md.contains("0.9100 [0.8800, 0.9300] (20 seeds)")
            && md.contains("![error vs n](holds.svg)")
            && md.contains("> a caveat"),
        "{md}"
    );
    let svg = std::fs::read_to_string(dir.join("holds.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("error vs n") && svg.contains("ours"));
    let report = json(&dir);
    assert_eq!(report["exit_code"], 0);
    let check = &report["reproductions"][0]["checks"][1];
    assert_eq!(check["relation"], "interval_contains");
    assert_eq!(check["threshold"], 0.9);
    assert_eq!(check["interval"][0], 0.88);
    assert_eq!(check["seeds"], 20);
    assert_eq!(check["source"], "spec: 1 − α");
    assert_eq!(check["status"], "pass");
}

#[test]
fn statuses_and_exit_codes() {
    let data = tmp("data-none");
    for (id, status, code) in [
        ("holds", "held", 0),
        ("fails", "not held", 1),
        ("errors", "error", 1),
        ("panics", "error", 1),
        ("undecided", "incomplete", 3),
        ("no-checks", "incomplete", 3),
        ("needs-data", "error", 1),
    ] {
        let dir = tmp(id);
        let (got, out) = run(
            &[
                id,
                "--out",
                dir.to_str().unwrap(),
                "--data",
                data.to_str().unwrap(),
            ],
            &registry(),
        );
        assert_eq!(got, code, "{id}: {out}");
        assert_eq!(status_of(&json(&dir), id), status, "{id}");
    }
    // The full budget decides what the quick one could not.
    let dir = tmp("undecided-full");
    let (got, _) = run(
        &[
            "undecided",
            "--budget",
            "full",
            "--out",
            dir.to_str().unwrap(),
        ],
        &registry(),
    );
    assert_eq!(got, 0);
    // Incomplete beside a failure is still a failure.
    let dir = tmp("mixed");
    let (got, _) = run(
        &["undecided", "fails", "--out", dir.to_str().unwrap()],
        &registry(),
    );
    assert_eq!(got, 1);
}

#[test]
fn a_panic_is_an_error_and_the_others_still_run() {
    let dir = tmp("panic");
    let (code, out) = run(&["--out", dir.to_str().unwrap()], &registry());
    assert_eq!(code, 1);
    assert!(
        out.contains("| panics |") && out.contains("error: panicked:"),
        "{out}"
    );
    let report = json(&dir);
    let reps = report["reproductions"].as_array().unwrap();
    assert_eq!(reps.len(), 7, "every reproduction is reported");
    let panics = reps.iter().find(|r| r["id"] == "panics").unwrap();
    assert!(
        panics["error"]
            .as_str()
            .unwrap()
            .contains("index out of bounds"),
        "{panics}"
    );
    assert_eq!(status_of(&report, "holds"), "held");
    assert_eq!(status_of(&report, "undecided"), "incomplete");
}

#[test]
fn a_missing_or_corrupted_data_file_is_an_error_naming_the_file_and_its_sha256() {
    let data = tmp("data");
    let set = data.join("answer");
    std::fs::create_dir_all(&set).unwrap();
    let good = mlcore::data::sha256_hex(b"42\n");
    std::fs::write(set.join("SHA256SUMS"), format!("{good}  answer.txt\n")).unwrap();
    let run_with = |tag: &str| {
        let dir = tmp(tag);
        let (code, _) = run(
            &[
                "needs-data",
                "--out",
                dir.to_str().unwrap(),
                "--data",
                data.to_str().unwrap(),
            ],
            &registry(),
        );
        (code, json(&dir))
    };
    // Missing file.
    let (code, report) = run_with("missing");
    assert_eq!(code, 1);
    let err = report["reproductions"][0]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(err.contains("answer.txt") && err.contains(&good), "{err}");
    // Corrupted file.
    std::fs::write(set.join("answer.txt"), b"43\n").unwrap();
    let (code, report) = run_with("corrupt");
    assert_eq!(code, 1);
    let err = report["reproductions"][0]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(err.contains("answer.txt") && err.contains(&good), "{err}");
    // The right file.
    std::fs::write(set.join("answer.txt"), b"42\n").unwrap();
    let (code, report) = run_with("good");
    assert_eq!(code, 0);
    assert_eq!(status_of(&report, "needs-data"), "held");
}

#[test]
fn the_report_is_valid_json_after_each_reproduction() {
    let dir = tmp("incremental");
    let seen = std::sync::Mutex::new(Vec::new());
    let reg = registry();
    let selected: Vec<&dyn Reproduction> = reg.iter().map(|r| r.as_ref()).collect();
    let data = tmp("incremental-data");
    icml24_runner::runner::run_all(&selected, Budget::Quick, 0, &data, |done| {
        icml24_runner::runner::write_report(done, Budget::Quick, &dir).unwrap();
        let report = json(&dir);
        let n = report["reproductions"].as_array().unwrap().len();
        seen.lock().unwrap().push(n);
    });
    assert_eq!(*seen.lock().unwrap(), vec![1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn budget_reaches_the_reproduction() {
    let dir = tmp("budget");
    run(&["holds", "--out", dir.to_str().unwrap()], &registry());
    let quick = std::fs::read_to_string(dir.join("report.md")).unwrap();
    run(
        &["holds", "--budget=full", "--out", dir.to_str().unwrap()],
        &registry(),
    );
    let full = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(quick.contains("full budget = 0") && full.contains("full budget = 1.000"));
}

#[test]
fn usage_errors_exit_2() {
    let file = tmp("a-file");
    std::fs::write(&file, b"not a folder").unwrap();
    let unwritable = file.join("report");
    for args in [
        &["--budget", "huge"][..],
        &["--nope"],
        &["no-such-paper"],
        &["--out"],
        &["--seed", "x"],
        &["holds", "--out", unwritable.to_str().unwrap()],
    ] {
        assert_eq!(run(args, &registry()).0, 2, "{args:?}");
    }
}

#[test]
fn list_and_help_exit_0_without_running() {
    let (code, out) = run(&["--list"], &registry());
    assert_eq!(code, 0);
    assert!(
        out.contains("holds") && out.contains("claim: Coverage ≥ 0.9.") && !out.contains(" held")
    );
    let (code, out) = run(&["--help"], &registry());
    assert_eq!(code, 0);
    assert!(out.contains("usage: icml24") && out.contains("3 none failed"));
}

#[test]
fn no_registered_papers_says_so_and_exits_0() {
    let (code, out) = run(&[], &[]);
    assert_eq!(code, 0);
    assert!(out.contains("No paper reproductions are registered"));
}

#[test]
fn the_binary_lists_and_rejects_bad_usage() {
    let bin = env!("CARGO_BIN_EXE_icml24");
    let list = std::process::Command::new(bin)
        .arg("--list")
        .output()
        .unwrap();
    assert_eq!(list.status.code(), Some(0));
    let bad = std::process::Command::new(bin)
        .arg("--bogus")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown option --bogus"));
}

#[test]
fn every_registered_reproduction_declares_a_sourced_claim() {
    let reg = icml24_runner::reproduce::registry();
    // Every entry is a crate of this workspace, listed once, sorted by id.
    let ids: Vec<&str> = reg.iter().map(|r| r.id()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "registry not sorted or with a duplicate");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for r in &reg {
        assert!(!r.claim().is_empty() && !r.paper().is_empty(), "{}", r.id());
        assert!(
            root.join("crates")
                .join(r.id())
                .join("Cargo.toml")
                .is_file(),
            "{} is not a crate under crates/",
            r.id()
        );
    }
    // The ten paper crates of the first wave are all registered.
    for id in [
        "cmdp-eluder",
        "conformal-sets",
        "coreset",
        "diffusion-tempering",
        "fair-lottery",
        "fair-memory",
        "lookahead-mlmc",
        "matrix-completion",
        "max-reward-rl",
        "ricci-causal",
    ] {
        assert!(ids.contains(&id), "{id} is not registered");
    }
}

#[test]
fn the_vendored_data_sets_verify() {
    let root = icml24_runner::runner::default_data_dir();
    let mut n = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        if dir.is_dir() {
            assert!(
                dir.join("SOURCE.md").is_file(),
                "{} has no SOURCE.md",
                dir.display()
            );
            let licence = std::fs::read_dir(&dir).unwrap().any(|f| {
                f.unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with("LICEN")
            });
            assert!(licence, "{} has no licence text", dir.display());
            mlcore::data::Dataset::open(&dir)
                .unwrap()
                .verify_all()
                .unwrap();
            n += 1;
        }
    }
    assert!(n >= 1);
}

#[test]
fn values_are_formatted_to_four_significant_digits() {
    assert_eq!(format_value(0.90123), "0.9012");
    assert_eq!(format_value(123.456), "123.5");
    assert_eq!(format_value(1.5e-7), "1.500e-7");
    assert_eq!(format_value(0.0), "0");
}

#[test]
fn expect_compares_every_status_with_the_file() {
    let file = tmp("expect");
    std::fs::write(
        &file,
        "# findings\nfails not-held\nundecided incomplete  # quick budget\n",
    )
    .unwrap();
    let out_dir = tmp("expect-out");
    let args = |names: &[&str]| {
        let mut v = names.to_vec();
        v.extend([
            "--out",
            out_dir.to_str().unwrap(),
            "--expect",
            file.to_str().unwrap(),
        ]);
        v.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let run_v = |v: Vec<String>| {
        let mut out = Vec::new();
        let code = main_with(v, &registry(), &mut out);
        (code, String::from_utf8(out).unwrap())
    };
    // Expected finding, expected incomplete, unlisted held: all as expected.
    let (code, out) = run_v(args(&["holds", "fails", "undecided"]));
    assert_eq!(code, 0, "{out}");
    // An error never matches; an unlisted reproduction must be held.
    let (code, out) = run_v(args(&["holds", "panics", "no-checks"]));
    assert_eq!(code, 1);
    assert!(
        out.contains("panics: error (expected held)")
            && out.contains("no-checks: incomplete (expected held)"),
        "{out}"
    );
    // The full budget decides the undecided one: a change of verdict fails.
    let mut v = args(&["undecided"]);
    v.extend(["--budget".to_string(), "full".to_string()]);
    assert_eq!(run_v(v).0, 1);
    // A malformed file is a usage error, before anything runs.
    std::fs::write(&file, "fails maybe\n").unwrap();
    assert_eq!(run_v(args(&["holds"])).0, 2);
    assert_eq!(run_v(vec!["--expect".into(), "/no/such/file".into()]).0, 2);
}
