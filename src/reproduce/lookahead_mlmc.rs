//! `lookahead-mlmc`: cost to reach RMSE ε for MLMC against nested MC, on the
//! closed-form nested toy and on a two-step look-ahead value (real adaptive
//! MLMC runs at three or more ε, tuned nested-MC plans and real nested runs,
//! rates per coupling), plus a short BO comparison of one-step EI and
//! two-step (full budget: and three-step) look-ahead by MLMC on Branin and
//! Hartmann-6 (simple regret against iterations and wall time).

use crate::runner::{BoxError, Budget, Context, Figure, Outcome, Plot, Reproduction, Series};
use lookahead_mlmc::bo::{Acquisition, BoConfig, run_bo};
use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use lookahead_mlmc::lookahead::{InnerValue, MlmcLookahead, SaaConfig, TwoStepValueSampler};
use lookahead_mlmc::mlmc::{
    AdaptiveConfig, Coupling, FittedRates, MlmcConfig, NestedRule, estimate_adaptive, nested_mc,
    nested_plan, rates,
};
use lookahead_mlmc::optim::Bounds;
use lookahead_mlmc::testfns::TestFunction;
use lookahead_mlmc::toy::NestedToy;
use mlcore::sampling::seeded;
use mlcore::stats::power_law_exponent;
use ndarray::{Array1, array};
use std::time::Instant;

/// The reproduction registered as `lookahead-mlmc`.
pub struct LookaheadMlmc;

/// Tolerances for the toy (actual runs).
pub const TOY_EPS: [f64; 4] = [0.02, 0.01, 0.005, 0.0025];
/// Tolerances for the two-step value (real adaptive runs; the quick budget uses the first three).
pub const TWO_STEP_EPS: [f64; 4] = [0.02, 0.01, 0.005, 0.0025];

/// The BO problems: (function, seeds, iterations, with three-step).
fn bo_problems(quick: bool) -> Vec<(TestFunction, usize, usize, bool)> {
    if quick {
        vec![
            (TestFunction::branin(), 2, 2, false),
            (TestFunction::hartmann6(), 1, 1, false),
        ]
    } else {
        vec![
            (TestFunction::branin(), 3, 10, false),
            (TestFunction::hartmann6(), 3, 10, false),
            // The three-step MLMC maximiser costs ≈ 30 s per iteration on Branin.
            (TestFunction::branin(), 2, 5, true),
        ]
    }
}

/// The spec's 1-D GP: train_x = [−8, −3, 0, 2.5, 7], toy targets, Matérn-5/2
/// (lengthscale 2, outputscale 1), mean 0, noise 1e-4.
pub fn spec_gp() -> Result<ExactGp, lookahead_mlmc::Error> {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(|v| lookahead_mlmc::testfns::toy1d(&[v]));
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0)?;
    ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4)
}

/// Giles's complexity estimate from fitted rates: the finest level `L` with
/// bias `c_α 2^{−αL}/(2^α − 1) ≤ ε/√2`, MLMC cost `2ε⁻²(Σ_ℓ √(V_ℓ C_ℓ))²`
/// with `V_dl` measured and `V_ℓ = c_v 2^{−βℓ}` above, `C_ℓ = 2^ℓ`; nested
/// MC cost `2ε⁻² V_P 2^L`.
fn predicted_costs(r: &FittedRates, eps: f64) -> (f64, f64, u32) {
    let dl = r.levels[0].level;
    let a = 2f64.powf(r.alpha);
    let mut l = dl + 1;
    while r.c_bias * 2f64.powf(-r.alpha * l as f64) / (a - 1.0) > eps / 2f64.sqrt() && l < 30 {
        l += 1;
    }
    let v0 = r.levels[0].var;
    let mut s = (v0 * 2f64.powi(dl as i32)).sqrt();
    for k in dl + 1..=l {
        s += (r.c_var * 2f64.powf(-r.beta * k as f64) * 2f64.powi(k as i32)).sqrt();
    }
    let vp = r.levels.last().map(|s| s.var_fine).unwrap_or(v0);
    (
        2.0 / (eps * eps) * s * s,
        2.0 / (eps * eps) * vp * 2f64.powi(l as i32),
        l,
    )
}

