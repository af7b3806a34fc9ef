//! `cmdp-eluder`: E-UC³RL at the default confidence constant C = 1 on the
//! spec's XOR-context instance (|C| = 10, H = 3, 2 states per layer, A = 2,
//! |𝒫| = 8, |ℱ| = 4), with exact regret accounting (V*_c and V^π_c by DP per
//! context): the spec's P6 at T ≤ 4000 (20 seeds, paired against greedy),
//! the growth exponent of R_T over T ∈ {2¹⁰ … 2¹⁶} with a bootstrap
//! interval, E-UC³RL against ε-greedy and explore-then-commit tuned in
//! hindsight at T = 2¹⁶ (paired Wilcoxon), the confidence-set validity (P3)
//! and optimism (P4) of the version space over 2000 seeds, and the Eluder
//! dimensions of the spec's classes (P2). Tuned C values are reported next to the default, never
//! instead of it.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use cmdp_eluder::agent::{
    Agent, EUc3rl, EUc3rlParams, GreedyPlugIn, VersionSpaceAgent, VersionSpaceParams,
};
use cmdp_eluder::baselines::{EpsilonGreedy, ExploreThenCommit};
use cmdp_eluder::eluder::{bernoulli_outputs, eluder_dimension};
use cmdp_eluder::instances::{Instance, xor_instance};
use cmdp_eluder::metric::hellinger_metric;
use cmdp_eluder::oracle::{EnumerationLeastSquares, EnumerationLogLoss};
use cmdp_eluder::regret::{growth_exponent, run_regret};
use mlcore::sampling::seeded;
use mlcore::stats::{
    Alternative, bootstrap_interval, t_interval, wilcoxon_signed_rank, wilson_interval,
};
use ndarray::{Array1, ArrayView1};

/// The reproduction registered as `cmdp-eluder`.
pub struct CmdpEluder;

/// Episodes of the spec's P6 comparison.
pub const T_SHORT: usize = 4000;
/// Seeds of the spec's P6 comparison.
pub const P6_SEEDS: u64 = 20;
/// The default confidence constant C in β = C·(ln(|ℱ|/δ) + H·ln(|𝒫|/δ)).
pub const DEFAULT_C: f64 = 1.0;
/// log₂ of the horizons of the growth fit: T ∈ {2¹⁰, …, 2¹⁶}.
pub const LOG2_GROWTH: (usize, usize) = (10, 16);
/// The growth exponent's limit: ½ (the √T theorem) plus 0.1 for log factors.
pub const GROWTH_LIMIT: f64 = 0.6;
/// log₂ of the long horizon (a figure, beyond the burn-in).
pub const LOG2_T_LONG: usize = 20;
/// The constants C swept at T = 4000 (figures only).
pub const C_SWEEP: [f64; 4] = [0.3, 0.1, 0.03, 0.01];
/// Seeds and episodes of P3 / P4 (the spec's).
pub const P3_SEEDS: u64 = 2000;
/// Episodes per P3 run.
pub const P3_EPISODES: usize = 200;
/// δ of the confidence sets.
pub const DELTA: f64 = 0.05;
/// Bootstrap resamples of the growth exponent.
pub const RESAMPLES: usize = 2000;
/// The ε grid of the ε-greedy baseline (tuned at T = 2¹⁶, best in hindsight).
pub const EPS_GRID: [f64; 4] = [0.003, 0.01, 0.03, 0.1];
/// The exploration lengths m of explore-then-commit (tuned likewise).
pub const ETC_GRID: [usize; 7] = [16, 32, 64, 128, 256, 1024, 4096];
/// Mixed into an exploring agent's own seed so that its draws are not the
/// environment's (which runs on the same seed).
const EXPLORE_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// Builds an agent for a run; the `u64` seeds an exploring agent's own draws.
type Maker = dyn Fn(&Instance, u64) -> Result<Box<dyn Agent>, BoxError>;
/// A baseline's tuning grid: a label per value and its agent.
type TuningGrid = Vec<(String, Box<Maker>)>;

