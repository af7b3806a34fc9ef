//! Strong and weak coresets for multiple ℓp regression by Bernoulli sampling.
//!
//! Each row `i` is kept independently with probability
//!
//! ```text
//! qᵢ = min{1, k_A · wᵢ / r + k_B · ρᵢ / Σₗ ρₗ}
//! ```
//!
//! and given weight `sᵢ = 1/qᵢ`, so that `F_S(X) = Σ_{i∈S} sᵢ ‖eᵢᵀ(AX − B)‖ₚᵖ`
//! is an unbiased estimate of `F(X) = ‖AX − B‖ₚ,ₚᵖ` for every fixed `X`.
//! Here `w` are the ℓp Lewis weights of `A` (`Σ w = r = rank A`), and
//! `ρᵢ = Σⱼ |(AX_c − B)ᵢⱼ|ᵖ` are the residual sensitivities at a
//! constant-factor solution `X_c`, which catch the heavy rows of `B` that the
//! Lewis weights of `A` cannot see. The expected size is `Σ qᵢ ≤ k_A + k_B`.
//!
//! - **Strong** coresets ([`Kind::Strong`]) use both terms and aim at
//!   `F_S(X) ∈ (1 ± ε) F(X)` for every `X`.
//! - **Weak** coresets ([`Kind::Weak`]) use the Lewis term only (`k_B = 0`)
//!   and aim at `F(X̂_S) ≤ (1 + ε) F(X*)` for the coreset minimiser `X̂_S`.
//!
//! Budgets ([`Budget::Theory`]) follow the paper's rates with a user
//! constant `c` (the rates hide polylogarithmic factors and constants), with
//! `L = ln(d/δ)` (at least 1):
//!
//! | kind | p < 2 | p = 2 | p > 2 |
//! |---|---|---|---|
//! | strong, `k_A = k_B` | `c d L / ε²` | `c d L / ε²` | `c d^{p/2} L / εᵖ` |
//! | weak, `k_A` | `c d L / ε` (p > 1), `c d L / ε²` (p = 1) | `c d L / ε` | `c d^{p/2} L / ε^{p−1}` |
//!
//! None depends on the number `m` of responses. Choice where the paper is
//! silent: the residual budget `k_B` equals the Lewis budget `k_A`. A total
//! budget `k_A + k_B ≥ n` keeps every row with weight 1.
//!
//! Cost: the Lewis weights of `A` (reusable across many `B`,
//! [`CoresetBuilder::build_with_lewis`]), one constant-factor solve for
//! `X_c`, O(n d m) for the residuals, O(n) for the sampling.

use crate::checks;
use crate::error::{Error, Result};
use crate::lewis::{LewisOptions, LewisWeights, lewis_weights};
use crate::regression::{self, IrlsOptions, Solution};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};
use rand::{Rng, RngExt};

/// Strong (every `X`) or weak (the minimiser) guarantee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    /// Lewis weights of `A` plus residual sensitivities of `B`.
    #[default]
    Strong,
    /// Lewis weights of `A` only.
    Weak,
}

/// How many rows to aim for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// The paper's rates times a constant `c > 0` (module docs).
    Theory {
        /// The constant in front of the rate.
        c: f64,
    },
    /// Explicit `k_A` (Lewis term) and `k_B` (residual term, ignored for
    /// weak coresets), both `≥ 0` with a positive total.
    Rows {
        /// Expected rows drawn by the Lewis term.
        k_a: f64,
        /// Expected rows drawn by the residual term.
        k_b: f64,
    },
}

/// How the constant-factor solution `X_c` behind the residual sensitivities
/// is obtained.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Residuals {
    /// IRLS on all of `A`, `B` with a loose tolerance (`1e-6`).
    FullSolve,
    /// IRLS on a Lewis-weight sample of about `rows` rows of `A` (weights
    /// `1/qᵢ`): O(rows · d² · m) instead of O(n d² m), a constant-factor
    /// solution with good probability.
    LewisSample {
        /// Expected rows of the sample.
        rows: f64,
    },
}

