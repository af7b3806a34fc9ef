//! `matrix-completion`: on non-linear synthetic ratings with power-law
//! sampling, depth 3 (Schatten-2/3) against depth 2 (nuclear norm), the
//! weighted penalty against the unweighted one, and FRMC's learned link
//! against the linear model, each decided by a paired test over seeds; the
//! spec's recovery criterion at `4·r·n·ln n` uniform observations on every
//! seed; test RMSE against the observed fraction.

mod sample_complexity;

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use matrix_completion::data::Observations;
use matrix_completion::link::ScalarLink;
use matrix_completion::metrics::evaluate;
use matrix_completion::model::DeepMf;
use matrix_completion::synthetic::{Sampling, TrueLink, count_for_fraction, low_rank, sample};
use matrix_completion::train::{EarlyStopping, LinkConfig, TrainConfig, Weighting, fit, fit_from};
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, median, paired_bootstrap_interval, wilcoxon_signed_rank};
use ndarray::Array1;
use std::time::Instant;

/// The reproduction registered as `matrix-completion`.
pub struct MatrixCompletion;

/// Matrix size (the spec's reference run).
pub const M: usize = 300;
/// Rank of the latent matrix.
pub const RANK: usize = 5;
/// Power-law exponent of row and column popularity.
pub const ALPHA: f64 = 1.0;
/// Observation noise (standard deviation).
pub const NOISE: f64 = 0.1;
/// Width of the factorisations.
pub const WIDTH: usize = 32;
/// The headline observed fraction (the spec's reference run).
pub const HEADLINE: f64 = 0.08;
/// Rating range used to clip predictions.
pub const CLIP: (f64, f64) = (1.0, 5.0);

/// The linear models compared: (label, depth, weighting).
pub const MODELS: [(&str, usize, Weighting); 4] = [
    ("L = 2", 2, Weighting::None),
    ("L = 2 weighted", 2, Weighting::Smoothed { zeta: 0.5 }),
    ("L = 3", 3, Weighting::None),
    ("L = 3 weighted", 3, Weighting::Smoothed { zeta: 0.5 }),
];

/// Every model reported: the four linear ones, then FRMC warm-started from
/// `L = 3` and from `L = 3 weighted` (indices into [`SeedResult::rmse`]).
const NAMES: [&str; 6] = [
    "L = 2",
    "L = 2 weighted",
    "L = 3",
    "L = 3 weighted",
    "FRMC (L = 3)",
    "FRMC (L = 3 weighted)",
];

/// Level of every test (issue 20's rule for "A beats B").
const LEVEL: f64 = 0.05;
/// Fewest seeds a paired test may be decided on (issue 20's rule).
const MIN_SEEDS: usize = 10;
/// Bootstrap resamples and confidence of the effect-size intervals.
const RESAMPLES: usize = 10_000;
const CONFIDENCE: f64 = 0.95;

/// Spec property 6 / issue 35: recovery at `N = 4·r·n·ln n` uniform,
/// noiseless observations of a 200×200 rank-2 matrix, depth 3.
const REC_N: usize = 200;
const REC_RANK: usize = 2;
const REC_TEST: usize = 2000;
/// The success criterion: test RMSE ≤ 0.1·std(G).
const REC_RATIO: f64 = 0.1;
/// The FRMC link's Lipschitz cap (spec: `Frmc { knots: 24, cap: 3.0 }`).
const FRMC_CAP: f64 = 3.0;

/// One model's result at one observed fraction.
#[derive(Debug, Clone)]
pub struct Trained {
    /// λ chosen on the validation split.
    pub lambda: f64,
    /// Test RMSE (clipped to the rating range).
    pub test_rmse: f64,
    /// The trained model.
    pub model: DeepMf,
    /// Whether training ran to the epoch cap (early stopping never fired).
    pub capped: bool,
}

