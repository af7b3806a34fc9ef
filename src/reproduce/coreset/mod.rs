//! `coreset`: strong coresets (Lewis weights + residual sensitivities) at
//! p ∈ {1, 1.5, 3} with p = 2 as the control, their m-free distortion and its
//! growth with the size, weak coresets, and the time of construction + solve
//! against the full solve. Declared checks with the spec's and the paper's
//! thresholds (issue 32).

mod data;
mod experiments;

pub use data::{D, MS, N, SIZES, builder, heavy_tailed_design, responses, uniform_sample};

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series, median,
};
use data::{D_GAUSS, N_GAUSS, OUTLIERS_GAUSS};
use experiments::{RESIDUAL_ROWS, Setting, Strong, probe_count};
use mlcore::stats::{Alternative, pairwise_sum, power_law_exponent, wilcoxon_signed_rank};
use ndarray::ArrayView1;

/// The reproduction registered as `coreset`.
pub struct CoresetDistortion;

/// Seeds behind every "≥ 9 of 10 seeds" check (issue 32).
const SEEDS: usize = 10;
/// Seeds that may exceed a bound: `SEEDS − ⌈0.9 · SEEDS⌉`.
const ALLOWED: usize = SEEDS - (SEEDS * 9).div_ceil(10);
/// The spec's property 5 bound at p = 2 (90th percentile of ε over seeds,
/// k_A = k_B = 800, every m).
const P5_BOUND: f64 = 0.15;
/// The budget of property 5, `k = k_A + k_B`.
const P5_K: f64 = 1600.0;
/// The spec's p = 3 sizing data: coreset sizes and the worst probe error at
/// each (n = 20 000, d = 5, 10 outlier rows of B).
const P3_SPEC: [(f64, f64); 3] = [(89.0, 0.026), (257.0, 0.010), (738.0, 0.004)];
/// The numbers of responses at p = 3: issue 32's m ∈ {1, 8, 32} and the
/// spec's own sizing setting, m = 100.
const P3_MS: [usize; 4] = [1, 8, 32, 100];
/// A fourth size for the growth fit at p = 3.
const P3_EXTRA: f64 = 2000.0;
/// The spec's property 6: weak coreset budget and bound on F(X̂)/F(X*).
const P6_K: f64 = 400.0;
const P6_BOUND: f64 = 1.02;
/// Tolerance on a fitted growth exponent: Õ hides logarithmic factors; the
/// spec's own p = 2 sizing data give exponents 1.57–1.84 against the rate's 2.
const GROWTH_TOL: f64 = 0.5;
/// The source of the growth checks for p ≤ 2.
const GROWTH_LOW: &str = "issue 32 (c): the slope against the paper table's exponent, strong size Õ(ε⁻²d) for \
     p ≤ 2 (the spec's sizing data: ε ≈ 4.5/√k at p = 2); tolerance 0.5 for the hidden log factors (the spec's own \
     p = 2 points give 1.57–1.84)";

/// The spec's p = 3 sizes are coreset sizes; the builder takes budgets. The
/// 10 outlier rows take q = 1 and nearly all of the residual term, so a
/// budget `k_A = k_B = size − 10` keeps about `size` rows.
fn p3_budget(size: f64) -> f64 {
    2.0 * (size - OUTLIERS_GAUSS as f64)
}

/// The value of a "≥ 9 of 10 seeds below the bound" check: the
/// `(ALLOWED + 1)`-th largest value. With fewer seeds than [`SEEDS`] (the
/// same first seeds), it is a lower bound on the value over all of them.
fn bound_value(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    v.get(ALLOWED).copied().unwrap_or(f64::NAN)
}

/// A bound checked on ≥ 9 of 10 seeds, worst over the `m` given.
fn bound_check(name: String, per_m: &[Vec<f64>], bound: f64, source: &str) -> Check {
    let value = per_m
        .iter()
        .map(|v| bound_value(v))
        .fold(f64::NEG_INFINITY, f64::max);
    let seeds = per_m.iter().map(Vec::len).min().unwrap_or(0);
    Check::new(name, value, Relation::AtMost, bound, source).with_seeds(seeds)
}

/// The `eps` rows of `s` for the m in `wanted` (in that order).
fn eps_for(s: &Strong, size: usize, wanted: &[usize]) -> Vec<Vec<f64>> {
    s.ms.iter()
        .zip(&s.eps)
        .filter(|(m, _)| wanted.contains(m))
        .map(|(_, e)| e[size].clone())
        .collect()
}

