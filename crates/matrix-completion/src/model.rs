//! The deep matrix factorisation model `ŷᵢⱼ = b + f_θ((A₁A₂⋯A_L)ᵢⱼ)` and its
//! closed-form gradients on observed entries.

use crate::data::Observations;
use crate::error::{Error, Result};
use crate::kernel::{Entries, Operands, Outputs, batch_pass, full_passes, latent};
use crate::link::{Link, ScalarLink};
use mlcore::sampling::standard_normal;
use ndarray::{Array1, Array2, Axis};
use rand::Rng;

/// A depth-`L` factorisation `Z = A₁A₂⋯A_L` (`A₁ ∈ ℝ^{m×k}`, `A_l ∈ ℝ^{k×k}`,
/// `A_L ∈ ℝ^{k×n}`; at `L = 1` the single factor is `Z ∈ ℝ^{m×n}`), a scalar
/// link `f_θ` and a fixed offset `b`: predictions `ŷᵢⱼ = b + f_θ(Zᵢⱼ)`.
///
/// With [`Link::Identity`] this is the paper's Schatten model (deep matrix
/// factorisation); with [`Link::Monotone`] it is FRMC.
#[derive(Debug, Clone, PartialEq)]
pub struct DeepMf {
    factors: Vec<Array2<f64>>,
    link: Link,
    offset: f64,
}

/// Per-row and per-column penalty weights of the outer factors (the diagonals
/// of `D_r`, `D_c`); all ones for the unweighted model.
#[derive(Debug, Clone, PartialEq)]
pub struct PenaltyWeights {
    /// `diag(D_r)`, length m.
    pub rows: Array1<f64>,
    /// `diag(D_c)`, length n.
    pub cols: Array1<f64>,
}

impl PenaltyWeights {
    /// All-ones weights (the unweighted penalty). O(m + n).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `m + n` weights would exceed
    /// [`mlcore::check::MAX_ALLOC_BYTES`].
    pub fn uniform(m: usize, n: usize) -> Result<Self> {
        crate::error::check_alloc(&[m.saturating_add(n)], "penalty weights (m + n)")?;
        Ok(PenaltyWeights {
            rows: Array1::ones(m),
            cols: Array1::ones(n),
        })
    }

    /// The paper's weighted analogue (reconstructed): `D_r = diag(m·p̃)`,
    /// `D_c = diag(n·q̃)` from the smoothed empirical marginals of `obs`
    /// (`p̃ = (1 − ζ)p̂ + ζ/m`, likewise `q̃`). O(N + m + n).
    ///
    /// # Errors
    /// [`Error::InvalidSmoothing`] unless `ζ ∈ [0, 1]`.
    pub fn smoothed(obs: &Observations, zeta: f64) -> Result<Self> {
        let mg = obs.marginals().smoothed(zeta)?;
        let m = obs.rows() as f64;
        let n = obs.cols() as f64;
        Ok(PenaltyWeights {
            rows: mg.row.iter().map(|p| m * p).collect(),
            cols: mg.col.iter().map(|q| n * q).collect(),
        })
    }
}

/// The gradient of the training objective with respect to every factor and
/// the link parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient {
    /// `∂J/∂A_l`, same shapes as the factors.
    pub factors: Vec<Array2<f64>>,
    /// `∂J/∂θ`.
    pub link: Vec<f64>,
}

/// Cached products for the sparse passes: `P = A₁⋯A_{L−1}` (m×k) and
/// `Bᵀ = A_Lᵀ` (n×k), both row-major.
struct Cache {
    p: Array2<f64>,
    bt: Array2<f64>,
}

