//! ℓp Lewis weights and leverage scores.
//!
//! The ℓp Lewis weights of `A ∈ ℝⁿˣᵈ` are the unique `w ∈ ℝⁿ₊` with
//!
//! ```text
//! wᵢ = τᵢ(W^{1/2−1/p} A),   equivalently   wᵢ^{2/p} = aᵢᵀ (Aᵀ W^{1−2/p} A)⁺ aᵢ,
//! ```
//!
//! where `τᵢ(M) = mᵢᵀ (MᵀM)⁺ mᵢ` is the leverage score of row `i`. Write
//! `g(w)ᵢ = (aᵢᵀ (Aᵀ W^{1−2/p} A)⁺ aᵢ)^{p/2}`; the weights are the fixed point
//! `w = g(w)`. Facts: `Σ wᵢ = rank A`, `0 ≤ wᵢ ≤ 1`, `p = 2` gives the
//! leverage scores, `d = 1` gives `wᵢ = |aᵢ|ᵖ / Σⱼ |aⱼ|ᵖ`; `w` is unchanged by
//! `A → A R` (`R` invertible) and `A → c A`, permutes with the rows, and zero
//! rows get 0.
//!
//! **Iteration.** [`lewis_weights`] runs the damped geometric iteration
//! `log w ← (1 − η) log w + η log g(w)`. With `η = 1` this is the Cohen–Peng
//! fixed-point iteration, a contraction with factor `|1 − p/2|` in the
//! max-|log| metric, hence convergent only for `p < 4`. For `p > 2` the
//! Jacobian of `log g` has eigenvalues in `[−(p/2 − 1), 0]`, so
//! `η = 4/(p + 2)` contracts with factor `(p − 2)/(p + 2)` for every `p`; the
//! default step is `η = min(1, 4/(p + 2))` ([`Damping::Auto`]).
//!
//! **Rank deficiency.** Zero rows are set aside (weight exactly 0, needed
//! for `p < 2` where `w^{1−2/p}` blows up) and the iteration runs on an
//! orthonormal basis `U_r` of the column span of the other rows (thin SVD,
//! numpy's rank cutoff). Lewis weights depend only on the column span, so
//! this is exact, not a regularisation; the rank is reported.
//!
//! **Cost.** One `r × r` weighted Gram matrix, a Cholesky factor and a
//! triangular solve per iteration: O(n r²), plus O(n d²) once for the SVD.
//! The sketched variant ([`lewis_weights_sketched`]) replaces both by
//! O(nnz(A)) CountSketches and an O(n r k) Johnson–Lindenstrauss product.

use crate::checks;
use crate::error::{Error, Result};
use mlcore::linalg::{self, Triangle};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, s};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// The step `η` of the damped iteration `log w ← (1 − η) log w + η log g(w)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Damping {
    /// `η = min(1, 4/(p + 2))`: the undamped Cohen–Peng step for `p ≤ 2`,
    /// and the step with the best contraction factor `(p − 2)/(p + 2)` for
    /// `p > 2`. Converges for every `p ≥ 1`.
    #[default]
    Auto,
    /// `η = 1`: the Cohen–Peng fixed point `w ← g(w)`. Converges for
    /// `p < 4` (factor `|1 − p/2|`, so slowly near 4); for `p ≥ 4` it
    /// oscillates and ends in [`Error::NotConverged`].
    CohenPeng,
    /// A fixed step `η ∈ (0, 1]`.
    Fixed(f64),
}

impl Damping {
    /// The step `η` used at exponent `p`.
    pub fn step(&self, p: f64) -> f64 {
        match *self {
            Damping::Auto => (4.0 / (p + 2.0)).min(1.0),
            Damping::CohenPeng => 1.0,
            Damping::Fixed(eta) => eta,
        }
    }
}