/// Trains one linear model per λ of `grid` (early stopping on `valid`) and keeps
/// the one with the lowest validation RMSE.
#[allow(clippy::too_many_arguments)]
pub fn train_best(
    train: &Observations,
    valid: &Observations,
    test: &Observations,
    depth: usize,
    weighting: Weighting,
    grid: &[f64],
    epochs: usize,
    seed: u64,
) -> Result<Trained, BoxError> {
    let mut best: Option<(f64, Trained)> = None;
    for &lambda in grid {
        let cfg = config(depth, weighting, lambda, epochs);
        let f = fit(train, Some(valid), &cfg, &mut seeded(seed))?;
        let v = f.history[f.best_epoch]
            .valid_rmse
            .ok_or("no validation RMSE")?;
        if best.as_ref().is_none_or(|(b, _)| v < *b) {
            let (test_rmse, _) = evaluate(&f.model, test, Some(CLIP))?;
            best = Some((
                v,
                Trained {
                    lambda,
                    test_rmse,
                    model: f.model,
                    capped: !f.stopped_early,
                },
            ));
        }
    }
    Ok(best.ok_or("empty λ grid")?.1)
}

fn config(depth: usize, weighting: Weighting, lambda: f64, epochs: usize) -> TrainConfig {
    TrainConfig {
        depth,
        width: WIDTH,
        lambda,
        weighting,
        epochs,
        clip: Some(CLIP),
        early_stopping: Some(EarlyStopping {
            patience: 100,
            min_delta: 0.0,
        }),
        ..TrainConfig::default()
    }
}

/// FRMC warm-started from a trained linear model: the spec's default link
/// (24 knots on [−4, 4], cap 3), trained jointly with the factors.
pub fn train_frmc(
    base: &Trained,
    train: &Observations,
    valid: &Observations,
    test: &Observations,
    weighting: Weighting,
    epochs: usize,
    seed: u64,
) -> Result<Trained, BoxError> {
    let init = base
        .model
        .clone()
        .with_link(LinkConfig::FRMC_DEFAULT.build()?);
    let cfg = config(base.model.depth(), weighting, base.lambda, epochs);
    let f = fit_from(init, train, Some(valid), &cfg, &mut seeded(seed))?;
    let (test_rmse, _) = evaluate(&f.model, test, Some(CLIP))?;
    Ok(Trained {
        lambda: base.lambda,
        test_rmse,
        model: f.model,
        capped: !f.stopped_early,
    })
}

/// Why the quick sample-complexity study does not decide its checks.
const QUICK_SC_WHY: &str = "at quick sizes (n ≤ 120, 1000 Adam epochs) the threshold is set by the optimiser, not by the \
     information: a probe at n = 80 (3 seeds) found N* ≈ 1000–1400 with 1500 epochs but ≈ 900–1000 with 5000, \
     and a quick run with 1500 epochs gave N*(r = 4)/N*(r = 2) = 1.02 at n = 160 with exponents 1.25/1.20; \
     the checks are decided by --budget full (n ∈ {100, 200, 400, 800}, 5000 epochs; about 3 CPU-hours, \
     measured per fit in docs/perf.md)";

/// Budget-dependent settings.
struct Settings {
    /// Independent seeds (fresh matrix, sample, splits and initialisations).
    seeds: usize,
    /// λ grid, chosen per model and seed on validation.
    grid: Vec<f64>,
    /// Maximum epochs of the linear models (early stopping on validation).
    epochs: usize,
    /// Maximum further epochs of FRMC.
    frmc_epochs: usize,
    /// Recovery seeds.
    recovery_seeds: usize,
    /// Epochs of the recovery fits.
    recovery_epochs: usize,
    /// Observed fractions of the sweep (informative; the headline is added).
    sweep: Vec<f64>,
    /// Seeds behind each point of the sweep.
    sweep_seeds: usize,
    /// The sample-complexity study (uniform sampling).
    sc: sample_complexity::Study,
    /// Its power-law counterpart (reported side by side, no check).
    sc_power: sample_complexity::Study,
}