impl DeepMf {
    /// A model from given factors, link and offset.
    ///
    /// # Errors
    /// [`Error::InvalidDepth`] for no factor; [`Error::ShapeMismatch`] when the
    /// factors do not chain or are empty; [`Error::NonFiniteValue`] in a
    /// factor or the offset.
    pub fn new(factors: Vec<Array2<f64>>, link: Link, offset: f64) -> Result<Self> {
        if factors.is_empty() {
            return Err(Error::InvalidDepth { depth: 0 });
        }
        for w in factors.windows(2) {
            if w[0].ncols() != w[1].nrows() {
                return Err(Error::ShapeMismatch {
                    what: "factors",
                    expected: format!("a chain (next factor with {} rows)", w[0].ncols()),
                    got: format!("{:?} then {:?}", w[0].dim(), w[1].dim()),
                });
            }
        }
        for a in &factors {
            crate::error::check_finite_matrix(&a.view(), "factor")?;
        }
        if !offset.is_finite() {
            return Err(Error::NonFiniteValue {
                what: "offset",
                index: 0,
            });
        }
        Ok(DeepMf {
            factors,
            link,
            offset,
        })
    }

    /// Random initialisation: i.i.d. Gaussian factors with standard deviation
    /// `σ = s^{1/L} k^{−(L−1)/(2L)}` (`k` = width; at `L = 1` the m×n factor has
    /// `σ = s`), so that every entry of `Z` has standard deviation `s` =
    /// `init_scale` at initialisation. (Choice made here: the paper is silent.)
    ///
    /// # Errors
    /// [`Error::InvalidDepth`], [`Error::InvalidWidth`], [`Error::EmptyObservations`]
    /// for `m = 0` or `n = 0`, [`Error::InvalidParameter`] for a negative or
    /// non-finite `init_scale`; [`Error::TooLarge`] when the factors would
    /// exceed [`mlcore::check::MAX_ALLOC_BYTES`] (checked before allocating).
    #[allow(clippy::too_many_arguments)]
    pub fn random<R: Rng + ?Sized>(
        m: usize,
        n: usize,
        depth: usize,
        width: usize,
        init_scale: f64,
        link: Link,
        offset: f64,
        rng: &mut R,
    ) -> Result<Self> {
        if depth == 0 {
            return Err(Error::InvalidDepth { depth });
        }
        if width == 0 {
            return Err(Error::InvalidWidth { width });
        }
        if m == 0 || n == 0 {
            return Err(Error::EmptyObservations {
                what: "matrix dimensions",
            });
        }
        mlcore::check::non_negative(init_scale, "init_scale")?;
        if depth == 1 {
            crate::error::check_alloc(&[m, n], "the depth-1 factor (m × n)")?;
        } else {
            let outer = m.checked_add(n).ok_or_else(|| Error::TooLarge {
                what: "m + n",
                size: format!("{m} + {n} overflows usize"),
            })?;
            crate::error::check_alloc(&[outer, width], "outer factors ((m + n) × k)")?;
            crate::error::check_alloc(
                &[depth - 2, width, width],
                "middle factors ((L − 2) × k × k)",
            )?;
        }
        let factors = if depth == 1 {
            vec![standard_normal((m, n), rng) * init_scale]
        } else {
            let l = depth as f64;
            let sigma = init_scale.powf(1.0 / l) * (width as f64).powf(-(l - 1.0) / (2.0 * l));
            let mut f = Vec::with_capacity(depth);
            for t in 0..depth {
                let shape = match t {
                    0 => (m, width),
                    t if t == depth - 1 => (width, n),
                    _ => (width, width),
                };
                f.push(standard_normal(shape, rng) * sigma);
            }
            f
        };
        DeepMf::new(factors, link, offset)
    }

    /// Depth `L`.
    pub fn depth(&self) -> usize {
        self.factors.len()
    }

    /// Rows `m`.
    pub fn rows(&self) -> usize {
        self.factors[0].nrows()
    }

    /// Columns `n`.
    pub fn cols(&self) -> usize {
        self.factors[self.factors.len() - 1].ncols()
    }

    /// The factors `A₁, …, A_L`.
    pub fn factors(&self) -> &[Array2<f64>] {
        &self.factors
    }

    /// The link `f_θ`.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// The offset `b`.
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// The same factors and offset with another link (FRMC warm start from a
    /// trained Schatten model).
    pub fn with_link(mut self, link: Link) -> Self {
        self.link = link;
        self
    }

