//! Tensor helpers whose backward passes stay on candle's fast kernels.
//!
//! candle reduces the gradient of a broadcast operand with `sum_keepdim`
//! over the broadcast dimensions; unless those are the trailing dimensions
//! its CPU kernel computes a `divmod` chain per element (on the digits ViT
//! 30 % of a training step went there). Here a batched input is flattened
//! to `M × I` and multiplied by the 2-D weight (one GEMM instead of a
//! broadcast batch of small ones, whose weight gradient is another such
//! reduction), and a row vector `b` is broadcast as the rank-one product
//! `1_M bᵀ`, whose gradient `1_Mᵀ G` is again a GEMM. The forward values are
//! the same (`1·b_j` is exact).

use candle_core::{D, Tensor, Var};

/// `1_M bᵀ`: the `M × len(b)` matrix with every row `b` (any rank of `b`
/// is flattened). O(M·len(b)).
pub(crate) fn rows_of(b: &Tensor, m: usize) -> candle_core::Result<Tensor> {
    let ones = Tensor::ones((m, 1), b.dtype(), b.device())?;
    ones.matmul(&b.reshape((1, b.elem_count()))?)
}

/// `x Wᵀ + b` over the last dimension of `x` (`… × I`, `W` is `O × I`).
/// O(M·I·O) for `M` rows.
pub(crate) fn linear(
    x: &Tensor,
    (w, b): (&Tensor, Option<&Tensor>),
) -> candle_core::Result<Tensor> {
    let dims = x.dims();
    let i = *dims.last().unwrap_or(&0);
    let m = x.elem_count() / i.max(1);
    let o = w.dim(0)?;
    let x2 = x.contiguous()?.reshape((m, i))?;
    let mut y = x2.matmul(&w.t()?)?;
    if let Some(b) = b {
        y = (y + rows_of(b, m)?)?;
    }
    let mut out = dims.to_vec();
    if let Some(last) = out.last_mut() {
        *last = o;
    }
    y.reshape(out)
}

/// [`linear`] with a `(weight, bias)` pair of variables.
pub(crate) fn linear_vars(x: &Tensor, (w, b): &(Var, Var)) -> candle_core::Result<Tensor> {
    linear(x, (w.as_tensor(), Some(b.as_tensor())))
}

/// Layer normalisation over the last dimension with gain `g` and shift `b`
/// (`ε = 1e-5`). O(M·C).
pub(crate) fn layer_norm(x: &Tensor, (g, b): &(Var, Var)) -> candle_core::Result<Tensor> {
    let dims = x.dims().to_vec();
    let c = *dims.last().unwrap_or(&0);
    let m = x.elem_count() / c.max(1);
    let x2 = x.contiguous()?.reshape((m, c))?;
    let mean = x2.mean_keepdim(D::Minus1)?;
    let xc = x2.broadcast_sub(&mean)?;
    let var = xc.sqr()?.mean_keepdim(D::Minus1)?;
    let xn = xc.broadcast_div(&(var + 1e-5)?.sqrt()?)?;
    ((xn * rows_of(g.as_tensor(), m)?)? + rows_of(b.as_tensor(), m)?)?.reshape(dims)
}