/// Options of the Lewis-weight iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LewisOptions {
    /// Iteration cap (default 1000).
    pub max_iter: usize,
    /// Stop when the fixed-point residual `maxᵢ |log(g(w)ᵢ / wᵢ)|` is at
    /// most `tol` (default `1e-10`).
    pub tol: f64,
    /// The step rule (default [`Damping::Auto`]).
    pub damping: Damping,
}

impl Default for LewisOptions {
    fn default() -> Self {
        LewisOptions {
            max_iter: 1000,
            tol: 1e-10,
            damping: Damping::Auto,
        }
    }
}

impl LewisOptions {
    /// The options [`crate::coreset::CoresetBuilder`] uses: tolerance `1e-3`
    /// (every weight within 0.1% of the fixed point). Sampling only needs
    /// the weights up to a constant factor (the estimate stays unbiased,
    /// since rows are weighted by the `1/qᵢ` they were actually drawn
    /// with), and the loose tolerance halves the iterations at `p = 1.5`.
    pub fn for_sampling() -> Self {
        LewisOptions {
            tol: 1e-3,
            ..LewisOptions::default()
        }
    }

    /// Validates the options.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `max_iter = 0`, a `tol` that is not
    /// finite and positive, or a fixed step outside `(0, 1]`.
    pub fn check(&self) -> Result<()> {
        checks::iteration(self.max_iter, self.tol)?;
        if let Damping::Fixed(eta) = self.damping
            && !(eta > 0.0 && eta <= 1.0)
        {
            return Err(Error::InvalidParameter {
                name: "damping",
                value: eta,
                expected: "a step in (0, 1]",
            });
        }
        Ok(())
    }
}

/// Sizes of the sketches used by [`sketched_leverage_scores`] and
/// [`lewis_weights_sketched`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SketchOptions {
    /// Rows of the CountSketch `S`; `None` picks `max(4 d², 20 d)` (a
    /// subspace embedding with constant distortion, Clarkson–Woodruff).
    pub rows: Option<usize>,
    /// Columns `k` of the Gaussian Johnson–Lindenstrauss matrix `G`
    /// (default 32): each score has relative error about `√(2/k)`.
    pub jl_cols: usize,
}

impl Default for SketchOptions {
    fn default() -> Self {
        SketchOptions {
            rows: None,
            jl_cols: 32,
        }
    }
}

impl SketchOptions {
    fn rows_for(&self, d: usize) -> usize {
        self.rows.unwrap_or((4 * d * d).max(20 * d))
    }

    fn check(&self, d: usize) -> Result<()> {
        let rows = self.rows_for(d);
        if rows < d {
            return Err(Error::InvalidParameter {
                name: "sketch.rows",
                value: rows as f64,
                expected: "at least the number of columns of A",
            });
        }
        if self.jl_cols == 0 {
            return Err(Error::InvalidParameter {
                name: "sketch.jl_cols",
                value: 0.0,
                expected: "at least 1",
            });
        }
        Ok(())
    }
}

/// The ℓp Lewis weights of `A`, with how they were obtained.
///
/// Only [`lewis_weights`] and [`lewis_weights_sketched`] make one (the
/// fields are private), so a coreset builder that reuses it can trust
/// `wᵢ ∈ [0, 1]` finite and `Σ wᵢ ≈ rank A > 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct LewisWeights {
    w: Array1<f64>,
    p: f64,
    rank: usize,
    iterations: usize,
    fixed_point_residual: f64,
    step: f64,
}

impl LewisWeights {
    /// `w`, one weight per row of `A` (zero rows get exactly 0).
    pub fn w(&self) -> ArrayView1<'_, f64> {
        self.w.view()
    }

    /// `w` as an owned vector.
    pub fn into_weights(self) -> Array1<f64> {
        self.w
    }

    /// The exponent `p`.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// Numerical rank `r` of `A` (`Σ wᵢ = r` at the fixed point).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Updates performed.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// `maxᵢ |log(g(w)ᵢ / wᵢ)|` at the returned `w` over the non-zero rows,
    /// measured with the leverage oracle that was used (the exact one, or the
    /// fixed sketch of [`lewis_weights_sketched`]).
    pub fn fixed_point_residual(&self) -> f64 {
        self.fixed_point_residual
    }

    /// The step `η` that was used.
    pub fn step(&self) -> f64 {
        self.step
    }
}