    /// The latent matrix `Z = A₁⋯A_L` (dense, m×n). O(m k² L + m n k).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the dense `m × n` matrix would exceed
    /// [`mlcore::check::MAX_ALLOC_BYTES`] (a model of a large sparse matrix
    /// is small, its latent matrix need not be).
    pub fn latent(&self) -> Result<Array2<f64>> {
        crate::error::check_alloc(&[self.rows(), self.cols()], "latent matrix (m × n)")?;
        Ok(self.latent_unchecked())
    }

    pub(crate) fn latent_unchecked(&self) -> Array2<f64> {
        let mut z = self.factors[0].clone();
        for a in &self.factors[1..] {
            z = z.dot(a);
        }
        z
    }

    /// The variational penalty `Σ_l ‖A_l‖_F²` (no λ), weighted by `w` if given:
    /// `‖D_r^{1/2}A₁‖² + Σ_{1<l<L}‖A_l‖² + ‖A_L D_c^{1/2}‖²`. O(Σ sizes).
    /// A sum of squares: `+∞` when the true value exceeds `f64::MAX`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for weights of the wrong lengths,
    /// [`Error::InvalidParameter`] for negative or non-finite weights.
    pub fn penalty(&self, w: Option<&PenaltyWeights>) -> Result<f64> {
        self.check_weights(w)?;
        Ok(self.penalty_unchecked(w))
    }

    pub(crate) fn penalty_unchecked(&self, w: Option<&PenaltyWeights>) -> f64 {
        let l = self.depth();
        let mut total = 0.0;
        for (t, a) in self.factors.iter().enumerate() {
            match w {
                None => total += a.iter().map(|v| v * v).sum::<f64>(),
                Some(w) => {
                    for (i, row) in a.outer_iter().enumerate() {
                        let ri = if t == 0 { w.rows[i] } else { 1.0 };
                        let s: f64 = if t == l - 1 {
                            row.iter().zip(w.cols.iter()).map(|(v, c)| c * v * v).sum()
                        } else {
                            row.iter().map(|v| v * v).sum()
                        };
                        total += ri * s;
                    }
                }
            }
        }
        total
    }

    fn cache(&self) -> Cache {
        let l = self.depth();
        let mut p = self.factors[0].clone();
        for a in &self.factors[1..l - 1] {
            p = p.dot(a);
        }
        Cache {
            p: p.as_standard_layout().into_owned(),
            bt: self.factors[l - 1].t().as_standard_layout().into_owned(),
        }
    }

    /// Latent values `Zᵢⱼ` at the given entries (unchecked indices), on
    /// `pool` or serially (bitwise the same).
    fn latent_at(
        &self,
        rows: &[u32],
        cols: &[u32],
        out: &mut Vec<f64>,
        pool: Option<&rayon::ThreadPool>,
    ) {
        out.clear();
        if self.depth() == 1 {
            let a = &self.factors[0];
            out.extend(
                rows.iter()
                    .zip(cols)
                    .map(|(&i, &j)| a[[i as usize, j as usize]]),
            );
            return;
        }
        let c = self.cache();
        let k = c.p.ncols();
        out.resize(rows.len(), 0.0);
        latent(
            (
                k,
                c.p.as_slice().expect("standard layout"),
                c.bt.as_slice().expect("standard layout"),
            ),
            rows,
            cols,
            out,
            pool,
        );
    }

    fn check_shape(&self, obs: &Observations) -> Result<()> {
        if obs.rows() != self.rows() || obs.cols() != self.cols() {
            return Err(Error::ShapeMismatch {
                what: "observations",
                expected: format!("a {} x {} matrix", self.rows(), self.cols()),
                got: format!("{} x {}", obs.rows(), obs.cols()),
            });
        }
        Ok(())
    }

    /// The prediction `b + f_θ(Zᵢⱼ)` at one entry. O(L k²) (O(1) at L = 1).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`].
    pub fn predict(&self, i: usize, j: usize) -> Result<f64> {
        let (m, n) = (self.rows(), self.cols());
        if i >= m || j >= n {
            return Err(Error::IndexOutOfBounds {
                row: i,
                col: j,
                rows: m,
                cols: n,
            });
        }
        // Row i of A₁⋯A_{L−1}, then its product with column j of A_L.
        let l = self.depth();
        let z = if l == 1 {
            self.factors[0][[i, j]]
        } else {
            let mut r = self.factors[0].row(i).to_owned();
            for a in &self.factors[1..l - 1] {
                r = r.dot(a);
            }
            r.dot(&self.factors[l - 1].column(j))
        };
        Ok(self.offset + self.link.value(z))
    }