impl Settings {
    fn of(budget: Budget) -> Self {
        match budget {
            Budget::Quick => Settings {
                seeds: 10,
                grid: vec![3e-5, 1e-4, 3e-4],
                epochs: 800,
                frmc_epochs: 400,
                recovery_seeds: 3,
                recovery_epochs: 3000,
                sweep: Vec::new(),
                sweep_seeds: 0,
                sc: sample_complexity::Study {
                    ns: vec![30, 60, 120],
                    ranks: vec![2, 4],
                    seeds: 10,
                    steps: 3,
                    epochs: 1000,
                    width: 8,
                    undecided: Some(QUICK_SC_WHY),
                },
                // The power-law side only at the full budget (quick time).
                sc_power: sample_complexity::Study {
                    ns: vec![30, 60, 120],
                    ranks: vec![],
                    seeds: 10,
                    steps: 3,
                    epochs: 1000,
                    width: 8,
                    undecided: Some(QUICK_SC_WHY),
                },
            },
            Budget::Full => Settings {
                seeds: 20,
                grid: vec![1e-5, 3e-5, 1e-4, 3e-4, 1e-3],
                epochs: 2000,
                frmc_epochs: 1000,
                recovery_seeds: 20,
                recovery_epochs: 3000,
                sweep: vec![0.03, 0.04, 0.06, 0.12, 0.16, 0.24],
                sweep_seeds: 3,
                sc: sample_complexity::Study {
                    ns: vec![100, 200, 400, 800],
                    ranks: vec![2, 4],
                    seeds: 10,
                    steps: 5,
                    epochs: 5000,
                    width: 16,
                    undecided: None,
                },
                sc_power: sample_complexity::Study {
                    ns: vec![100, 200, 400, 800],
                    ranks: vec![2, 4],
                    seeds: 10,
                    steps: 5,
                    epochs: 5000,
                    width: 16,
                    undecided: None,
                },
            },
        }
    }
}

/// The seed of stream `stream` (0 = data, 1.. = training) of replicate `s`.
fn sub_seed(master: u64, s: usize, stream: u64) -> u64 {
    master
        .wrapping_mul(1_000_003)
        .wrapping_add((s as u64) * 100)
        .wrapping_add(stream)
}

/// What one seed gave at one fraction.
struct SeedResult {
    /// Test RMSE per entry of [`NAMES`] (FRMC entries NaN when not trained).
    rmse: [f64; 6],
    /// λ chosen per linear model.
    lambdas: [f64; 4],
    /// Whether each model's chosen fit ran to the epoch cap.
    capped: [bool; 6],
    /// Training entries.
    n_train: usize,
    /// FRMC models (from L = 3, from L = 3 weighted), when trained.
    frmc: Option<(DeepMf, DeepMf)>,
}

/// One replicate at one observed fraction: fresh matrix, power-law sample,
/// test/validation splits, the four linear models with λ by validation,
/// and (when `frmc_epochs > 0`) FRMC warm-started from both L = 3 models.
fn replicate(
    ctx: &Context,
    st: &Settings,
    frac: f64,
    s: usize,
    frmc_epochs: usize,
) -> Result<SeedResult, BoxError> {
    let mut rng = seeded(sub_seed(ctx.seed(), s, 0));
    let g = low_rank(M, M, RANK, &mut rng)?;
    let n_obs = count_for_fraction(M, M, frac)?;
    let obs = sample(
        &g,
        TrueLink::RATINGS,
        Sampling::PowerLaw { alpha: ALPHA },
        n_obs,
        NOISE,
        &mut rng,
    )?;
    let (rest, test) = obs.split(0.2, &mut rng)?;
    let (train, valid) = rest.split(0.1, &mut rng)?;
    let mut rmse = [f64::NAN; 6];
    let mut lambdas = [f64::NAN; 4];
    let mut capped = [false; 6];
    let mut trained = Vec::with_capacity(MODELS.len());
    for (mi, &(label, depth, weighting)) in MODELS.iter().enumerate() {
        ctx.set_message(format!("fraction {frac}, seed {s}: {label}"));
        let t = train_best(
            &train,
            &valid,
            &test,
            depth,
            weighting,
            &st.grid,
            st.epochs,
            sub_seed(ctx.seed(), s, 1 + mi as u64),
        )?;
        rmse[mi] = t.test_rmse;
        lambdas[mi] = t.lambda;
        capped[mi] = t.capped;
        trained.push(t);
    }
    let frmc = if frmc_epochs > 0 {
        ctx.set_message(format!("fraction {frac}, seed {s}: FRMC"));
        let f3 = train_frmc(
            &trained[2],
            &train,
            &valid,
            &test,
            MODELS[2].2,
            frmc_epochs,
            sub_seed(ctx.seed(), s, 10),
        )?;
        let f3w = train_frmc(
            &trained[3],
            &train,
            &valid,
            &test,
            MODELS[3].2,
            frmc_epochs,
            sub_seed(ctx.seed(), s, 11),
        )?;
        rmse[4] = f3.test_rmse;
        rmse[5] = f3w.test_rmse;
        capped[4] = f3.capped;
        capped[5] = f3w.capped;
        Some((f3.model, f3w.model))
    } else {
        None
    };
    Ok(SeedResult {
        rmse,
        lambdas,
        capped,
        n_train: train.len(),
        frmc,
    })
}