/// How rows are drawn from the probabilities `qᵢ`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sampling {
    /// Independent Bernoulli(`qᵢ`) per row, weight `1/qᵢ` (the spec's
    /// scheme). The size is random, `E|S| = Σ qᵢ`, and every estimate
    /// `F_S(X)` carries the size's relative fluctuation, about `1/√Σqᵢ`,
    /// whatever `X`.
    #[default]
    Bernoulli,
    /// Rows with `qᵢ ≥ 1` (the heavy rows: outliers of `B`, high-leverage
    /// rows of `A`) are kept with weight 1; the others by `N = ⌈Σ_light qᵢ⌋`
    /// draws with replacement, row `i` with probability `πᵢ = qᵢ/Σ_light q`
    /// (Cohen–Peng's Lewis-weight sampling is of this form), a row drawn
    /// `cᵢ` times getting weight `cᵢ/(N πᵢ)`. Unbiased like Bernoulli, but
    /// the number of light draws is fixed, so the size fluctuation of
    /// Bernoulli sampling is gone: where `|aᵢ x|ᵖ/wᵢ` is nearly constant
    /// over rows (many responses, near-isotropic `A`) the error is far
    /// smaller at the same size. Reconstruction: the spec describes only
    /// the Bernoulli scheme; this is the with-replacement form of the same
    /// probabilities with the heavy rows held out.
    FixedSize,
}

/// Builder of a coreset: exponent, accuracy, confidence, kind and budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoresetBuilder {
    p: f64,
    epsilon: f64,
    delta: f64,
    kind: Kind,
    budget: Budget,
    residuals: Residuals,
    sampling: Sampling,
    lewis: LewisOptions,
}

impl CoresetBuilder {
    /// A strong coreset at exponent `p` with `ε = 0.1`, `δ = 0.01`,
    /// `Budget::Theory { c: 1 }`, residuals from a full solve, and
    /// [`LewisOptions::for_sampling`] (tolerance `1e-3`). Nothing is checked
    /// before [`CoresetBuilder::build`].
    pub fn new(p: f64) -> Self {
        CoresetBuilder {
            p,
            epsilon: 0.1,
            delta: 0.01,
            kind: Kind::Strong,
            budget: Budget::Theory { c: 1.0 },
            residuals: Residuals::FullSolve,
            sampling: Sampling::Bernoulli,
            lewis: LewisOptions::for_sampling(),
        }
    }

    /// Sets the accuracy `ε ∈ (0, 1)`.
    pub fn epsilon(mut self, epsilon: f64) -> Self {
        self.epsilon = epsilon;
        self
    }

    /// Sets the failure probability `δ ∈ (0, 1)`.
    pub fn delta(mut self, delta: f64) -> Self {
        self.delta = delta;
        self
    }

    /// Sets the kind.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    /// Sets the budget.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Sets how `X_c` is found.
    pub fn residuals(mut self, residuals: Residuals) -> Self {
        self.residuals = residuals;
        self
    }

    /// Sets how rows are drawn ([`Sampling::Bernoulli`] by default).
    pub fn sampling(mut self, sampling: Sampling) -> Self {
        self.sampling = sampling;
        self
    }

