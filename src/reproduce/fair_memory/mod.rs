//! `fair-memory`: on the Donut environment in the official tabular setting
//! (N = 3 people, each present with probability p = 0.8 at every step,
//! T = 12 steps, α = 0.1, γ = 0.99, per-(s, m) ε from 1 ×0.95 down to 0.2),
//! FairQCM (Q-learning on (s, m) with the official counterfactual window)
//! reaches a near-optimal anytime-NSW policy in fewer real episodes than
//! Q-learning with the full, min-shifted or reset memory alone. The greedy
//! policy is evaluated exactly (expected NSW sum over the presence process)
//! and compared with the dynamic-programming optimum on the augmented state.
//!
//! Checks: the headline comparison as paired one-sided Wilcoxon tests over
//! seeds (issue 35, 2b); P4 convergence to Q*_DP at p ∈ {1, 0.8} on
//! Donut N = 2, T = 4 over 20 seeds; P5 (the deterministic control: the
//! p = 1 optimum is round robin); P1–P3 on random histories.

mod props;

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series, median,
};
use fair_memory::{
    CounterfactualSet, Donut, DonutConfig, FairQcm, LearningCurve, MemoryKind, QcmParams, dp,
};
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, quantile, wilcoxon_signed_rank};
use ndarray::ArrayView1;
use std::time::Instant;

/// The reproduction registered as `fair-memory`.
pub struct FairMemory;

/// People N (official tabular Donut).
pub const PEOPLE: usize = 3;
/// Horizon T (official tabular Donut).
pub const HORIZON: usize = 12;
/// Discount γ (official tabular Donut).
pub const GAMMA: f64 = 0.99;
/// Presence probability of each person per step (official Donut).
pub const PRESENCE: f64 = 0.8;
/// "Near-optimal": the greedy policy's expected NSW sum within this
/// fraction of the optimum (issue 35, 2b: within 1%).
pub const NEAR: f64 = 0.01;
/// Level of the paired tests (issue 20's rule for "A beats B").
pub const LEVEL: f64 = 0.05;
/// Seeds the paired tests need to be decided (issue 35: ≥ 20).
pub const MIN_SEEDS: usize = 20;

/// A compared method: label, memory, counterfactual set, and whether the
/// headline test compares FairQCM against it.
pub struct Method {
    /// Legend label.
    pub label: &'static str,
    /// The memory design.
    pub memory: MemoryKind,
    /// The counterfactual set.
    pub cf: CounterfactualSet,
    /// A baseline of the paired test (issue 35: Full, Min, Reset).
    pub tested: bool,
}

/// The methods: FairQCM first, then the memory baselines of the paper.
pub fn methods() -> Vec<Method> {
    let m = |label, memory, cf, tested| Method {
        label,
        memory,
        cf,
        tested,
    };
    vec![
        m(
            "FairQCM (window w=2)",
            MemoryKind::Full,
            CounterfactualSet::Window {
                offset: 0,
                width: 2,
            },
            false,
        ),
        m(
            "Full memory",
            MemoryKind::Full,
            CounterfactualSet::None,
            true,
        ),
        m(
            "Min memory",
            MemoryKind::MinShifted,
            CounterfactualSet::None,
            true,
        ),
        m(
            "Reset memory",
            MemoryKind::Reset,
            CounterfactualSet::None,
            true,
        ),
        m(
            "No memory",
            MemoryKind::None,
            CounterfactualSet::None,
            false,
        ),
    ]
}

/// The Donut of the official tabular setting with presence probability `p`.
pub fn donut(p: f64, people: usize, horizon: usize) -> Result<Donut, BoxError> {
    Ok(Donut::new(DonutConfig {
        presence: vec![p; people],
        horizon,
        ..DonutConfig::default()
    })?)
}

/// One training run.
pub struct Run {
    /// Episodes until the greedy policy's NSW is (and stays) within [`NEAR`]
    /// of the optimum; `None` if not by the end.
    pub first: Option<usize>,
    /// Expected NSW sum (γ = 1) of the greedy policy at each checkpoint.
    pub nsw: Vec<f64>,
    /// Training seconds per episode (evaluation excluded).
    pub secs: f64,
}

