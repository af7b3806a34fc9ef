//! The paper's experiments as functions (paper §4–5): κ₂ over spectrum
//! draws, reconstruction error against lag (memory), and the test error of
//! recurrence + random-feature readout on a sequence-to-sequence map as the
//! widths `N` and `D` grow (finite-width universality).

use crate::error::{Error, Result};
use crate::mlp::Activation;
use crate::readout::{RandomFeatureMlp, mse};
use crate::reconstruct::{Mode, Reconstructor};
use crate::rnn::{DiagLinearRnn, real_features};
use crate::spectrum::Spectrum;
use crate::vandermonde::cond2;
use ndarray::{Array1, Array2, Axis, concatenate};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// `κ₂(V)` of `draws` independent `N × L` Vandermonde matrices of `spectrum`
/// (the spec's κ table). O(draws · N·L·min(N, L)).
///
/// # Errors
/// [`Error::ZeroWidth`] for zero draws; those of [`Spectrum::sample`] and [`cond2`].
pub fn cond_draws(
    spectrum: &Spectrum,
    n: usize,
    l: usize,
    draws: usize,
    rng: &mut impl Rng,
) -> Result<Vec<f64>> {
    if draws == 0 {
        return Err(Error::ZeroWidth { what: "draws" });
    }
    (0..draws)
        .map(|_| cond2(&spectrum.sample(n, rng)?, l))
        .collect()
}

/// Memory profile: for a single-input recurrence with `N` eigenvalues drawn
/// from `spectrum` (with `γ` normalisation), the reconstruction of `L` iid
/// `N(0, 1)` inputs from `x_L` by the `rcond`-truncated pseudo-inverse
/// ([`Mode::Compressed`], so `N < L` is allowed). Returns, for each lag
/// `τ = 0 … L−1` (0 = newest input), the mean squared error over `trials`
/// sequences; the expected value is `1 − P_ττ` ([`Reconstructor::recoverable_lags`]).
/// O(N·L² + trials·N·L).
///
/// # Errors
/// [`Error::ZeroWidth`] for zero trials; the errors of the recurrence and
/// [`Reconstructor::fit`].
pub fn lag_error_profile(
    spectrum: &Spectrum,
    n: usize,
    l: usize,
    rcond: f64,
    trials: usize,
    rng: &mut impl Rng,
) -> Result<Vec<f64>> {
    if trials == 0 {
        return Err(Error::ZeroWidth { what: "trials" });
    }
    let rnn = DiagLinearRnn::from_spectrum(spectrum, n, true, rng)?;
    let rec = Reconstructor::fit(&rnn, l, rcond, Mode::Compressed)?;
    let mut err = vec![0.0; l];
    for _ in 0..trials {
        let v = Array2::from_shape_simple_fn((l, 1), || rng.sample::<f64, _>(StandardNormal));
        let v_hat = rec.reconstruct(rnn.final_state(v.view())?.view())?;
        for (tau, e) in err.iter_mut().enumerate() {
            let t = l - 1 - tau;
            let d = v_hat[[t, 0]] - v[[t, 0]];
            *e += d * d / trials as f64;
        }
    }
    Ok(err)
}

/// A sequence-to-sequence regression problem: inputs `u` (`L × M` each) and
/// targets `y` (`L × Q` each), split into training and test sequences.
#[derive(Debug, Clone, PartialEq)]
pub struct Seq2SeqData {
    /// Training inputs.
    pub train_u: Vec<Array2<f64>>,
    /// Training targets.
    pub train_y: Vec<Array2<f64>>,
    /// Test inputs.
    pub test_u: Vec<Array2<f64>>,
    /// Test targets.
    pub test_y: Vec<Array2<f64>>,
}

/// The stacked per-step features `[Re x_k, Im x_k]` of every step of every
/// sequence, and the stacked targets. O(Σ N·L·M).
fn stacked(
    rnn: &DiagLinearRnn,
    u: &[Array2<f64>],
    y: &[Array2<f64>],
) -> Result<(Array2<f64>, Array2<f64>)> {
    if u.is_empty() {
        return Err(Error::EmptySequence { what: "sequences" });
    }
    if u.len() != y.len() {
        return Err(Error::DimensionMismatch {
            what: "target sequences",
            expected: u.len(),
            got: y.len(),
        });
    }
    let mut feats = Vec::with_capacity(u.len());
    for (ui, yi) in u.iter().zip(y) {
        if ui.nrows() != yi.nrows() {
            return Err(Error::DimensionMismatch {
                what: "target steps",
                expected: ui.nrows(),
                got: yi.nrows(),
            });
        }
        feats.push(real_features(rnn.states(ui.view())?.view()));
    }
    let fv: Vec<_> = feats.iter().map(|f| f.view()).collect();
    let yv: Vec<_> = y.iter().map(|a| a.view()).collect();
    let x = concatenate(Axis(0), &fv).map_err(|_| Error::DimensionMismatch {
        what: "feature widths",
        expected: 2 * rnn.n(),
        got: 0,
    })?;
    let t = concatenate(Axis(0), &yv).map_err(|_| Error::DimensionMismatch {
        what: "target widths",
        expected: y[0].ncols(),
        got: 0,
    })?;
    Ok((x, t))
}

/// Test MSE of recurrence (`rnn`) + random-feature readout of width `D`
/// fitted by ridge on the training sequences: the architecture of the
/// paper's universality statement at finite width. O(data · (N·M + D·(N + Q)) + D³).
///
/// # Errors
/// [`Error::EmptySequence`], [`Error::DimensionMismatch`] between inputs and
/// targets; those of [`DiagLinearRnn::states`] and [`RandomFeatureMlp::fit`].
pub fn seq2seq_test_mse(
    rnn: &DiagLinearRnn,
    data: &Seq2SeqData,
    width: usize,
    ridge: f64,
    rng: &mut impl Rng,
) -> Result<f64> {
    let (x, y) = stacked(rnn, &data.train_u, &data.train_y)?;
    let (xt, yt) = stacked(rnn, &data.test_u, &data.test_y)?;
    let f = RandomFeatureMlp::fit(x.view(), y.view(), width, ridge, Activation::Relu, rng)?;
    mse(f.predict(xt.view())?.view(), yt.view())
}

/// Per-series z-scoring (population standard deviation; a constant series
/// only centred). O(L).
///
/// # Errors
/// [`Error::EmptySequence`], [`Error::NonFinite`].
pub fn standardise(x: &Array1<f64>) -> Result<Array1<f64>> {
    if x.is_empty() {
        return Err(Error::EmptySequence { what: "series" });
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "series" });
    }
    let m = x.mean().unwrap_or(0.0);
    let s = x.std(0.0);
    Ok(x.mapv(|v| if s > 0.0 { (v - m) / s } else { v - m }))
}