impl Reproduction for LookaheadMlmc {
    fn id(&self) -> &'static str {
        "lookahead-mlmc"
    }

    fn paper(&self) -> &'static str {
        "Accelerating Look-ahead in Bayesian Optimization: Multilevel Monte Carlo is All you Need (Yang et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "For nested expectations and maximisations such as the two-step look-ahead acquisition, MLMC with antithetic \
         coupling reaches RMSE ε at the canonical cost O(ε⁻²), against O(ε⁻³) for tuned nested Monte Carlo."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let quick = ctx.budget() == Budget::Quick;
        let (toy_n, two_n) = if quick {
            (20_000, 300)
        } else {
            (200_000, 2_000)
        };
        let bo_runs: usize = bo_problems(quick)
            .iter()
            .map(|(_, s, _, three)| s * if *three { 3 } else { 2 })
            .sum();
        ctx.set_steps((2 * TOY_EPS.len() + 2 + TWO_STEP_EPS.len() + bo_runs) as u64);
        let mut rng = seeded(ctx.seed());
        let cfg = MlmcConfig::default();
        let mut figures = Vec::new();
        let mut notes = Vec::new();

        let t_toy = Instant::now();
        // ---- Toy: rates, then actual MLMC and tuned nested-MC runs per ε.
        ctx.set_message("toy: rates");
        let mut anti = NestedToy {
            coupling: Coupling::Antithetic,
        };
        let ra = rates(&mut anti, 3, 8, toy_n, &mut rng)?;
        let mut standard = NestedToy {
            coupling: Coupling::Standard,
        };
        let rs = rates(&mut standard, 3, 8, toy_n, &mut rng)?;
        ctx.step();
        let exact = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
        let (mut toy_mlmc, mut toy_nested, mut toy_err) = (Vec::new(), Vec::new(), Vec::new());
        let nested_cfg = MlmcConfig {
            c_bias: ra.c_bias / (2f64.powf(ra.alpha) - 1.0),
            alpha: ra.alpha,
            ..cfg
        };
        for &eps in &TOY_EPS {
            ctx.set_message(format!("toy: ε = {eps}"));
            let e = estimate_adaptive(&mut anti, eps, &cfg, &AdaptiveConfig::default(), &mut rng)?;
            toy_mlmc.push((eps, e.cost));
            toy_err.push(((e.value - exact) / eps).abs());
            ctx.step();
            let v = ra.levels.last().map(|s| s.var_fine).unwrap_or(1.0);
            let (l, n) = nested_plan(eps, v, &nested_cfg, NestedRule::Tuned)?;
            let ne = nested_mc(&mut anti, l, n, &mut rng)?;
            toy_nested.push((eps, ne.cost));
            toy_err.push(((ne.value - exact) / eps).abs());
            ctx.step();
        }
        let toy_secs = t_toy.elapsed().as_secs_f64();
        let toy_mlmc_p = -power_law_exponent(&toy_mlmc)?;
        let toy_nested_p = -power_law_exponent(&toy_nested)?;
        figures.push(
            Figure::new("toy: fitted β, antithetic (levels 3–8)", ra.beta).with_target("≈ 1.5"),
        );
        figures.push(Figure::new("toy: fitted β, standard coupling", rs.beta).with_target("≈ 1"));
        figures.push(Figure::new("toy: fitted α", ra.alpha).with_target("≈ 1"));
        figures.push(
            Figure::new("toy: MLMC cost exponent p (cost ∝ ε^−p)", toy_mlmc_p)
                .with_target("≈ 2 (1.7–2.4)"),
        );
        figures.push(
            Figure::new("toy: tuned nested-MC cost exponent p", toy_nested_p)
                .with_target("≈ 3 (2.6–3.4)"),
        );
        let last = TOY_EPS.len() - 1;
        figures.push(
            Figure::new(
                format!("toy: nested / MLMC cost at ε = {}", TOY_EPS[last]),
                toy_nested[last].1 / toy_mlmc[last].1,
            )
            .with_target("> 1"),
        );
        let worst = toy_err.iter().copied().fold(0.0, f64::max);
        figures.push(Figure::new("toy: max |error|/ε over all runs", worst).with_target("< 3"));

        // ---- Two-step look-ahead value α₂(x = 1) on the spec's 1-D GP, q₂ = 2.
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
        ctx.set_message("two-step: rates (antithetic)");
        let mut s_anti =
            TwoStepValueSampler::new(&gp, &[1.0], &bounds, best, inner, Coupling::Antithetic, saa)?;
        let ta = rates(&mut s_anti, 3, rate_top, two_n, &mut rng)?;
        ctx.step();
        ctx.set_message("two-step: rates (standard)");
        let mut s_std =
            TwoStepValueSampler::new(&gp, &[1.0], &bounds, best, inner, Coupling::Standard, saa)?;
        let ts = rates(&mut s_std, 3, rate_top, two_n, &mut rng)?;
        ctx.step();
        let rates_secs = t0.elapsed().as_secs_f64();
        // Nested-MC plans from the fitted bias model and Var P_L (cost N·2^L, exact).
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
            ctx.set_message(format!("two-step: adaptive MLMC at ε = {eps}"));
            let run =
                estimate_adaptive(&mut s_anti, eps, &cfg, &AdaptiveConfig::default(), &mut rng)?;
            two_mlmc.push((eps, run.cost));
            two_vals.push((eps, run.value, run.variance.sqrt()));
            two_levels.push(run.levels.last().map(|s| s.level).unwrap_or(3));
            two_pred.push((eps, predicted_costs(&ta, eps).0));
            let (l, n) = nested_plan(eps, vp, &nested2, NestedRule::Tuned)?;
            two_nested.push((eps, n as f64 * 2f64.powi(l as i32)));
            ctx.step();
            if k < nested_real {
                ctx.set_message(format!(
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
                format!("two-step: fitted β, antithetic (levels 3–{rate_top})"),
                ta.beta,
            )
            .with_target("> γ = 1 (paper ≈ 1.5; see note)"),
        );
        figures.push(Figure::new(
            "two-step: fitted β, standard coupling",
            ts.beta,
        ));
        figures.push(Figure::new("two-step: fitted α", ta.alpha));
        figures.push(
            Figure::new(
                format!(
                    "two-step: MLMC cost exponent p from {} real adaptive runs",
                    two_eps.len()
                ),
                two_mlmc_p,
            )
            .with_target("≈ 2 (1.7–2.4)"),
        );
        figures.push(
            Figure::new(
                "two-step: tuned nested-MC cost exponent p (plans)",
                two_nested_p,
            )
            .with_target("≥ 2.6"),
        );
        let tl = two_eps.len() - 1;
        figures.push(
            Figure::new(
                format!("two-step: nested / MLMC cost at ε = {}", two_eps[tl]),
                two_nested[tl].1 / two_mlmc[tl].1,
            )
            .with_target("> 1"),
        );
        figures.push(Figure::new(
            format!(
                "two-step: real MLMC cost / predicted from rates, ε = {}",
                two_eps[tl]
            ),
            two_mlmc[tl].1 / two_pred[tl].1,
        ));
        // Agreement: every estimate against the most accurate one.
        let (_, vref, _) = two_vals[tl];
        let mut agree = two_vals
            .iter()
            .map(|(e, v, _)| (v - vref).abs() / e)
            .fold(0.0, f64::max);
        for (e, _, _, v, _, _) in &nested_runs {
            agree = agree.max((v - vref).abs() / e);
        }
        figures.push(
            Figure::new(
                format!(
                    "two-step: max |α̂₂ − α̂₂(ε = {})|/ε over MLMC and nested runs",
                    two_eps[tl]
                ),
                agree,
            )
            .with_target("< 3"),
        );
        figures.push(Figure::new(
            format!("two-step: MLMC estimate α₂(1) at ε = {}", two_eps[tl]),
            vref,
        ));
        if let Some((e, _, _, _, c, _)) = nested_runs.first() {
            let mc = two_mlmc
                .iter()
                .find(|(x, _)| x == e)
                .map(|p| p.1)
                .unwrap_or(1.0);
            figures.push(Figure::new(
                format!("two-step: real nested-MC run / MLMC cost at ε = {e}"),
                c / mc,
            ));
        }

        // ---- BO comparison: one-step EI vs two-step (and three-step) look-ahead.
        let t_bo = Instant::now();
        let spec2 = MlmcLookahead {
            saa: SaaConfig::bo_two_step(),
            ..MlmcLookahead::default()
        };
        let spec3 = MlmcLookahead {
            saa: SaaConfig::bo_three_step(),
            ..spec2
        };
        let mut bo_plots = Vec::new();
        for (f, seeds, iters, three) in bo_problems(quick) {
            let d = f.dim();
            let base = BoConfig {
                n_init: 2 * d,
                iterations: iters,
                ..BoConfig::default()
            };
            let mut methods: Vec<(&str, Acquisition)> = vec![
                ("one-step EI", Acquisition::Ei),
                (
                    "two-step MLMC (ε = 0.15)",
                    Acquisition::TwoStepMlmc {
                        eps: 0.15,
                        spec: spec2,
                    },
                ),
            ];
            if three {
                methods.push((
                    "three-step MLMC (ε = 0.2)",
                    Acquisition::ThreeStepMlmc {
                        eps: 0.2,
                        spec: spec3,
                    },
                ));
            }
            let mut by_iter = Vec::new();
            let mut by_time = Vec::new();
            for (label, acq) in &methods {
                let mut reg = vec![0.0; iters + 1];
                let mut secs = vec![0.0; iters + 1];
                for s in 0..seeds {
                    ctx.set_message(format!("BO {}: {label}, seed {s}", f.name));
                    let seed = ctx.seed() ^ (0x5eed + s as u64);
                    let tr = run_bo(
                        &f,
                        &BoConfig {
                            acquisition: *acq,
                            ..base.clone()
                        },
                        &mut seeded(seed),
                    )?;
                    let mut cum = 0.0;
                    for (k, r) in tr.regret(f.optimum).iter().enumerate() {
                        reg[k] += r / seeds as f64;
                        if k > 0 {
                            cum += tr.seconds[k - 1];
                        }
                        secs[k] += cum / seeds as f64;
                    }
                    ctx.step();
                }
                figures.push(Figure::new(
                    format!(
                        "BO {} ({seeds} seeds × {iters} its): mean simple regret at the end, {label}",
                        f.name
                    ),
                    reg[iters],
                ));
                figures.push(Figure::new(
                    format!(
                        "BO {} ({seeds} seeds × {iters} its): mean acquisition wall time per it (s), {label}",
                        f.name
                    ),
                    secs[iters] / iters as f64,
                ));
                by_iter.push(Series::line(
                    *label,
                    reg.iter()
                        .enumerate()
                        .map(|(k, r)| (k as f64, *r))
                        .collect(),
                ));
                by_time.push(Series::line(
                    *label,
                    secs.iter()
                        .zip(&reg)
                        .skip(1)
                        .map(|(t, r)| (*t, *r))
                        .collect(),
                ));
            }
            bo_plots.push(Plot {
                title: format!(
                    "BO on {} (d = {d}): mean simple regret over {seeds} seeds",
                    f.name
                ),
                x_label: "iteration".into(),
                y_label: "simple regret".into(),
                series: by_iter,
                log_x: false,
                log_y: true,
            });
            bo_plots.push(Plot {
                title: format!(
                    "BO on {} ({seeds} seeds × {iters} its): simple regret vs cumulative wall time",
                    f.name
                ),
                x_label: "wall time (s)".into(),
                y_label: "simple regret".into(),
                series: by_time,
                log_x: true,
                log_y: true,
            });
        }
        let bo_secs = t_bo.elapsed().as_secs_f64();

        let held = (1.7..=2.4).contains(&toy_mlmc_p)
            && (2.6..=3.4).contains(&toy_nested_p)
            && (1.3..=1.8).contains(&ra.beta)
            && (0.8..=1.25).contains(&rs.beta)
            && worst < 3.0
            && ta.beta > 1.0
            && (1.7..=2.4).contains(&two_mlmc_p)
            && two_nested_p >= 2.6
            && two_nested[tl].1 > two_mlmc[tl].1
            && agree < 3.0;

        let to_series = |label: &str, v: &[(f64, f64)]| Series::line(label, v.to_vec());
        let plots = vec![
            Plot {
                title: "Nested toy E[(E[Y|X])⁺]: cost to reach RMSE ε (inner samples)".into(),
                x_label: "ε".into(),
                y_label: "cost".into(),
                series: vec![
                    to_series("MLMC (antithetic, adaptive)", &toy_mlmc),
                    to_series("nested MC (tuned)", &toy_nested),
                ],
                log_x: true,
                log_y: true,
            },
            Plot {
                title: "Two-step 1+2-EI value α₂(1): cost to reach RMSE ε (inner samples)".into(),
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
        let mut plots = plots;
        plots.extend(bo_plots);
        notes.push(format!(
            "Toy: X ~ N(0,1), Y|X ~ N(X,1), P = E[(E[Y|X])⁺] = 1/√(2π). Rates from {toy_n} outer samples per level (3–8). \
             MLMC: Giles's adaptive algorithm (N_ℓ = ⌈2ε⁻²√(V_ℓ/C_ℓ)Σ√(V C)⌉, bias test with α = 1), actual runs. Nested MC \
             (tuned): L with fitted bias ≤ ε/√2, N = ⌈2 Var P_L/ε²⌉, actual runs. Cost = inner samples drawn. \
             Errors |P̂ − P|/ε are single runs (max {worst:.2}). Wall time {toy_secs:.1} s."
        ));
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
             multi-start L-BFGS per fantasy with the coupled fine/coarse solve. Rates from {two_n} outer samples per level 3–{rate_top} \
             ({rates_secs:.1} s for both couplings). Real adaptive MLMC runs (Giles's algorithm, α = 1 bias test): {}; {two_secs:.1} s \
             for all MLMC and nested runs. Nested MC (tuned): L from the fitted bias c_α 2^(−αL)/(2^α − 1) ≤ ε/√2, N = ⌈2 Var P_L/ε²⌉, \
             cost N·2^L (exact for the plan); real nested runs: {}. Cost = inner samples.",
            mlmc_txt.join("; "),
            nested_txt.join("; ")
        ));
        notes.push(format!(
            "Two-step β: the fitted antithetic β ({:.2}) is below the paper's 1.5 because levels 3–{rate_top} are pre-asymptotic for \
             this quantity, not because of the coupling (the value sampler solves fine and coarse problems jointly). The inner q-EI \
             problem (q₂ = 2) has several local maxima of nearly equal value, so the even/odd halves often pick different modes: \
             that is the kink regime of Giles & Goda, Var ΔP_ℓ ∝ P(switch)·E[ΔP²|switch] ∝ M^(−1/2)·M^(−1) = M^(−1.5), but the \
             switch probability saturates near 1 at small M (71% at M = 16, 19% at M = 512), which gives β ≈ 1 locally. \
             Measured with `cargo run --release -p lookahead-mlmc --example two_step_beta`: β = 1.31 over levels 4–9 \
             (n = 1000), 1.46 over levels 6–11 (n = 600); the mode-switch part alone 1.41–1.57.",
            ta.beta
        ));
        notes.push(format!(
            "BO: EI vs two-step look-ahead by MLMC (paper: ε = 0.15, antithetic, forward matching, q₂ = 2){}; 2d uniform initial \
             points, same initial design per seed for every method, MAP-refitted Matérn-5/2 GP on unit-cube inputs and \
             standardised targets, reduced solver settings (2 restarts). Few seeds and iterations at the quick budget: \
             the regret figures are reported, not part of the claim. Wall time {bo_secs:.1} s.",
            if quick {
                ""
            } else {
                " and three-step 1+1+1-EI by MLMC (ε = 0.2, 2 seeds × 5 iterations) on Branin"
            }
        ));
        notes.push(
            "The paper's code baseline N = M = round(ε⁻²) costs ε⁻⁴ (mlmc::NestedRule::PaperBaseline); the nested MC here is the \
             tuned ε⁻³ one, the fairer comparison."
                .into(),
        );
        Ok(Outcome {
            held,
            figures,
            plots,
            notes,
        })
    }
}
