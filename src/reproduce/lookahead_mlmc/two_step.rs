//! The two-step 1+2-EI look-ahead value α₂(x = 1) on the spec's 1-D GP:
//! agreement with BoTorch's `qMultiStepLookahead` at a fixed inner batch
//! (a declared check against the peer's recorded value), the rates
//! (informative), and MLMC against nested MC at equal measured cost (the
//! crate's instrumented counter), RMSE ratio with a bootstrap interval.

use super::spec_gp;
use crate::runner::{BoxError, Check, Figure, Plot, Relation, Series};
use lookahead_mlmc::acq::expected_improvement;
use lookahead_mlmc::lookahead::{
    InnerSplit, InnerValue, SaaConfig, TwoStepSaa, TwoStepSamples, TwoStepValueSampler,
};
use lookahead_mlmc::mlmc::{
    AdaptiveConfig, Coupling, LevelStats, MlmcConfig, estimate_adaptive, nested_mc, rates,
};
use lookahead_mlmc::optim::Bounds;
use mlcore::sampling::seeded;
use mlcore::stats::{Welford, bootstrap_interval, pairwise_sum};
use ndarray::{Array1, array};
use std::time::Instant;

/// BoTorch 0.18.1 `qMultiStepLookahead` (batch_sizes = \[2\], N = M = 256,
/// ExpectedImprovement then qExpectedImprovement with `make_best_f`) at
/// x = 1 with X' = [1.5, 2.5] for every fantasy, mean of 20 seeds and its
/// standard error (docs/perf.md, `scripts/compare/lookahead_mlmc.py`).
pub const BOTORCH_TWO_STEP: (f64, f64) = (0.19230, 0.00039);

