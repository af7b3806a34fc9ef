//! In-memory datasets, seeded shuffling, mini-batches and splits.
//!
//! A [`ClassificationData`] holds an `n × d` feature matrix (`f32`, the
//! training precision) and `n` class labels on the host; a training loop
//! asks it for the tensors of one mini-batch ([`ClassificationData::batch`]).
//! Randomness (the order of an epoch, a split) comes from the caller's RNG
//! through [`shuffled_indices`], a Fisher–Yates shuffle stated below, so a
//! seed fixes every batch on every machine.

use crate::error::{Error, Result};
use candle_core::{Device, Tensor};
use ndarray::{Array2, ArrayView2, Axis};
use rand::{Rng, RngExt};

/// A labelled data set in memory: features `x` (`n × d`, finite `f32`) and
/// labels `y` (`n` values in `0..classes`).
#[derive(Debug, Clone, PartialEq)]
pub struct ClassificationData {
    x: Array2<f32>,
    y: Vec<usize>,
    classes: usize,
}

impl ClassificationData {
    /// Checks and wraps features and labels. O(nd).
    ///
    /// # Errors
    /// [`Error::Empty`] for no rows, no columns or `classes = 0`,
    /// [`Error::ShapeMismatch`] when `y` has not one label per row,
    /// [`Error::NonFinite`] for a NaN or infinite feature,
    /// [`Error::LabelOutOfRange`] for a label `≥ classes`.
    pub fn new(x: Array2<f32>, y: Vec<usize>, classes: usize) -> Result<Self> {
        if x.nrows() == 0 || x.ncols() == 0 {
            return Err(Error::Empty { what: "features" });
        }
        if classes == 0 {
            return Err(Error::Empty { what: "classes" });
        }
        if y.len() != x.nrows() {
            return Err(Error::ShapeMismatch {
                what: "labels vs rows of the features",
                expected: x.nrows(),
                got: y.len(),
            });
        }
        if let Some(index) = x.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "features",
                index,
            });
        }
        check_labels(&y, classes)?;
        Ok(Self { x, y, classes })
    }

    /// The number of examples `n`.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Always `false`: a data set has at least one example.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The number of features `d`.
    pub fn features(&self) -> usize {
        self.x.ncols()
    }

    /// The number of classes.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// The features, `n × d`.
    pub fn x(&self) -> ArrayView2<'_, f32> {
        self.x.view()
    }

    /// The labels.
    pub fn y(&self) -> &[usize] {
        &self.y
    }

    /// Multiplies every feature by `factor` (for example `1/16` for the digits' pixels). O(nd).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a non-finite factor, [`Error::NonFinite`]
    /// when a product overflows `f32`.
    pub fn scaled(mut self, factor: f32) -> Result<Self> {
        if !factor.is_finite() {
            return Err(Error::InvalidParameter {
                name: "factor",
                value: f64::from(factor),
                expected: "a finite value",
            });
        }
        self.x.mapv_inplace(|v| v * factor);
        if let Some(index) = self.x.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "scaled features",
                index,
            });
        }
        Ok(self)
    }

    /// The examples at `indices`, in that order (repeats allowed). O(|indices|·d).
    ///
    /// # Errors
    /// [`Error::Empty`] for no index, [`Error::LabelOutOfRange`] (with
    /// `classes` = the number of examples) for an index `≥ n`.
    pub fn subset(&self, indices: &[usize]) -> Result<Self> {
        self.check_indices(indices)?;
        Ok(Self {
            x: self.x.select(Axis(0), indices),
            y: indices.iter().map(|&i| self.y[i]).collect(),
            classes: self.classes,
        })
    }

    /// The tensors of one mini-batch: features `[b, d]` (`f32`) and labels
    /// `[b]` (`u32`, what `candle_nn::loss::cross_entropy` takes). O(b·d).
    ///
    /// # Errors
    /// As [`subset`](Self::subset), and [`Error::Candle`] from the device.
    pub fn batch(&self, indices: &[usize], device: &Device) -> Result<(Tensor, Tensor)> {
        self.check_indices(indices)?;
        let d = self.features();
        let mut xs = Vec::with_capacity(indices.len() * d);
        for &i in indices {
            xs.extend(self.x.row(i).iter().copied());
        }
        let ys: Vec<u32> = indices.iter().map(|&i| self.y[i] as u32).collect();
        Ok((
            Tensor::from_vec(xs, (indices.len(), d), device)?,
            Tensor::from_vec(ys, indices.len(), device)?,
        ))
    }

    fn check_indices(&self, indices: &[usize]) -> Result<()> {
        if indices.is_empty() {
            return Err(Error::Empty { what: "indices" });
        }
        match indices.iter().position(|&i| i >= self.len()) {
            Some(index) => Err(Error::LabelOutOfRange {
                index,
                label: indices[index],
                classes: self.len(),
            }),
            None => Ok(()),
        }
    }
}

