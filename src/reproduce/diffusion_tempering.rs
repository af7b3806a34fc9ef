//! `diffusion-tempering`: from many random starts, diffusion tempering of
//! the Fenrir likelihood converges to the true parameters far more often
//! than L2 fitting of a classical adaptive RK solution (Table 1, row by row:
//! Fisher's exact test over the same starts, and a Wilson interval of
//! tempering's rate against the paper's; pendulum and Lotka–Volterra (α, β)
//! at the quick budget, also LV with 4 parameters and the Hodgkin–Huxley rows
//! at the full budget, with the official optimiser); the Fenrir NLL against
//! probdiffeq's recorded values; its gradient against central differences and
//! its κ²-scaling invariance over the schedule's range; plus the loss
//! landscape of the pendulum for several diffusions κ².

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use diffusion_tempering::models::{LotkaVolterra, Pendulum};
use diffusion_tempering::rk::L2Form;
use diffusion_tempering::table1::{Estimators, Parallelism, RowResult, System, run_row};
use diffusion_tempering::{
    FenrirLikelihood, FilterConfig, Grid, L2Fit, Observations, OdeFilter, Schedule, Synthetic,
    TemperedFit, simulate,
};
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, fisher_exact, wilson_interval};
use ndarray::Array2;

/// The reproduction registered as `diffusion-tempering`.
pub struct DiffusionTempering;

/// Restart rounds per fit at the quick budget (logistic box map).
pub const QUICK_ROUNDS: usize = 3;

/// The quick budget's Lotka–Volterra data and solver step.
pub const QUICK_LV_DT: f64 = 0.04;

/// Observation noise variance σ² (the paper's).
pub use diffusion_tempering::table1::NOISE_VAR;

/// probdiffeq 0.9.2's Fenrir NLL (`-loss_lml_timeseries(average_pdfs=False)`,
/// dense state space, EK1 with the exact Jacobian, non-calibrating
/// fixed-interval smoother, `solve_fixed_grid`) of Lotka–Volterra
/// (α, β, γ, δ) = (1.5, 1, 3, 1) on [0, 2], dt = 0.01, both states observed
/// with σ² = 0.1 (`seeded(7)` noise, as the crate example `nll_values`):
/// `(κ², θ = 1.1·θ_true?, NLL)`. Recorded with JAX 0.10.2 (float64, CPU) by
/// running `scripts/compare/diffusion_tempering.py`'s probdiffeq NLL on the
/// example's data; docs/perf.md reports the comparison.
pub const PROBDIFFEQ_NLL: [(f64, bool, f64); 12] = [
    (1e-2, false, 102.50072516955231),
    (1e-2, true, 630.7283104094854),
    (1.0, false, 102.50072516955224),
    (1.0, true, 630.7283104092044),
    (1e2, false, 102.50072516956759),
    (1e2, true, 630.728310380455),
    (1e6, false, 102.50072532382914),
    (1e6, true, 630.7280200646937),
    (1e12, false, 102.6907493262536),
    (1e12, true, 445.858343080747),
    (1e20, false, 1369.099358027856),
    (1e20, true, 1369.2688066914764),
];

/// The largest relative difference between this crate's Fenrir NLL and
/// [`PROBDIFFEQ_NLL`] on the same data.
pub fn probdiffeq_agreement() -> Result<f64, BoxError> {
    let model = LotkaVolterra::four_param();
    let truth = LotkaVolterra::TRUE;
    let grid = Grid::uniform(0.0, 2.0, 0.01)?;
    let proj = Observations::selector(&[0, 1], 2)?;
    let obs = simulate(
        &model,
        &truth,
        0.0,
        grid.times().to_vec(),
        proj,
        NOISE_VAR,
        &mut seeded(7),
    )?;
    let lik = FenrirLikelihood::new(model, obs, grid, FilterConfig::default())?;
    let mut worst: f64 = 0.0;
    for (kappa2, perturbed, peer) in PROBDIFFEQ_NLL {
        let p: Vec<f64> = truth
            .iter()
            .map(|v| if perturbed { 1.1 * v } else { *v })
            .collect();
        let ours = lik.nll(&p, kappa2)?;
        worst = worst.max((ours - peer).abs() / peer.abs());
    }
    Ok(worst)
}