/// Spec property 6 on one seed: test RMSE / std(G) of an L = 3 fit on
/// `4·r·n·ln n` uniform noiseless entries of a 200×200 rank-2 matrix (the
/// crate's recovery test's settings).
fn recovery(ctx: &Context, s: usize, epochs: usize) -> Result<f64, BoxError> {
    let n_obs = (4.0 * REC_RANK as f64 * REC_N as f64 * (REC_N as f64).ln()).round() as usize;
    let mut rng = seeded(sub_seed(ctx.seed(), s, 50));
    let g = low_rank(REC_N, REC_N, REC_RANK, &mut rng)?;
    let std_g = g.std(0.0);
    let all = sample(
        &g,
        TrueLink::Identity,
        Sampling::Uniform,
        n_obs + REC_TEST,
        0.0,
        &mut rng,
    )?;
    let (train, test) = all.split(REC_TEST as f64 / (n_obs + REC_TEST) as f64, &mut rng)?;
    let cfg = TrainConfig {
        depth: 3,
        width: 16,
        lambda: 1e-6,
        epochs,
        center: false,
        ..TrainConfig::default()
    };
    let f = fit(&train, None, &cfg, &mut rng)?;
    let (rmse, _) = evaluate(&f.model, &test, None)?;
    Ok(rmse / std_g)
}

/// A paired comparison of model `a` against model `b` over seeds.
struct Paired {
    /// One-sided Wilcoxon p-value: `a` lower than `b`.
    p_less: f64,
    /// Median of `a − b`.
    median_diff: f64,
    /// Mean of `a − b` and its paired-bootstrap interval.
    mean_diff: f64,
    ci: (f64, f64),
    /// Seeds where `a` is lower.
    wins: usize,
}

fn paired(results: &[SeedResult], a: usize, b: usize, seed: u64) -> Result<Paired, BoxError> {
    let x = Array1::from_iter(results.iter().map(|r| r.rmse[a]));
    let y = Array1::from_iter(results.iter().map(|r| r.rmse[b]));
    let p_less = wilcoxon_signed_rank(x.view(), y.view(), Alternative::Less)?.p_value;
    let d = &x - &y;
    let ci = paired_bootstrap_interval(x.view(), y.view(), RESAMPLES, CONFIDENCE, seed)?;
    Ok(Paired {
        p_less,
        median_diff: median(d.view())?,
        mean_diff: mlcore::stats::mean(d.view()).unwrap_or(f64::NAN),
        ci: (ci.lo, ci.hi),
        wins: d.iter().filter(|&&v| v < 0.0).count(),
    })
}

