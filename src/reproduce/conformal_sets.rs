//! `conformal-sets`: conformal sets vs equal-coverage top-3 on a synthetic
//! classifier, and the re-analysis of the trial's results.

use crate::runner::{BoxError, Budget, Context, Figure, Outcome, Plot, Reproduction, Series};
use conformal_sets::calibrate::{QuantileRule, SplitConformal};
use conformal_sets::matching::{alpha_matching_top_k, top_k_sets};
use conformal_sets::metrics::{RAPS_STRATA, coverage, mean_size, size_stratified_coverage};
use conformal_sets::rct::{Alternative, ArmComparison, compare_arms, read_results_csv};
use conformal_sets::score::{PredictionSet, Raps};
use conformal_sets::synthetic::dirichlet_classifier;
use mlcore::sampling::seeded;
use mlcore::stats::{Welford, spearman};
use ndarray::{Array1, ArrayView2};

/// The reproduction registered as `conformal-sets`.
pub struct ConformalSets;

const CLASSES: usize = 10;
const K: usize = 3;
/// Dirichlet concentration of the synthetic model: a mix of easy and hard inputs, as for a strong classifier.
const CONCENTRATION: f64 = 0.1;

/// Shannon entropy of each probability row: the input's difficulty.
fn entropies(p: ArrayView2<'_, f64>) -> Array1<f64> {
    p.rows()
        .into_iter()
        .map(|r| {
            -r.iter()
                .filter(|&&v| v > 0.0)
                .map(|v| v * v.ln())
                .sum::<f64>()
        })
        .collect()
}

fn size_histogram(sets: &[PredictionSet]) -> Vec<(f64, f64)> {
    let mut h = [0usize; CLASSES + 1];
    sets.iter().for_each(|s| h[s.len()] += 1);
    h.iter()
        .enumerate()
        .map(|(k, &c)| (k as f64, c as f64 / sets.len() as f64))
        .collect()
}

impl Reproduction for ConformalSets {
    fn id(&self) -> &'static str {
        "conformal-sets"
    }

    fn paper(&self) -> &'static str {
        "Conformal Prediction Sets Improve Human Decision Making (Cresswell et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "People shown conformal (RAPS) sets answer more accurately than with equal-coverage top-k sets on all \
         three tasks (one-sided Welch p < 0.05); such sets match top-3 coverage with smaller sets whose size \
         grows with difficulty."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let repeats = match ctx.budget() {
            Budget::Quick => 50,
            Budget::Full => 500,
        };
        let (n_cal, n_test) = (2000, 10_000);
        ctx.set_steps(repeats);
        let mut rng = seeded(ctx.seed());
        let (mut cov_raps, mut cov_top, mut size_raps, mut rho) = (
            Welford::new(),
            Welford::new(),
            Welford::new(),
            Welford::new(),
        );
        let mut last = None;
        for _ in 0..repeats {
            let (pc, yc) = dirichlet_classifier(n_cal, CLASSES, CONCENTRATION, &mut rng)?;
            let (pt, yt) = dirichlet_classifier(n_test, CLASSES, CONCENTRATION, &mut rng)?;
            let alpha = alpha_matching_top_k(pc.view(), &yc, K)?;
            let fitted = SplitConformal::new(Raps::default(), alpha, QuantileRule::FiniteSample)?
                .calibrate(pc.view(), &yc, &mut rng)?;
            let raps = fitted.predict(pt.view(), &mut rng)?;
            let top = top_k_sets(pt.view(), K)?;
            cov_raps.push(coverage(&raps, &yt)?);
            cov_top.push(coverage(&top, &yt)?);
            size_raps.push(mean_size(&raps)?);
            let sizes: Array1<f64> = raps.iter().map(|s| s.len() as f64).collect();
            rho.push(spearman(sizes.view(), entropies(pt.view()).view())?);
            last = Some((raps, top, yt));
            ctx.step();
        }
        let (raps, top, yt) = last.ok_or("no repeat ran")?;
        let gap = cov_raps.mean() - cov_top.mean();
        // Coverage difference: each mean has sd ≈ 0.004/√repeats; 0.01 is a wide margin.
        let held = gap.abs() < 0.01 && size_raps.mean() < K as f64 && rho.mean() > 0.5;
        let figures = vec![
            Figure::new("top-3 coverage", cov_top.mean()),
            Figure::new("RAPS coverage at matched α", cov_raps.mean())
                .with_target("≈ top-3 (|Δ| < 0.01)"),
            Figure::new("RAPS mean set size", size_raps.mean()).with_target("< 3"),
            Figure::new("Spearman(size, entropy)", rho.mean()).with_target("> 0.5"),
        ];
        let strata = |sets: &[PredictionSet]| -> Result<Vec<(f64, f64)>, BoxError> {
            Ok(size_stratified_coverage(sets, &yt, &RAPS_STRATA[..4])?
                .iter()
                .filter_map(|s| s.coverage.map(|c| ((s.lo + s.hi) as f64 / 2.0, c)))
                .collect())
        };
        let plots = vec![
            Plot {
                title: format!(
                    "Set sizes, synthetic {CLASSES}-class model (last of {repeats} repeats)"
                ),
                x_label: "set size".into(),
                y_label: "fraction of test points".into(),
                series: vec![
                    Series::line("RAPS (matched α)", size_histogram(&raps)),
                    Series::line("top-3", size_histogram(&top)),
                ],
                ..Plot::default()
            },
            Plot {
                title: "Coverage by set-size stratum".into(),
                x_label: "set size (stratum midpoint: 0-1, 2-3, 4-6, 7-10)".into(),
                y_label: "coverage".into(),
                series: vec![
                    Series::points("RAPS (matched α)", strata(&raps)?),
                    Series::points("top-3", strata(&top)?),
                ],
                ..Plot::default()
            },
        ];
        let (rct_held, rct_figures, rct_plot, rct_note) = rct(ctx)?;
        let mut figures = figures;
        figures.extend(rct_figures);
        let mut plots = plots;
        plots.extend(rct_plot);
        let held = held && rct_held;
        let notes = vec![format!(
            "Synthetic calibrated classifier π ~ Dirichlet({CONCENTRATION}·1_{CLASSES}), y ~ π; n_cal = {n_cal}, n_test = {n_test}, {repeats} repeats; \
             α = 1 − ĉ₃ on the calibration set, RAPS(λ = 0.5, k_reg = 5, randomised, no empty sets), finite-sample quantile rule."
        ),
        "The size advantage depends on the model: it comes from easy inputs getting 1–2 labels. With a flatter model \
         (Dirichlet(1·1₁₀), top-3 coverage ≈ 0.62) RAPS sets are no smaller than top-3 on average (3.005 vs 3; see \
         `cargo run --release --example conformal_sets_equal_coverage -- 1.0`), while adaptivity remains."
            .to_string(),
            rct_note,
        ];
        Ok(Outcome {
            held,
            figures,
            plots,
            notes,
        })
    }
}