/// The Lotka–Volterra schedule of the quick budget for a solver step `dt`:
/// one stage per decade from `κ²₀ = 10¹⁶·(0.02/dt)⁷` down to 1, i.e. a
/// fixed process noise per step `κ²₀·dt⁷ ≈ 1.3·10⁴` (q = 3).
///
/// Deviation from the paper's `10²⁰ → 1`, needed by the crate's default
/// optimiser (logistic box map): from κ²₀·dt⁷ ≈ 10⁶ (the paper's 10²⁰ at
/// dt = 0.01) its first stages carry most starts to small β, where the prey
/// explodes; measured on 8 starts at dt = 0.01, 1 of 8 reached the truth,
/// against 5 of 8 from 10¹⁶ at dt = 0.02. The official optimiser
/// (`TemperedFit::official`, the full budget) converges from 10²⁰.
pub fn lv_schedule(dt: f64) -> Result<Schedule, BoxError> {
    let start = 1e16 * (0.02 / dt).powi(7);
    let stages = start.log10().round().max(1.0) as usize + 1;
    Ok(Schedule::geometric(start, 1.0, stages)?)
}

/// The quick budget's estimators: the crate's defaults (logistic box map,
/// restart `rounds`), the L2 loss as a Gaussian NLL, no learned κ², and the
/// tempering schedule `schedule`.
pub fn logistic_estimators(schedule: Schedule, rounds: usize) -> Estimators {
    let mut tempering = TemperedFit {
        schedule,
        ..TemperedFit::default()
    };
    tempering.stage.rounds = rounds;
    tempering.last.rounds = rounds;
    Estimators {
        tempering,
        l2: L2Fit::default(),
        l2_form: L2Form::GaussianNll,
        learned: None,
    }
}

/// The κ² values the gradient and invariance checks cover: the tempering
/// schedule's range and beyond.
pub const KAPPA2_RANGE: [f64; 5] = [1e-6, 1.0, 1e6, 1e12, 1e20];

fn pendulum_problem(seed: u64) -> Result<FenrirLikelihood<Pendulum>, BoxError> {
    let grid = Grid::uniform(0.0, 5.0, 0.01)?;
    let proj = Observations::selector(&[0], 2)?;
    let model = Pendulum::default();
    let obs = simulate(
        &model,
        &Pendulum::TRUE_PARAMS,
        0.0,
        grid.times().to_vec(),
        proj,
        NOISE_VAR,
        &mut seeded(seed),
    )?;
    Ok(FenrirLikelihood::new(
        model,
        obs,
        grid,
        FilterConfig::default(),
    )?)
}

/// The largest relative difference between the dual-number gradient of the
/// pendulum's and Lotka–Volterra (4 parameters)'s Fenrir NLL and a
/// fourth-order central difference (step 1e-3·|θⱼ|), over [`KAPPA2_RANGE`].
pub fn gradient_fd_error(seed: u64) -> Result<f64, BoxError> {
    fn worst<M: diffusion_tempering::OdeModel>(
        lik: &FenrirLikelihood<M>,
        p: &[f64],
    ) -> Result<f64, BoxError> {
        let mut w: f64 = 0.0;
        for k in KAPPA2_RANGE {
            let (_, g) = lik.nll_grad(p, k)?;
            let gmax = g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for j in 0..p.len() {
                let h = 1e-3 * p[j].abs();
                let at = |s: f64| {
                    let mut x = p.to_vec();
                    x[j] += s * h;
                    lik.nll(&x, k)
                };
                let fd = (-at(2.0)? + 8.0 * at(1.0)? - 8.0 * at(-1.0)? + at(-2.0)?) / (12.0 * h);
                w = w.max((g[j] - fd).abs() / g[j].abs().max(1e-3 * gmax));
            }
        }
        Ok(w)
    }
    let pend = pendulum_problem(seed)?;
    let lv = LotkaVolterra::four_param();
    let grid = Grid::uniform(0.0, 4.0, 0.01)?;
    let obs = simulate(
        &lv,
        &LotkaVolterra::TRUE,
        0.0,
        grid.times().to_vec(),
        Observations::selector(&[0], 2)?,
        NOISE_VAR,
        &mut seeded(seed + 1),
    )?;
    let lv_lik = FenrirLikelihood::new(lv, obs, grid, FilterConfig::default())?;
    Ok(worst(&pend, &[4.5])?.max(worst(&lv_lik, &[1.7, 0.9, 2.5, 1.2])?))
}