/// One-sided Wilcoxon p-value of `ε(m = 32) > ε(m = 1)`, paired by seed.
fn m_free_p(s: &Strong, size: usize) -> Result<f64, BoxError> {
    let at = |m: usize| -> Result<&Vec<f64>, BoxError> {
        let i =
            s.ms.iter()
                .position(|&v| v == m)
                .ok_or_else(|| format!("m = {m} was not run"))?;
        Ok(&s.eps[i][size])
    };
    let (first, last) = (at(1)?, at(32)?);
    Ok(wilcoxon_signed_rank(
        ArrayView1::from(&last[..]),
        ArrayView1::from(&first[..]),
        Alternative::Greater,
    )?
    .p_value)
}

/// The mean over seeds and m ∈ {1, 8, 32} of the rows kept at budget `si`
/// (pairwise sum).
fn mean_kept(s: &Strong, si: usize) -> f64 {
    let at: Vec<f64> =
        s.ms.iter()
            .zip(&s.kept)
            .filter(|(m, _)| MS.contains(m))
            .map(|(_, k)| k[si])
            .collect();
    pairwise_sum(&at) / at.len() as f64
}

/// `(realized mean size, median ε over every m and seed)` per budget.
fn growth_points(s: &Strong) -> Vec<(f64, f64)> {
    (0..s.sizes.len())
        .map(|si| {
            let size = mean_kept(s, si);
            let all: Vec<f64> = eps_for(s, si, &MS).into_iter().flatten().collect();
            (size, median(&all))
        })
        .collect()
}

/// The fitted exponent of `size ∝ (1/ε)^a`.
fn growth_exponent(points: &[(f64, f64)]) -> Result<f64, BoxError> {
    let pts: Vec<(f64, f64)> = points.iter().map(|&(n, e)| (1.0 / e, n)).collect();
    Ok(power_law_exponent(&pts)?)
}

fn p_label(p: f64) -> String {
    format!("p = {p}")
}

