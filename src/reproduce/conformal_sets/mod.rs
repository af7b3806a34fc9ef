//! `conformal-sets`: the trial's results table and ablations recomputed from
//! the vendored results files, split-conformal coverage on the spec's
//! synthetic model (Wilson intervals over calibration draws), and conformal
//! sets against equal-coverage top-3 sets on a synthetic classifier.

mod coverage;
pub(crate) mod digits;
mod rct;

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use conformal_sets::calibrate::{QuantileRule, SplitConformal};
use conformal_sets::matching::{alpha_matching_top_k, top_k_sets};
use conformal_sets::metrics::{RAPS_STRATA, coverage, mean_size, size_stratified_coverage};
use conformal_sets::score::{PredictionSet, Raps};
use conformal_sets::synthetic::dirichlet_classifier;
use mlcore::sampling::seeded;
use mlcore::stats::{Welford, spearman, t_interval};
use ndarray::{Array1, ArrayView2};

/// The reproduction registered as `conformal-sets`.
pub struct ConformalSets;

const CLASSES: usize = 10;
const K: usize = 3;
/// Dirichlet concentration of the equal-coverage demo: a mix of easy and hard
/// inputs, as for a strong classifier.
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

/// The equal-coverage demonstration: RAPS at α = 1 − ĉ₃ against top-3 sets.
struct Demo {
    checks: Vec<Check>,
    figures: Vec<Figure>,
    plots: Vec<Plot>,
    note: String,
}