impl Reproduction for MatrixCompletion {
    fn id(&self) -> &'static str {
        "matrix-completion"
    }

    fn paper(&self) -> &'static str {
        "Generalization Analysis of Deep Non-linear Matrix Completion (Ledent & Alves, ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "On low-rank ratings seen through a non-linear link and sampled with power-law popularity, the depth-3 \
         factorisation (Schatten-2/3) beats depth 2 (nuclear norm), the weighted penalty beats the unweighted one and \
         FRMC's learned monotone, Lipschitz-capped link beats the linear model on test RMSE; depth 3 recovers a rank-r \
         matrix from Õ(r·n) uniform observations."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let st = Settings::of(ctx.budget());
        let extra_sweep = st.sweep.len() * st.sweep_seeds;
        ctx.set_steps(
            (st.seeds + st.recovery_seeds + extra_sweep) as u64
                + sample_complexity::steps(&st.sc, &st.sc_power),
        );
        let start = Instant::now();

        // Headline: S seeds at 8 % observed.
        let mut results: Vec<SeedResult> = Vec::with_capacity(st.seeds);
        for s in 0..st.seeds {
            results.push(replicate(ctx, &st, HEADLINE, s, st.frmc_epochs)?);
            ctx.step();
        }
        let headline_time = start.elapsed().as_secs_f64();

        // Recovery (spec property 6) on every seed.
        let t_rec = Instant::now();
        let mut rec = Vec::with_capacity(st.recovery_seeds);
        for s in 0..st.recovery_seeds {
            ctx.set_message(format!("recovery, seed {s}"));
            rec.push(recovery(ctx, s, st.recovery_epochs)?);
            ctx.step();
        }
        let rec_time = t_rec.elapsed().as_secs_f64();
        let rec_worst = rec.iter().cloned().fold(f64::NEG_INFINITY, f64::max);

        // Sweep over the observed fraction (informative): linear models only.
        let t_sweep = Instant::now();
        let mut fractions = st.sweep.clone();
        if !fractions.is_empty() {
            fractions.push(HEADLINE);
            fractions.sort_by(f64::total_cmp);
        }
        // sweep_rmse[model][fraction]: median over the sweep seeds.
        let mut sweep_rmse = vec![vec![f64::NAN; fractions.len()]; MODELS.len()];
        for (fi, &frac) in fractions.iter().enumerate() {
            let runs: Vec<[f64; 6]> = if frac == HEADLINE {
                results
                    .iter()
                    .take(st.sweep_seeds)
                    .map(|r| r.rmse)
                    .collect()
            } else {
                let mut v = Vec::with_capacity(st.sweep_seeds);
                for s in 0..st.sweep_seeds {
                    v.push(replicate(ctx, &st, frac, s, 0)?.rmse);
                    ctx.step();
                }
                v
            };
            for (mi, row) in sweep_rmse.iter_mut().enumerate() {
                let vals = Array1::from_iter(runs.iter().map(|r| r[mi]));
                row[fi] = median(vals.view())?;
            }
        }
        let sweep_time = t_sweep.elapsed().as_secs_f64();

        // Sample complexity (issue 35 item 1).
        let (sc_checks, sc_figures, sc_plot, sc_notes) =
            sample_complexity::outcome(ctx, &st.sc, &st.sc_power)?;

        // Paired comparisons over the headline seeds.
        let comparisons: [(&str, usize, usize, &str); 4] = [
            (
                "depth: L = 3 below L = 2",
                2,
                0,
                "paper abstract: the distribution-free bound Õ(r^{1−p/2} n^{1+p/2}) falls with the Schatten order p = 2/L \
                 (L = 3: p = 2/3 against the nuclear norm's p = 1), and power-law sampling is that regime; spec reference run \
                 (L = 3 0.34 < L = 2 0.51); issue 35 item 2; level 0.05 (issue 20 rule)",
            ),
            (
                "weighting at L = 3: weighted below unweighted",
                3,
                2,
                "paper abstract: the weighted analogue brings the sample complexity down to Õ(nr) in all cases (here \
                 non-uniform, power-law sampling); level 0.05 (issue 20 rule)",
            ),
            (
                "weighting at L = 2: weighted below unweighted",
                1,
                0,
                "paper abstract: the weighted analogue brings the sample complexity down to Õ(nr) in all cases (the \
                 weighted trace norm at L = 2); level 0.05 (issue 20 rule)",
            ),
            (
                "FRMC (L = 3) below the linear L = 3 model",
                4,
                2,
                "paper abstract: FRMC 'leads to significant gains' (shown on real data; here synthetic ratings through the \
                 sigmoid link 1 + 4·sigmoid(1.5 g)); issue 35 item 2 (FRMC vs Schatten model); level 0.05 (issue 20 rule)",
            ),
        ];
        let too_few = st.seeds < MIN_SEEDS;
        let why = format!(
            "{} seeds; the paired test needs ≥ {MIN_SEEDS}: run --budget full",
            st.seeds
        );
        let mut checks = Vec::new();
        let mut figures = Vec::new();
        for (ci, &(what, a, b, source)) in comparisons.iter().enumerate() {
            let p = paired(&results, a, b, ctx.seed() ^ (0xc0de_0000 + ci as u64))?;
            checks.push(
                Check::new(
                    format!(
                        "{what}: test RMSE at {:.0} % observed (power law), one-sided paired Wilcoxon over seeds",
                        HEADLINE * 100.0
                    ),
                    p.p_less,
                    Relation::PValueBelow,
                    LEVEL,
                    source,
                )
                .with_seeds(st.seeds)
                .undecided_if(too_few, why.clone()),
            );
            let pair = format!("{} − {}", NAMES[a], NAMES[b]);
            figures.push(Figure::new(
                format!("effect size, test RMSE {pair}: median over seeds"),
                p.median_diff,
            ));
            figures.push(Figure::new(
                format!("effect size, test RMSE {pair}: mean over seeds"),
                p.mean_diff,
            ));
            figures.push(Figure::new(
                format!(
                    "effect size, test RMSE {pair}: {:.0} % paired-bootstrap interval, lower end",
                    CONFIDENCE * 100.0
                ),
                p.ci.0,
            ));
            figures.push(Figure::new(
                format!(
                    "effect size, test RMSE {pair}: {:.0} % paired-bootstrap interval, upper end",
                    CONFIDENCE * 100.0
                ),
                p.ci.1,
            ));
            figures.push(Figure::new(
                format!("seeds where {} is lower (of {})", NAMES[a], st.seeds),
                p.wins as f64,
            ));
        }

        // FRMC link's Lipschitz constant: a bound, on every seed.
        let lips: Vec<f64> = results
            .iter()
            .filter_map(|r| r.frmc.as_ref())
            .flat_map(|(f3, f3w)| [f3.link().lipschitz(), f3w.link().lipschitz()])
            .collect();
        let lip_worst = lips.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        checks.push(
            Check::new(
                "FRMC learned link: Lipschitz constant, worst over seeds and both warm starts",
                lip_worst,
                Relation::AtMost,
                FRMC_CAP,
                "spec: FRMC default link Frmc { knots: 24, cap: 3.0 }, property 4 (Lipschitz constant ≤ cap after every step)",
            )
            .with_seeds(st.seeds),
        );
        checks.push(
            Check::new(
                format!(
                    "recovery: test RMSE / std(G), L = 3 on N = 4·r·n·ln n uniform noiseless entries \
                     ({REC_N}×{REC_N}, r = {REC_RANK}), worst over seeds"
                ),
                rec_worst,
                Relation::AtMost,
                REC_RATIO,
                "spec property 6 (test RMSE ≤ 0.1·std(G) at 4·r·n·ln n observations; issue 35's success criterion), \
                 the uniform-sampling Õ(r·n) result",
            )
            .with_seeds(st.recovery_seeds),
        );

        // Per-model summaries at the headline.
        for (mi, name) in NAMES.iter().enumerate() {
            let v = Array1::from_iter(results.iter().map(|r| r.rmse[mi]));
            figures.push(Figure::new(
                format!(
                    "test RMSE {name}, {:.0} % observed: median over seeds",
                    HEADLINE * 100.0
                ),
                median(v.view())?,
            ));
        }
        for (mi, name) in NAMES.iter().enumerate() {
            figures.push(Figure::new(
                format!(
                    "{name}: seeds whose chosen fit ran to the epoch cap (of {})",
                    st.seeds
                ),
                results.iter().filter(|r| r.capped[mi]).count() as f64,
            ));
        }
        figures.push(Figure::new(
            "recovery test RMSE / std(G): median over seeds",
            median(Array1::from(rec.clone()).view())?,
        ));
        figures.push(Figure::new("time (s): headline seeds", headline_time));
        figures.push(Figure::new("time (s): recovery seeds", rec_time));
        figures.push(Figure::new("time (s): fraction sweep", sweep_time));

        // The first seed's FRMC links, for the plot.
        let (frmc, frmc_w) = results
            .first()
            .and_then(|r| r.frmc.as_ref())
            .ok_or("no FRMC on the first seed")?;
        let z = frmc.latent()?;
        let mut zs: Vec<f64> = z.iter().copied().collect();
        zs.sort_by(f64::total_cmp);
        let (z_lo, z_hi) = (zs[zs.len() / 100], zs[zs.len() * 99 / 100]);
        for q in [0.01, 0.25, 0.5, 0.75, 0.99] {
            let zq = zs[((zs.len() - 1) as f64 * q) as usize];
            figures.push(Figure::new(
                format!("FRMC (L = 3, seed 0) link b + f(z) at latent quantile {q} (z = {zq:.2})"),
                frmc.offset() + frmc.link().value(zq),
            ));
        }
        let link_plot = |m: &DeepMf, label: &str| -> Result<Series, BoxError> {
            Ok(Series::line(
                label.to_string(),
                m.link_table(z_lo, z_hi, 60)?
                    .into_iter()
                    .map(|(z, f)| (z, m.offset() + f))
                    .collect(),
            ))
        };
        let per_seed: Vec<Series> = NAMES
            .iter()
            .enumerate()
            .map(|(mi, name)| {
                Series::points(
                    *name,
                    results
                        .iter()
                        .enumerate()
                        .map(|(s, r)| (s as f64, r.rmse[mi]))
                        .collect(),
                )
            })
            .collect();
        let sweep_series: Vec<Series> = MODELS
            .iter()
            .enumerate()
            .map(|(mi, &(name, _, _))| {
                Series::line(
                    name,
                    fractions
                        .iter()
                        .zip(&sweep_rmse[mi])
                        .map(|(&f, &r)| (f, r))
                        .collect(),
                )
            })
            .collect();
        let mut plots = vec![
            Plot {
                title: format!(
                    "Test RMSE per seed, {:.0} % observed ({M}×{M}, rank {RANK}, 1 + 4·sigmoid(1.5 g), power law α = {ALPHA})",
                    HEADLINE * 100.0
                ),
                x_label: "seed".into(),
                y_label: "test RMSE (clipped to [1, 5])".into(),
                series: per_seed,
                log_x: false,
                log_y: false,
            },
            Plot {
                title: format!(
                    "FRMC learned link b + f(z), seed 0, {:.0} % observed (central 98 % of latent values)",
                    HEADLINE * 100.0
                ),
                x_label: "latent value z".into(),
                y_label: "predicted rating".into(),
                series: vec![
                    link_plot(frmc, "FRMC on L = 3")?,
                    link_plot(frmc_w, "FRMC on L = 3 weighted")?,
                    Series::line(
                        "b + z (identity link, for reference)",
                        vec![(z_lo, frmc.offset() + z_lo), (z_hi, frmc.offset() + z_hi)],
                    ),
                ],
                log_x: false,
                log_y: false,
            },
        ];
        if !fractions.is_empty() {
            plots.insert(
                1,
                Plot {
                    title: format!(
                        "Test RMSE vs observed fraction (median over {} seed(s))",
                        st.sweep_seeds
                    ),
                    x_label: "observed fraction N / (m n)".into(),
                    y_label: "test RMSE (clipped to [1, 5])".into(),
                    series: sweep_series,
                    log_x: true,
                    log_y: false,
                },
            );
        }
        let chosen: Vec<Vec<f64>> = (0..MODELS.len())
            .map(|mi| results.iter().map(|r| r.lambdas[mi]).collect())
            .collect();
        let mut notes = vec![
            format!(
                "Data per seed: G = U Vᵀ/√{RANK} ({M}×{M}, U, V standard normal), ratings 1 + 4·sigmoid(1.5 G) + {NOISE}·N(0, 1); \
                 entries drawn without replacement with probability ∝ row × column popularity (1 + rank)^(−{ALPHA}) \
                 (random ranks). 20 % of the sample is the test set, 10 % of the rest validation; {} training entries at \
                 {:.0} %. {} independent seeds (master seed {}): each draws its own matrix, sample, splits and initialisations.",
                results.first().map_or(0, |r| r.n_train),
                HEADLINE * 100.0,
                st.seeds,
                ctx.seed()
            ),
            format!(
                "Training: objective (1/2N)Σ r² + λΣ‖A_l‖² (weighted: D_r = diag(m p̃), D_c = diag(n q̃), ζ = 0.5), width {WIDTH}, \
                 Adam lr 0.01, full batch, ≤ {} epochs with early stopping (patience 100) on validation RMSE, offset = \
                 training mean; λ per model and seed chosen on validation (never on test) from {:?}. Chosen λ per seed: {}. \
                 FRMC: the spec's monotone piecewise-linear link (24 knots on [−4, 4], slopes ≤ 3), warm-started from the \
                 trained linear model at its λ, ≤ {} more epochs. Fits that reach the epoch cap (see the figures) are mostly \
                 L = 2 at small λ; trained to convergence (≤ 4000 epochs, two seeds checked outside the runner) their validation \
                 RMSE moved by < 0.01, far below the ≈ 0.19 depth gap, so the cap is not what makes L = 3 win.",
                st.epochs,
                st.grid,
                MODELS
                    .iter()
                    .zip(&chosen)
                    .map(|((name, _, _), l)| format!("{name} {l:?}"))
                    .collect::<Vec<_>>()
                    .join("; "),
                st.frmc_epochs
            ),
            format!(
                "Statistics: each comparison is a one-sided paired Wilcoxon signed-rank test (exact for ≤ 25 seeds) of test RMSE \
                 over the seeds at level {LEVEL}; effect sizes (median and mean paired difference, {RESAMPLES}-resample paired \
                 bootstrap interval) are figures. The Lipschitz cap and the recovery criterion are bounds checked on every seed \
                 (worst case reported). Recovery: the crate's recovery test's settings (L = 3, width 16, λ = 1e-6, {} epochs, \
                 no centring, {REC_TEST} test entries), {} seeds. Quick: no fraction sweep (its plot is drawn at the full \
                 budget). Full budget: 20 seeds, 5 λ, 2000 epochs, 20 recovery seeds, sweep over 7 fractions × 3 seeds, about 7 min of CPU (quick: about 45 s).",
                st.recovery_epochs, st.recovery_seeds
            ),
            "The spec's untuned NumPy run found FRMC at L = 3 not better than the linear L = 3 model (0.43–0.47 vs 0.34); the \
             paper's FRMC gains are on real data (Douban, MovieLens), which is not redistributable: run `cargo run --release \
             --example matrix_completion_movielens` with ML100K=/path/u.data."
                .to_string(),
            "Still missing from issue 35: the speed work (fused sparse kernels over CSR/CSC, rayon over rows, \
             bandwidth figures in docs/perf.md)."
                .to_string(),
        ];
        checks.extend(sc_checks);
        figures.extend(sc_figures);
        plots.push(sc_plot);
        notes.extend(sc_notes);
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