/// Statistical leverage scores `τᵢ = aᵢᵀ (AᵀA)⁺ aᵢ` (the ℓ2 Lewis weights).
///
/// Rank-deficient `A` is handled through an orthonormal basis of its column
/// span; `Σ τᵢ = rank A`. O(n d²).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`] (row and column),
/// [`Error::ZeroMatrix`].
pub fn leverage_scores(a: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
    checks::matrix(a, "A")?;
    let basis = Basis::exact(a)?;
    let mut tau = Array1::zeros(a.nrows());
    for (k, &i) in basis.rows.iter().enumerate() {
        tau[i] = basis.q.row(k).iter().map(|v| v * v).sum();
    }
    Ok(tau)
}

/// Approximate leverage scores for very tall `A`: a CountSketch `S` (`t`
/// rows) gives `SA = Q R`, and a Gaussian `G ∈ ℝ^{d×k}/√k` gives
/// `τ̃ᵢ = ‖eᵢᵀ A R⁺ G‖²`, which is within a constant factor of `τᵢ` with
/// high probability (Drineas–Magdon-Ismail–Mahoney–Woodruff 2012).
///
/// Cost O(nnz(A) + t d² + n d k) instead of O(n d²).
///
/// # Errors
/// As [`leverage_scores`], and [`Error::InvalidParameter`] for a sketch
/// with fewer rows than `A` has columns or zero JL columns.
pub fn sketched_leverage_scores<R: Rng + ?Sized>(
    a: ArrayView2<'_, f64>,
    sketch: &SketchOptions,
    rng: &mut R,
) -> Result<Array1<f64>> {
    checks::matrix(a, "A")?;
    sketch.check(a.ncols())?;
    let basis = Basis::sketched(a, sketch, rng)?;
    let mut oracle = SketchOracle::new(&basis.q, sketch, rng);
    let ones = vec![1.0; basis.q.nrows()];
    let sigma = oracle.scores(&ones)?;
    let mut tau = Array1::zeros(a.nrows());
    for (k, &i) in basis.rows.iter().enumerate() {
        tau[i] = sigma[k];
    }
    Ok(tau)
}

/// The ℓp Lewis weights of `A` by the damped geometric iteration (exact
/// leverage scores at every step).
///
/// ```text
/// log wᵢ ← (1 − η) log wᵢ + η log g(w)ᵢ,   g(w)ᵢ = (aᵢᵀ (Aᵀ W^{1−2/p} A)⁺ aᵢ)^{p/2},
/// ```
///
/// started from `wᵢ = r/n'` (`n'` non-zero rows), until the residual
/// `maxᵢ |log(g(w)ᵢ/wᵢ)|` is at most `opts.tol`. Iterations: about
/// `log(1/tol) / log(1/c)` with `c = |1 − p/2|` for `p ≤ 2` and
/// `(p − 2)/(p + 2)` for `p > 2` under [`Damping::Auto`]; each costs O(n r²).
///
/// # Errors
/// [`Error::InvalidP`], [`Error::EmptyInput`], [`Error::NonFinite`] (row and
/// column), [`Error::ZeroMatrix`], [`Error::InvalidParameter`] for bad
/// options, and [`Error::NotConverged`] (with the last residual) when the
/// cap is reached or the iterates leave the positive reals (Cohen–Peng at
/// `p ≥ 4`).
pub fn lewis_weights(a: ArrayView2<'_, f64>, p: f64, opts: &LewisOptions) -> Result<LewisWeights> {
    checks::p(p)?;
    checks::matrix(a, "A")?;
    opts.check()?;
    let basis = Basis::exact(a)?;
    let mut oracle = ExactOracle::new(&basis.q);
    iterate(&basis, a.nrows(), p, opts, &mut oracle)
}