/// Fails with [`Error::LabelOutOfRange`] at the first label `≥ classes`.
pub(crate) fn check_labels(y: &[usize], classes: usize) -> Result<()> {
    match y.iter().position(|&l| l >= classes) {
        Some(index) => Err(Error::LabelOutOfRange {
            index,
            label: y[index],
            classes,
        }),
        None => Ok(()),
    }
}

/// A uniformly random permutation of `0..n` by the Fisher–Yates shuffle:
/// start from `0, 1, …, n−1`; for `i = n−1` down to `1`, draw `j` uniform in
/// `0..=i` (`rng.random_range`) and swap entries `i` and `j`. O(n); `n − 1` draws.
pub fn shuffled_indices<R: Rng + ?Sized>(n: usize, rng: &mut R) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    order
}

/// What happens to the last mini-batch of an epoch when `batch_size` does not divide `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LastBatch {
    /// Keep it, smaller than the others (PyTorch's `DataLoader(drop_last=False)`):
    /// every example is seen once per epoch, `⌈n / b⌉` batches.
    #[default]
    Keep,
    /// Drop it (`drop_last=True`): `⌊n / b⌋` batches of equal size; an epoch
    /// with `n < b` has no batch.
    Drop,
}

/// Cuts `order` into consecutive mini-batches of `batch_size`, the last one
/// following `last`. O(n / batch_size).
///
/// # Errors
/// [`Error::InvalidParameter`] for `batch_size = 0`, [`Error::Empty`] for an
/// empty `order`.
pub fn batches(order: &[usize], batch_size: usize, last: LastBatch) -> Result<Vec<&[usize]>> {
    if batch_size == 0 {
        return Err(Error::InvalidParameter {
            name: "batch size",
            value: 0.0,
            expected: "at least 1",
        });
    }
    if order.is_empty() {
        return Err(Error::Empty { what: "order" });
    }
    Ok(order
        .chunks(batch_size)
        .filter(|c| last == LastBatch::Keep || c.len() == batch_size)
        .collect())
}

/// Indices of a random split into training and test examples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// Training indices, in shuffled order.
    pub train: Vec<usize>,
    /// Test indices, in shuffled order.
    pub test: Vec<usize>,
}

/// A seeded random split of `0..n`: `n_test = ⌈test_fraction·n⌉` (scikit-learn's
/// rounding of `test_size`); the permutation is [`shuffled_indices`], whose
/// first `n_test` entries are the test set and the rest the training set. O(n).
///
/// # Errors
/// [`Error::InvalidParameter`] unless `0 < test_fraction < 1` and both parts
/// are non-empty.
pub fn train_test_split<R: Rng + ?Sized>(
    n: usize,
    test_fraction: f64,
    rng: &mut R,
) -> Result<Split> {
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(Error::InvalidParameter {
            name: "test fraction",
            value: test_fraction,
            expected: "in (0, 1)",
        });
    }
    let n_test = (test_fraction * n as f64).ceil() as usize;
    if n_test == 0 || n_test >= n {
        return Err(Error::InvalidParameter {
            name: "number of examples",
            value: n as f64,
            expected: "large enough for a non-empty training and test part",
        });
    }
    let mut order = shuffled_indices(n, rng);
    let train = order.split_off(n_test);
    Ok(Split { train, test: order })
}