    /// Sets the options of the Lewis-weight iteration.
    pub fn lewis_options(mut self, lewis: LewisOptions) -> Self {
        self.lewis = lewis;
        self
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidP`], [`Error::InvalidEpsilon`], [`Error::InvalidDelta`],
    /// [`Error::InvalidParameter`] for a bad budget, residual sample size or
    /// Lewis options.
    pub fn check(&self) -> Result<()> {
        checks::p(self.p)?;
        checks::epsilon(self.epsilon)?;
        checks::delta(self.delta)?;
        match self.budget {
            Budget::Theory { c } => checks::positive(c, "budget.c")?,
            Budget::Rows { k_a, k_b } => {
                for (v, name) in [(k_a, "budget.k_a"), (k_b, "budget.k_b")] {
                    if !(v.is_finite() && v >= 0.0) {
                        return Err(Error::InvalidParameter {
                            name,
                            value: v,
                            expected: "a finite value >= 0",
                        });
                    }
                }
                let total = k_a + if self.kind == Kind::Strong { k_b } else { 0.0 };
                checks::positive(total, "budget (total)")?;
            }
        }
        if let Residuals::LewisSample { rows } = self.residuals {
            checks::positive(rows, "residuals.rows")?;
        }
        self.lewis.check()
    }

    /// `(k_A, k_B)` for a matrix of rank `d` (module docs).
    ///
    /// # Errors
    /// As [`CoresetBuilder::check`].
    pub fn row_budgets(&self, d: usize) -> Result<(f64, f64)> {
        self.check()?;
        let (k_a, k_b) = match self.budget {
            Budget::Rows { k_a, k_b } => (k_a, k_b),
            Budget::Theory { c } => {
                let (p, e, d) = (self.p, self.epsilon, d.max(1) as f64);
                let l = (d / self.delta).ln().max(1.0);
                let dim = d.powf((p / 2.0).max(1.0));
                let k = match self.kind {
                    Kind::Strong => c * dim * l / e.powf(p.max(2.0)),
                    Kind::Weak if p == 1.0 => c * dim * l / (e * e),
                    Kind::Weak => c * dim * l / e.powf((p - 1.0).max(1.0)),
                };
                (k, k)
            }
        };
        Ok(match self.kind {
            Kind::Strong => (k_a, k_b),
            Kind::Weak => (k_a, 0.0),
        })
    }

    /// Builds a coreset of `(A, B)`: computes the Lewis weights of `A`, then
    /// as [`CoresetBuilder::build_with_lewis`].
    ///
    /// # Errors
    /// As [`CoresetBuilder::check`], [`crate::lewis::lewis_weights`] and
    /// [`CoresetBuilder::build_with_lewis`].
    pub fn build<R: Rng + ?Sized>(
        &self,
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        rng: &mut R,
    ) -> Result<Coreset> {
        self.check()?;
        checks::pair(a, b)?;
        let lw = lewis_weights(a, self.p, &self.lewis)?;
        self.build_with_lewis(&lw, a, b, rng)
    }

    /// Builds a coreset reusing the Lewis weights of `A` (computed once for
    /// many `B`). The probabilities are `qᵢ = min{1, k_A wᵢ/r + k_B ρᵢ/Σρ}`
    /// (module docs); rows are kept by independent Bernoulli draws, one
    /// uniform per row in row order.
    ///
    /// # Errors
    /// As [`CoresetBuilder::check`]; [`Error::EmptyInput`],
    /// [`Error::NonFinite`], [`Error::DimensionMismatch`];
    /// [`Error::InvalidParameter`] when the weights were computed for another
    /// `p` or another number of rows.
    pub fn build_with_lewis<R: Rng + ?Sized>(
        &self,
        lewis: &LewisWeights,
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        rng: &mut R,
    ) -> Result<Coreset> {
        self.check()?;
        checks::pair(a, b)?;
        if lewis.p() != self.p {
            return Err(Error::InvalidParameter {
                name: "lewis.p",
                value: lewis.p(),
                expected: "the p of the builder",
            });
        }
        if lewis.w().len() != a.nrows() {
            return Err(Error::InvalidParameter {
                name: "lewis.w (length)",
                value: lewis.w().len() as f64,
                expected: "one weight per row of A",
            });
        }
        let n = a.nrows();
        let (k_a, k_b) = self.row_budgets(lewis.rank())?;
        let q: Array1<f64> = if k_a + k_b >= n as f64 {
            Array1::ones(n)
        } else {
            let r = lewis.w().sum();
            let mut q = lewis.w().mapv(|w| k_a * w / r);
            if k_b > 0.0 {
                // ρᵢ/Σρ, scaled so that residuals near 1e200 give no ∞/∞.
                let share = self.residual_sensitivities(lewis, a, b, rng)?;
                q.zip_mut_with(&share, |qi, si| *qi += k_b * si);
            }
            q.mapv(|v| v.min(1.0))
        };
        Ok(match self.sampling {
            Sampling::Bernoulli => Coreset::sample(q, self.p, rng),
            Sampling::FixedSize => Coreset::sample_fixed(q, self.p, rng)?,
        })
    }

    /// The shares `ρᵢ/Σₗ ρₗ` of `ρᵢ = Σⱼ |(AX_c − B)ᵢⱼ|ᵖ` at a
    /// constant-factor solution `X_c`.
    fn residual_sensitivities<R: Rng + ?Sized>(
        &self,
        lewis: &LewisWeights,
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        rng: &mut R,
    ) -> Result<Array1<f64>> {
        let loose = IrlsOptions {
            tol: 1e-6,
            ..IrlsOptions::default()
        };
        let x_c = match self.residuals {
            Residuals::FullSolve => {
                let ones = vec![1.0; a.nrows()];
                regression::solve_unchecked(a, b, self.p, &ones, &loose)?
                    .0
                    .x
            }
            Residuals::LewisSample { rows } => {
                let r = lewis.w().sum();
                let q = lewis.w().mapv(|w| (rows * w / r).min(1.0));
                let sample = Coreset::sample(q, self.p, rng);
                sample.solve_unchecked(a, b, &loose)?.x
            }
        };
        Ok(regression::row_cost_shares(a, b, x_c.view(), self.p))
    }
}

/// A weighted row subset `(S, s)` of `(A, B)`.
///
/// The fields are private: a coreset comes only from
/// [`CoresetBuilder::build`], [`CoresetBuilder::build_with_lewis`],
/// [`Coreset::uniform`] or [`Coreset::from_probabilities`], which all keep
/// the invariants `sᵢ = cᵢ/qᵢ > 0` (`cᵢ = 1` for Bernoulli sampling, the
/// times drawn for [`Sampling::FixedSize`]), `qᵢ ∈ (0, 1]`, indices
/// increasing and below `n`, and `expected_size = Σ qᵢ` over all `n` rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Coreset {
    p: f64,
    n: usize,
    indices: Vec<usize>,
    weights: Array1<f64>,
    probabilities: Array1<f64>,
    expected_size: f64,
}

impl Coreset {
    /// The exponent `p` it was built for.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// Rows `n` of the data it was drawn from.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The kept rows `S`, increasing.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// The weights `sᵢ` of the kept rows, in the order of [`Coreset::indices`]:
    /// `1/qᵢ` for Bernoulli sampling, `cᵢ/qᵢ` (`cᵢ` the times drawn) for
    /// [`Sampling::FixedSize`].
    pub fn weights(&self) -> ArrayView1<'_, f64> {
        self.weights.view()
    }

    /// `qᵢ` of the kept rows: the inclusion probability (Bernoulli), or the
    /// expected number of draws `N πᵢ` (1 for the heavy rows) for
    /// [`Sampling::FixedSize`].
    pub fn probabilities(&self) -> ArrayView1<'_, f64> {
        self.probabilities.view()
    }

    /// `Σᵢ qᵢ` over all `n` rows: the expected size `E|S|`.
    pub fn expected_size(&self) -> f64 {
        self.expected_size
    }

    /// Draws a coreset from user-given inclusion probabilities: row `i` is
    /// kept with probability `qᵢ` (independent Bernoulli draws, one uniform
    /// per row in order) and weighted `1/qᵢ`, so `F_S(X)` is unbiased for
    /// every fixed `X`. This is the checked way to build a coreset from a
    /// sampling scheme of one's own. O(n).
    ///
    /// # Errors
    /// [`Error::InvalidP`]; [`Error::EmptyInput`] for no rows;
    /// [`Error::InvalidWeights`] for a `qᵢ` that is not in `[0, 1]` (naming
    /// its index and value).
    pub fn from_probabilities<R: Rng + ?Sized>(
        q: ArrayView1<'_, f64>,
        p: f64,
        rng: &mut R,
    ) -> Result<Coreset> {
        checks::p(p)?;
        if q.is_empty() {
            return Err(Error::EmptyInput {
                what: "probabilities",
            });
        }
        if let Some(index) = q.iter().position(|v| !(0.0..=1.0).contains(v)) {
            return Err(Error::InvalidWeights {
                index,
                value: q[index],
            });
        }
        Ok(Coreset::sample(q.to_owned(), p, rng))
    }

    /// [`Sampling::FixedSize`]: rows with `qᵢ ≥ 1` kept with weight 1, then
    /// `N = max(1, round(Σ_light q))` draws with replacement from the
    /// light rows ∝ `qᵢ`; a light row drawn `cᵢ` times gets probability
    /// entry `N πᵢ` (its expected count) and weight `cᵢ/(N πᵢ)`.
    pub(crate) fn sample_fixed<R: Rng + ?Sized>(
        q: Array1<f64>,
        p: f64,
        rng: &mut R,
    ) -> Result<Coreset> {
        let n = q.len();
        let light: Vec<f64> = q.iter().map(|&v| if v < 1.0 { v } else { 0.0 }).collect();
        let total: f64 = light.iter().sum();
        let mut counts = vec![0usize; n];
        let mut draws = 0usize;
        if total > 0.0 {
            draws = (total.round() as usize).max(1);
            let table = mlcore::sampling::AliasTable::new(&light)?;
            for _ in 0..draws {
                counts[rng.sample(&table)] += 1;
            }
        }
        let mut indices = Vec::new();
        let mut weights = Vec::new();
        let mut probabilities = Vec::new();
        for (i, &qi) in q.iter().enumerate() {
            if qi >= 1.0 {
                indices.push(i);
                weights.push(1.0);
                probabilities.push(1.0);
            } else if counts[i] > 0 {
                let expected = draws as f64 * qi / total;
                indices.push(i);
                weights.push(counts[i] as f64 / expected);
                probabilities.push(expected);
            }
        }
        Ok(Coreset {
            p,
            n,
            indices,
            weights: Array1::from(weights),
            probabilities: Array1::from(probabilities),
            expected_size: q.sum(),
        })
    }

    /// Independent Bernoulli(`qᵢ`) draws, one uniform per row in order.
    pub(crate) fn sample<R: Rng + ?Sized>(q: Array1<f64>, p: f64, rng: &mut R) -> Coreset {
        let mut indices = Vec::new();
        for (i, &qi) in q.iter().enumerate() {
            let u: f64 = rng.random();
            if u < qi {
                indices.push(i);
            }
        }
        let probabilities: Array1<f64> = indices.iter().map(|&i| q[i]).collect();
        Coreset {
            p,
            n: q.len(),
            weights: probabilities.mapv(|v| 1.0 / v),
            probabilities,
            expected_size: q.sum(),
            indices,
        }
    }

    /// The uniform-sampling baseline: every row kept independently with
    /// probability `q = min(1, k/n)` and weight `1/q`, so `E[|S|] = k`. It is
    /// unbiased like the coreset but blind to heavy rows of `A` and `B`; the
    /// crate's tests and the runner show where it fails. O(n).
    ///
    /// # Errors
    /// [`Error::InvalidP`], [`Error::EmptyInput`] for `n = 0`, and
    /// [`Error::InvalidParameter`] for a `k` that is not finite and positive,
    /// [`Error::TooLarge`] for an `n` whose probability vector would not fit.
    pub fn uniform<R: Rng + ?Sized>(n: usize, p: f64, k: f64, rng: &mut R) -> Result<Coreset> {
        checks::p(p)?;
        if n == 0 {
            return Err(Error::EmptyInput { what: "A" });
        }
        checks::positive(k, "k")?;
        mlcore::check::alloc_len(&[n], 8, "n (rows)")?;
        let q = Array1::from_elem(n, (k / n as f64).min(1.0));
        Ok(Coreset::sample(q, p, rng))
    }

    /// Number of kept rows `|S|`.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether no row was kept.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    fn check_rows(&self, m: ArrayView2<'_, f64>, what: &'static str) -> Result<()> {
        checks::matrix(m, what)?;
        if m.nrows() != self.n {
            return Err(Error::ShapeMismatch {
                what,
                expected: format!("{} rows (the data the coreset was built on)", self.n),
                got: format!("{} rows", m.nrows()),
            });
        }
        Ok(())
    }

    fn check_non_empty(&self) -> Result<()> {
        if self.is_empty() {
            Err(Error::EmptyInput { what: "coreset" })
        } else {
            Ok(())
        }
    }

    /// The kept rows of `M` (`A`, `B` or `[A B]`), unscaled. O(|S| cols).
    ///
    /// # Errors
    /// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::ShapeMismatch`]
    /// when `M` does not have `n` rows.
    pub fn rows(&self, m: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        self.check_rows(m, "M")?;
        Ok(m.select(Axis(0), &self.indices))
    }