impl Reproduction for CoresetDistortion {
    fn id(&self) -> &'static str {
        "coreset"
    }

    fn paper(&self) -> &'static str {
        "Coresets for Multiple ℓp Regression (Woodruff & Yasuda, ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "Coresets built from ℓp Lewis weights and residual sensitivities approximate the multiple ℓp regression \
         objective at every X to (1 ± ε) with a size that grows as ε⁻² (p ≤ 2) or ε⁻ᵖ (p > 2) and does not depend \
         on the number m of responses; weak coresets preserve the minimiser; building and solving on the coreset \
         is faster than the full solve."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let full = ctx.budget() == Budget::Full;
        let master = ctx.seed();
        // Every strong check runs at both budgets (the probe sets are
        // evaluated on the full data once per (p, m)); full only times more
        // repetitions.
        let mut p3_sizes: Vec<f64> = P3_SPEC.iter().map(|&(s, _)| p3_budget(s)).collect();
        p3_sizes.push(p3_budget(P3_EXTRA));
        let timing_reps = if full { 5 } else { 3 };
        let steps = MS.len() * SIZES.len() * SEEDS
            + 2 * MS.len() * SIZES.len() * SEEDS
            + P3_MS.len() * p3_sizes.len() * SEEDS
            + 3 * SEEDS
            + 3 * timing_reps;
        ctx.set_steps(steps as u64);

        let p2 = experiments::strong(ctx, master, 2.0, Setting::HeavyTailed, &MS, &SIZES, SEEDS)?;
        let low: Vec<Strong> = [1.0, 1.5]
            .iter()
            .map(|&p| experiments::strong(ctx, master, p, Setting::HeavyTailed, &MS, &SIZES, SEEDS))
            .collect::<Result<_, _>>()?;
        let p3 = experiments::strong(
            ctx,
            master,
            3.0,
            Setting::Gaussian,
            &P3_MS,
            &p3_sizes,
            SEEDS,
        )?;
        let weak: Vec<(f64, Vec<f64>)> = [1.0, 1.5, 3.0]
            .iter()
            .map(|&p| Ok((p, experiments::weak(ctx, master, p, P6_K, SEEDS)?)))
            .collect::<Result<_, BoxError>>()?;
        let timing_k = p3_budget(P3_SPEC[2].0);
        let timing: Vec<experiments::Timing> = [1.0, 1.5, 3.0]
            .iter()
            .map(|&p| experiments::timing(ctx, master, p, 32, timing_k, timing_reps))
            .collect::<Result<_, _>>()?;

        let mut checks = Vec::new();
        let mut figures = Vec::new();
        let last = SIZES.len() - 1;

        // p = 2 control: the exact certificate.
        let at_p5: Vec<Vec<f64>> = p2.eps.iter().map(|m| m[last].clone()).collect();
        checks.push(bound_check(
            format!("p = 2 (control), k = {P5_K}: exact ε, 2nd-worst of {SEEDS} seeds, worst m ∈ {{1, 8, 32}}"),
            &at_p5,
            P5_BOUND,
            "spec property 5: 90th percentile of ε over seeds ≤ 0.15 for every m (issue 32: ≥ 9 of 10 seeds)",
        ));
        checks.push(
            Check::new(
                format!("p = 2 (control), k = {P5_K}: Wilcoxon p, ε(m = 32) > ε(m = 1)"),
                m_free_p(&p2, last)?,
                Relation::AtLeast,
                0.05,
                "paper abstract: sizes independent of m (issue 32: no significant increase from m = 1 to 32, one-sided, level 0.05)",
            )
            .with_seeds(SEEDS),
        );
        let p2_growth = growth_points(&p2);
        checks.push(
            Check::new(
                "p = 2 (control): exponent a of size ∝ ε⁻ᵃ (exact ε, median over m and seeds, 4 sizes)",
                growth_exponent(&p2_growth)?,
                Relation::Within(GROWTH_TOL),
                2.0,
                GROWTH_LOW,
            )
            .with_seeds(SEEDS),
        );
        let (unif, core): (Vec<f64>, Vec<f64>) = p2
            .uniform
            .iter()
            .zip(&p2.eps)
            .flat_map(|(u, c)| u[0].iter().copied().zip(c[0].iter().copied()))
            .unzip();
        checks.push(
            Check::new(
                format!("p = 2, k = {}: Wilcoxon p, uniform ε > coreset ε (paired by m and seed)", SIZES[0]),
                wilcoxon_signed_rank(
                    ArrayView1::from(&unif[..]),
                    ArrayView1::from(&core[..]),
                    Alternative::Greater,
                )?
                .p_value,
                Relation::PValueBelow,
                0.05,
                "spec pitfalls and sizing data: uniform sampling misses the heavy rows of B (0.28–3.9 at k = 100); a paired test at 0.05",
            )
            .with_seeds(SEEDS * MS.len()),
        );

        // p ∈ {1, 1.5}: probes on the same data and budgets as property 5.
        for s in &low {
            let p = p_label(s.p);
            let last = s.sizes.len() - 1;
            let at = eps_for(s, last, &MS);
            checks.push(bound_check(
                format!("{p}, k = {P5_K}: probe ε ({} probes), 2nd-worst of {SEEDS} seeds, worst m ∈ {{1, 8, 32}}", probe_count()),
                &at,
                P5_BOUND,
                "paper table: the strong rate Õ(ε⁻²d) is the same for every p ≤ 2, so the spec's p = 2 bound (property 5) at the same n, d, k; probes bound ε from below",
            ));
            checks.push(
                Check::new(
                    format!("{p}, k = {P5_K}: Wilcoxon p, probe ε(m = 32) > ε(m = 1)"),
                    m_free_p(s, last)?,
                    Relation::AtLeast,
                    0.05,
                    "paper abstract: sizes independent of m (issue 32: no significant increase from m = 1 to 32)",
                )
                .with_seeds(SEEDS),
            );
            checks.push(
                Check::new(
                    format!(
                        "{p}: exponent a of size ∝ ε⁻ᵃ (probe ε, median over m and seeds, 4 sizes)"
                    ),
                    growth_exponent(&growth_points(s))?,
                    Relation::Within(GROWTH_TOL),
                    2.0,
                    GROWTH_LOW,
                )
                .with_seeds(SEEDS),
            );
        }

        // p = 3: the spec's sizing data on the Gaussian data with outliers,
        // at issue 32's m ∈ {1, 8, 32} and at the spec's own m = 100.
        for (si, &(size, eps)) in P3_SPEC.iter().enumerate() {
            checks.push(bound_check(
                format!(
                    "p = 3, ≈ {size} rows (mean kept {:.0}): probe ε, 2nd-worst of {SEEDS} seeds, worst m ∈ {{1, 8, 32}}",
                    mean_kept(&p3, si)
                ),
                &eps_for(&p3, si, &MS),
                eps,
                "spec sizing data, p = 3 strong (n = 20 000, d = 5, 10 outlier rows): worst probe error at this size (issue 32: ≥ 9 of 10 seeds, every m)",
            ));
            checks.push(bound_check(
                format!("p = 3, ≈ {size} rows, m = 100 (the spec's setting): probe ε, 2nd-worst of {SEEDS} seeds"),
                &eps_for(&p3, si, &[100]),
                eps,
                "spec sizing data, p = 3 strong (n = 20 000, d = 5, m = 100, 10 outlier rows): worst probe error at this size",
            ));
        }
        checks.push(
            Check::new(
                format!("p = 3, ≈ {} rows: Wilcoxon p, probe ε(m = 32) > ε(m = 1)", P3_SPEC[2].0),
                m_free_p(&p3, P3_SPEC.len() - 1)?,
                Relation::AtLeast,
                0.05,
                "paper abstract: sizes independent of m (issue 32: no significant increase from m = 1 to 32)",
            )
            .with_seeds(SEEDS),
        );
        checks.push(
            Check::new(
                "p = 3: exponent a of size ∝ ε⁻ᵃ (probe ε, median over m ∈ {1, 8, 32} and seeds, 4 sizes)",
                growth_exponent(&growth_points(&p3))?,
                Relation::Within(GROWTH_TOL),
                3.0,
                "issue 32 (c): the slope against the paper table's exponent, strong size Õ(ε⁻ᵖ d^{p/2}) for p > 2; \
                 tolerance 0.5 for the hidden log factors (the spec's p = 2 sizing data give 1.57–1.84 against 2)",
            )
            .with_seeds(SEEDS),
        );

        // Weak coresets: property 6.
        for (p, ratios) in &weak {
            checks.push(
                Check::new(
                    format!("weak, p = {p}, k = {P6_K}: F(X̂)/F(X*), 2nd-worst of {SEEDS} seeds"),
                    bound_value(ratios),
                    Relation::AtMost,
                    P6_BOUND,
                    "spec property 6: F(X̂)/F(X*) ≤ 1.02 in ≥ 9 of 10 seeds (n = 20 000, d = 5, m = 20, k = 400)",
                )
                .with_seeds(ratios.len()),
            );
            figures.push(Figure::new(
                format!("weak, p = {p}: worst F(X̂)/F(X*) of {SEEDS}"),
                ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ));
        }

        // Time: construction + solve against the full solve.
        for t in &timing {
            checks.push(
                Check::new(
                    format!(
                        "p = {}: time of construction + coreset solve / full IRLS solve (median of {timing_reps}, m = 32, {} rows)",
                        t.p, t.rows
                    ),
                    t.ratio(),
                    Relation::Below,
                    1.0,
                    "baseline: the full IRLS solve (regression::solve) on the same data; a coreset exists to be solved instead of the data (paper abstract)",
                )
                .with_seeds(timing_reps),
            );
            figures.push(Figure::new(
                format!("p = {}: full solve, median seconds", t.p),
                median(&t.full),
            ));
            figures.push(Figure::new(
                format!("p = {}: construction + coreset solve, median seconds", t.p),
                median(&t.coreset),
            ));
        }

        // Figures: worst case per check and the sizes behind them.
        let worst = |v: &[Vec<f64>]| {
            v.iter()
                .flat_map(|s| s.iter().copied())
                .fold(f64::NEG_INFINITY, f64::max)
        };
        figures.push(Figure::new(
            format!("p = 2, k = {P5_K}: worst exact ε over m and seeds"),
            worst(&at_p5),
        ));
        for s in &low {
            let at: Vec<Vec<f64>> = s.eps.iter().map(|m| m[s.sizes.len() - 1].clone()).collect();
            figures.push(Figure::new(
                format!("p = {}, k = {P5_K}: worst probe ε over m and seeds", s.p),
                worst(&at),
            ));
        }
        for (si, &(size, _)) in P3_SPEC.iter().enumerate() {
            for (mi, &m) in p3.ms.iter().enumerate() {
                figures.push(Figure::new(
                    format!("p = 3, ≈ {size} rows, m = {m}: median probe ε over seeds"),
                    median(&p3.eps[mi][si]),
                ));
            }
        }
        for (label, s) in [("p = 1", &low[0]), ("p = 1.5", &low[1]), ("p = 3", &p3)] {
            for &(n, e) in growth_points(s).iter() {
                figures.push(Figure::new(
                    format!("{label}: median probe ε at {n:.0} rows"),
                    e,
                ));
            }
        }
        for (mi, &m) in MS.iter().enumerate() {
            figures.push(Figure::new(
                format!("p = 2, k = {P5_K}, m = {m}: mean rows kept"),
                p2.kept[mi][last],
            ));
        }
        for (label, pts) in [("p = 2 (exact)", &p2_growth)] {
            for &(n, e) in pts.iter() {
                figures.push(Figure::new(format!("{label}: median ε at {n:.0} rows"), e));
            }
        }

        let plots = plots(&p2, &low, &p3);
        let notes = notes(&p2, &p3);
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}