/// One training run of `method` with the official hyper-parameters on
/// `env`, the greedy policy evaluated exactly (γ = 1) every `eval_every`
/// episodes against the optimum `nsw_opt` (also used by the example
/// `fair_memory_official`, which scripts/compare/fair_memory.py runs).
pub fn one_run(
    env: &Donut,
    method: &Method,
    episodes: usize,
    eval_every: usize,
    nsw_opt: f64,
    seed: u64,
) -> Result<Run, BoxError> {
    let params = QcmParams {
        episodes,
        memory: method.memory,
        counterfactuals: method.cf,
        // Min / Reset / None are not sufficient for NSW: the official
        // baselines, run with the explicit opt-in as the official code does.
        allow_insufficient_memory: method.memory != MemoryKind::Full,
        ..QcmParams::default()
    };
    let mut learner = FairQcm::new(env, params)?;
    let mut rng = seeded(seed);
    let mut nsw = Vec::with_capacity(episodes / eval_every);
    let mut train_secs = 0.0;
    for e in 1..=episodes {
        let t0 = Instant::now();
        learner.run_episode(&mut rng);
        train_secs += t0.elapsed().as_secs_f64();
        if e % eval_every == 0 {
            nsw.push(dp::greedy_value(&learner, env, 1.0)?);
        }
    }
    let curve = LearningCurve {
        episodes: (1..=nsw.len()).map(|k| k * eval_every).collect(),
        values: nsw.clone(),
    };
    Ok(Run {
        first: curve.episodes_to_optimal(nsw_opt, NEAR * nsw_opt),
        nsw,
        secs: train_secs / episodes as f64,
    })
}

/// The `q`-quantile of `v` (NaN if empty).
fn q_of(v: &[f64], q: f64) -> f64 {
    quantile(ArrayView1::from(v), q).unwrap_or(f64::NAN)
}

/// Budget-dependent sizes.
struct Sizes {
    seeds: usize,
    episodes: usize,
    eval_every: usize,
}