    /// The kept rows of `M` scaled by `sᵢ^{1/p} = qᵢ^{−1/p}`, so that the
    /// unweighted objective on `[A_S B_S]` is `F_S`: feed them to any ℓp
    /// solver. O(|S| cols).
    ///
    /// # Errors
    /// As [`Coreset::rows`].
    pub fn scaled_rows(&self, m: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        let mut out = self.rows(m)?;
        for (mut row, &s) in out.axis_iter_mut(Axis(0)).zip(&self.weights) {
            let f = s.powf(1.0 / self.p);
            row.mapv_inplace(|v| v * f);
        }
        Ok(out)
    }

    /// `F_S(X) = Σ_{i∈S} sᵢ Σⱼ |(AX − B)ᵢⱼ|ᵖ`. O(|S| d m).
    ///
    /// # Errors
    /// Shape and finiteness errors on `A`, `B` (which must be the full data)
    /// and `X` (`d × m`); [`Error::EmptyInput`] for an empty coreset.
    pub fn cost(
        &self,
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        x: ArrayView2<'_, f64>,
    ) -> Result<f64> {
        checks::pair(a, b)?;
        self.check_rows(a, "A")?;
        self.check_non_empty()?;
        let a_s = a.select(Axis(0), &self.indices);
        let b_s = b.select(Axis(0), &self.indices);
        regression::cost(a_s.view(), b_s.view(), x, self.p, Some(self.weights.view()))
    }

    /// `X̂_S = argmin F_S(X)` by [`regression::solve`] on the kept rows with
    /// weights `s`. O(|S| d² m · iterations).
    ///
    /// # Errors
    /// As [`Coreset::cost`] and [`regression::solve`].
    pub fn solve(
        &self,
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        opts: &IrlsOptions,
    ) -> Result<Solution> {
        checks::pair(a, b)?;
        self.check_rows(a, "A")?;
        self.check_non_empty()?;
        let a_s = a.select(Axis(0), &self.indices);
        let b_s = b.select(Axis(0), &self.indices);
        regression::solve(
            a_s.view(),
            b_s.view(),
            self.p,
            Some(self.weights.view()),
            opts,
        )
    }

    fn solve_unchecked(
        &self,
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        opts: &IrlsOptions,
    ) -> Result<Solution> {
        self.check_non_empty()?;
        let a_s = a.select(Axis(0), &self.indices);
        let b_s = b.select(Axis(0), &self.indices);
        let s = self.weights.to_vec();
        Ok(regression::solve_unchecked(a_s.view(), b_s.view(), self.p, &s, opts)?.0)
    }
}
