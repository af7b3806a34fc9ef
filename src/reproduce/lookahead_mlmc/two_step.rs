//! The two-step 1+2-EI look-ahead value α₂(x = 1) on the spec's 1-D GP:
//! agreement with BoTorch's `qMultiStepLookahead` at a fixed inner batch
//! (a declared check against the peer's recorded value), and the MLMC and
//! nested-MC runs at several ε (informative: the cost counter charges inner
//! samples only, see the notes).

use super::{predicted_costs, spec_gp};
use crate::runner::{BoxError, Check, Figure, Plot, Relation, Series};
use lookahead_mlmc::acq::expected_improvement;
use lookahead_mlmc::lookahead::{
    InnerSplit, InnerValue, SaaConfig, TwoStepSaa, TwoStepSamples, TwoStepValueSampler,
};
use lookahead_mlmc::mlmc::{
    AdaptiveConfig, Coupling, MlmcConfig, NestedRule, estimate_adaptive, nested_mc, nested_plan,
    rates,
};
use lookahead_mlmc::optim::Bounds;
use mlcore::sampling::seeded;
use mlcore::stats::{Welford, power_law_exponent};
use ndarray::array;
use std::time::Instant;

/// BoTorch 0.18.1 `qMultiStepLookahead` (batch_sizes = \[2\], N = M = 256,
/// ExpectedImprovement then qExpectedImprovement with `make_best_f`) at
/// x = 1 with X' = [1.5, 2.5] for every fantasy, mean of 20 seeds and its
/// standard error (docs/perf.md, `scripts/compare/lookahead_mlmc.py`).
pub const BOTORCH_TWO_STEP: (f64, f64) = (0.19230, 0.00039);

/// Tolerances of the real adaptive two-step runs (the quick budget uses the first three).
pub const TWO_STEP_EPS: [f64; 4] = [0.02, 0.01, 0.005, 0.0025];

/// What the two-step part contributes.
pub struct TwoStepResult {
    /// Declared checks.
    pub checks: Vec<Check>,
    /// Informative figures.
    pub figures: Vec<Figure>,
    /// Plots.
    pub plots: Vec<Plot>,
    /// Notes.
    pub notes: Vec<String>,
}

/// Our two-step value at x = 1 with the inner batch fixed at X' = [1.5, 2.5]
/// (N = M = 256), one independent set of base samples per seed.
fn botorch_case(seeds: usize, seed: u64) -> Result<Welford, BoxError> {
    let gp = spec_gp()?;
    let bounds = Bounds::new(vec![-10.0], vec![10.0])?;
    let inner = InnerValue::QEi { q: 2 };
    let best = gp.best_observed();
    let (n, m) = (256, 256);
    let xs = vec![vec![vec![1.5, 2.5]]; n];
    let mut w = Welford::new();
    for s in 0..seeds {
        let mut rng = seeded(seed ^ 0xb07_0000 ^ s as u64);
        let smp = TwoStepSamples::draw(n, m, inner, &bounds.repeat(2), 1, &mut rng);
        let p = TwoStepSaa::new(
            &gp,
            &bounds,
            best,
            inner,
            &smp,
            InnerSplit::Full,
            SaaConfig::default(),
        )?;
        w.push(p.value_with_inner(&[1.0], &xs));
    }
    // EI(1) is part of every value; computing it checks the GP is usable here.
    expected_improvement(&gp, array![1.0].view(), best)?;
    Ok(w)
}

