//! The runner's contract: selection, budgets, exit statuses, and the report
//! with its SVG plots, checked on stand-in reproductions.

use icml24::runner::{
    BoxError, Context, Figure, Outcome, Plot, Reproduction, Series, format_value, main_with,
};
use std::path::PathBuf;

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
        let full = f64::from(u8::from(ctx.budget() == icml24::runner::Budget::Full));
        Ok(Outcome {
            held: true,
            figures: vec![
                Figure::new("slope", -1.0).with_target("≈ −1"),
                Figure::new("full budget", full),
            ],
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
            held: false,
            figures: vec![Figure::new("coverage", 0.5)],
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

fn registry() -> Vec<Box<dyn Reproduction>> {
    vec![Box::new(Holds), Box::new(Fails), Box::new(Errors)]
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("icml24-runner-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str], registry: &[Box<dyn Reproduction>]) -> (i32, String) {
    let mut out = Vec::new();
    let code = main_with(args.iter().map(|s| s.to_string()), registry, &mut out);
    (code, String::from_utf8(out).unwrap())
}

#[test]
fn a_held_claim_exits_0_and_writes_report_and_svg() {
    let dir = tmp("held");
    let (code, out) = run(&["holds", "--out", dir.to_str().unwrap()], &registry());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("| holds |")
            && out.contains("slope = -1.000 (target ≈ −1)")
            && out.contains("1 of 1 claims held")
    );
    let index = std::fs::read_to_string(dir.join("index.md")).unwrap();
    assert!(
        index.contains("Error decays like 1/n.")
            && index.contains("![error vs n](holds.svg)")
            && index.contains("> a caveat")
    );
    let svg = std::fs::read_to_string(dir.join("holds.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("error vs n") && svg.contains("ours"));
    assert!(!index.contains("fails"));
}

#[test]
fn a_failed_or_erroring_claim_exits_1() {
    let dir = tmp("failed");
    let (code, out) = run(&["--out", dir.to_str().unwrap()], &registry());
    assert_eq!(code, 1);
    assert!(
        out.contains("| fails |")
            && out.contains("NOT held")
            && out.contains("run failed: fixture data missing")
    );
    assert!(out.contains("1 of 3 claims held"));
    let (code, _) = run(&["errors", "--out", dir.to_str().unwrap()], &registry());
    assert_eq!(code, 1);
}

#[test]
fn budget_reaches_the_reproduction() {
    let dir = tmp("budget");
    let (_, quick) = run(&["holds", "--out", dir.to_str().unwrap()], &registry());
    let (_, full) = run(
        &["holds", "--budget=full", "--out", dir.to_str().unwrap()],
        &registry(),
    );
    assert!(quick.contains("full budget = 0") && full.contains("full budget = 1.000"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--budget", "huge"][..],
        &["--nope"],
        &["no-such-paper"],
        &["--out"],
        &["--seed", "x"],
    ] {
        assert_eq!(run(args, &registry()).0, 2, "{args:?}");
    }
}

#[test]
fn list_and_help_exit_0_without_running() {
    let (code, out) = run(&["--list"], &registry());
    assert_eq!(code, 0);
    assert!(
        out.contains("holds")
            && out.contains("claim: Coverage ≥ 0.9.")
            && !out.contains("claims held")
    );
    let (code, out) = run(&["--help"], &registry());
    assert_eq!(code, 0);
    assert!(out.contains("usage: icml24"));
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
fn values_are_formatted_to_four_significant_digits() {
    assert_eq!(format_value(0.90123), "0.9012");
    assert_eq!(format_value(123.456), "123.5");
    assert_eq!(format_value(1.5e-7), "1.500e-7");
    assert_eq!(format_value(0.0), "0");
}
