//! Re-analysis of the paper's randomised controlled trial from the official
//! per-participant results files.
//!
//! ```text
//! cargo run --release --example conformal_sets_rct_reanalysis [-- DIR]
//! ```
//!
//! The trial's results are vendored in `data/hitl-conformal-rct/` (MIT,
//! from the official repository; see its `SOURCE.md`) and checked against
//! their SHA-256 on load. `DIR` points at another copy laid out the same way
//! (`<task>.csv.gz` and `SHA256SUMS`).
//!
//! Prints, per task, each arm's accuracy (mean ± sd of questions answered
//! correctly), the conformal − top-k comparison the paper reports (one-sided
//! Welch t-test, Mann–Whitney U, Cohen's d), the two ablations, the
//! two-sided response-time tests, and the per-arm sample size a replication
//! would need for 80 % power at the observed effect.

use std::path::PathBuf;
use std::process::ExitCode;

use conformal_sets::rct::{
    Alternative, ArmComparison, Outcome, Participant, anova_oneway, arm_outcome, compare_arms,
    compare_samples, group_by_arm, n_per_arm, read_trial, summarize,
};

const TASKS: [(&str, &str); 3] = [
    ("few-nerd", "Few-NERD"),
    ("go-emotions", "GoEmotions"),
    ("object-net", "ObjectNet"),
];

/// Comparisons beyond the headline rows: (task, treatment, control, what).
const ABLATIONS: [(&str, &str, &str, &str); 2] = [
    (
        "go-emotions",
        "conformal-large",
        "topk",
        "larger conformal sets",
    ),
    (
        "object-net",
        "conformal-vitb32",
        "topk-vitb32",
        "weaker model (CLIP ViT-B/32)",
    ),
];

fn row(label: &str, c: &ArmComparison) {
    println!(
        "  {label:<34} {:>6.2} ± {:<5.2} {:>6.2} ± {:<5.2} {:>+6.2}  t = {:>5.2} (ν = {:>4.1}), p = {:<8.2e}  U = {:>6.1}, p = {:<8.2e}  d = {:>5.2}",
        c.treatment.mean,
        c.treatment.sd,
        c.control.mean,
        c.control.sd,
        c.difference,
        c.welch.statistic,
        c.welch.df,
        c.welch.p_value,
        c.mann_whitney.statistic,
        c.mann_whitney.p_value,
        c.cohens_d,
    );
}

fn analyse(name: &str, participants: &[Participant]) -> conformal_sets::Result<f64> {
    println!("\n{name}");
    let groups = group_by_arm(participants)?;
    for g in &groups {
        let s = summarize(g.values(Outcome::NumCorrect).view())?;
        println!(
            "  arm {:<18} n = {:>3}   correct {:>6.2} ± {:<5.2} (median {:>5.1})",
            g.name, s.n, s.mean, s.sd, s.median
        );
    }
    let values: Vec<_> = groups
        .iter()
        .filter(|g| ["control", "topk", "conformal"].contains(&g.name))
        .map(|g| g.values(Outcome::NumCorrect))
        .collect();
    let views: Vec<_> = values.iter().map(|v| v.view()).collect();
    let anova = anova_oneway(&views)?;
    println!(
        "  one-way ANOVA, control / top-k / conformal: F({:.0}, {:.0}) = {:.2}, p = {:.2e}",
        anova.df_between, anova.df_within, anova.statistic, anova.p_value
    );
    println!(
        "  {:<34} {:>14} {:>14} {:>7}  {:<40}  {:<24}  {:>9}",
        "one-sided, treatment > control",
        "treatment",
        "control",
        "diff",
        "Welch",
        "Mann–Whitney",
        "Cohen"
    );
    let headline = compare_arms(participants, "conformal", "topk", Alternative::Greater)?;
    row("conformal vs top-k", &headline);
    Ok(headline.cohens_d)
}

fn main() -> ExitCode {
    let dir = std::env::args().nth(1).map_or_else(
        || mlcore::data::workspace_data_dir().join("hitl-conformal-rct"),
        PathBuf::from,
    );
    let dataset = match mlcore::data::Dataset::open(&dir) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "Conformal prediction sets RCT (Cresswell et al., ICML 2024), from {}",
        dir.display()
    );
    println!(
        "Outcome: questions answered correctly; tests as scipy 1.17 (ttest_ind equal_var=False, mannwhitneyu defaults)."
    );

    let mut effects = Vec::new();
    let mut loaded = Vec::new();
    for (task, name) in TASKS {
        let participants = match read_trial(&dataset, task) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        match analyse(name, &participants) {
            Ok(d) => effects.push((name, d)),
            Err(e) => {
                eprintln!("error in {name}: {e}");
                return ExitCode::FAILURE;
            }
        }
        loaded.push((task, name, participants));
    }

    let ablations: Vec<_> = ABLATIONS
        .iter()
        .filter_map(|&(task, t, c, what)| {
            let (_, name, p) = loaded.iter().find(|(k, _, _)| *k == task)?;
            Some((name, t, c, what, p))
        })
        .collect();
    if !ablations.is_empty() {
        println!("\nAblations (one-sided, treatment > control)");
        for (name, t, c, what, p) in ablations {
            println!("  {name}, {what}:");
            match compare_arms(p, t, c, Alternative::Greater) {
                Ok(r) => row(&format!("{t} vs {c}"), &r),
                Err(e) => println!("    {e}"),
            }
        }
    }

    if !loaded.is_empty() {
        println!("\nResponse time in seconds, conformal vs top-k (two-sided)");
        for (_, name, p) in &loaded {
            let times = arm_outcome(p, "conformal", Outcome::Time)
                .and_then(|t| Ok((t, arm_outcome(p, "topk", Outcome::Time)?)))
                .and_then(|(t, c)| compare_samples(t.view(), c.view(), Alternative::TwoSided));
            match times {
                Ok(r) => println!(
                    "  {name:<11} median {:>5.0} vs {:>5.0}   mean {:>5.0} vs {:>5.0}   Welch p = {:.2e}   Mann–Whitney p = {:.2e}",
                    r.treatment.median,
                    r.control.median,
                    r.treatment.mean,
                    r.control.mean,
                    r.welch.p_value,
                    r.mann_whitney.p_value
                ),
                Err(e) => println!("  {name}: {e}"),
            }
        }
    }

    if !effects.is_empty() {
        println!(
            "\nReplication planning: participants per arm for 80 % power, one-sided α = 0.05 (two-sample t-test)"
        );
        for (name, d) in &effects {
            match n_per_arm(*d, 0.05, 0.8, Alternative::Greater) {
                Ok(s) => println!(
                    "  {name:<11} d = {d:.2}: n* = {:.2} → {} per arm (power {:.3})",
                    s.n_exact, s.n_per_arm, s.achieved_power
                ),
                Err(e) => println!("  {name:<11} d = {d:.2}: {e}"),
            }
        }
    }

    ExitCode::SUCCESS
}