/// The p = 2 plot (exact ε by size and m, uniform sampling) and the p ≠ 2
/// plot (probe ε against kept rows).
fn plots(p2: &Strong, low: &[Strong], p3: &Strong) -> Vec<Plot> {
    let q90 = |v: &[f64]| bound_value(v);
    let mut series: Vec<Series> = MS
        .iter()
        .enumerate()
        .map(|(mi, &m)| {
            Series::line(
                format!("Lewis + residual, m = {m}"),
                SIZES
                    .iter()
                    .zip(&p2.eps[mi])
                    .map(|(&k, e)| (k, q90(e)))
                    .collect(),
            )
        })
        .collect();
    series.push(Series::line(
        "uniform (worst m)",
        (0..SIZES.len())
            .map(|si| {
                let w = p2
                    .uniform
                    .iter()
                    .map(|u| q90(&u[si]))
                    .fold(f64::NEG_INFINITY, f64::max);
                (SIZES[si], w)
            })
            .collect(),
    ));
    let mut other: Vec<Series> = Vec::new();
    for s in low {
        other.push(Series::line(
            format!("p = {} (heavy-tailed, n = {N}, d = {D})", s.p),
            growth_points(s),
        ));
    }
    other.push(Series::line(
        format!("p = 3 (Gaussian + outliers, n = {N_GAUSS}, d = {D_GAUSS})"),
        growth_points(p3),
    ));
    other.push(Series::points("spec sizing data, p = 3", P3_SPEC.to_vec()));
    vec![
        Plot {
            title: format!("Exact p = 2 distortion (2nd-worst of {SEEDS} seeds), n = {N}, d = {D}"),
            x_label: "budget k = k_A + k_B".into(),
            y_label: "ε = max(hi − 1, 1 − lo)".into(),
            series,
            log_x: true,
            log_y: true,
        },
        Plot {
            title: format!(
                "Probe distortion ({} probes), median over m and seeds",
                probe_count()
            ),
            x_label: "rows kept".into(),
            y_label: "probe ε (a lower bound on ε)".into(),
            series: other,
            log_x: true,
            log_y: true,
        },
    ]
}