    /// Predictions at every entry of `obs` (its values are ignored), clipped to
    /// `[lo, hi]` when `clip` is given. O(N k + m k² L).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `obs` is not `m × n`.
    pub fn predict_observed(
        &self,
        obs: &Observations,
        clip: Option<(f64, f64)>,
    ) -> Result<Vec<f64>> {
        self.predict_observed_on(obs, clip, None)
    }

    /// [`DeepMf::predict_observed`] on `pool` (bitwise the same).
    pub(crate) fn predict_observed_on(
        &self,
        obs: &Observations,
        clip: Option<(f64, f64)>,
        pool: Option<&rayon::ThreadPool>,
    ) -> Result<Vec<f64>> {
        self.check_shape(obs)?;
        let mut z = Vec::with_capacity(obs.len());
        self.latent_at(obs.row_indices(), obs.col_indices(), &mut z, pool);
        Ok(z.into_iter()
            .map(|z| {
                let y = self.offset + self.link.value(z);
                match clip {
                    Some((lo, hi)) => y.clamp(lo, hi),
                    None => y,
                }
            })
            .collect())
    }

    /// The training objective
    /// `J = (1/2N) Σ_{(i,j)∈Ω} (b + f_θ(Zᵢⱼ) − yᵢⱼ)² + λ·pen(A)`, with `pen` as in
    /// [`DeepMf::penalty`]. At the optimum over factorisations of a fixed `Z`
    /// the penalty equals `L·‖D_r^{1/2} Z D_c^{1/2}‖_{S_{2/L}}^{2/L}`.
    ///
    /// # Errors
    /// As [`DeepMf::objective_and_gradient`].
    pub fn objective(
        &self,
        obs: &Observations,
        lambda: f64,
        w: Option<&PenaltyWeights>,
    ) -> Result<f64> {
        crate::error::check_lambda(lambda)?;
        self.check_shape(obs)?;
        self.check_weights(w)?;
        let mut z = Vec::new();
        self.latent_at(obs.row_indices(), obs.col_indices(), &mut z, None);
        let fit: f64 = z
            .iter()
            .zip(obs.values())
            .map(|(&z, &y)| (self.offset + self.link.value(z) - y).powi(2))
            .sum::<f64>()
            / (2.0 * obs.len() as f64);
        Ok(fit + lambda * self.penalty_unchecked(w))
    }

    fn check_weights(&self, w: Option<&PenaltyWeights>) -> Result<()> {
        if let Some(w) = w {
            if w.rows.len() != self.rows() || w.cols.len() != self.cols() {
                return Err(Error::ShapeMismatch {
                    what: "penalty weights",
                    expected: format!("lengths ({}, {})", self.rows(), self.cols()),
                    got: format!("({}, {})", w.rows.len(), w.cols.len()),
                });
            }
            if let Some(&v) = w
                .rows
                .iter()
                .chain(w.cols.iter())
                .find(|v| !(v.is_finite() && **v >= 0.0))
            {
                return Err(Error::InvalidParameter {
                    name: "penalty weights",
                    value: v,
                    expected: "finite and >= 0",
                });
            }
        }
        Ok(())
    }

