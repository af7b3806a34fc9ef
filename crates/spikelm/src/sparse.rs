//! The spike-sparse product: a layer fed with ternary spikes adds and
//! subtracts weight rows instead of multiplying.
//!
//! For spikes `S = α·Q` with `Q ∈ {−1, 0, 1}^{n×d_in}` and weights
//! `W ∈ ℝ^{d_in×d_out}`,
//!
//! ```text
//! (S·W)_{r,:} = α·( Σ_{j: Q_rj = +1} W_{j,:} − Σ_{j: Q_rj = −1} W_{j,:} )
//! ```
//!
//! costs `nnz(Q)·d_out` additions (ACs) and `n·d_out` multiplies by `α`,
//! against `n·d_in·d_out` multiply–adds for the dense GEMM: it wins below a
//! break-even firing rate (measured in docs/perf.md).

use crate::error::{Error, Result};
use ndarray::{Array2, ArrayView2};

/// Ternary spikes `α·Q` stored as, per row, the columns of `+1` then of `−1`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpikeMatrix {
    rows: usize,
    cols: usize,
    alpha: f32,
    /// Row `r`'s positive columns are `idx[start[r]..split[r]]`, its negative ones `idx[split[r]..start[r+1]]`.
    start: Vec<usize>,
    split: Vec<usize>,
    idx: Vec<u32>,
}

impl SpikeMatrix {
    /// Compresses a dense spike matrix whose entries are exactly `−α`, `0`
    /// (either sign) or `+α`. O(n·d_in).
    ///
    /// # Errors
    /// [`Error::NonPositiveAlpha`] for `α` not finite and positive;
    /// [`Error::Empty`] for no rows or columns; [`Error::NotASpike`] naming
    /// the first other value; [`Error::ShapeMismatch`] for more than `u32::MAX` columns.
    pub fn from_dense(s: ArrayView2<'_, f32>, alpha: f32) -> Result<Self> {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(Error::NonPositiveAlpha { t: 0 });
        }
        let (rows, cols) = s.dim();
        if rows == 0 || cols == 0 {
            return Err(Error::Empty("spike matrix"));
        }
        if u32::try_from(cols).is_err() {
            return Err(Error::ShapeMismatch {
                what: "spike matrix",
                expected: "at most u32::MAX columns".into(),
                got: cols.to_string(),
            });
        }
        let mut start = Vec::with_capacity(rows + 1);
        let mut split = Vec::with_capacity(rows);
        let mut idx = Vec::new();
        let mut neg = Vec::new();
        for (r, row) in s.rows().into_iter().enumerate() {
            start.push(idx.len());
            neg.clear();
            for (j, &v) in row.iter().enumerate() {
                if v == alpha {
                    idx.push(j as u32);
                } else if v == -alpha {
                    neg.push(j as u32);
                } else if v != 0.0 {
                    return Err(Error::NotASpike {
                        index: r * cols + j,
                        value: v,
                        alpha,
                    });
                }
            }
            split.push(idx.len());
            idx.extend_from_slice(&neg);
        }
        start.push(idx.len());
        Ok(SpikeMatrix {
            rows,
            cols,
            alpha,
            start,
            split,
            idx,
        })
    }

    /// Rows `n`.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns `d_in`.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The amplitude `α`.
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// Non-zero spikes.
    pub fn nnz(&self) -> usize {
        self.idx.len()
    }

    /// Firing rate `nnz/(n·d_in)`.
    pub fn rate(&self) -> f64 {
        self.nnz() as f64 / (self.rows as f64 * self.cols as f64)
    }

    /// The product `S·W` by accumulating `±W` rows, then one multiply by
    /// `α` per output. O(nnz·d_out + n·d_out); the result equals the dense
    /// product up to the order of floating-point additions.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `W` has not `d_in` rows or has no
    /// column; [`Error::NonFinite`] for a NaN or infinite weight;
    /// [`mlcore::Error`] when `n·d_out` is too large to allocate.
    pub fn matmul(&self, w: ArrayView2<'_, f32>) -> Result<Array2<f32>> {
        let (d_in, d_out) = w.dim();
        if d_in != self.cols || d_out == 0 {
            return Err(Error::ShapeMismatch {
                what: "weights",
                expected: format!("[{}, ≥ 1]", self.cols),
                got: format!("[{d_in}, {d_out}]"),
            });
        }
        if w.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite("weights"));
        }
        let len = mlcore::check::alloc_len(&[self.rows, d_out], 4, "spike product")?;
        let w = w.as_standard_layout();
        let flat = w.as_slice().ok_or(Error::ShapeMismatch {
            what: "weights",
            expected: "a contiguous array".into(),
            got: "a strided view".into(),
        })?;
        let mut out = vec![0f32; len];
        for (r, acc) in out.chunks_exact_mut(d_out).enumerate() {
            for &j in &self.idx[self.start[r]..self.split[r]] {
                let wr = &flat[j as usize * d_out..(j as usize + 1) * d_out];
                for (a, &b) in acc.iter_mut().zip(wr) {
                    *a += b;
                }
            }
            for &j in &self.idx[self.split[r]..self.start[r + 1]] {
                let wr = &flat[j as usize * d_out..(j as usize + 1) * d_out];
                for (a, &b) in acc.iter_mut().zip(wr) {
                    *a -= b;
                }
            }
            for a in acc.iter_mut() {
                *a *= self.alpha;
            }
        }
        Array2::from_shape_vec((self.rows, d_out), out).map_err(|e| Error::ShapeMismatch {
            what: "spike product",
            expected: format!("[{}, {d_out}]", self.rows),
            got: e.to_string(),
        })
    }
}