fn eps_greedy(eps: f64) -> Box<Maker> {
    Box::new(move |inst: &Instance, seed: u64| {
        Ok(Box::new(EpsilonGreedy::new(
            inst.cmdp.space().clone(),
            inst.cmdp.contexts().n_contexts(),
            2,
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
            eps,
            seed,
        )?) as Box<dyn Agent>)
    })
}

fn explore_then_commit(m: usize) -> Box<Maker> {
    Box::new(move |inst: &Instance, seed: u64| {
        Ok(Box::new(ExploreThenCommit::new(
            inst.cmdp.space().clone(),
            inst.cmdp.contexts().n_contexts(),
            2,
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
            m,
            seed,
        )?) as Box<dyn Agent>)
    })
}

fn e_uc3rl(c: f64) -> Box<Maker> {
    Box::new(move |inst: &Instance, _| {
        Ok(Box::new(EUc3rl::new(
            inst.cmdp.space().clone(),
            inst.cmdp.contexts().n_contexts(),
            2,
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
            EUc3rlParams {
                delta: DELTA,
                beta_scale: c,
            },
        )?) as Box<dyn Agent>)
    })
}

fn greedy(doubling: bool) -> Box<Maker> {
    Box::new(move |inst: &Instance, _| {
        let g = GreedyPlugIn::new(
            inst.cmdp.space().clone(),
            inst.cmdp.contexts().n_contexts(),
            2,
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
        )?;
        Ok(Box::new(if doubling {
            g.with_doubling_refits()
        } else {
            g
        }) as Box<dyn Agent>)
    })
}

fn version_space() -> Box<Maker> {
    Box::new(|inst: &Instance, _| {
        Ok(Box::new(VersionSpaceAgent::new(
            inst.rewards.clone(),
            inst.dynamics.clone(),
            VersionSpaceParams::default(),
        )?) as Box<dyn Agent>)
    })
}

/// R_T at `checkpoints` for each of `seeds` runs (rows = seeds); seed i
/// runs on `ctx.seed() + i` for every agent, so runs pair by seed.
fn regrets(
    ctx: &Context,
    inst: &Instance,
    make: &Maker,
    seeds: u64,
    checkpoints: &[usize],
) -> Result<Vec<Vec<f64>>, BoxError> {
    let episodes = checkpoints.iter().copied().max().unwrap_or(1);
    let mut rows = Vec::with_capacity(seeds as usize);
    for i in 0..seeds {
        let mut agent = make(inst, ctx.seed().wrapping_add(i) ^ EXPLORE_SALT)?;
        let trace = run_regret(
            &inst.cmdp,
            agent.as_mut(),
            episodes,
            &mut seeded(ctx.seed().wrapping_add(i)),
        )?;
        rows.push(checkpoints.iter().map(|&t| trace.at(t)).collect());
        ctx.step();
    }
    Ok(rows)
}

/// Column `j` of per-seed rows.
fn column(rows: &[Vec<f64>], j: usize) -> Vec<f64> {
    rows.iter().map(|r| r[j]).collect()
}

/// Mean over the rows `idx` of R_T at each checkpoint.
fn mean_curve(rows: &[Vec<f64>], idx: &[usize], checkpoints: &[usize]) -> Vec<(f64, f64)> {
    checkpoints
        .iter()
        .enumerate()
        .map(|(j, &t)| {
            let at: Vec<f64> = idx.iter().map(|&i| rows[i][j]).collect();
            let m = mean(&at);
            (t as f64, m)
        })
        .collect()
}

/// The mean (pairwise sum; NaN for no values).
fn mean(x: &[f64]) -> f64 {
    mlcore::stats::pairwise_sum(x) / x.len() as f64
}