    /// The objective `J` (see [`DeepMf::objective`]) and its closed-form
    /// gradient, from the observed entries only.
    ///
    /// With `gᵢⱼ = (1/N)(ŷᵢⱼ − yᵢⱼ) f_θ'(Zᵢⱼ)` forming the sparse matrix `G`:
    /// `∂J/∂A_l = (A₁⋯A_{l−1})ᵀ G (A_{l+1}⋯A_L)ᵀ + 2λ A_l` (with `D_r A₁`,
    /// `A_L D_c` in the outer penalty terms), computed as `S = G A_Lᵀ` (m×k) and
    /// `T = Gᵀ(A₁⋯A_{L−1})` (n×k) in one pass each over Ω, then small dense
    /// products; `∂J/∂θ = (1/N) Σ (ŷ − y) ∂f_θ/∂θ`.
    /// Cost O(N k + (m + n) k² L) — never a dense m×n mask (except at `L = 1`,
    /// where the factor itself is m×n).
    ///
    /// # Errors
    /// [`Error::InvalidLambda`]; [`Error::ShapeMismatch`] when `obs` or `w`
    /// does not match the model; [`Error::InvalidParameter`] for negative weights.
    pub fn objective_and_gradient(
        &self,
        obs: &Observations,
        lambda: f64,
        w: Option<&PenaltyWeights>,
    ) -> Result<(f64, Gradient)> {
        crate::error::check_lambda(lambda)?;
        self.check_shape(obs)?;
        self.check_weights(w)?;
        Ok(self.grad_impl(obs, None, lambda, w, None).0)
    }

    /// Gradient on all of `obs` (when `batch` is None) or on the entries at
    /// positions `batch`. Returns ((objective, gradient), sum of squared residuals).
    pub(crate) fn grad_impl(
        &self,
        obs: &Observations,
        batch: Option<&[usize]>,
        lambda: f64,
        w: Option<&PenaltyWeights>,
        pool: Option<&rayon::ThreadPool>,
    ) -> ((f64, Gradient), f64) {
        let l = self.depth();
        let (m, n) = (self.rows(), self.cols());
        let (ri, ci, yv) = (obs.row_indices(), obs.col_indices(), obs.values());
        let count = batch.map_or(obs.len(), |b| b.len());
        let inv_n = 1.0 / count as f64;
        let mut link_grad = vec![0.0; self.link.num_params()];
        let has_params = !link_grad.is_empty();
        let mut zs: Vec<f64> = Vec::with_capacity(if has_params { count } else { 0 });
        let mut scales: Vec<f64> = Vec::with_capacity(if has_params { count } else { 0 });
        let mut sse = 0.0;
        let mut grads: Vec<Array2<f64>> = Vec::with_capacity(l);
        let entry = |t: usize| batch.map_or(t, |b| b[t]);
        if l == 1 {
            let a = &self.factors[0];
            let mut g = Array2::<f64>::zeros((m, n));
            for t in 0..count {
                let e = entry(t);
                let (i, j) = (ri[e] as usize, ci[e] as usize);
                let z = a[[i, j]];
                let r = self.offset + self.link.value(z) - yv[e];
                sse += r * r;
                g[[i, j]] += inv_n * r * self.link.dvalue(z);
                if has_params {
                    zs.push(z);
                    scales.push(inv_n * r);
                }
            }
            grads.push(g);
        } else {
            let c = self.cache();
            let k = c.p.ncols();
            let mut s = Array2::<f64>::zeros((m, k));
            let mut tt = Array2::<f64>::zeros((n, k));
            {
                // Full batch: a row pass over the entries in (row, col) order (S
                // rows written in order, Bᵀ rows read at random) that stores gᵢⱼ,
                // then a column pass over the CSC index (T rows written in order,
                // P rows read at random) that reads gᵢⱼ back: no second dot
                // product, no gather of values. Both run over fixed blocks, on
                // `pool` or serially, bitwise the same (see `kernel`).
                // Mini-batches: one serial pass.
                let op = Operands {
                    link: &self.link,
                    offset: self.offset,
                    inv_n,
                    k,
                    p: c.p.as_slice().expect("standard layout"),
                    bt: c.bt.as_slice().expect("standard layout"),
                };
                let ss = s.as_slice_mut().expect("standard layout");
                let ts = tt.as_slice_mut().expect("standard layout");
                sse = match batch {
                    None => {
                        let mut g = vec![0.0; count];
                        if has_params {
                            zs.resize(count, 0.0);
                            scales.resize(count, 0.0);
                        }
                        full_passes(
                            &op,
                            &Entries {
                                rows: ri,
                                cols: ci,
                                values: yv,
                                csc: obs.csc(),
                                blocks: obs.blocks(),
                            },
                            Outputs {
                                s: ss,
                                t: ts,
                                g: &mut g,
                                link_terms: has_params.then_some((&mut zs[..], &mut scales[..])),
                            },
                            pool,
                        )
                    }
                    Some(b) => batch_pass(
                        &op,
                        (ri, ci, yv),
                        b,
                        (ss, ts),
                        has_params.then_some((&mut zs, &mut scales)),
                    ),
                };
            }
            // suffix[t] = A_{t+1}⋯A_{L−2} (product of middle factors after t), k×k.
            let mid_end = l - 1; // factors[1..l-1] are the middle ones
            let mut suffix: Vec<Array2<f64>> = vec![Array2::eye(k); l - 1];
            for t in (0..l - 2).rev() {
                suffix[t] = self.factors[t + 1].dot(&suffix[t + 1]);
            }
            // A₁ gradient: S (A₂⋯A_{L−1})ᵀ.
            grads.push(s.dot(&suffix[0].t()));
            // Middle: (A₁⋯A_{t})ᵀ S (A_{t+2}⋯A_{L−1})ᵀ, prefix built incrementally.
            let mut prefix = self.factors[0].clone();
            for (suf, a) in suffix[1..mid_end].iter().zip(&self.factors[1..mid_end]) {
                let left = prefix.t().dot(&s); // k×k
                grads.push(left.dot(&suf.t()));
                prefix = prefix.dot(a);
            }
            // A_L gradient: Tᵀ.
            grads.push(tt.t().to_owned());
        }
        if has_params {
            // Lengths agree by construction (link_grad has num_params entries,
            // zs and scales one per entry), so this cannot fail.
            let _ = self
                .link
                .add_grad_params_batch(&zs, &scales, &mut link_grad);
        }
        // Penalty.
        let pen = self.penalty_unchecked(w);
        if lambda > 0.0 {
            for (t, (g, a)) in grads.iter_mut().zip(&self.factors).enumerate() {
                match w {
                    None => g.scaled_add(2.0 * lambda, a),
                    Some(w) => {
                        let mut wa = a.clone();
                        if t == 0 {
                            wa *= &w.rows.view().insert_axis(Axis(1));
                        }
                        if t == l - 1 {
                            wa *= &w.cols.view().insert_axis(Axis(0));
                        }
                        g.scaled_add(2.0 * lambda, &wa);
                    }
                }
            }
        }
        let obj = sse * inv_n * 0.5 + lambda * pen;
        (
            (
                obj,
                Gradient {
                    factors: grads,
                    link: link_grad,
                },
            ),
            sse,
        )
    }