/// The ℓp Lewis weights of a very tall `A` with sketched leverage scores.
///
/// A first CountSketch of `A` gives a well-conditioned basis `A V_r Σ_r⁻¹`
/// (sketch-and-precondition); the iteration of [`lewis_weights`] then uses
/// the leverage oracle of [`sketched_leverage_scores`] with one sketch and one
/// Gaussian matrix drawn up front and kept fixed, so that the iteration is
/// deterministic and converges to the fixed point of the sketched map. The
/// result is within a constant factor of the exact weights (relative error
/// about `√(2/k)` per weight); the reported residual is that of the sketched
/// map, and `Σ wᵢ` equals the rank only approximately.
///
/// Cost per iteration O(nnz(A) + t r² + n r k) instead of O(n r²).
///
/// # Errors
/// As [`lewis_weights`] and [`sketched_leverage_scores`].
pub fn lewis_weights_sketched<R: Rng + ?Sized>(
    a: ArrayView2<'_, f64>,
    p: f64,
    opts: &LewisOptions,
    sketch: &SketchOptions,
    rng: &mut R,
) -> Result<LewisWeights> {
    checks::p(p)?;
    checks::matrix(a, "A")?;
    opts.check()?;
    sketch.check(a.ncols())?;
    let basis = Basis::sketched(a, sketch, rng)?;
    let mut oracle = SketchOracle::new(&basis.q, sketch, rng);
    iterate(&basis, a.nrows(), p, opts, &mut oracle)
}

/// A basis of the column span of the non-zero rows of `A`.
struct Basis {
    /// Indices (into `A`) of the non-zero rows.
    rows: Vec<usize>,
    /// `n' × r`, same column span as `A[rows, :]`, full column rank.
    q: Array2<f64>,
}

fn nonzero_rows(a: ArrayView2<'_, f64>) -> Result<(Vec<usize>, Array2<f64>)> {
    let rows: Vec<usize> = (0..a.nrows())
        .filter(|&i| a.row(i).iter().any(|&v| v != 0.0))
        .collect();
    if rows.is_empty() {
        return Err(Error::ZeroMatrix { what: "A" });
    }
    let sub = a.select(Axis(0), &rows);
    Ok((rows, sub))
}

impl Basis {
    /// Orthonormal `U_r` from the thin SVD.
    fn exact(a: ArrayView2<'_, f64>) -> Result<Basis> {
        let (rows, sub) = nonzero_rows(a)?;
        let f = linalg::svd(sub.view())?;
        let r = f.rank();
        if r == 0 {
            return Err(Error::ZeroMatrix { what: "A" });
        }
        Ok(Basis {
            rows,
            q: f.u.slice(s![.., ..r]).to_owned(),
        })
    }

    /// `A V_r Σ_r⁻¹` from the SVD of a CountSketch of `A`.
    fn sketched<R: Rng + ?Sized>(
        a: ArrayView2<'_, f64>,
        sketch: &SketchOptions,
        rng: &mut R,
    ) -> Result<Basis> {
        let (rows, sub) = nonzero_rows(a)?;
        let t = sketch.rows_for(a.ncols());
        let cs = CountSketch::new(sub.nrows(), t, rng);
        let sa = cs.apply(sub.view(), None);
        let f = linalg::svd(sa.view())?;
        let r = f.rank();
        if r == 0 {
            return Err(Error::ZeroMatrix { what: "A" });
        }
        let mut v = f.vt.slice(s![..r, ..]).t().to_owned();
        for (mut col, &sig) in v.axis_iter_mut(Axis(1)).zip(f.s.iter()) {
            col.mapv_inplace(|x| x / sig);
        }
        Ok(Basis {
            rows,
            q: sub.dot(&v),
        })
    }
}