fn demo(ctx: &Context, repeats: usize) -> Result<Demo, BoxError> {
    let (n_cal, n_test) = (2000, 10_000);
    let mut rng = seeded(ctx.seed());
    let (mut cov_raps, mut cov_top, mut size_raps) =
        (Welford::new(), Welford::new(), Welford::new());
    let mut rho = Vec::with_capacity(repeats);
    let mut last = None;
    for _ in 0..repeats {
        let (pc, yc) = dirichlet_classifier(n_cal, CLASSES, CONCENTRATION, &mut rng)?;
        let (pt, yt) = dirichlet_classifier(n_test, CLASSES, CONCENTRATION, &mut rng)?;
        let alpha = alpha_matching_top_k(pc.view(), &yc, K)?;
        let fitted = SplitConformal::new(Raps::default(), alpha, QuantileRule::FiniteSample)?
            .calibrate(pc.view(), &yc, &mut rng)?;
        let raps = fitted.predict(pt.view(), &mut rng)?.to_sets();
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
    let (rho_mean, rho_ci) = t_interval(Array1::from_vec(rho).view(), 0.95)?;
    let checks = vec![
        Check::new(
            "Spearman ρ(RAPS set size, entropy of π), mean over repeats, 95% t-interval",
            rho_mean,
            Relation::IntervalAbove,
            0.0,
            "paper abstract: larger sets signal greater uncertainty",
        )
        .with_interval(rho_ci.lo, rho_ci.hi)
        .with_seeds(repeats),
    ];
    let figures = vec![
        Figure::new("equal-coverage demo: top-3 coverage", cov_top.mean()),
        Figure::new(
            "equal-coverage demo: RAPS coverage at α = 1 − ĉ₃",
            cov_raps.mean(),
        )
        .with_target("≈ top-3 coverage (integer k: only approximately equal, spec)"),
        Figure::new("equal-coverage demo: RAPS mean set size", size_raps.mean())
            .with_target("top-3: 3"),
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
    let note = format!(
        "Equal-coverage demo: π ~ Dirichlet({CONCENTRATION}·1_{CLASSES}), y ~ π; n_cal = {n_cal}, n_test = {n_test}, {repeats} \
         repeats; α = 1 − ĉ₃ on the calibration set, RAPS(λ = 0.5, k_reg = 5, randomised, no empty sets), finite-sample \
         rule. The coverages match only approximately (k is an integer; the spec asks to report both) and the size \
         advantage depends on the model: with Dirichlet(1·1₁₀) (top-3 coverage ≈ 0.62) RAPS sets are no smaller than \
         top-3 on average (`cargo run --release --example conformal_sets_equal_coverage -- 1.0`), so neither is a \
         check; the size–difficulty correlation (the abstract's claim) is."
    );
    Ok(Demo {
        checks,
        figures,
        plots,
        note,
    })
}

/// Coverage minus 1 − α with the Wilson interval's ends, per method, and the band.
fn coverage_plot(cells: &[coverage::Cell]) -> Plot {
    let mut series = Vec::new();
    for method in cells
        .iter()
        .map(|c| c.method)
        .collect::<std::collections::BTreeSet<_>>()
    {
        let mine: Vec<&coverage::Cell> = cells.iter().filter(|c| c.method == method).collect();
        series.push(Series::points(
            format!("{method} (Wilson 99% ends)"),
            mine.iter()
                .flat_map(|c| {
                    let nominal = 1.0 - c.alpha;
                    [
                        (c.alpha, c.interval.lo - nominal),
                        (c.alpha, c.interval.hi - nominal),
                    ]
                })
                .collect(),
        ));
    }
    let band = 1.0 / (coverage::N_CAL + 1) as f64;
    let alphas = coverage::ALPHAS;
    for (label, y) in [
        ("1 − α (theorem, lower)", 0.0),
        ("1 − α + 1/(n+1) (theorem, upper)", band),
        ("1 − α − 0.01 (excluded)", -coverage::MARGIN),
    ] {
        series.push(Series::line(
            label,
            alphas.iter().map(|&a| (a, y)).collect(),
        ));
    }
    Plot {
        title: format!(
            "Split-conformal coverage − (1 − α), Dirichlet({}·1_{}) model, n = {}",
            coverage::CONCENTRATION,
            coverage::CLASSES,
            coverage::N_CAL
        ),
        x_label: "α".into(),
        y_label: "coverage − (1 − α)".into(),
        series,
        ..Plot::default()
    }
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
         three tasks (one-sided Welch p < 0.05), but not with larger sets or a weaker model (ablations); the \
         split-conformal sets behind this cover with probability in [1 − α, 1 − α + 1/(n+1)], and their size \
         grows with the input's difficulty."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let (repeats, draws) = match ctx.budget() {
            Budget::Quick => (50, 50_000),
            Budget::Full => (500, 200_000),
        };
        ctx.set_steps((repeats + 2 * coverage::steps(draws)) as u64);
        let trial = rct::trial(ctx)?;
        let mut cov_rng = seeded(ctx.seed() ^ 0xC0FF_EE00_D1CE_5EED);
        let cells = coverage::coverage(ctx, &mut cov_rng, draws)?;
        let (cov_checks, cov_figures) = coverage::checks(&cells, "synthetic");
        ctx.set_message("digits: fitting the multinomial logistic regression");
        let pool = digits::pool(ctx)?;
        let mut digits_rng = seeded(ctx.seed() ^ 0xD161_7500_C0DE_0033);
        let digit_cells = digits::coverage(ctx, &pool, &mut digits_rng, draws)?;
        let (digit_checks, digit_figures) = coverage::checks(&digit_cells, "digits");
        let demo = demo(ctx, repeats)?;

        let mut checks = trial.checks;
        checks.extend(cov_checks);
        checks.extend(digit_checks);
        checks.extend(demo.checks);
        let mut figures = trial.figures;
        figures.extend(cov_figures);
        figures.push(Figure::new(
            "digits: accuracy of the multinomial logistic regression on the pool",
            pool.accuracy,
        ));
        figures.extend(digit_figures);
        figures.extend(demo.figures);
        let mut plots = vec![trial.plot, coverage_plot(&cells)];
        plots.extend(demo.plots);
        let mut notes = trial.notes;
        notes.push(format!(
            "Coverage: {draws} independent draws of the spec's model (π ~ Dirichlet({}·1_{}), y ~ π), each a calibration set \
             of n = {} and one test point, so the covered indicators are independent and the Wilson 99% interval applies \
             (test points sharing a calibration set would be correlated). LAC, randomised APS and randomised RAPS (λ = 0.5, \
             k_reg = 5) with empty sets allowed, as the theorem assumes (the trial's no-empty-sets option can only raise \
             coverage); FiniteSample rule, q̂ = the ⌈(n+1)(1−α)⌉-th smallest score (quantile_index and order_statistic, as \
             SplitConformal::calibrate computes it, once per draw for the three levels). The exact marginal coverage is \
             ⌈(n+1)(1−α)⌉/(n+1) for tie-free scores, 1–4·10⁻⁴ above the band's lower edge, so a band check fails by \
             chance with probability about 0.5% (at most 1%), about 5% for one of the nine; the seed is fixed. The \
             margin checks (1 − α − 0.01) sit ≥ 3 standard errors away at the quick budget.",
            coverage::CONCENTRATION,
            coverage::CLASSES,
            coverage::N_CAL
        ));
        notes.push(format!(
            "Coverage on real data: a multinomial logistic regression (linear 64 → 10, softmax, cross-entropy, AdamW \
             lr 1e-2, weight decay 1e-3, {} epochs, batch 32, through nncore) fitted on {:.0}% of the vendored digits \
             (1,797 rows, pixels / 16); the remaining {} rows are the pool, on which it is {:.1}% accurate. Each of the \
             {draws} draws takes n = {} calibration rows and one test row from the pool uniformly without replacement: \
             given the fitted model the pool's rows are exchangeable, so the theorem and the same Wilson 99% checks \
             apply as on the synthetic model.",
            digits::EPOCHS,
            100.0 * digits::TRAIN_FRACTION,
            pool.labels.len(),
            100.0 * pool.accuracy,
            coverage::N_CAL
        ));
        notes.push(demo.note);
        notes.push(
            "Not yet covered (issue 33, for a later change): the speed goals (LAC ≥ 10×, RAPS ≥ 20× MAPIE)."
                .to_string(),
        );
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