    pub(crate) fn factors_mut(&mut self) -> &mut [Array2<f64>] {
        &mut self.factors
    }

    pub(crate) fn link_mut(&mut self) -> &mut Link {
        &mut self.link
    }

    /// The learned link as a table `(z, f_θ(z))` at `points` equally spaced
    /// values in `[lo, hi]` (for printing a calibration curve). O(points).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `lo < hi` are finite (with a finite
    /// `hi − lo`) and `2 ≤ points ≤ 2²⁰`.
    pub fn link_table(&self, lo: f64, hi: f64, points: usize) -> Result<Vec<(f64, f64)>> {
        if !(lo.is_finite() && hi.is_finite() && lo < hi && (hi - lo).is_finite()) {
            return Err(Error::InvalidParameter {
                name: "lo",
                value: lo,
                expected: "finite, below a finite hi, with hi − lo finite",
            });
        }
        if !(2..=1 << 20).contains(&points) {
            return Err(Error::InvalidParameter {
                name: "points",
                value: points as f64,
                expected: "in [2, 2^20]",
            });
        }
        Ok((0..points)
            .map(|t| {
                let z = lo + (hi - lo) * t as f64 / (points - 1) as f64;
                (z, self.link.value(z))
            })
            .collect())
    }

    /// Singular values of the latent matrix `Z` (dense SVD; diagnostics).
    ///
    /// # Errors
    /// As [`DeepMf::latent`]; SVD failure.
    pub fn singular_values(&self) -> Result<Array1<f64>> {
        Ok(mlcore::linalg::svd(self.latent()?.view())?.s)
    }
}
