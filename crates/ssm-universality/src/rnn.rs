//! The linear diagonal recurrence `x_k = Λ x_{k−1} + B̃ v_k`, `x₀ = 0`
//! (paper §2), with `B̃ = diag(γ) B` under the LRU normalisation
//! `γ = √(1 − |λ|²)` and `B̃ = B` without it, and the `N = L·M` block
//! construction of §3 ("M groups of L states, group m reads channel m").

use crate::C64;
use crate::error::{Error, Result};
use crate::spectrum::{Spectrum, check_lambda};
use ndarray::{Array1, Array2, ArrayView2};
use rand::Rng;

/// A diagonal linear recurrence with complex eigenvalues `Λ = diag(λ)` and
/// input matrix `B ∈ ℂ^{N×M}`.
///
/// Unrolled, `x_k = Σ_{j=0}^{k−1} Λ^j B̃ v_{k−j}`: for `M = 1`,
/// `x_k = diag(b̃) V_k (v_k, …, v₁)ᵀ` with the Vandermonde matrix
/// `(V_k)_{ij} = λ_i^j` ([`crate::vandermonde`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DiagLinearRnn {
    lambda: Vec<C64>,
    b: Array2<C64>,
    gamma_norm: bool,
    /// The columns of `B̃ = diag(γ) B`, each of length `N`.
    b_cols: Vec<Vec<C64>>,
}

fn check_b(lambda: &[C64], b: &ArrayView2<'_, C64>) -> Result<()> {
    if b.nrows() != lambda.len() {
        return Err(Error::DimensionMismatch {
            what: "rows of B (= N)",
            expected: lambda.len(),
            got: b.nrows(),
        });
    }
    if b.ncols() == 0 {
        return Err(Error::EmptySequence {
            what: "B's columns (M = 0)",
        });
    }
    if b.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
        return Err(Error::NonFinite { what: "B" });
    }
    Ok(())
}

impl DiagLinearRnn {
    /// A recurrence in stable mode: every `|λᵢ| ≤ 1`. With `gamma_norm`, the
    /// effective input matrix is `diag(√(1 − |λ|²)) B`. O(NM).
    ///
    /// # Errors
    /// [`Error::EmptySequence`] (no eigenvalue, `M = 0`), [`Error::NonFinite`],
    /// [`Error::DimensionMismatch`] (`B` not `N × M`), [`Error::UnstableEigenvalue`].
    pub fn new(lambda: Vec<C64>, b: Array2<C64>, gamma_norm: bool) -> Result<Self> {
        check_lambda(&lambda, true)?;
        Self::build(lambda, b, gamma_norm)
    }

    /// A recurrence that may be unstable (`|λ| > 1` allowed, states may grow
    /// like `|λ|^L`; non-finite states are reported as [`Error::NonFinite`]).
    ///
    /// # Errors
    /// As [`DiagLinearRnn::new`]; [`Error::UnstableEigenvalue`] only when
    /// `gamma_norm` is set and some `|λ| > 1` (γ would not be real).
    pub fn new_unchecked_stability(
        lambda: Vec<C64>,
        b: Array2<C64>,
        gamma_norm: bool,
    ) -> Result<Self> {
        check_lambda(&lambda, gamma_norm)?;
        Self::build(lambda, b, gamma_norm)
    }