/// One P3 / P4 run of the version-space agent on its own policies: whether
/// f* and P* ever left their sets in `episodes` episodes, and the smallest
/// optimistic value − V*_c over the episodes where both were in.
fn confidence_run(
    inst: &Instance,
    seed: u64,
    vstar: &[f64],
) -> Result<(bool, bool, f64), BoxError> {
    let mut rng = seeded(seed);
    let mut agent = VersionSpaceAgent::new(
        inst.rewards.clone(),
        inst.dynamics.clone(),
        VersionSpaceParams::default(),
    )?;
    let (mut out_f, mut out_p, mut slack) = (false, false, f64::INFINITY);
    for _ in 0..P3_EPISODES {
        let c = inst.cmdp.contexts().sample(&mut rng);
        let f_in = agent.reward_set().contains(&inst.true_reward);
        let p_in = agent.dynamics_set().contains(&inst.true_dynamics);
        let pi = agent.act(c)?;
        if f_in && p_in {
            slack = slack.min(agent.last_optimistic_value() - vstar[c]);
        }
        let traj = inst.cmdp.run_episode(c, &pi, &mut rng)?;
        agent.observe(&traj)?;
        out_f |= !agent.reward_set().contains(&inst.true_reward);
        out_p |= !agent.dynamics_set().contains(&inst.true_dynamics);
    }
    Ok((out_f, out_p, slack))
}

