//! Split-conformal coverage on the spec's synthetic model, decided by a
//! Wilson interval over independent calibration draws (issue 33's rule).
//!
//! Each draw is a fresh calibration set of `n = 500` and **one** fresh test
//! point, so the coverage indicators are independent Bernoulli(P(Y ∈ C(X)))
//! draws and the Wilson interval is exact in its assumptions (several test
//! points per calibration set would share `q̂` and be correlated).

use crate::runner::{BoxError, Check, Context, Figure, Relation};
use conformal_sets::calibrate::{QuantileRule, quantile_index, scores};
use conformal_sets::score::{ConformityScore, Lac, Raps, aps};
use conformal_sets::synthetic::dirichlet_classifier;
use mlcore::sampling::WorkspaceRng;
use mlcore::stats::{Interval, order_statistic, wilson_interval};
use ndarray::{ArrayView2, s};
use rand::RngExt;

/// Classes of the spec's synthetic model.
pub const CLASSES: usize = 10;
/// Dirichlet concentration of the spec's model: π ~ Dirichlet(0.5·1_K).
pub const CONCENTRATION: f64 = 0.5;
/// Calibration points per draw.
pub const N_CAL: usize = 500;
/// Levels checked.
pub const ALPHAS: [f64; 3] = [0.05, 0.1, 0.2];
/// Confidence of the Wilson intervals (issue 33).
pub const CONFIDENCE: f64 = 0.99;
/// Margin below 1 − α that the interval must exclude (spec, issue 33).
pub const MARGIN: f64 = 0.01;
/// Draws generated at once.
const CHUNK: usize = 250;

/// Coverage of one method at one level.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The method's name.
    pub method: &'static str,
    /// The level α.
    pub alpha: f64,
    /// Test points covered.
    pub covered: u64,
    /// Draws (one test point each).
    pub draws: u64,
    /// Sum of the test sets' sizes.
    pub size_sum: f64,
    /// Wilson interval of the coverage.
    pub interval: Interval,
}

impl Cell {
    /// Empirical coverage.
    pub fn coverage(&self) -> f64 {
        self.covered as f64 / self.draws as f64
    }

    /// Mean size of the test sets.
    pub fn mean_size(&self) -> f64 {
        self.size_sum / self.draws as f64
    }

    /// The theorem's band `[1 − α, 1 − α + 1/(n + 1)]`.
    pub fn band(&self) -> (f64, f64) {
        (
            1.0 - self.alpha,
            1.0 - self.alpha + 1.0 / (N_CAL + 1) as f64,
        )
    }
}

/// One calibration draw and its test point.
pub(super) struct Draw<'a> {
    /// Calibration probabilities (rows sum to 1).
    pub cal: ArrayView2<'a, f64>,
    /// Calibration labels.
    pub labels: &'a [usize],
    /// The test point's probabilities.
    pub test: &'a [f64],
    /// The test point's label.
    pub y: usize,
}

/// Running counts of one method over every level.
struct Tally {
    covered: [u64; 3],
    size: [f64; 3],
}

/// Calibrates `score` on one draw at every level of [`ALPHAS`] and tallies
/// whether the draw's test point is covered. The calibration is the one of
/// `SplitConformal::calibrate`: the scores of the calibration rows
/// ([`scores`]), then their [`quantile_index`]-th smallest ([`order_statistic`]);
/// computed once per draw for the three levels.
fn tally<S: ConformityScore>(
    score: &S,
    draw: &Draw<'_>,
    ranks: &[usize; 3],
    t: &mut Tally,
    rng: &mut WorkspaceRng,
) -> Result<(), BoxError> {
    let s = scores(score, draw.cal, draw.labels, rng)?;
    let u = if score.is_randomized() {
        rng.random::<f64>()
    } else {
        0.0
    };
    for (a, &k) in ranks.iter().enumerate() {
        let q = order_statistic(s.view(), k)?;
        let set = score.set(draw.test, q, u);
        t.covered[a] += u64::from(set.contains(draw.y));
        t.size[a] += set.len() as f64;
    }
    Ok(())
}

/// The three methods of the coverage checks: LAC, randomised APS and
/// randomised RAPS (λ = 0.5, k_reg = 5), empty sets allowed as the theorem
/// assumes, FiniteSample rule, with running tallies per level.
pub(super) struct Methods {
    lac: Lac,
    aps: Raps,
    raps: Raps,
    ranks: [usize; 3],
    tallies: [Tally; 3],
    draws: u64,
}

/// The methods' names, in the order of [`Methods`].
pub const NAMES: [&str; 3] = [
    "LAC",
    "APS (randomised)",
    "RAPS (randomised, λ = 0.5, k_reg = 5)",
];

