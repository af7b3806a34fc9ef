//! The finite-width readout (paper §3–4): a one-hidden-layer MLP of width
//! `D` whose first layer is random and whose output layer is fitted in
//! closed form by ridge regression,
//! `β = (ΦᵀΦ + ρ I)⁻¹ Φᵀ Y`, `Φ = [σ(Z W₁ᵀ + b₁), 1]`.
//!
//! Random features approximate functions of bounded Barron norm at the
//! `O(1/√D)` rate the paper's finite-width statement rests on. With the
//! `candle` feature, `trained::TrainedMlp` trains both layers by gradient
//! descent (AdamW through the workspace's `nncore` on candle).

use crate::error::{Error, Result};
use crate::mlp::{Activation, PositionwiseMlp};
use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::Rng;

#[cfg(feature = "candle")]
pub mod trained;

/// A random-feature MLP with a ridge-fitted output layer, on standardised inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomFeatureMlp {
    mean: Array1<f64>,
    scale: Array1<f64>,
    mlp: PositionwiseMlp,
}

fn check_xy(x: &ArrayView2<'_, f64>, y: &ArrayView2<'_, f64>) -> Result<()> {
    if x.nrows() == 0 || x.ncols() == 0 {
        return Err(Error::EmptySequence { what: "features" });
    }
    if y.ncols() == 0 {
        return Err(Error::EmptySequence { what: "targets" });
    }
    if y.nrows() != x.nrows() {
        return Err(Error::DimensionMismatch {
            what: "target rows",
            expected: x.nrows(),
            got: y.nrows(),
        });
    }
    if x.iter().chain(y.iter()).any(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "features or targets",
        });
    }
    Ok(())
}

/// Column means as `Σ xᵢ/T` (no overflow for finite entries).
fn mean_rows(x: &ArrayView2<'_, f64>) -> Array1<f64> {
    let t = x.nrows() as f64;
    x.axis_iter(Axis(1))
        .map(|c| c.iter().map(|v| v / t).sum())
        .collect()
}

/// Column standard deviations (population), computed on `(x − m)/max|x − m|`
/// so that they do not overflow; 1 for a constant column.
fn std_rows(x: &ArrayView2<'_, f64>, mean: &Array1<f64>) -> Array1<f64> {
    let t = x.nrows() as f64;
    x.axis_iter(Axis(1))
        .zip(mean)
        .map(|(c, &m)| {
            let s = c.iter().fold(0.0f64, |a, &v| a.max((v - m).abs()));
            if !(s > 0.0 && s.is_finite()) {
                return 1.0;
            }
            let r = s * c
                .iter()
                .map(|&v| ((v - m) / s).powi(2) / t)
                .sum::<f64>()
                .sqrt();
            if r > 0.0 { r } else { 1.0 }
        })
        .collect()
}

