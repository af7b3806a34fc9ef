//! Seeded initialisers and dropout masks, drawn on the host from the caller's RNG.
//!
//! candle's CPU random number generator cannot be seeded (`Device::set_seed`
//! fails on the CPU device; `Tensor::randn`, `VarMap`'s default
//! initialisation and `candle_nn::Dropout` draw from a thread RNG), so a
//! training run that uses them cannot be repeated. Every function here draws
//! its numbers from `rng: &mut impl Rng` (tests and examples seed a
//! `ChaCha8Rng`), in row-major order, in `f64`, and rounds them once to `f32`:
//! the same seed gives the same tensor on every machine and thread count.
//! Parameters whose draws leave the `f32` range are an
//! [`Error::InvalidParameter`].
//!
//! Shapes follow candle's and PyTorch's convention for weights: `[out, in]`
//! for a linear layer, `[out, in, k₁, k₂, …]` for a convolution, so that
//! `fan_in = in·k₁·k₂⋯` and `fan_out = out·k₁·k₂⋯` ([`fans`]).

use crate::error::{Error, Result};
use candle_core::{Device, Tensor};
use mlcore::check;
use ndarray::Array2;
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// The recommended gain of ReLU layers, `√2` (He et al., 2015; PyTorch's `calculate_gain("relu")`).
pub const RELU_GAIN: f64 = std::f64::consts::SQRT_2;

/// The number of elements of `shape`, checked against overflow and the allocation cap.
fn numel(shape: &[usize]) -> Result<usize> {
    if shape.is_empty() || shape.contains(&0) {
        return Err(Error::Empty { what: "shape" });
    }
    Ok(check::alloc_len(shape, 8, "shape")?)
}

fn finite_param(value: f64, name: &'static str) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            expected: "a finite value",
        })
    }
}

fn positive_param(value: f64, name: &'static str) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            expected: "a finite value > 0",
        })
    }
}

/// Rounds to `f32` (the training precision) and checks the range.
fn to_tensor(values: Vec<f64>, shape: &[usize], device: &Device) -> Result<Tensor> {
    let v: Vec<f32> = values.into_iter().map(|x| x as f32).collect();
    if let Some(&bad) = v.iter().find(|x| !x.is_finite()) {
        return Err(Error::InvalidParameter {
            name: "initial value",
            value: f64::from(bad),
            expected: "within the f32 range (reduce the mean, scale or gain)",
        });
    }
    Ok(Tensor::from_vec(v, shape, device)?)
}

/// `(fan_in, fan_out)` of a weight of this shape: for `[out, in, k…]`,
/// `fan_in = in·Πk`, `fan_out = out·Πk` (PyTorch's `_calculate_fan_in_and_fan_out`).
///
/// # Errors
/// [`Error::InvalidParameter`] for fewer than two dimensions (its value is
/// the number of dimensions), [`Error::Empty`] for a zero dimension,
/// [`Error::Core`] when the product overflows.
pub fn fans(shape: &[usize]) -> Result<(usize, usize)> {
    if shape.len() < 2 {
        return Err(Error::InvalidParameter {
            name: "number of dimensions of the weight",
            value: shape.len() as f64,
            expected: "at least 2 ([out, in, …])",
        });
    }
    numel(shape)?;
    let receptive: usize = shape[2..].iter().product();
    Ok((shape[1] * receptive, shape[0] * receptive))
}

/// Independent draws `N(mean, std²)` of the given shape, as an `f32` tensor.
/// O(numel).
///
/// # Errors
/// [`Error::Empty`] for an empty shape, [`Error::InvalidParameter`] for a
/// non-finite `mean` or `std ≤ 0`, [`Error::Core`] when the size overflows.
pub fn normal<R: Rng + ?Sized>(
    shape: &[usize],
    mean: f64,
    std: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    finite_param(mean, "mean")?;
    positive_param(std, "std")?;
    let n = numel(shape)?;
    let v = (0..n)
        .map(|_| mean + std * rng.sample::<f64, _>(StandardNormal))
        .collect();
    to_tensor(v, shape, device)
}

/// Independent draws `U[low, high)` of the given shape, as an `f32` tensor:
/// `low + (high − low)·u` with `u` the RNG's uniform `f64` in `[0, 1)`. O(numel).
///
/// # Errors
/// [`Error::Empty`], [`Error::InvalidParameter`] unless `low < high` are
/// finite, [`Error::Core`] when the size overflows.
pub fn uniform<R: Rng + ?Sized>(
    shape: &[usize],
    low: f64,
    high: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    finite_param(low, "low")?;
    finite_param(high, "high")?;
    if low >= high || !(high - low).is_finite() {
        return Err(Error::InvalidParameter {
            name: "high - low",
            value: high - low,
            expected: "a finite value > 0",
        });
    }
    let n = numel(shape)?;
    let v = (0..n)
        .map(|_| low + (high - low) * rng.random::<f64>())
        .collect();
    to_tensor(v, shape, device)
}