/// `σᵢ(v) = qᵢᵀ (Qᵀ V Q)⁻¹ qᵢ` for the rows of a full-column-rank `Q`.
trait Oracle {
    fn scores(&mut self, v: &[f64]) -> Result<Vec<f64>>;
}

/// Exact scores through the Cholesky factor `L` of the `r × r` Gram matrix
/// `Qᵀ V Q`: `σᵢ = ‖L⁻¹ qᵢ‖²`, i.e. the squared row norms of `Z = Q L⁻ᵀ`.
/// Both O(n r²) passes run over blocks of [`BLOCK`] rows that stay in cache
/// (the Gram matrix accumulated block by block, then each block of `Z`
/// formed and reduced to its row norms at once), so each call reads `Q`
/// twice and writes nothing of size n × r: memory traffic, not arithmetic,
/// bounds this step once `Q` outgrows the cache.
struct ExactOracle<'a> {
    q: &'a Array2<f64>,
    /// One block of `diag(√v) Q` or of `Z`, reused.
    block: Array2<f64>,
}

/// Rows per block of [`ExactOracle`] (256 × 20 doubles = 40 KiB).
const BLOCK: usize = 256;

impl<'a> ExactOracle<'a> {
    fn new(q: &'a Array2<f64>) -> Self {
        ExactOracle {
            q,
            block: Array2::zeros((BLOCK.min(q.nrows()), q.ncols())),
        }
    }
}

impl Oracle for ExactOracle<'_> {
    fn scores(&mut self, v: &[f64]) -> Result<Vec<f64>> {
        let q = self.q;
        let r = q.ncols();
        let mut gram = Array2::<f64>::zeros((r, r));
        for (k, chunk) in q.axis_chunks_iter(Axis(0), BLOCK).enumerate() {
            let mut buf = self.block.slice_mut(s![..chunk.nrows(), ..]);
            for ((mut out, row), &vi) in buf
                .axis_iter_mut(Axis(0))
                .zip(chunk.axis_iter(Axis(0)))
                .zip(&v[k * BLOCK..])
            {
                let sv = vi.sqrt();
                out.zip_mut_with(&row, |o, &x| *o = x * sv);
            }
            ndarray::linalg::general_mat_mul(1.0, &buf.t(), &buf, 1.0, &mut gram);
        }
        // Cholesky of the Gram matrix; R of a QR of the scaled basis when it
        // fails (ill-conditioned): both give `Qᵀ V Q = L Lᵀ`.
        let l = match linalg::cholesky(gram.view()) {
            Ok(l) => l,
            Err(_) => {
                let sv: Array1<f64> = v.iter().map(|x| x.sqrt()).collect();
                let scaled = q * &sv.view().insert_axis(Axis(1));
                linalg::qr(scaled.view())?.r.t().to_owned()
            }
        };
        let l_inv_t =
            linalg::solve_triangular(l.view(), Array2::<f64>::eye(r).view(), Triangle::Lower)?
                .reversed_axes();
        let mut sigma = Vec::with_capacity(q.nrows());
        for chunk in q.axis_chunks_iter(Axis(0), BLOCK) {
            let mut buf = self.block.slice_mut(s![..chunk.nrows(), ..]);
            ndarray::linalg::general_mat_mul(1.0, &chunk, &l_inv_t, 0.0, &mut buf);
            sigma.extend(buf.axis_iter(Axis(0)).map(|z| z.dot(&z)));
        }
        Ok(sigma)
    }
}

/// A CountSketch: row `i` of the input goes, times a random sign, to row `h(i)`.
struct CountSketch {
    bucket: Vec<usize>,
    sign: Vec<f64>,
    rows: usize,
}