impl RandomFeatureMlp {
    /// Fits on `x` (`T × P` features, e.g. `[Re x_k, Im x_k]`) and `y` (`T × Q`
    /// targets): standardises each input column (training mean and standard
    /// deviation; a constant column keeps scale 1), draws `W₁ ~ N(0, 1/P)`,
    /// `b₁ ~ N(0, 1)` of width `D`, and solves the ridge problem for the output
    /// layer and its bias (the bias is not penalised: the targets are centred
    /// first). `ridge = 0` gives the minimum-norm least-squares fit.
    /// O(T·D·(P + Q) + T·D² + D³).
    ///
    /// # Errors
    /// [`Error::EmptySequence`], [`Error::DimensionMismatch`], [`Error::NonFinite`],
    /// [`Error::ZeroWidth`] (`D = 0`), [`Error::NegativeRidge`]; linear-algebra errors.
    pub fn fit(
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        width: usize,
        ridge: f64,
        activation: Activation,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        check_xy(&x, &y)?;
        if width == 0 {
            return Err(Error::ZeroWidth { what: "width D" });
        }
        if !(ridge.is_finite() && ridge >= 0.0) {
            return Err(Error::NegativeRidge { ridge });
        }
        let (t, p) = x.dim();
        mlcore::check::alloc_len(&[t, width], 8, "random features")?;
        let mean = mean_rows(&x);
        let scale = std_rows(&x, &mean);
        let z = (&x - &mean.view().insert_axis(Axis(0))) / scale.view().insert_axis(Axis(0));
        let first = PositionwiseMlp::random(p, width, 1, activation, rng)?;
        let phi = first.hidden(z.view())?;
        // Centre Φ and Y so that the unpenalised bias separates.
        let phi_mean = mean_rows(&phi.view());
        let y_mean = mean_rows(&y);
        let phic = &phi - &phi_mean.view().insert_axis(Axis(0));
        let yc = &y - &y_mean.view().insert_axis(Axis(0));
        if z.iter()
            .chain(phic.iter())
            .chain(yc.iter())
            .any(|v| !v.is_finite())
        {
            return Err(Error::NonFinite {
                what: "features or targets (overflow)",
            });
        }
        let beta: Array2<f64> = if ridge == 0.0 {
            mlcore::linalg::lstsq(phic.view(), yc.view())?.x
        } else {
            let mut g = phic.t().dot(&phic);
            for i in 0..width {
                g[[i, i]] += ridge;
            }
            if g.iter().any(|v| !v.is_finite()) {
                return Err(Error::NonFinite {
                    what: "Gram matrix of the features (overflow)",
                });
            }
            mlcore::linalg::solve_spd(g.view(), phic.t().dot(&yc).view())?
        };
        let b2 = &y_mean - &phi_mean.dot(&beta);
        if b2.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "output bias (overflow)",
            });
        }
        let (w1, b1) = first.first_layer();
        let mlp = PositionwiseMlp::new(w1, b1, beta.t().to_owned(), b2, activation)?;
        Ok(RandomFeatureMlp { mean, scale, mlp })
    }

    /// Predictions for the rows of `x` (`T × P` → `T × Q`). O(T·D·(P + Q)).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::EmptySequence`], [`Error::NonFinite`].
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        if x.ncols() != self.mean.len() {
            return Err(Error::DimensionMismatch {
                what: "feature width (P)",
                expected: self.mean.len(),
                got: x.ncols(),
            });
        }
        let z =
            (&x - &self.mean.view().insert_axis(Axis(0))) / self.scale.view().insert_axis(Axis(0));
        self.mlp.forward(z.view())
    }

    /// The fitted MLP (acting on standardised inputs).
    pub fn mlp(&self) -> &PositionwiseMlp {
        &self.mlp
    }
}

/// Mean squared error `Σ(ŷ − y)² / (T·Q)`.
///
/// # Errors
/// [`Error::DimensionMismatch`], [`Error::EmptySequence`], [`Error::NonFinite`].
pub fn mse(pred: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<f64> {
    if pred.dim() != y.dim() {
        return Err(Error::DimensionMismatch {
            what: "prediction entries",
            expected: y.len(),
            got: pred.len(),
        });
    }
    if y.is_empty() {
        return Err(Error::EmptySequence { what: "targets" });
    }
    let s: f64 = pred
        .iter()
        .zip(y.iter())
        .map(|(a, b)| (a - b) * (a - b))
        .sum();
    if !s.is_finite() {
        return Err(Error::NonFinite {
            what: "predictions",
        });
    }
    Ok(s / y.len() as f64)
}

/// One-hot targets for class indices `0 … C−1` (`T × C`).
///
/// # Errors
/// [`Error::EmptySequence`]; [`Error::IndexOutOfRange`] for a label `≥ C`; [`Error::ZeroWidth`] for `C = 0`.
pub fn one_hot(labels: &[usize], classes: usize) -> Result<Array2<f64>> {
    if labels.is_empty() {
        return Err(Error::EmptySequence { what: "labels" });
    }
    if classes == 0 {
        return Err(Error::ZeroWidth { what: "classes" });
    }
    mlcore::check::alloc_len(&[labels.len(), classes], 8, "one-hot targets")?;
    let mut y = Array2::zeros((labels.len(), classes));
    for (i, &c) in labels.iter().enumerate() {
        if c >= classes {
            return Err(Error::IndexOutOfRange {
                what: "label",
                index: c,
                len: classes,
            });
        }
        y[[i, c]] = 1.0;
    }
    Ok(y)
}

/// The arg-max class of each row of scores (first on ties). O(TC).
///
/// # Errors
/// [`Error::EmptySequence`], [`Error::NonFinite`].
pub fn argmax_rows(scores: ArrayView2<'_, f64>) -> Result<Vec<usize>> {
    if scores.is_empty() {
        return Err(Error::EmptySequence { what: "scores" });
    }
    if scores.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "scores" });
    }
    Ok(scores
        .rows()
        .into_iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .fold(
                    (0, f64::NEG_INFINITY),
                    |b, (i, &v)| if v > b.1 { (i, v) } else { b },
                )
                .0
        })
        .collect())
}