/// The NLL's κ²-scaling invariance on the pendulum: with `μ` the ODE
/// posterior's observed means (κ²-free), `ℓ(θ; cκ², cσ², μ + √c(y − μ))`
/// must equal `ℓ(θ; κ², σ², y) + (n/2) ln c` exactly (derivation in
/// `crates/diffusion-tempering/tests/kappa_range.rs`). Returns the largest
/// relative deviation over `c = κ²` in [`KAPPA2_RANGE`] from κ² = 1.
pub fn scaling_invariance_error(seed: u64) -> Result<f64, BoxError> {
    let lik = pendulum_problem(seed)?;
    let p = [3.3];
    let obs = lik.observations();
    let sol = OdeFilter::new(lik.config(), 1.0)?.solve(lik.model(), &p, lik.grid())?;
    let base = lik.nll(&p, 1.0)?;
    let n = obs.len() as f64;
    let mut w: f64 = 0.0;
    for c in KAPPA2_RANGE {
        let y = obs.values();
        let mut yc = Array2::zeros(y.raw_dim());
        for (r, &t) in obs.times().iter().enumerate() {
            let i = lik.grid().index_of(t).ok_or("data time off the grid")?;
            let mu = sol.smoother_means[[i, 0]];
            yc[[r, 0]] = mu + c.sqrt() * (y[[r, 0]] - mu);
        }
        let oc = Observations::new(
            obs.times().to_vec(),
            yc,
            obs.proj().to_owned(),
            c * obs.noise_var(),
        )?;
        let lc = FenrirLikelihood::new(*lik.model(), oc, lik.grid().clone(), lik.config())?;
        let expected = base + 0.5 * n * c.ln();
        w = w.max((lc.nll(&p, c)? - expected).abs() / expected.abs().max(1.0));
    }
    Ok(w)
}

/// Landscape curves and `(κ², number of strict local minima)` (κ² = 0 marks
/// the L2 loss).
pub type Landscape = (Vec<Series>, Vec<(f64, usize)>);

/// The pendulum loss landscape over `l` for several κ² (and the L2 loss):
/// curves of `ℓ − min ℓ + 1` and the number of strict local minima of each.
pub fn landscape(points: usize, seed: u64) -> Result<Landscape, BoxError> {
    let Synthetic { lik, l2 } = Synthetic::new(
        Pendulum::default(),
        &Pendulum::TRUE_PARAMS,
        Grid::uniform(0.0, 10.0, 0.01)?,
        &[0],
        NOISE_VAR,
        FilterConfig::default(),
        &mut seeded(seed),
    )?;
    let ls: Vec<f64> = (0..points)
        .map(|i| 0.1 + 9.9 * i as f64 / (points - 1) as f64)
        .collect();
    let minima = |v: &[f64]| {
        (1..v.len() - 1)
            .filter(|&i| v[i] < v[i - 1] && v[i] < v[i + 1])
            .count()
    };
    let shift = |v: &[f64]| {
        let m = v.iter().cloned().fold(f64::INFINITY, f64::min);
        ls.iter()
            .zip(v)
            .map(|(&l, &y)| (l, y - m + 1.0))
            .collect::<Vec<_>>()
    };
    let mut series = Vec::new();
    let mut counts = Vec::new();
    for k in [1.0, 1e4, 1e8, 1e12, 1e16] {
        let v: Vec<f64> = ls
            .iter()
            .map(|&l| lik.nll(&[l], k))
            .collect::<Result<_, _>>()?;
        counts.push((k, minima(&v)));
        series.push(Series::line(format!("Fenrir, κ² = {k:.0e}"), shift(&v)));
    }
    let v: Vec<f64> = ls.iter().map(|&l| l2.nll(&[l])).collect::<Result<_, _>>()?;
    counts.push((0.0, minima(&v)));
    series.push(Series::line("L2 on RK (DP5)", shift(&v)));
    Ok((series, counts))
}