/// The trial's tasks: folder, name, and the spec's printed (Welch t, Cohen's d).
const TASKS: [(&str, &str, f64, f64); 3] = [
    ("few-nerd", "Few-NERD", 3.28, 0.66),
    ("go-emotions", "GoEmotions", 2.16, 0.43),
    ("object-net", "ObjectNet", 2.38, 0.48),
];

/// Re-analyses the trial from its results files, when they are there:
/// conformal vs top-k, one-sided, per task. Without the files, says so and
/// leaves the verdict to the synthetic experiment.
fn rct(ctx: &Context) -> Result<(bool, Vec<Figure>, Option<Plot>, String), BoxError> {
    let dir = ctx.data_dir("conformal-sets");
    let missing: Vec<String> = TASKS
        .iter()
        .map(|t| dir.join(t.0).join("results.csv"))
        .filter(|p| !p.is_file())
        .map(|p| p.display().to_string())
        .collect();
    if !missing.is_empty() {
        // The synthetic part still decides the verdict; the table shows the trial part did not run.
        let found = (TASKS.len() - missing.len()) as f64;
        return Ok((
            true,
            vec![
                Figure::new("trial results files found (part skipped)", found)
                    .with_target("3 (see --data)"),
            ],
            None,
            format!(
                "Trial re-analysis skipped: results files not found ({}). They are `data/<task>/results.csv` of the official \
                 repository `layer6ai-labs/hitl-conformal-prediction`; pass their parent folder with `--data DIR` \
                 (laid out as DIR/conformal-sets/<task>/results.csv).",
                missing.join(", ")
            ),
        ));
    }
    let mut held = true;
    let mut figures = Vec::new();
    let mut arms: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for (i, &(folder, name, paper_t, paper_d)) in TASKS.iter().enumerate() {
        let participants = read_results_csv(dir.join(folder).join("results.csv"))?;
        let c: ArmComparison =
            compare_arms(&participants, "conformal", "topk", Alternative::Greater)?;
        // The spec prints t and d to two decimals: they must round to those values.
        held &= c.welch.p_value < 0.05
            && (c.welch.statistic - paper_t).abs() < 0.005
            && (c.cohens_d - paper_d).abs() < 0.005;
        figures.push(Figure::new(
            format!("{name}: conformal − top-k (questions correct)"),
            c.difference,
        ));
        figures.push(
            Figure::new(format!("{name}: Welch t"), c.welch.statistic)
                .with_target(format!("{paper_t} (paper)")),
        );
        figures
            .push(Figure::new(format!("{name}: Welch p₁"), c.welch.p_value).with_target("< 0.05"));
        figures.push(
            Figure::new(format!("{name}: Cohen's d"), c.cohens_d)
                .with_target(format!("{paper_d} (paper)")),
        );
        arms[0].push(((i + 1) as f64, c.control.mean));
        arms[1].push(((i + 1) as f64, c.treatment.mean));
    }
    let plot = Plot {
        title: "Trial: mean questions correct by arm (1 Few-NERD, 2 GoEmotions, 3 ObjectNet)"
            .into(),
        x_label: "task".into(),
        y_label: "mean correct".into(),
        series: vec![
            Series::points("top-k sets", arms[0].clone()),
            Series::points("conformal sets", arms[1].clone()),
        ],
        ..Plot::default()
    };
    let note = format!(
        "Trial re-analysis from {}: 50 participants per arm, one-sided tests of conformal > top-k on questions answered correctly \
         (the table of the spec; `cargo run --release --example conformal_sets_rct_reanalysis` prints ablations, response times and ANOVA).",
        dir.display()
    );
    Ok((held, figures, Some(plot), note))
}