impl Reproduction for FairMemory {
    fn id(&self) -> &'static str {
        "fair-memory"
    }

    fn paper(&self) -> &'static str {
        "Remembering to Be Fair: Non-Markovian Fairness in Sequential Decision Making (Alamdari et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "On the Donut environment (official tabular setting: N = 3, p = 0.8, T = 12), FairQCM (Q-learning with \
         counterfactual memories) reaches a near-optimal anytime-NSW policy in fewer real episodes than Q-learning \
         with the full, min or reset memory; tabular FairQCM converges to the optimal Q."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let sizes = match ctx.budget() {
            Budget::Quick => Sizes {
                seeds: 20,
                episodes: 4000,
                eval_every: 100,
            },
            Budget::Full => Sizes {
                seeds: 20,
                episodes: 50_000,
                eval_every: 250,
            },
        };
        let t_start = Instant::now();
        let mut checks = Vec::new();
        let mut figures = Vec::new();
        let mut notes = Vec::new();

        // ---------------------------------------------------------- P1–P3, P5
        ctx.set_message("P1–P3 on random histories, P5");
        checks.extend(props::property_checks(ctx.seed())?);
        checks.push(props::p5_check()?);

        // ---------------------------------------------------------- P4
        ctx.set_message("P4 convergence (Donut N = 2, T = 4)");
        let (p4_checks, p4_figs) = props::p4_checks(ctx.seed())?;
        checks.extend(p4_checks);
        figures.extend(p4_figs);

        // ---------------------------------------------------------- headline
        let env = donut(PRESENCE, PEOPLE, HORIZON)?;
        let nsw_opt = dp::optimal(&env, 1.0)?.value;
        // No memory is not part of the tested comparison: the full budget only.
        let methods: Vec<Method> = methods()
            .into_iter()
            .filter(|m| ctx.budget() == Budget::Full || m.memory != MemoryKind::None)
            .collect();
        ctx.set_steps((methods.len() * sizes.seeds) as u64);
        let mut eps_all: Vec<Vec<f64>> = Vec::new();
        let mut censored_all = Vec::new();
        let mut curves_all: Vec<Vec<Vec<f64>>> = Vec::new();
        let mut per_episode = Vec::new();
        let censor = (sizes.episodes + sizes.eval_every) as f64;
        for method in &methods {
            ctx.set_message(method.label.to_string());
            let (mut eps, mut curves, mut secs) = (Vec::new(), Vec::new(), Vec::new());
            let mut censored = 0;
            for k in 0..sizes.seeds {
                let run = one_run(
                    &env,
                    method,
                    sizes.episodes,
                    sizes.eval_every,
                    nsw_opt,
                    ctx.seed().wrapping_add(1000 * k as u64),
                )?;
                if run.first.is_none() {
                    censored += 1;
                }
                // A run that never gets within 1% counts as the budget plus
                // one checkpoint (right-censored; conservative for the test).
                eps.push(run.first.map_or(censor, |e| e as f64));
                curves.push(run.nsw);
                secs.push(run.secs);
                ctx.step();
            }
            figures.push(
                Figure::new(
                    format!(
                        "median episodes to within 1% of the optimal NSW: {}",
                        method.label
                    ),
                    median(&eps),
                )
                .with_target(format!(
                    "IQR [{}, {}]; {censored}/{} seeds not within 1% after {} episodes",
                    q_of(&eps, 0.25),
                    q_of(&eps, 0.75),
                    sizes.seeds,
                    sizes.episodes
                )),
            );
            eps_all.push(eps);
            censored_all.push(censored);
            curves_all.push(curves);
            per_episode.push(median(&secs));
        }

        let decided = sizes.seeds >= MIN_SEEDS;
        for (i, method) in methods.iter().enumerate() {
            if !method.tested {
                continue;
            }
            let x = ArrayView1::from(&eps_all[i]);
            let y = ArrayView1::from(&eps_all[0]);
            // All differences zero (e.g. both censored everywhere): no evidence, p = 1.
            let p = wilcoxon_signed_rank(x, y, Alternative::Greater).map_or(1.0, |w| w.p_value);
            checks.push(
                Check::new(
                    format!(
                        "episodes to within 1% of the optimal NSW: FairQCM fewer than {} \
                         (paired one-sided Wilcoxon p-value)",
                        method.label
                    ),
                    p,
                    Relation::PValueBelow,
                    LEVEL,
                    "paper: Donut NSW-vs-episodes figure (FairQCM reaches the top NSW in far fewer episodes \
                     than Full/Min/Reset memories); issue 35 (2b): paired Wilcoxon p < 0.05 over ≥ 20 seeds",
                )
                .with_seeds(sizes.seeds)
                .undecided_if(
                    !decided,
                    format!("{} seeds; the paired test needs ≥ {MIN_SEEDS}", sizes.seeds),
                ),
            );
        }
        figures.push(Figure::new("optimal expected NSW sum (γ = 1, DP)", nsw_opt));
        figures.push(Figure::new(
            "time per training episode, FairQCM (window) / Full memory",
            per_episode[0] / per_episode[1],
        ));

        // Curves: median and interquartile range per checkpoint.
        let checkpoints = curves_all[0][0].len();
        let x_of = |i: usize| ((i + 1) * sizes.eval_every) as f64;
        let band = |curves: &[Vec<f64>], q: f64| -> Vec<(f64, f64)> {
            (0..checkpoints)
                .map(|i| {
                    let col: Vec<f64> = curves.iter().map(|c| c[i]).collect();
                    (x_of(i), q_of(&col, q))
                })
                .collect()
        };
        let mut medians: Vec<Series> = methods
            .iter()
            .zip(&curves_all)
            .map(|(m, c)| Series::line(m.label, band(c, 0.5)))
            .collect();
        let ends = vec![(x_of(0), nsw_opt), (sizes.episodes as f64, nsw_opt)];
        let near: Vec<(f64, f64)> = ends.iter().map(|&(x, y)| (x, (1.0 - NEAR) * y)).collect();
        medians.push(Series::line("optimum (DP)", ends.clone()));
        medians.push(Series::line("99% of the optimum", near.clone()));
        let mut bands = Vec::new();
        for i in [0, 1] {
            let label = methods[i].label;
            bands.push(Series::line(
                format!("{label}: median"),
                band(&curves_all[i], 0.5),
            ));
            bands.push(Series::line(
                format!("{label}: 25%"),
                band(&curves_all[i], 0.25),
            ));
            bands.push(Series::line(
                format!("{label}: 75%"),
                band(&curves_all[i], 0.75),
            ));
        }
        bands.push(Series::line("99% of the optimum", near));

        notes.push(format!(
            "Official tabular Donut: N = {PEOPLE}, p = {PRESENCE}, T = {HORIZON}, γ = {GAMMA}, α = 0.1, per-(s, m) ε from 1 \
             (×0.95 per exploration, floor 0.2), counterfactual window w = 2. {} seeds × {} episodes per method (official: \
             50 000), greedy policy evaluated exactly every {} episodes. 'Episodes to within 1%' is the first checkpoint \
             from which the greedy policy's expected NSW sum stays ≥ 99% of the DP optimum; runs that never get there \
             count as {} (right-censored, which can only shrink the baselines' disadvantage). Censored: {}.",
            sizes.seeds,
            sizes.episodes,
            sizes.eval_every,
            censor,
            methods
                .iter()
                .zip(&censored_all)
                .map(|(m, c)| format!("{} {c}/{}", m.label, sizes.seeds))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        notes.push(
            "p = 1 is only the deterministic control (P5: its optimum is round robin, known exactly); the headline \
             runs at the official p = 0.8. Min and Reset memories are not sufficient for NSW (run with the explicit \
             opt-in, as the official code does)."
                .into(),
        );
        notes.push(format!(
            "P4 trains the official FairQCM (window w = 2, ε schedule) with the Robbins–Monro step size α = 1/n^0.8 per \
             (s, m, a), the convergence theorem's condition (the official constant α = 0.1 leaves a noise floor under \
             stochastic presence), for {} episodes as the spec fixes, and takes ‖Q − Q*‖∞ over every reachable \
             (s, m, a). At p = 0.8 the worst entries (diagnosed with the default seed) are the states after two or three \
             dropped donuts with no donut given yet, memory (0, 0): they are updated 0–20 times in 2e4 episodes (the \
             window only adds memories above the real one), so they are far from converged (worst/median errors \
             above). The paper's convergence result is asymptotic; the spec's 2e4-episode bound is what is checked, \
             and it does not hold at p = 0.8.",
            props::P4_EPISODES
        ));
        notes.push(
            "Peer: the official tabular code itself (praal/remembering-to-be-fair at 0fc2e3b, ql.py + envs/donut.py, \
             unmodified, numpy 1.26 + gym 0.26 in a virtual environment) on this setting, 20 seeds × 4000 episodes \
             per method, its greedy policy evaluated exactly by backward induction: scripts/compare/fair_memory.py, \
             figures in docs/perf.md. Its known differences (state without a clock, bootstrapping past the end, \
             counterfactual of a dropped donut moved to m̃ + e_a, λ dropped in counterfactual rewards, random \
             tie-breaking) are listed in the crate docs. The RNN-memory baseline comes later, on the shared neural \
             crate (nncore)."
                .into(),
        );
        notes.push(format!(
            "Wall time of this run: {:.1} s. The full budget (20 seeds × 50 000 episodes per method, No memory \
             included) took about 11 min on a busy 2-core machine.",
            t_start.elapsed().as_secs_f64()
        ));
        Ok(Outcome {
            checks,
            figures,
            plots: vec![
                Plot {
                    title: format!(
                        "Donut N = {PEOPLE}, p = {PRESENCE}, T = {HORIZON}: expected NSW sum of the greedy policy (median over seeds)"
                    ),
                    x_label: "training episodes".into(),
                    y_label: "E[Σₜ NSW(u_t)] of the greedy policy".into(),
                    series: medians,
                    log_x: false,
                    log_y: false,
                },
                Plot {
                    title: "FairQCM vs Full memory: median and interquartile range over seeds"
                        .into(),
                    x_label: "training episodes".into(),
                    y_label: "E[Σₜ NSW(u_t)] of the greedy policy".into(),
                    series: bands,
                    log_x: false,
                    log_y: false,
                },
            ],
            notes,
        })
    }
}