    fn build(lambda: Vec<C64>, b: Array2<C64>, gamma_norm: bool) -> Result<Self> {
        check_b(&lambda, &b.view())?;
        let b_cols = (0..b.ncols())
            .map(|m| {
                lambda
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let g = if gamma_norm {
                            (1.0 - l.norm_sqr()).max(0.0).sqrt()
                        } else {
                            1.0
                        };
                        b[[i, m]] * g
                    })
                    .collect()
            })
            .collect();
        Ok(DiagLinearRnn {
            lambda,
            b,
            gamma_norm,
            b_cols,
        })
    }

    /// A single-input recurrence (`M = 1`) with `b = 1`, eigenvalues drawn from `spectrum`. O(N).
    ///
    /// # Errors
    /// Those of [`Spectrum::sample`].
    pub fn from_spectrum(
        spectrum: &Spectrum,
        n: usize,
        gamma_norm: bool,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        let lambda = spectrum.sample(n, rng)?;
        let b = Array2::from_elem((n, 1), C64::new(1.0, 0.0));
        Self::new(lambda, b, gamma_norm)
    }

    /// The `N = L·M` construction: `M` groups of `L` states, group `m` with
    /// the eigenvalues `lambda_group` (length `L`) reading only channel `m`
    /// (`B[m·L + i, m] = 1`, zero elsewhere). With pairwise-distinct
    /// `lambda_group`, the map from `L` steps of `M` channels to `x_L` is
    /// injective. O(L·M²).
    ///
    /// # Errors
    /// As [`DiagLinearRnn::new`]; [`Error::ZeroWidth`] when `M = 0`;
    /// allocation limits on `L·M`.
    pub fn block_for_channels(lambda_group: &[C64], m: usize, gamma_norm: bool) -> Result<Self> {
        check_lambda(lambda_group, true)?;
        if m == 0 {
            return Err(Error::ZeroWidth {
                what: "M (channels)",
            });
        }
        let l = lambda_group.len();
        let n = l.checked_mul(m).ok_or(Error::InvalidParameter {
            name: "L·M",
            value: f64::INFINITY,
            expected: "L·M fits in usize",
        })?;
        mlcore::check::alloc_len(&[n, m], 16, "block input matrix")?;
        let mut b = Array2::from_elem((n, m), C64::new(0.0, 0.0));
        let mut lambda = Vec::with_capacity(n);
        for c in 0..m {
            for (i, &z) in lambda_group.iter().enumerate() {
                b[[c * l + i, c]] = C64::new(1.0, 0.0);
                lambda.push(z);
            }
        }
        Self::new(lambda, b, gamma_norm)
    }

    /// The eigenvalues `λ`.
    pub fn lambda(&self) -> &[C64] {
        &self.lambda
    }

    /// The input matrix `B` as given (before `γ`).
    pub fn b(&self) -> &Array2<C64> {
        &self.b
    }

    /// The effective input matrix `B̃ = diag(γ) B` (or `B`). O(NM).
    pub fn b_effective(&self) -> Array2<C64> {
        Array2::from_shape_fn((self.n(), self.m()), |(i, m)| self.b_cols[m][i])
    }

    /// Whether the LRU normalisation `γ = √(1 − |λ|²)` is applied.
    pub fn gamma_norm(&self) -> bool {
        self.gamma_norm
    }

    /// The state width `N`.
    pub fn n(&self) -> usize {
        self.lambda.len()
    }

    /// The input width `M`.
    pub fn m(&self) -> usize {
        self.b_cols.len()
    }

    fn check_input(&self, v: &ArrayView2<'_, f64>) -> Result<()> {
        if v.nrows() == 0 {
            return Err(Error::EmptySequence {
                what: "input sequence",
            });
        }
        if v.ncols() != self.m() {
            return Err(Error::DimensionMismatch {
                what: "input channels (M)",
                expected: self.m(),
                got: v.ncols(),
            });
        }
        if v.iter().any(|x| !x.is_finite()) {
            return Err(Error::NonFinite {
                what: "input sequence",
            });
        }
        Ok(())
    }

    /// Scans the states `lo..hi` over all `L` steps, appending each step's
    /// `hi − lo` states to `out` (row-major `L × (hi − lo)`). Returns `false`
    /// when a state overflows. One pass over a cache-resident row per step;
    /// the output is written once.
    fn scan_block(
        &self,
        v: &ArrayView2<'_, f64>,
        lo: usize,
        hi: usize,
        out: &mut Vec<C64>,
    ) -> bool {
        let lam = &self.lambda[lo..hi];
        let mut prev = vec![C64::new(0.0, 0.0); hi - lo];
        let first = &self.b_cols[0][lo..hi];
        for k in 0..v.nrows() {
            let v0 = v[[k, 0]];
            for ((x, &l), &b) in prev.iter_mut().zip(lam).zip(first) {
                *x = l * *x + b * v0;
            }
            for (mc, col) in self.b_cols.iter().enumerate().skip(1) {
                let vk = v[[k, mc]];
                for (x, &b) in prev.iter_mut().zip(&col[lo..hi]) {
                    *x += b * vk;
                }
            }
            if prev.iter().any(|z| !(z.re.is_finite() && z.im.is_finite())) {
                return false;
            }
            out.extend_from_slice(&prev);
        }
        true
    }

    /// All states `x_1 … x_L` of the input `v` (`L × M`, row `k−1` = `v_k`),
    /// as an `L × N` array (row `k−1` = `x_k`). O(N·L·M) time, O(N·L) memory.
    ///
    /// The scan keeps one row of `N` states in cache and writes each step's
    /// row once. With the `parallel` feature and wide problems (`N ≥ 512`,
    /// `N·L·M ≥ 2¹⁸`), blocks of 256 states are scanned on rayon's pool and
    /// assembled; each state's arithmetic is the same in both paths, so the
    /// result is bit-identical to the serial run.
    ///
    /// # Errors
    /// [`Error::EmptySequence`], [`Error::DimensionMismatch`] (`v` not `L × M`),
    /// [`Error::NonFinite`] (input, or states that overflow in unstable mode);
    /// allocation limits on `L·N`.
    pub fn states(&self, v: ArrayView2<'_, f64>) -> Result<Array2<C64>> {
        self.check_input(&v)?;
        let (l, n) = (v.nrows(), self.n());
        let len = mlcore::check::alloc_len(&[l, n], 16, "states")?;
        let overflow = Error::NonFinite {
            what: "states (overflow)",
        };
        #[cfg(feature = "parallel")]
        if n >= 512 && (l * n).saturating_mul(self.m()) >= 1 << 18 {
            use rayon::prelude::*;
            const BLOCK: usize = 256;
            let ranges: Vec<(usize, usize)> = (0..n)
                .step_by(BLOCK)
                .map(|lo| (lo, (lo + BLOCK).min(n)))
                .collect();
            let blocks: Vec<Option<Vec<C64>>> = ranges
                .par_iter()
                .map(|&(lo, hi)| {
                    let mut b = Vec::with_capacity(l * (hi - lo));
                    self.scan_block(&v, lo, hi, &mut b).then_some(b)
                })
                .collect();
            let mut out = Vec::with_capacity(len);
            for k in 0..l {
                for (&(lo, hi), blk) in ranges.iter().zip(&blocks) {
                    let blk = blk.as_ref().ok_or(overflow.clone())?;
                    let w = hi - lo;
                    out.extend_from_slice(&blk[k * w..(k + 1) * w]);
                }
            }
            return Array2::from_shape_vec((l, n), out).map_err(|_| overflow);
        }
        let mut out = Vec::with_capacity(len);
        if !self.scan_block(&v, 0, n, &mut out) {
            return Err(overflow);
        }
        Array2::from_shape_vec((l, n), out).map_err(|_| overflow)
    }

    /// The final state `x_L` alone. O(N·L·M) time, O(N) memory.
    ///
    /// # Errors
    /// As [`DiagLinearRnn::states`].
    pub fn final_state(&self, v: ArrayView2<'_, f64>) -> Result<Array1<C64>> {
        self.check_input(&v)?;
        let mut x = vec![C64::new(0.0, 0.0); self.n()];
        for row in v.rows() {
            for (xi, &l) in x.iter_mut().zip(&self.lambda) {
                *xi *= l;
            }
            for (col, &vk) in self.b_cols.iter().zip(row.iter()) {
                for (xi, &bv) in x.iter_mut().zip(col) {
                    *xi += bv * vk;
                }
            }
        }
        if x.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
            return Err(Error::NonFinite {
                what: "final state (overflow)",
            });
        }
        Ok(Array1::from(x))
    }
}

/// The real features `[Re x, Im x]` of complex states (`T × N` → `T × 2N`). O(TN).
pub fn real_features(states: ArrayView2<'_, C64>) -> Array2<f64> {
    let (t, n) = states.dim();
    Array2::from_shape_fn((t, 2 * n), |(k, j)| {
        if j < n {
            states[[k, j]].re
        } else {
            states[[k, j - n]].im
        }
    })
}