impl CountSketch {
    fn new<R: Rng + ?Sized>(n: usize, rows: usize, rng: &mut R) -> CountSketch {
        let bucket = (0..n).map(|_| rng.random_range(0..rows)).collect();
        let sign = (0..n)
            .map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 })
            .collect();
        CountSketch { bucket, sign, rows }
    }

    /// `S diag(scale) M`.
    fn apply(&self, m: ArrayView2<'_, f64>, scale: Option<&[f64]>) -> Array2<f64> {
        let mut out = Array2::zeros((self.rows, m.ncols()));
        for (i, row) in m.axis_iter(Axis(0)).enumerate() {
            let c = self.sign[i] * scale.map_or(1.0, |s| s[i]);
            let mut target = out.row_mut(self.bucket[i]);
            target.scaled_add(c, &row);
        }
        out
    }
}

struct SketchOracle<'a> {
    q: &'a Array2<f64>,
    cs: CountSketch,
    g: Array2<f64>,
}

impl<'a> SketchOracle<'a> {
    fn new<R: Rng + ?Sized>(q: &'a Array2<f64>, sketch: &SketchOptions, rng: &mut R) -> Self {
        let r = q.ncols();
        let t = sketch.rows_for(r).max(r);
        let cs = CountSketch::new(q.nrows(), t, rng);
        let k = sketch.jl_cols;
        let scale = 1.0 / (k as f64).sqrt();
        let g =
            Array2::from_shape_simple_fn((r, k), || rng.sample::<f64, _>(StandardNormal) * scale);
        SketchOracle { q, cs, g }
    }
}

impl Oracle for SketchOracle<'_> {
    fn scores(&mut self, v: &[f64]) -> Result<Vec<f64>> {
        let sv: Vec<f64> = v.iter().map(|x| x.sqrt()).collect();
        let sq = self.cs.apply(self.q.view(), Some(&sv));
        let r = linalg::qr(sq.view())?.r;
        let t =
            linalg::solve_triangular(r.view(), self.g.view(), Triangle::Upper).map_err(|_| {
                Error::NotConverged {
                    algorithm: "sketched leverage scores (singular sketch)",
                    iterations: 0,
                    residual: f64::INFINITY,
                }
            })?;
        let z = self.q.dot(&t);
        Ok(z.axis_iter(Axis(0))
            .map(|c| c.iter().map(|x| x * x).sum())
            .collect())
    }
}

fn iterate(
    basis: &Basis,
    n: usize,
    p: f64,
    opts: &LewisOptions,
    oracle: &mut dyn Oracle,
) -> Result<LewisWeights> {
    let rank = basis.q.ncols();
    let m = basis.q.nrows();
    let eta = opts.damping.step(p);
    let expo = 1.0 - 2.0 / p;
    let mut logw = vec![(rank as f64 / m as f64).ln(); m];
    let mut residual = f64::INFINITY;
    let mut iterations = 0;
    loop {
        let v: Vec<f64> = logw.iter().map(|&l| (expo * l).exp()).collect();
        let sigma = if v.iter().all(|x| x.is_finite() && *x > 0.0) {
            oracle.scores(&v).ok()
        } else {
            None
        };
        let logg: Option<Vec<f64>> = sigma.and_then(|sig| {
            let lg: Vec<f64> = sig.iter().map(|&s| 0.5 * p * s.ln()).collect();
            lg.iter().all(|x| x.is_finite()).then_some(lg)
        });
        let Some(logg) = logg else {
            return Err(Error::NotConverged {
                algorithm: "Lewis weights (iterates left the positive reals)",
                iterations,
                residual,
            });
        };
        residual = logw
            .iter()
            .zip(&logg)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if residual <= opts.tol {
            break;
        }
        if iterations == opts.max_iter {
            return Err(Error::NotConverged {
                algorithm: "Lewis weights",
                iterations,
                residual,
            });
        }
        for (l, g) in logw.iter_mut().zip(&logg) {
            *l = (1.0 - eta) * *l + eta * g;
        }
        iterations += 1;
    }
    let mut w = Array1::zeros(n);
    for (k, &i) in basis.rows.iter().enumerate() {
        w[i] = logw[k].exp();
    }
    Ok(LewisWeights {
        w,
        p,
        rank,
        iterations,
        fixed_point_residual: residual,
        step: eta,
    })
}