impl Reproduction for DiffusionTempering {
    fn id(&self) -> &'static str {
        "diffusion-tempering"
    }

    fn paper(&self) -> &'static str {
        "Diffusion Tempering Improves Parameter Estimation with Probabilistic Integrators for ODEs (Beck et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "From random starts drawn from the prior, diffusion tempering (Fenrir likelihood, κ² decreased geometrically \
         to 1 in warm-started L-BFGS stages) converges to the true parameters (relative RMSE < 5 %) far more often than L2 \
         fitting of an adaptive RK solution: pendulum 1.00 vs 0.32, Lotka–Volterra (α, β) 0.77 vs 0.24 in the paper; \
         large κ² smooths the loss landscape."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let full = ctx.budget() == Budget::Full;
        let seed = ctx.seed();
        // (row, estimators, dt, starts)
        let rows: Vec<(System, Estimators, f64, usize)> = if full {
            System::ALL
                .iter()
                .map(|&s| {
                    (
                        s,
                        Estimators::official(Schedule::default(), true),
                        0.01,
                        100,
                    )
                })
                .collect()
        } else {
            vec![
                (
                    System::Pendulum,
                    logistic_estimators(Schedule::default(), QUICK_ROUNDS),
                    0.01,
                    4,
                ),
                (
                    System::LotkaVolterra2,
                    logistic_estimators(lv_schedule(QUICK_LV_DT)?, QUICK_ROUNDS),
                    QUICK_LV_DT,
                    6,
                ),
            ]
        };
        let fits: usize = rows
            .iter()
            .map(|(_, e, _, n)| n * if e.learned.is_some() { 3 } else { 2 })
            .sum();
        ctx.set_steps(fits as u64 + 2);
        let mut results: Vec<(System, RowResult, f64, bool)> = Vec::new();
        for (i, (system, est, dt, starts)) in rows.iter().enumerate() {
            ctx.set_message(system.name());
            let r = run_row(
                *system,
                est,
                *dt,
                *starts,
                seed + i as u64,
                Parallelism::Rayon,
                &|| ctx.step(),
            )?;
            results.push((*system, r, *dt, est.learned.is_some()));
        }
        ctx.set_message("loss landscape");
        let (series, counts) = landscape(if full { 100 } else { 30 }, seed + 20)?;
        ctx.step();
        ctx.set_message("gradients and κ² invariance");
        let grad_err = gradient_fd_error(seed + 21)?;
        let inv_err = scaling_invariance_error(seed + 22)?;
        ctx.step();

        let mut figures = Vec::new();
        for (system, r, _, learned) in &results {
            let name = system.name();
            let paper = system.paper().ok_or("row without paper values")?;
            let n = r.starts.max(1) as f64;
            let rate = |k: usize| r.successes[k] as f64 / n;
            figures.push(
                Figure::new(format!("{name}: converged, tempering"), rate(0))
                    .with_target(format!("paper {:.2}", paper.tempering)),
            );
            figures.push(
                Figure::new(format!("{name}: converged, L2 on RK (DP5)"), rate(1))
                    .with_target(format!("paper {:.2}", paper.rk)),
            );
            if *learned {
                figures.push(
                    Figure::new(format!("{name}: converged, Fenrir learned κ²"), rate(2))
                        .with_target(format!("paper {:.2}", paper.fenrir)),
                );
            }
            figures.push(Figure::new(
                format!("{name}: mean iterations, tempering"),
                r.iters[0],
            ));
            figures.push(Figure::new(
                format!("{name}: mean iterations, L2"),
                r.iters[1],
            ));
            figures.push(Figure::new(
                format!("{name}: median rel. RMSE, tempering"),
                r.rmse[0],
            ));
            figures.push(Figure::new(
                format!("{name}: median rel. RMSE, L2"),
                r.rmse[1],
            ));
        }
        for (k, c) in &counts {
            let name = if *k == 0.0 {
                "pendulum landscape: local minima of L2 over l".to_string()
            } else {
                format!("pendulum landscape: local minima at κ² = {k:.0e}")
            };
            figures.push(Figure::new(name, *c as f64));
        }
        // Deterministic: the Fenrir NLL against probdiffeq's recorded values.
        let worst_nll = probdiffeq_agreement()?;
        let mut checks = vec![
            Check::new(
                "Fenrir NLL vs probdiffeq 0.9.2: worst relative difference over LV on [0, 2], κ² ∈ {1e-2, 1, 1e2, \
                 1e6, 1e12, 1e20}, θ_true and 1.1·θ_true",
                worst_nll,
                Relation::AtMost,
                1e-6,
                "peer: probdiffeq 0.9.2 NLL values recorded from scripts/compare/diffusion_tempering.py \
                 (docs/perf.md); tolerance 1e-6 relative (spec Peers cross-check)",
            ),
            Check::new(
                "Fenrir NLL gradient (dual numbers) vs fourth-order central differences: worst relative error over \
                 pendulum and LV (4 parameters), κ² ∈ {1e-6, 1, 1e6, 1e12, 1e20}",
                grad_err,
                Relation::AtMost,
                1e-5,
                "issue 36 (gradients at the schedule's κ², relative 1e-5); spec property 5",
            ),
            Check::new(
                "Fenrir NLL κ²-scaling invariance ℓ(θ; cκ², cσ², μ + √c(y − μ)) = ℓ(θ; κ², σ², y) + (n/2) ln c: \
                 worst relative deviation, pendulum, c ∈ {1e-6, 1, 1e6, 1e12, 1e20}",
                inv_err,
                Relation::AtMost,
                1e-9,
                "closed form (means κ²-free, covariances ∝ κ², spec Method 'Key fact'); tolerance 1e-9 as spec \
                 property 2",
            ),
        ];
        // Table 1: tempering vs L2 over the same starts, and tempering's rate vs the paper's.
        let undecided = (!full).then(|| {
            "the quick budget runs a few starts with the crate's logistic-map optimiser (and, on Lotka–Volterra, a \
             lower schedule start and dt = 0.04), not Table 1's protocol: the official Fminbox optimiser and schedule \
             cost minutes per start (about 8 CPU-minutes on Lotka–Volterra), so ≥ 20 starts cannot fit a quick run: \
             run --budget full"
                .to_string()
        });
        for (system, r, _, _) in &results {
            let name = system.name();
            let paper = system.paper().ok_or("row without paper values")?;
            let n = r.starts as u64;
            let (t, l) = (r.successes[0] as u64, r.successes[1] as u64);
            let p = fisher_exact([[t, n - t], [l, n - l]], Alternative::Greater)?;
            let w = wilson_interval(t, n, 0.95)?;
            let mut fisher = Check::new(
                format!(
                    "{name}: tempering converges more often than L2 on RK over the same {n} starts ({t} vs {l}; \
                     Fisher's exact test, one-sided)"
                ),
                p,
                Relation::PValueBelow,
                0.05,
                format!(
                    "paper Table 1 ({name}: tempering {:.2} vs RK {:.2}); Fisher's exact test at 0.05 (issue 36)",
                    paper.tempering, paper.rk
                ),
            )
            .with_seeds(r.starts);
            let mut wilson = Check::new(
                format!("{name}: tempering's convergence rate ({t}/{n}), Wilson 95% interval"),
                t as f64 / n.max(1) as f64,
                Relation::IntervalContains,
                paper.tempering,
                format!(
                    "paper Table 1 ({name}: tempering {:.2} of 100 starts)",
                    paper.tempering
                ),
            )
            .with_interval(w.lo, w.hi)
            .with_seeds(r.starts);
            if let Some(why) = &undecided {
                fisher = fisher.undecided(why.clone());
                wilson = wilson.undecided(why.clone());
            }
            checks.push(fisher);
            checks.push(wilson);
        }
        let mut notes = vec![format!(
            "Rows run: {}. Data: σ² = 0.1 at every solver-grid point from the true parameters; starts uniform on \
             the prior box, the same starts for every estimator. Tempering: EK1, q = 3.",
            results
                .iter()
                .map(|(s, r, dt, _)| format!("{} ({} starts, dt = {dt})", s.name(), r.starts))
                .collect::<Vec<_>>()
                .join("; ")
        )];
        if full {
            notes.push(
                "Full budget = Table 1's protocol: the official scripts' optimiser (Optim.jl 1.7 \
                 `Fminbox(LBFGS(linesearch = BackTracking()))`, reproduced step by step by `BoxMethod::Barrier`: θ \
                 rescaled to [0, 1], log barrier, preconditioned L-BFGS, cubic backtracking from the unit step, \
                 reltol 1e-3 per stage and 1e-6 at the last) for tempering (κ² = 1e20 → 1, 21 stages), the L2 \
                 baseline (official mean-squared loss) and learned κ² (initialised at 1e20, log κ² in [-20, 50]); \
                 100 starts per row, dt = 0.01, parallel over starts (rayon; identical to a serial run, tested). \
                 The reduced-Pospischil row (0.00 for every method in the paper) is not modelled."
                    .to_string(),
            );
        } else {
            notes.push(format!(
                "Quick budget: few starts (the rates are coarse), LV data every {QUICK_LV_DT} instead of 0.01, no \
                 learned-κ² baseline, and the crate's default optimiser instead of the official one: argmin \
                 L-BFGS on a logistic box map, restarted in up to {QUICK_ROUNDS} rounds per tempering stage (10 for \
                 the L2 fit). With it the Lotka–Volterra schedule must start lower (κ²₀·dt⁷ ≈ 1.3e4 instead of the \
                 paper's 1e6 at dt = 0.01): from the paper's 1e20 its first stages carry most starts to small β, \
                 where the prey explodes (1 of 8 converged at the paper's settings), while the official optimiser \
                 converges from there. Table 1's protocol (official optimiser, 21 stages from 1e20) costs about 8 \
                 CPU-minutes per Lotka–Volterra start and more than 5 minutes per pendulum start on a loaded \
                 2-core machine, so the ≥ 20 starts per row it needs to decide Fisher's test cannot fit a quick \
                 run: the Table 1 checks are `incomplete` here and decided by --budget full (example `table1` runs \
                 one row)."
            ));
        }
        notes.push(
            "The paper's RK baseline runs RadauIIA5; here an adaptive Dormand–Prince 5(4) at rtol = atol = 1e-8 \
             (the systems are not stiff on the prior box)."
                .to_string(),
        );
        notes.push(format!(
            "Checks. Table 1 per row: Fisher's exact test (one-sided: tempering's odds of converging above L2's) on \
             the 2 × 2 table of converged / not converged starts, both estimators from the same starts and data; and \
             the Wilson 95% interval of tempering's rate, which must contain the paper's value (a paper rate of 1.00 \
             is 100 of 100 starts, so a single failure among 100 puts the interval's upper end below 1). \
             Deterministic at every budget: probdiffeq agreement {worst_nll:.1e}; gradient vs central differences \
             {grad_err:.1e}; κ²-scaling invariance {inv_err:.1e}. The landscape figures (strict local minima of the \
             loss over l per κ²) are informative: neither the paper nor the spec gives a number to check them \
             against."
        ));
        Ok(Outcome {
            checks,
            figures,
            plots: vec![Plot {
                title: "Pendulum loss landscape over l (ℓ − min ℓ + 1)".to_string(),
                x_label: "pendulum length l".to_string(),
                y_label: "loss − min + 1".to_string(),
                series,
                log_x: false,
                log_y: true,
            }],
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Fenrir NLL equals probdiffeq's recorded values (spec tolerance 1e-6 relative).
    #[test]
    fn nll_matches_probdiffeq() {
        let worst = probdiffeq_agreement().unwrap();
        assert!(worst <= 1e-6, "{worst}");
    }

    /// The deterministic checks hold at their declared thresholds.
    #[test]
    fn gradient_and_invariance_checks_hold() {
        assert!(gradient_fd_error(1).unwrap() <= 1e-5);
        assert!(scaling_invariance_error(1).unwrap() <= 1e-9);
    }
}