/// Xavier/Glorot uniform (Glorot & Bengio, 2010):
/// `U[−a, a)`, `a = gain·√(6 / (fan_in + fan_out))`. O(numel).
///
/// # Errors
/// As [`fans`] and [`uniform`]; `gain ≤ 0` is [`Error::InvalidParameter`].
pub fn xavier_uniform<R: Rng + ?Sized>(
    shape: &[usize],
    gain: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    positive_param(gain, "gain")?;
    let (fan_in, fan_out) = fans(shape)?;
    let a = gain * (6.0 / (fan_in as f64 + fan_out as f64)).sqrt();
    uniform(shape, -a, a, rng, device)
}

/// Xavier/Glorot normal: `N(0, σ²)`, `σ = gain·√(2 / (fan_in + fan_out))`. O(numel).
///
/// # Errors
/// As [`xavier_uniform`].
pub fn xavier_normal<R: Rng + ?Sized>(
    shape: &[usize],
    gain: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    positive_param(gain, "gain")?;
    let (fan_in, fan_out) = fans(shape)?;
    let std = gain * (2.0 / (fan_in as f64 + fan_out as f64)).sqrt();
    normal(shape, 0.0, std, rng, device)
}

/// Kaiming/He uniform in fan-in mode (He et al., 2015):
/// `U[−b, b)`, `b = gain·√(3 / fan_in)`; `gain = √2` ([`RELU_GAIN`]) for ReLU.
/// With `gain = 1/√3` this is PyTorch's default for `nn.Linear` weights,
/// `U[−1/√fan_in, 1/√fan_in)`. O(numel).
///
/// # Errors
/// As [`xavier_uniform`].
pub fn kaiming_uniform<R: Rng + ?Sized>(
    shape: &[usize],
    gain: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    positive_param(gain, "gain")?;
    let (fan_in, _) = fans(shape)?;
    let b = gain * (3.0 / fan_in as f64).sqrt();
    uniform(shape, -b, b, rng, device)
}

/// Kaiming/He normal in fan-in mode: `N(0, σ²)`, `σ = gain / √fan_in`. O(numel).
///
/// # Errors
/// As [`xavier_uniform`].
pub fn kaiming_normal<R: Rng + ?Sized>(
    shape: &[usize],
    gain: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    positive_param(gain, "gain")?;
    let (fan_in, _) = fans(shape)?;
    normal(shape, 0.0, gain / (fan_in as f64).sqrt(), rng, device)
}

/// A (semi-)orthogonal matrix times `gain` (Saxe et al., 2014; PyTorch's
/// `orthogonal_`): the weight is viewed as `rows = shape[0]` by
/// `cols = Π shape[1..]`; a Gaussian matrix of the taller orientation is
/// factorised `A = QR` ([`mlcore::linalg::qr`], Householder) and `Q`'s columns
/// are multiplied by `sign(diag R)`, which makes `Q` Haar-distributed. Rows
/// (when `rows ≤ cols`) or columns (otherwise) are orthonormal up to `f32`
/// rounding. O(max(r, c)·min(r, c)²).
///
/// # Errors
/// As [`fans`]; `gain ≤ 0` is [`Error::InvalidParameter`].
pub fn orthogonal<R: Rng + ?Sized>(
    shape: &[usize],
    gain: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    positive_param(gain, "gain")?;
    fans(shape)?;
    let rows = shape[0];
    let cols: usize = shape[1..].iter().product();
    let (tall, short) = (rows.max(cols), rows.min(cols));
    let mut a = Array2::<f64>::zeros((tall, short));
    // Draw in the row-major order of the un-transposed `rows × cols` matrix.
    for i in 0..rows {
        for j in 0..cols {
            let z: f64 = rng.sample(StandardNormal);
            if rows >= cols {
                a[[i, j]] = z;
            } else {
                a[[j, i]] = z;
            }
        }
    }
    let qr = mlcore::linalg::qr(a.view())?;
    let mut q = qr.q;
    for k in 0..short {
        if qr.r[[k, k]] < 0.0 {
            q.column_mut(k).mapv_inplace(|x| -x);
        }
    }
    let q = if rows >= cols { q } else { q.reversed_axes() };
    let v = q.as_standard_layout().iter().map(|&x| gain * x).collect();
    to_tensor(v, shape, device)
}

/// A seeded inverted-dropout mask: each entry is `0` with probability `p` and
/// `1/(1 − p)` otherwise (independent Bernoulli draws `u < p` with `u`
/// uniform in `[0, 1)`), so that `x ⊙ mask` has the mean of `x`. Multiply
/// activations by it in training only; `p = 0` gives all ones. O(numel).
///
/// # Errors
/// [`Error::Empty`], [`Error::InvalidParameter`] unless `0 ≤ p < 1`,
/// [`Error::Core`] when the size overflows.
pub fn dropout_mask<R: Rng + ?Sized>(
    shape: &[usize],
    p: f64,
    rng: &mut R,
    device: &Device,
) -> Result<Tensor> {
    if !(0.0..1.0).contains(&p) {
        return Err(Error::InvalidParameter {
            name: "dropout probability p",
            value: p,
            expected: "in [0, 1)",
        });
    }
    let n = numel(shape)?;
    let keep = 1.0 / (1.0 - p);
    let v = (0..n)
        .map(|_| if rng.random::<f64>() < p { 0.0 } else { keep })
        .collect();
    to_tensor(v, shape, device)
}