/// Runs the two-step part; `step` marks progress.
pub fn run(seed: u64, quick: bool, step: &dyn Fn(&str)) -> Result<TwoStepResult, BoxError> {
    let mut checks = Vec::new();
    let mut figures = Vec::new();
    let mut notes = Vec::new();

    // ---- Agreement with BoTorch at a fixed inner batch.
    step("two-step: value against BoTorch");
    let bt_seeds = 20;
    let w = botorch_case(bt_seeds, seed)?;
    let (bt, bt_se) = BOTORCH_TWO_STEP;
    let se = (w.standard_error().powi(2) + bt_se * bt_se).sqrt();
    let z = (w.mean() - bt).abs() / se;
    checks.push(
        Check::new(
            format!(
                "two-step 1+2-EI at x = 1, X' = [1.5, 2.5], N = M = 256: |ours − BoTorch| / combined SE \
                 (ours {:.5} ± {:.5} over {bt_seeds} seeds, BoTorch {bt} ± {bt_se})",
                w.mean(),
                w.standard_error()
            ),
            z,
            Relation::AtMost,
            4.0,
            "peer: BoTorch 0.18.1 qMultiStepLookahead, mean of 20 seeds 0.19230 (SE 0.00039), docs/perf.md; \
             4 combined MC SE (spec Peers)",
        )
        .with_seeds(bt_seeds),
    );

    // ---- MLMC and nested MC on α₂(1), q₂ = 2 (informative).
    let two_n = if quick { 300 } else { 2_000 };
    let mut rng = seeded(seed ^ 0x2575_0000);
    let cfg = MlmcConfig::default();
    let gp = spec_gp()?;
    let bounds = Bounds::new(vec![-10.0], vec![10.0])?;
    let saa = SaaConfig {
        inner_raw_samples: 32,
        inner_restarts: 3,
        ..SaaConfig::default()
    };
    let best = gp.best_observed();
    let inner = InnerValue::QEi { q: 2 };
    let two_eps: &[f64] = if quick {
        &TWO_STEP_EPS[..3]
    } else {
        &TWO_STEP_EPS
    };
    let rate_top = 8;
    let t0 = Instant::now();
    step("two-step: rates (antithetic)");
    let mut s_anti =
        TwoStepValueSampler::new(&gp, &[1.0], &bounds, best, inner, Coupling::Antithetic, saa)?;
    let ta = rates(&mut s_anti, 3, rate_top, two_n, &mut rng)?;
    step("two-step: rates (standard)");
    let mut s_std =
        TwoStepValueSampler::new(&gp, &[1.0], &bounds, best, inner, Coupling::Standard, saa)?;
    let ts = rates(&mut s_std, 3, rate_top, two_n, &mut rng)?;
    let rates_secs = t0.elapsed().as_secs_f64();
    let nested2 = MlmcConfig {
        c_bias: ta.c_bias / (2f64.powf(ta.alpha) - 1.0),
        alpha: ta.alpha,
        ..cfg
    };
    let vp = ta.levels.last().map(|s| s.var_fine).unwrap_or(1.0);
    let (mut two_mlmc, mut two_nested, mut two_pred) = (Vec::new(), Vec::new(), Vec::new());
    let mut two_vals = Vec::new();
    let mut two_levels = Vec::new();
    let mut nested_runs = Vec::new();
    let nested_real = if quick { 1 } else { 2 };
    let t1 = Instant::now();
    for (k, &eps) in two_eps.iter().enumerate() {
        step(&format!("two-step: adaptive MLMC at ε = {eps}"));
        let run = estimate_adaptive(&mut s_anti, eps, &cfg, &AdaptiveConfig::default(), &mut rng)?;
        two_mlmc.push((eps, run.cost));
        two_vals.push((eps, run.value, run.variance.sqrt()));
        two_levels.push(run.levels.last().map(|s| s.level).unwrap_or(3));
        two_pred.push((eps, predicted_costs(&ta, eps).0));
        let (l, n) = nested_plan(eps, vp, &nested2, NestedRule::Tuned)?;
        two_nested.push((eps, n as f64 * 2f64.powi(l as i32)));
        if k < nested_real {
            step(&format!(
                "two-step: nested MC at ε = {eps} (L = {l}, N = {n})"
            ));
            let tn = Instant::now();
            let ne = nested_mc(&mut s_anti, l, n, &mut rng)?;
            nested_runs.push((eps, l, n, ne.value, ne.cost, tn.elapsed().as_secs_f64()));
        }
    }
    let two_secs = t1.elapsed().as_secs_f64();
    let two_mlmc_p = -power_law_exponent(&two_mlmc)?;
    let two_nested_p = -power_law_exponent(&two_nested)?;
    figures.push(
        Figure::new(
            format!("two-step: fitted β, antithetic (levels 3–{rate_top}, n = {two_n})"),
            ta.beta,
        )
        .with_target("paper ≈ 1.5 (see note)"),
    );
    figures.push(Figure::new(
        "two-step: fitted β, standard coupling",
        ts.beta,
    ));
    figures.push(Figure::new("two-step: fitted α", ta.alpha));
    figures.push(Figure::new(
        format!(
            "two-step: MLMC cost exponent p (cost ∝ ε^−p, inner samples only) from {} single adaptive runs",
            two_eps.len()
        ),
        two_mlmc_p,
    ));
    figures.push(Figure::new(
        "two-step: tuned nested-MC cost exponent p (plans N·2^L)",
        two_nested_p,
    ));
    let tl = two_eps.len() - 1;
    figures.push(Figure::new(
        format!(
            "two-step: nested-plan / MLMC cost at ε = {} (inner samples only)",
            two_eps[tl]
        ),
        two_nested[tl].1 / two_mlmc[tl].1,
    ));
    figures.push(Figure::new(
        format!(
            "two-step: real MLMC cost / predicted from rates, ε = {}",
            two_eps[tl]
        ),
        two_mlmc[tl].1 / two_pred[tl].1,
    ));
    let (_, vref, _) = two_vals[tl];
    let mut agree = two_vals
        .iter()
        .map(|(e, v, _)| (v - vref).abs() / e)
        .fold(0.0, f64::max);
    for (e, _, _, v, _, _) in &nested_runs {
        agree = agree.max((v - vref).abs() / e);
    }
    figures.push(Figure::new(
        format!(
            "two-step: max |α̂₂ − α̂₂(ε = {})|/ε over MLMC and nested runs",
            two_eps[tl]
        ),
        agree,
    ));
    figures.push(Figure::new(
        format!("two-step: MLMC estimate α₂(1) at ε = {}", two_eps[tl]),
        vref,
    ));
    let to_series = |label: &str, v: &[(f64, f64)]| Series::line(label, v.to_vec());
    let plots = vec![
        Plot {
            title: "Two-step 1+2-EI value α₂(1): cost to reach RMSE ε (inner samples only)".into(),
            x_label: "ε".into(),
            y_label: "cost".into(),
            series: vec![
                to_series("MLMC, antithetic (real adaptive runs)", &two_mlmc),
                to_series("MLMC, predicted from fitted rates", &two_pred),
                to_series("nested MC (tuned plan, N·2^L)", &two_nested),
            ],
            log_x: true,
            log_y: true,
        },
        Plot {
            title: "Two-step value: Var ΔP_ℓ per level".into(),
            x_label: "level ℓ (M = 2^ℓ)".into(),
            y_label: "variance".into(),
            series: vec![
                Series::line(
                    "antithetic",
                    ta.levels[1..]
                        .iter()
                        .map(|s| (s.level as f64, s.var))
                        .collect(),
                ),
                Series::line(
                    "standard",
                    ts.levels[1..]
                        .iter()
                        .map(|s| (s.level as f64, s.var))
                        .collect(),
                ),
                Series::line(
                    "Var P_ℓ (nested)",
                    ta.levels
                        .iter()
                        .map(|s| (s.level as f64, s.var_fine))
                        .collect(),
                ),
            ],
            log_x: false,
            log_y: true,
        },
    ];
    let nested_txt: Vec<String> = nested_runs
        .iter()
        .map(|(e, l, n, v, c, t)| {
            format!("ε = {e}: L = {l}, N = {n}, α̂₂ = {v:.5}, cost {c:.3e} in {t:.1} s")
        })
        .collect();
    let mlmc_txt: Vec<String> = two_vals
        .iter()
        .zip(&two_mlmc)
        .zip(&two_levels)
        .map(|(((e, v, se), (_, c)), l)| {
            format!("ε = {e}: α̂₂ = {v:.5} ± {se:.5}, L = {l}, cost {c:.3e}")
        })
        .collect();
    notes.push(format!(
        "Two-step: α₂(x=1) = EI(1) + E_y[max_{{x'∈[−10,10]²}} qEI(x')] on the spec's 1-D GP (q₂ = 2), inner maximisation by \
         multi-start L-BFGS per fantasy with the coupled fine/coarse solve. BoTorch check: our value with the inner batch \
         fixed at X' = [1.5, 2.5], N = M = 256, over {bt_seeds} independent sets of base samples, against BoTorch's \
         recorded mean of 20 seeds. Rates from {two_n} outer samples per level 3–{rate_top} ({rates_secs:.1} s for both \
         couplings). Single adaptive MLMC runs (Giles's algorithm, α = 1 bias test): {}; {two_secs:.1} s for all MLMC and \
         nested runs. Nested MC (tuned): L from the fitted bias, N = ⌈2 Var P_L/ε²⌉, cost N·2^L; real nested runs: {}.",
        mlmc_txt.join("; "),
        nested_txt.join("; ")
    ));
    notes.push(
        "Two-step costs are informative, not checks: the crate's cost counter charges one unit per inner sample and \
         nothing for the inner optimisations (a level that runs the fine and the coarse inner maximisations, each with \
         restarts and L-BFGS iterations, is charged as its inner samples only), so MLMC's and nested MC's costs here \
         are not the work done. The cost-vs-RMSE exponents with intervals are checked on the closed-form toy, whose \
         counter is exact; the two-step comparison at equal measured cost (issue 36, 2(d)) waits for an instrumented \
         counter in the crate."
            .into(),
    );
    notes.push(format!(
        "Two-step β: the fitted antithetic β ({:.2}) is below the paper's 1.5 because levels 3–{rate_top} are pre-asymptotic \
         for this quantity: the inner q-EI problem has near-tied local maxima, so the even/odd halves often pick different \
         modes (Giles & Goda's kink regime, β → 1.5), and the switch probability is still high at small M (71% at M = 16, \
         19% at M = 512). The crate example `two_step_beta` fits β = 1.31 over levels 4–9 (n = 1000) and 1.46 over \
         levels 6–11 (n = 600).",
        ta.beta
    ));
    Ok(TwoStepResult {
        checks,
        figures,
        plots,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed-inner two-step value agrees with BoTorch's recorded mean
    /// within 4 combined standard errors.
    #[test]
    fn fixed_inner_value_agrees_with_botorch() {
        let w = botorch_case(20, 11).unwrap();
        let (bt, bt_se) = BOTORCH_TWO_STEP;
        let z = (w.mean() - bt).abs() / (w.standard_error().powi(2) + bt_se * bt_se).sqrt();
        assert!(
            z <= 4.0,
            "ours {} ± {}, z = {z}",
            w.mean(),
            w.standard_error()
        );
    }
}