/// Target RMSEs of the equal-cost comparison: the quick budget's, the full budget's.
pub const TWO_STEP_EPS: [f64; 2] = [0.02, 0.01];

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
        w.push(p.value_with_inner(&[1.0], &xs)?);
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

    // ---- Rates (informative) and MLMC against nested MC at equal measured
    // cost (issue 36, 2(d)), on α₂(1) with q₂ = 2.
    let b = TwoStepBudget::new(quick);
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
    let sampler = |c| TwoStepValueSampler::new(&gp, &[1.0], &bounds, best, inner, c, saa);
    let mut rng = seeded(seed ^ 0x2575_0000);
    let t0 = Instant::now();
    step("two-step: rates (antithetic)");
    let ta = rates(
        &mut sampler(Coupling::Antithetic)?,
        3,
        b.rate_top,
        b.rate_n,
        &mut rng,
    )?;
    step("two-step: rates (standard)");
    let ts = rates(
        &mut sampler(Coupling::Standard)?,
        3,
        b.rate_top,
        b.rate_n,
        &mut rng,
    )?;
    let rates_secs = t0.elapsed().as_secs_f64();

    let t1 = Instant::now();
    step(&format!("two-step: reference MLMC at ε = {}", b.eps_ref));
    let mut s_ref = sampler(Coupling::Antithetic)?;
    let acfg = AdaptiveConfig::default();
    let reference = estimate_adaptive(
        &mut s_ref,
        b.eps_ref,
        &cfg,
        &acfg,
        &mut seeded(seed ^ 0x2ef_0000),
    )?;
    let exact = reference.value;
    step(&format!("two-step: {} MLMC runs at ε = {}", b.reps, b.eps));
    let mut mlmc_runs = Vec::new();
    let mut top_levels = Vec::new();
    for r in 0..b.reps {
        let mut s = sampler(Coupling::Antithetic)?;
        let mut rng = seeded(seed ^ 0x3a3c_0000 ^ r as u64);
        let e = estimate_adaptive(&mut s, b.eps, &cfg, &acfg, &mut rng)?;
        top_levels.push(e.levels.last().map(|s| s.level).unwrap_or(3));
        mlmc_runs.push((e.value, e.cost));
    }
    let mlmc_cost = mean(&mlmc_runs.iter().map(|r| r.1).collect::<Vec<_>>());
    // Nested MC at MLMC's finest level (the same bias target) with N set so
    // that its measured cost equals MLMC's mean measured cost; the cost per
    // outer sample at that level is measured by a pilot run.
    let l_nested = *top_levels.iter().max().unwrap_or(&3);
    let mut s_nested = sampler(Coupling::Antithetic)?;
    let pilot_n = 8;
    let pilot = nested_mc(&mut s_nested, l_nested, pilot_n, &mut seeded(seed ^ 0x9110))?;
    let per_sample = pilot.cost / pilot_n as f64;
    let n_nested = ((mlmc_cost / per_sample).round() as usize).max(2);
    step(&format!(
        "two-step: {} nested-MC runs (L = {l_nested}, N = {n_nested})",
        b.reps
    ));
    let mut nested_runs = Vec::new();
    for r in 0..b.reps {
        let mut rng = seeded(seed ^ 0x4e57_0000 ^ r as u64);
        let x = nested_mc(&mut s_nested, l_nested, n_nested, &mut rng)?;
        nested_runs.push((x.value, x.cost));
    }
    let nested_cost = mean(&nested_runs.iter().map(|r| r.1).collect::<Vec<_>>());
    let equal_secs = t1.elapsed().as_secs_f64();
    let rmse = |runs: &[(f64, f64)], idx: &[usize]| -> f64 {
        let sq: Vec<f64> = idx.iter().map(|&i| (runs[i].0 - exact).powi(2)).collect();
        (pairwise_sum(&sq) / idx.len() as f64).sqrt()
    };
    let all: Vec<usize> = (0..b.reps).collect();
    let (rm, rn) = (rmse(&mlmc_runs, &all), rmse(&nested_runs, &all));
    let ratio = rn / rm;
    let idx = Array1::from_iter((0..b.reps).map(|i| i as f64));
    let ci = bootstrap_interval(
        idx.view(),
        |sample| {
            let ii: Vec<usize> = sample.iter().map(|&v| v as usize).collect();
            rmse(&nested_runs, &ii) / rmse(&mlmc_runs, &ii).max(1e-300)
        },
        2000,
        0.95,
        seed ^ 0xb003,
    )?;
    checks.push(
        Check::new(
            format!(
                "two-step α₂(1), q₂ = 2: RMSE of nested MC / RMSE of MLMC at equal measured cost ({} runs each; \
                 MLMC adaptive at ε = {}, nested MC at L = {l_nested}, N = {n_nested}; mean cost {:.3e} vs {:.3e} \
                 work units; RMSE against an MLMC reference at ε = {}; 95% bootstrap over runs)",
                b.reps, b.eps, mlmc_cost, nested_cost, b.eps_ref
            ),
            ratio,
            Relation::IntervalAbove,
            1.0,
            "paper (abstract, README): MLMC accelerates nested MC for the look-ahead acquisition, i.e. a smaller \
             error at equal cost (issue 36, 2(d))",
        )
        .with_interval(ci.lo, ci.hi)
        .with_seeds(b.reps),
    );
    figures.push(Figure::new(
        format!("two-step: RMSE of MLMC at ε = {} (measured)", b.eps),
        rm,
    ));
    figures.push(Figure::new(
        format!("two-step: RMSE of nested MC at equal cost (L = {l_nested}, N = {n_nested})"),
        rn,
    ));
    figures.push(Figure::new(
        "two-step: measured cost nested / MLMC in the equal-cost runs (≈ 1 by construction)",
        nested_cost / mlmc_cost,
    ));
    figures.push(Figure::new(
        format!(
            "two-step: reference α₂(1) (adaptive MLMC at ε = {}; its SE)",
            b.eps_ref
        ),
        exact,
    ));
    figures.push(Figure::new(
        "two-step: standard error of the reference",
        reference.variance.sqrt(),
    ));
    figures.push(
        Figure::new(
            format!(
                "two-step: fitted β, antithetic (levels 3–{}, n = {})",
                b.rate_top, b.rate_n
            ),
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
        "two-step: fitted γ of the measured cost per coupled sample (work units)",
        ta.gamma,
    ));
    let plots = vec![
        Plot {
            title: "Two-step value: Var ΔP_ℓ and measured cost per sample, per level".into(),
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
        Plot {
            title: format!(
                "Two-step α₂(1): error of each run at equal measured cost ({} runs each)",
                b.reps
            ),
            x_label: "measured cost (work units)".into(),
            y_label: "|estimate − reference|".into(),
            series: vec![
                Series::points(
                    "MLMC (antithetic, adaptive)",
                    mlmc_runs
                        .iter()
                        .map(|(v, c)| (*c, (v - exact).abs().max(1e-6)))
                        .collect(),
                ),
                Series::points(
                    "nested MC",
                    nested_runs
                        .iter()
                        .map(|(v, c)| (*c, (v - exact).abs().max(1e-6)))
                        .collect(),
                ),
            ],
            log_x: true,
            log_y: true,
        },
    ];
    let work_txt = |l: &LevelStats| format!("ℓ = {}: {:.3e}", l.level, l.cost);
    notes.push(format!(
        "Two-step: α₂(x=1) = EI(1) + E_y[max_{{x'∈[−10,10]²}} qEI(x')] on the spec's 1-D GP (q₂ = 2), inner maximisation by \
         multi-start L-BFGS per fantasy (32 raw batches, 3 restarts) with the coupled fine/coarse solve. BoTorch check: our \
         value with the inner batch fixed at X' = [1.5, 2.5], N = M = 256, over {bt_seeds} independent sets of base samples, \
         against BoTorch's recorded mean of 20 seeds. Cost = the crate's instrumented counter (lookahead_mlmc::cost): one \
         unit per inner sample of every q-EI evaluation and per GP solve, so every restart, L-BFGS iteration and line-search \
         trial of every inner optimisation of the fine and coarse problems is charged, by the same counter for MLMC and \
         nested MC. Measured cost per coupled sample (antithetic) {}. Rates from {} outer samples per level 3–{} \
         ({rates_secs:.1} s for both couplings). Equal-cost comparison ({equal_secs:.1} s): {} adaptive MLMC runs at ε = {} \
         (Giles's algorithm, α = 1 bias test; finest levels {:?}) and {} nested-MC runs at MLMC's finest level L = {l_nested} \
         with N = {n_nested} from a measured pilot cost of {per_sample:.3e} per outer sample; the reference is one adaptive \
         MLMC run at ε = {} (value {exact:.5}, SE {:.1e}), whose own error enters both RMSEs alike.",
        ta.levels.iter().map(work_txt).collect::<Vec<_>>().join(", "),
        b.rate_n,
        b.rate_top,
        b.reps,
        b.eps,
        top_levels,
        b.reps,
        b.eps_ref,
        reference.variance.sqrt()
    ));
    notes.push(format!(
        "Two-step β: the fitted antithetic β ({:.2}) is below the paper's 1.5 because levels 3–{} are pre-asymptotic \
         for this quantity: the inner q-EI problem has near-tied local maxima, so the even/odd halves often pick different \
         modes (Giles & Goda's kink regime, β → 1.5), and the switch probability is still high at small M (71% at M = 16, \
         19% at M = 512). The crate example `two_step_beta` fits β = 1.31 over levels 4–9 (n = 1000) and 1.46 over \
         levels 6–11 (n = 600). The spec's β and α ranges are checked on the closed-form toy.",
        ta.beta, b.rate_top
    ));
    Ok(TwoStepResult {
        checks,
        figures,
        plots,
        notes,
    })
}

fn mean(v: &[f64]) -> f64 {
    pairwise_sum(v) / v.len().max(1) as f64
}

/// How much of the two-step value to run.
struct TwoStepBudget {
    rate_n: usize,
    rate_top: u32,
    eps: f64,
    eps_ref: f64,
    reps: usize,
}

impl TwoStepBudget {
    fn new(quick: bool) -> Self {
        if quick {
            TwoStepBudget {
                rate_n: 150,
                rate_top: 7,
                eps: TWO_STEP_EPS[0],
                eps_ref: TWO_STEP_EPS[0] / 4.0,
                reps: 10,
            }
        } else {
            TwoStepBudget {
                rate_n: 1000,
                rate_top: 8,
                eps: TWO_STEP_EPS[1],
                eps_ref: TWO_STEP_EPS[1] / 4.0,
                reps: 20,
            }
        }
    }
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