impl Methods {
    /// Fresh tallies for calibration sets of [`N_CAL`] at every level of [`ALPHAS`].
    pub(super) fn new() -> Result<Self, BoxError> {
        let mut ranks = [0usize; 3];
        for (r, &alpha) in ranks.iter_mut().zip(&ALPHAS) {
            *r = quantile_index(N_CAL, alpha, QuantileRule::FiniteSample)?;
        }
        let fresh = || Tally {
            covered: [0; 3],
            size: [0.0; 3],
        };
        Ok(Methods {
            lac: Lac,
            aps: aps(true, true),
            raps: Raps {
                allow_empty: true,
                ..Raps::default()
            },
            ranks,
            tallies: [fresh(), fresh(), fresh()],
            draws: 0,
        })
    }

    /// Tallies one draw for the three methods.
    pub(super) fn add(&mut self, draw: &Draw<'_>, rng: &mut WorkspaceRng) -> Result<(), BoxError> {
        let [t_lac, t_aps, t_raps] = &mut self.tallies;
        tally(&self.lac, draw, &self.ranks, t_lac, rng)?;
        tally(&self.aps, draw, &self.ranks, t_aps, rng)?;
        tally(&self.raps, draw, &self.ranks, t_raps, rng)?;
        self.draws += 1;
        Ok(())
    }

    /// One [`Cell`] per method and level.
    pub(super) fn cells(&self) -> Result<Vec<Cell>, BoxError> {
        let mut cells = Vec::new();
        for (t, &method) in self.tallies.iter().zip(&NAMES) {
            for (a, &alpha) in ALPHAS.iter().enumerate() {
                cells.push(Cell {
                    method,
                    alpha,
                    covered: t.covered[a],
                    draws: self.draws,
                    size_sum: t.size[a],
                    interval: wilson_interval(t.covered[a], self.draws, CONFIDENCE)?,
                });
            }
        }
        Ok(cells)
    }
}

/// Coverage of the three [`Methods`] over `draws` calibration draws of the
/// spec's model.
pub fn coverage(
    ctx: &Context,
    rng: &mut WorkspaceRng,
    draws: usize,
) -> Result<Vec<Cell>, BoxError> {
    let mut methods = Methods::new()?;
    let rows = N_CAL + 1;
    let mut done = 0;
    while done < draws {
        let chunk = CHUNK.min(draws - done);
        let (probs, labels) = dirichlet_classifier(chunk * rows, CLASSES, CONCENTRATION, rng)?;
        for j in 0..chunk {
            let (a, b) = (j * rows, j * rows + N_CAL);
            let test_row = probs.row(b);
            let draw = Draw {
                cal: probs.slice(s![a..b, ..]),
                labels: &labels[a..b],
                test: test_row.as_slice().ok_or("rows are contiguous")?,
                y: labels[b],
            };
            methods.add(&draw, rng)?;
        }
        done += chunk;
        ctx.step();
    }
    methods.cells()
}

/// Number of progress steps of [`coverage`] (and of the digits draws).
pub fn steps(draws: usize) -> usize {
    draws.div_ceil(CHUNK)
}

/// Draws per progress step.
pub const STEP_DRAWS: usize = CHUNK;

/// The two checks of issue 33 per method and level, and the figures; each
/// name starts with `label` (the data the draws come from).
pub fn checks(cells: &[Cell], label: &str) -> (Vec<Check>, Vec<Figure>) {
    let mut checks = Vec::new();
    let mut figures = Vec::new();
    for c in cells {
        let (lo, hi) = (c.interval.lo, c.interval.hi);
        let (band_lo, band_hi) = c.band();
        let gap = (band_lo - hi).max(lo - band_hi).max(0.0);
        let name = format!("{label}: {}, α = {}", c.method, c.alpha);
        checks.push(
            Check::new(
                format!(
                    "{name}: gap between the Wilson 99% interval of coverage and the band [{band_lo}, {band_hi:.5}]"
                ),
                gap,
                Relation::AtMost,
                0.0,
                "split-conformal theorem: 1 − α ≤ P(Y ∈ C(X)) ≤ 1 − α + 1/(n + 1) for tie-free scores \
                 (spec; issue 33: the interval must meet the band)",
            )
            .with_interval(lo, hi)
            .with_seeds(c.draws as usize),
        );
        checks.push(
            Check::new(
                format!("{name}: Wilson 99% interval of coverage"),
                c.coverage(),
                Relation::IntervalAbove,
                1.0 - c.alpha - MARGIN,
                "spec property (mean coverage ≥ 1 − α − 0.01) with issue 33's rule: the interval excludes values below it",
            )
            .with_interval(lo, hi)
            .with_seeds(c.draws as usize),
        );
        figures.push(Figure::new(format!("{name}: mean set size"), c.mean_size()));
    }
    (checks, figures)
}