fn notes(p2: &Strong, p3: &Strong) -> Vec<String> {
    let notes = vec![
        format!(
            "Data. Heavy-tailed (p = 2 control and p ∈ {{1, 1.5}}, the spec's p = 2 sizing setting): A is {N}×{D} with t₃ \
             entries and 3 rows scaled by 30; B = A X* + t₃ noise with 3 other rows shifted by 50; one A, one B per m ∈ \
             {{1, 8, 32}}. Gaussian (p = 3, the spec's p = 3 sizing setting): A is {N_GAUSS}×{D_GAUSS}, B = A X* + N(0, 1) \
             noise with {OUTLIERS_GAUSS} rows shifted by ±1000; property 6 (weak) uses the same shape without outliers \
             and m = 20. Seeds vary the sampling; the same {SEEDS} seeds serve every m and size, so m = 1 and m = 32 \
             are paired by seed."
        ),
        format!(
            "Construction: the crate's CoresetBuilder for every p (any finite p ≥ 1 is accepted) with probabilities \
             qᵢ = min(1, k_A wᵢ/d + k_B ρᵢ/Σρ), rows with qᵢ = 1 kept and the others drawn Σ_light q times with \
             replacement (Sampling::FixedSize), ℓp Lewis weights w (LewisOptions::for_sampling, tolerance 1e-3), k_A = \
             k_B = k/2, residual sensitivities ρ at X_c from the full least-squares solve (p = 2) or from an IRLS solve on \
             a Lewis sample of {RESIDUAL_ROWS} rows (p ≠ 2, also in the timed pipeline). The spec's p = 3 sizes are \
             rows kept: budgets k_A = k_B = size − 10 keep about that many (the outliers take q = 1)."
        ),
        format!(
            "Distortion: exact at p = 2 (extreme generalised eigenvalues, order d·m + 1). For p ≠ 2, the range of \
             F_S/F over a fixed set of {} probes (X = 0, X_c, X_c ± t‖X_c‖G for 9 scales t ∈ 10^[−2, 2] and 12 Gaussian \
             directions G, and 10⁶-scaled directions), without local search: a lower bound on ε. \"≥ 9 of 10 seeds\" is \
             checked as the 2nd-worst of the 10 seeds, worst over m.",
            probe_count()
        ),
        "Growth: the exponent a of size ∝ ε⁻ᵃ is the least-squares slope of log(mean rows kept) on log(1/ε), ε the \
         median over m and seeds at each of 4 budgets; compared two-sided with the paper's exponent, as issue 32 asks. \
         The paper's sizes are upper bounds (tight only in the worst case), so an exponent below the rate means an \
         instance easier than the worst case, not a failure of the paper's bound; one above it would contradict the \
         bound. Rows kept grow more slowly than the budget (heavy rows are capped at q = 1), which lowers the exponent \
         against rows kept compared with the spec's, which is against the budget k."
            .to_string(),
        "p = 3 against the spec (issue 32 item 3, not held): the spec's 0.026 / 0.010 / 0.004 are NumPy outputs at m = 100, \
         not the paper's. Causes found: the spec's Bernoulli draws have a random size whose relative fluctuation ≈ 1/√k_A \
         sits on every probe at large ‖X‖ (Bernoulli gave 0.23 / 0.13 / 0.045 at m = 100); the runner keeps the heavy \
         rows (q = 1) and draws the rest a fixed number of times (Sampling::FixedSize), which removes it. What remains is \
         the spread of the light rows' cost over their Lewis weights; with fewer responses it averages less, hence the \
         larger ε at m ∈ {1, 8, 32}, which the m-free test still finds no worse at m = 32 than at m = 1. Water-filling \
         the residual mass the outliers cannot use was tried and was worse (0.106 / 0.073 / 0.033 at m = 100). The \
         paper's rate (d^{p/2}/k)^{1/p} is far above the spec's figures."
            .to_string(),
        "p = 3 growth: a finite probe set sees the CLT rate ε ∝ k^{−1/2} (exponent ≈ 2) at every p; the table's ε^{−p} \
         is a worst case over all X, which fixed probes do not reach, so the two-sided comparison with 3 is not held."
            .to_string(),
        format!(
            "p = 2 rows kept at k = {P5_K}: {:.0} / {:.0} / {:.0} for m = 1 / 8 / 32 (probabilities capped at 1 on heavy \
             rows). p = 3 rows kept: {}.",
            p2.kept[0][SIZES.len() - 1],
            p2.kept[1][SIZES.len() - 1],
            p2.kept[2][SIZES.len() - 1],
            p3.kept
                .iter()
                .map(|k| k.iter().map(|v| format!("{v:.0}")).collect::<Vec<_>>().join("/"))
                .collect::<Vec<_>>()
                .join(" by m, ")
        ),
        "Time: wall time (std::time::Instant) of regression::solve on all the data vs CoresetBuilder::build (Lewis \
         weights of A, the residual solve on a Lewis sample, the sampling) plus Coreset::solve, alternating, on the \
         Gaussian data with m = 32 and the budget of the spec's 738-row size; the ratio of medians."
            .to_string(),
        "Weak coresets at p = 3: the spec's property 6 asks F(X̂)/F(X*) ≤ 1.02 at k = 400 for p ∈ {1, 1.5, 3}. The weak \
         rate is d/ε for p < 2 but d^{p/2}/ε^{p−1} for p > 2, so at equal k the excess at p = 3 is larger; the crate's \
         own test runs p = 3 at k = 1600. The check keeps the spec's k = 400."
            .to_string(),
    ];
    notes
}