impl Reproduction for CmdpEluder {
    fn id(&self) -> &'static str {
        "cmdp-eluder"
    }

    fn paper(&self) -> &'static str {
        "Eluder-based Regret for Stochastic Contextual MDPs (Levy et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "E-UC³RL (optimism with offline regression oracles, O(log T) oracle calls) has Õ(√T) regret on a CMDP with \
         realizable finite classes: at its default confidence constant its regret grows like √T up to log factors \
         and, on the spec's XOR instance, R_4000/R_1000 ≤ 2.2 and R_4000 ≤ 0.5× a greedy plug-in agent's (spec P6), \
         and its regret at T = 2^16 is below ε-greedy's and explore-then-commit's, each tuned in hindsight; its \
         version-space confidence sets are valid at level δ and optimistic."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let quick = ctx.budget() == Budget::Quick;
        let (growth_seeds, long_seeds): (u64, u64) = if quick { (20, 4) } else { (50, 20) };
        ctx.set_steps(
            P6_SEEDS * (3 + C_SWEEP.len() as u64)
                + (3 + (EPS_GRID.len() + ETC_GRID.len()) as u64) * growth_seeds
                + long_seeds
                + P3_SEEDS / 100,
        );
        let inst = xor_instance(10, 8)?;
        let vstar = inst.cmdp.optimal_values()?.to_vec();
        let mut checks = Vec::new();
        let mut figures = Vec::new();
        let mut notes = Vec::new();

        // 1. Spec P6 at T = 4000, 20 seeds, default C.
        let short: Vec<usize> = (1..=16).map(|k| k * T_SHORT / 16).collect();
        let (j1000, jlast) = (3, short.len() - 1);
        ctx.set_message("T = 4000: E-UC3RL (C = 1)");
        let eu = regrets(ctx, &inst, &*e_uc3rl(DEFAULT_C), P6_SEEDS, &short)?;
        ctx.set_message("T = 4000: greedy");
        let gr = regrets(ctx, &inst, &*greedy(false), P6_SEEDS, &short)?;
        ctx.set_message("T = 4000: version space");
        let vs = regrets(ctx, &inst, &*version_space(), P6_SEEDS, &short)?;
        let ratios = |rows: &[Vec<f64>]| -> Vec<f64> {
            rows.iter()
                .map(|r| r[jlast] / r[j1000].max(1e-12))
                .collect()
        };
        let eu_ratios = ratios(&eu);
        let (eu_ratio, ci) = t_interval(ArrayView1::from(&eu_ratios), 0.95)?;
        checks.push(
            Check::new(
                "P6: E-UC³RL (C = 1) mean over seeds of R_4000/R_1000 (95% t interval)",
                eu_ratio,
                Relation::AtMost,
                2.2,
                "spec P6 (√T growth or slower)",
            )
            .with_interval(ci.lo, ci.hi)
            .with_seeds(P6_SEEDS as usize),
        );
        let (eu_last, gr_last) = (column(&eu, jlast), column(&gr, jlast));
        let half_gr: Vec<f64> = gr_last.iter().map(|r| 0.5 * r).collect();
        let w = wilcoxon_signed_rank(
            ArrayView1::from(&eu_last),
            ArrayView1::from(&half_gr),
            Alternative::Less,
        )?;
        checks.push(
            Check::new(
                format!(
                    "P6: E-UC³RL (C = 1) R_4000 < 0.5 × greedy R_4000 (means {:.1} vs {:.1}), one-sided paired Wilcoxon p",
                    mean(&eu_last),
                    0.5 * mean(&gr_last)
                ),
                w.p_value,
                Relation::PValueBelow,
                0.05,
                "spec P6 (E-UC³RL ≤ 0.5× greedy on the XOR instance); paired by seed, level 0.05",
            )
            .with_seeds(P6_SEEDS as usize),
        );
        let vs_ratio = mean(&ratios(&vs));
        let vs_last = column(&vs, jlast);
        figures.extend([
            Figure::new("E-UC³RL (C = 1): mean R_4000", mean(&eu_last)),
            Figure::new(
                "E-UC³RL (C = 1): mean R_4000 / greedy mean R_4000",
                mean(&eu_last) / mean(&gr_last),
            ),
            Figure::new("greedy: mean R_4000", mean(&gr_last)),
            Figure::new("greedy: mean R_4000/R_1000", mean(&ratios(&gr))),
            Figure::new("version space: mean R_4000", mean(&vs_last)),
            Figure::new("version space: mean R_4000/R_1000", vs_ratio),
        ]);
        let all: Vec<usize> = (0..P6_SEEDS as usize).collect();
        let mut series = vec![
            Series::line("E-UC³RL (C = 1)", mean_curve(&eu, &all, &short)),
            Series::line("version space", mean_curve(&vs, &all, &short)),
            Series::line("greedy plug-in", mean_curve(&gr, &all, &short)),
        ];
        let mut sweep = Vec::new();
        for &c in &C_SWEEP {
            ctx.set_message(format!("T = 4000: E-UC3RL, C = {c}"));
            let rows = regrets(ctx, &inst, &*e_uc3rl(c), P6_SEEDS, &short)?;
            let (r, last) = (mean(&ratios(&rows)), mean(&column(&rows, jlast)));
            figures.push(Figure::new(
                format!("tuned C = {c} (not the claim): mean R_4000/R_1000"),
                r,
            ));
            figures.push(Figure::new(
                format!("tuned C = {c} (not the claim): mean R_4000 / greedy"),
                last / mean(&gr_last),
            ));
            sweep.push(format!(
                "C = {c}: R_4000 = {last:.1}, R_4000/R_1000 = {r:.2}, {:.2}× greedy",
                last / mean(&gr_last)
            ));
            series.push(Series::line(
                format!("E-UC³RL (C = {c})"),
                mean_curve(&rows, &all, &short),
            ));
        }

        // 2. Growth of R_T over T ∈ {2^10, …, 2^16}, default C.
        let grid: Vec<usize> = (LOG2_GROWTH.0..=LOG2_GROWTH.1).map(|k| 1 << k).collect();
        let t_max = *grid.last().unwrap_or(&1);
        ctx.set_message("T = 2^16: E-UC3RL (C = 1)");
        let eg = regrets(ctx, &inst, &*e_uc3rl(DEFAULT_C), growth_seeds, &grid)?;
        let idx: Vec<usize> = (0..growth_seeds as usize).collect();
        let exponent =
            |rows: &[Vec<f64>], idx: &[usize]| growth_exponent(&mean_curve(rows, idx, &grid));
        let e_hat = exponent(&eg, &idx);
        let seeds_as_data = Array1::from_iter((0..growth_seeds).map(|i| i as f64));
        let bi = bootstrap_interval(
            seeds_as_data.view(),
            |s| {
                let pick: Vec<usize> = s.iter().map(|&x| x as usize).collect();
                exponent(&eg, &pick)
            },
            RESAMPLES,
            0.95,
            ctx.seed(),
        )?;
        checks.push(
            Check::new(
                format!(
                    "growth: exponent of mean R_T over T ∈ {{2^{}, …, 2^{}}}, E-UC³RL (C = 1), 95% seed-bootstrap interval",
                    LOG2_GROWTH.0, LOG2_GROWTH.1
                ),
                e_hat,
                Relation::IntervalBelow,
                GROWTH_LIMIT,
                "paper's theorem R_T = Õ(√T): exponent ½ plus 0.1 for the log factors Õ hides (issue 34)",
            )
            .with_interval(bi.lo, bi.hi)
            .with_seeds(growth_seeds as usize),
        );
        ctx.set_message("T = 2^16: version space");
        let vg = regrets(ctx, &inst, &*version_space(), growth_seeds, &grid)?;
        ctx.set_message("T = 2^16: greedy (doubling refits)");
        let gg = regrets(ctx, &inst, &*greedy(true), growth_seeds, &grid)?;
        let jt = grid.len() - 1;
        let (eu_t, vs_t, gr_t) = (column(&eg, jt), column(&vg, jt), column(&gg, jt));
        let p_vs = wilcoxon_signed_rank(
            ArrayView1::from(&eu_t),
            ArrayView1::from(&vs_t),
            Alternative::TwoSided,
        )?
        .p_value;
        let p_gr = wilcoxon_signed_rank(
            ArrayView1::from(&eu_t),
            ArrayView1::from(&gr_t),
            Alternative::Less,
        )?
        .p_value;
        figures.extend([
            Figure::new(format!("E-UC³RL (C = 1): mean R_T at T = 2^{}", LOG2_GROWTH.1), mean(&eu_t)),
            Figure::new(
                format!("version space: mean R_T at T = 2^{}", LOG2_GROWTH.1),
                mean(&vs_t),
            ),
            Figure::new(
                format!(
                    "E-UC³RL vs version space at T = 2^{}: two-sided paired Wilcoxon p ({growth_seeds} seeds)",
                    LOG2_GROWTH.1
                ),
                p_vs,
            ),
            Figure::new(
                format!("version space: exponent of mean R_T over T ∈ [2^{}, 2^{}]", LOG2_GROWTH.0, LOG2_GROWTH.1),
                exponent(&vg, &idx),
            ),
            Figure::new(
                format!("greedy (doubling refits): mean R_T at T = 2^{}", LOG2_GROWTH.1),
                mean(&gr_t),
            ),
            Figure::new(
                format!(
                    "E-UC³RL < greedy (doubling refits) at T = 2^{}: one-sided paired Wilcoxon p (strawman)",
                    LOG2_GROWTH.1
                ),
                p_gr,
            ),
        ]);

        // Tuned exploring baselines: each grid value on the same seeds, the
        // best mean R_T at T = 2^16 in hindsight (favours the baselines).
        let mut tuned_lines = Vec::new();
        let mut tuned_series = Vec::new();
        let candidates: [(&str, TuningGrid); 2] = [
            (
                "ε-greedy",
                EPS_GRID
                    .iter()
                    .map(|&e| (format!("ε = {e}"), eps_greedy(e)))
                    .collect(),
            ),
            (
                "explore-then-commit",
                ETC_GRID
                    .iter()
                    .map(|&m| (format!("m = {m}"), explore_then_commit(m)))
                    .collect(),
            ),
        ];
        for (name, grid_makers) in candidates {
            let mut best: Option<(String, Vec<Vec<f64>>, f64)> = None;
            let mut tried = Vec::new();
            for (label, make) in grid_makers {
                ctx.set_message(format!("T = 2^16: {name}, {label}"));
                let rows = regrets(ctx, &inst, &*make, growth_seeds, &grid)?;
                let m = mean(&column(&rows, jt));
                tried.push(format!("{label}: {m:.1}"));
                if best.as_ref().is_none_or(|b| m < b.2) {
                    best = Some((label, rows, m));
                }
            }
            let (label, rows, m) = best.ok_or("empty tuning grid")?;
            let base_t = column(&rows, jt);
            let w = wilcoxon_signed_rank(
                ArrayView1::from(&eu_t),
                ArrayView1::from(&base_t),
                Alternative::Less,
            )?;
            checks.push(
                Check::new(
                    format!(
                        "E-UC³RL (C = 1) R_T < tuned {name} ({label}) R_T at T = 2^{} (means {:.1} vs {m:.1}), \
                         one-sided paired Wilcoxon p",
                        LOG2_GROWTH.1,
                        mean(&eu_t)
                    ),
                    w.p_value,
                    Relation::PValueBelow,
                    0.05,
                    "issue 34 (b): optimism against a baseline tuned in hindsight; paired by seed, level 0.05",
                )
                .with_seeds(growth_seeds as usize),
            );
            figures.push(Figure::new(
                format!(
                    "tuned {name} ({label}, best in hindsight): mean R_T at T = 2^{}",
                    LOG2_GROWTH.1
                ),
                m,
            ));
            tuned_lines.push(format!("{name}: {}", tried.join(", ")));
            tuned_series.push(Series::line(
                format!("tuned {name} ({label})"),
                mean_curve(&rows, &idx, &grid),
            ));
        }

        // Long horizon at the default C (a figure: beyond the burn-in).
        let long: Vec<usize> = (8..=LOG2_T_LONG).map(|k| 1usize << k).collect();
        ctx.set_message(format!("T = 2^{LOG2_T_LONG}: E-UC3RL (C = 1)"));
        let el = regrets(ctx, &inst, &*e_uc3rl(DEFAULT_C), long_seeds, &long)?;
        let lidx: Vec<usize> = (0..long_seeds as usize).collect();
        let long_curve = mean_curve(&el, &lidx, &long);
        let late: Vec<(f64, f64)> = long_curve
            .iter()
            .copied()
            .filter(|&(t, _)| t >= (1u64 << 14) as f64)
            .collect();
        figures.push(Figure::new(
            format!("E-UC³RL (C = 1): exponent of mean R_T over T ∈ [2^14, 2^{LOG2_T_LONG}] ({long_seeds} seeds)"),
            growth_exponent(&late),
        ));

        // 3. P3 confidence validity and P4 optimism of the version space.
        ctx.set_message("P3/P4: version-space confidence sets, 2000 seeds");
        let (mut out_f, mut out_p, mut slack) = (0u64, 0u64, f64::INFINITY);
        for i in 0..P3_SEEDS {
            let (f, p, s) = confidence_run(&inst, ctx.seed().wrapping_add(1_000_000 + i), &vstar)?;
            out_f += u64::from(f);
            out_p += u64::from(p);
            slack = slack.min(s);
            if (i + 1) % 100 == 0 {
                ctx.step();
            }
        }
        let n3 = P3_SEEDS as f64;
        let bound = DELTA + 3.0 * (DELTA * (1.0 - DELTA) / n3).sqrt();
        for (what, count) in [("f* ∉ ℱ_t", out_f), ("P* ∉ 𝒫_t", out_p)] {
            let wi = wilson_interval(count, P3_SEEDS, 0.95)?;
            checks.push(
                Check::new(
                    format!(
                        "P3: fraction of runs with {what} for some t ≤ {P3_EPISODES} (δ = {DELTA}; 95% Wilson interval)"
                    ),
                    count as f64 / n3,
                    Relation::AtMost,
                    bound,
                    "spec P3: δ + 3·√(δ(1 − δ)/2000)",
                )
                .with_interval(wi.lo, wi.hi)
                .with_seeds(P3_SEEDS as usize),
            );
        }
        checks.push(
            Check::new(
                "P4: min over runs and episodes with f* ∈ ℱ_t, P* ∈ 𝒫_t of (optimistic value − V*_c)",
                slack,
                Relation::AtLeast,
                -1e-12,
                "spec P4 (optimism; 1e-12)",
            )
            .with_seeds(P3_SEEDS as usize),
        );

        // 4. Eluder dimensions of the spec's classes (P2).
        ctx.set_message("Eluder dimensions");
        let nx = 6;
        let full: Vec<Vec<f64>> = (0..1usize << nx)
            .map(|k| {
                (0..nx)
                    .map(|x| if (k >> x) & 1 == 1 { 0.8 } else { 0.2 })
                    .collect()
            })
            .collect();
        let d_full =
            eluder_dimension(&bernoulli_outputs(&full)?, 0.05, hellinger_metric)?.dimension;
        let d_single = eluder_dimension(
            &bernoulli_outputs(&[vec![0.5; nx]])?,
            0.05,
            hellinger_metric,
        )?
        .dimension;
        checks.push(Check::new(
            "P2: d_E of the full tabular class (all maps of |X| = 6 points to Bern(0.2)/Bern(0.8)), Hellinger, ε = 0.05",
            d_full as f64,
            Relation::Within(0.0),
            nx as f64,
            "spec P2: d_E = |X| for the full tabular class at small ε",
        ));
        checks.push(Check::new(
            "P2: d_E of a singleton class, Hellinger, ε = 0.05",
            d_single as f64,
            Relation::Within(0.0),
            0.0,
            "spec P2: 0 for a singleton class",
        ));
        let one: Vec<Vec<f64>> = [0.2, 0.4, 0.6, 0.8].iter().map(|&t| vec![t; nx]).collect();
        figures.push(Figure::new(
            "d_E of the one-parameter class (Bern(θ) at every point, θ ∈ {0.2, 0.4, 0.6, 0.8}), ε = 0.05",
            eluder_dimension(&bernoulli_outputs(&one)?, 0.05, hellinger_metric)?.dimension as f64,
        ));
        let xor2 = xor_instance(2, 8)?;
        let domain: Vec<(usize, usize, usize)> = (0..2)
            .flat_map(|c| [(c, 0, 0), (c, 0, 1), (c, 2, 0), (c, 3, 1)])
            .collect();
        let xor_outputs = xor2.dynamics.eluder_outputs(&domain)?;
        figures.push(Figure::new(
            "d_E of the XOR dynamics class on 8 (c, s, a) points (≤ |X| = 8), ε = 0.05",
            eluder_dimension(&xor_outputs, 0.05, hellinger_metric)?.dimension as f64,
        ));

        // Oracle calls (measured).
        let mut probe = EUc3rl::new(
            inst.cmdp.space().clone(),
            inst.cmdp.contexts().n_contexts(),
            2,
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
            EUc3rlParams::default(),
        )?;
        run_regret(&inst.cmdp, &mut probe, T_SHORT, &mut seeded(ctx.seed()))?;
        figures.push(Figure::new(
            "E-UC³RL oracle calls in T = 4000 episodes (measured)",
            probe.oracle_calls() as f64,
        ));
        figures.push(Figure::new(
            "E-UC³RL β = C·(ln(|ℱ|/δ) + H·ln(|𝒫|/δ)) at C = 1",
            probe.beta(),
        ));

        notes.push(
            "Regret is exact: V*_c and V^π_c by finite-horizon DP per context (tabular-mdp); trajectories are sampled \
             (Bernoulli rewards). Seed i runs on the same master seed + i for every agent, so comparisons pair by seed."
                .into(),
        );
        notes.push(format!(
            "Default C = {DEFAULT_C}: β = ln(|ℱ|/δ) + H·ln(|𝒫|/δ) = {:.1}, the confidence radius of the spec's \
             reconstruction (the paper's constant is not public). With it the bonus (1 + H)·√(β/(1 + N)) exceeds the \
             instance's gaps (0.1–0.4) until N ≈ 10³–10⁴ counterfactual visits and a doubling epoch commits its whole \
             length to the optimistic choice, so at T ≤ 4000 E-UC³RL is still in burn-in: spec P6 is checked at this \
             default and fails if it fails (a finding, not tuned away). Tuned C (sweep at T = 4000, figures only, \
             never the claim): {}.",
            probe.beta(),
            sweep.join("; ")
        ));
        notes.push(format!(
            "Growth: exponent = least-squares slope of ln(mean R_T) on ln T at T = 2^{}, …, 2^{} over {growth_seeds} \
             seeds; interval = percentile bootstrap over seeds ({RESAMPLES} resamples). The limit 0.6 is ½ from the \
             theorem plus 0.1 for the polylogarithmic factors Õ hides (a full ln T factor would add 1/ln T ≈ 0.09–0.14 \
             over this range). The long run to T = 2^{LOG2_T_LONG} ({long_seeds} seeds) is a figure only.",
            LOG2_GROWTH.0, LOG2_GROWTH.1
        ));
        notes.push(
            "P3/P4 run the version-space agent on its own (optimistic, adaptive) policies for 2000 seeds of 200 \
             episodes with the theorem's widths β_F = ½·ln(|ℱ|/δ), β_P = ln(|𝒫|/δ); P4 is checked at every episode \
             whose sets contain the truth, the worst case is reported."
                .into(),
        );
        notes.push(format!(
            "Greedy is a strawman by design of the instance: every reward model agrees on the safe action, so greedy \
             (ties → model 0) never tries the risky action that pays +0.4 on odd contexts; its comparisons at \
             T = 2^16 are figures. The comparisons that decide are against exploring baselines: ε-greedy (a uniformly \
             random deterministic policy with probability ε per episode, plug-in policy otherwise, refits on the \
             doubling schedule) and explore-then-commit (m random episodes, then one fit and the plug-in policy), each \
             tuned over its grid on the evaluation seeds themselves (best mean R_T at T = 2^16 in hindsight, which \
             favours the baselines). Mean R_T at 2^16 per grid value: {}.",
            tuned_lines.join("; ")
        ));
        notes.push(
            "Budgets: quick runs 20 growth seeds and 4 long-run seeds (~8 s of CPU); full runs 50 and 20 (~26 s of \
             CPU, 80 s wall on a busy 2-core machine). P6, P3 and P4 use the spec's seed counts at both budgets."
                .into(),
        );
        let plots = vec![
            Plot {
                title: format!("Regret on the XOR-context CMDP (mean of {P6_SEEDS} seeds)"),
                x_label: "episodes T".into(),
                y_label: "R_T".into(),
                series,
                log_x: true,
                log_y: true,
            },
            Plot {
                title: format!(
                    "Growth at C = 1 (mean of {growth_seeds} seeds; long run {long_seeds} seeds)"
                ),
                x_label: "episodes T".into(),
                y_label: "R_T".into(),
                series: [
                    vec![
                        Series::line("E-UC³RL (C = 1)", mean_curve(&eg, &idx, &grid)),
                        Series::line("version space", mean_curve(&vg, &idx, &grid)),
                        Series::line("greedy (doubling refits)", mean_curve(&gg, &idx, &grid)),
                        Series::line(
                            format!("E-UC³RL (C = 1), to 2^{LOG2_T_LONG}"),
                            long_curve.clone(),
                        ),
                        Series::line(
                            format!("√T through E-UC³RL at 2^{}", LOG2_GROWTH.1),
                            long_curve
                                .iter()
                                .map(|&(t, _)| {
                                    let r = mean(&eu_t);
                                    (t, r * (t / t_max as f64).sqrt())
                                })
                                .collect(),
                        ),
                    ],
                    tuned_series,
                ]
                .concat(),
                log_x: true,
                log_y: true,
            },
        ];
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
