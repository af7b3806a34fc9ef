//! # mlcore
//!
//! The small shared core of the icml24
//! workspace: what several paper crates need, written once.
//!
//! - [`linalg`]: dense decompositions on `ndarray` types, backed by faer
//!   (Cholesky with optional jitter, triangular and SPD solves, thin QR and
//!   SVD, symmetric eigendecomposition, least squares, pseudo-inverse,
//!   log-determinant, leverage scores).
//! - [`sampling`]: the workspace RNG ([`sampling::seeded`]), alias tables,
//!   weighted sampling without replacement, multivariate normals.
//! - [`stats`]: Welford moments, quantiles (including the split-conformal
//!   `⌈(n+1)(1−α)⌉`-th order statistic), the empirical CDF, correlations;
//!   and inference checked against SciPy: Wilson, Clopper–Pearson, Student-t
//!   and bootstrap intervals, the exact binomial, Fisher and Wilcoxon
//!   signed-rank tests.
//! - [`special`]: the standard normal φ, Φ, `1 − Φ`, `log Φ` and `Φ⁻¹`,
//!   accurate in the tails (checked against SciPy at `|x| ≤ 38`).
//! - [`data`]: vendored data sets, each file verified against its
//!   `SHA256SUMS` when loaded.
//! - [`check`]: the input checks every entry point runs first, each failing
//!   with a typed [`Error`].
//! - [`optim`]: one box-constrained L-BFGS (argmin) for every crate — a
//!   logistic box map or Optim.jl's `Fminbox` log barrier, seeded
//!   multistart.
//! - [`timing`]: thread and process CPU clocks for side-by-side timing on a
//!   loaded machine.
//!
//! ```
//! use mlcore::{linalg, sampling, stats};
//! use ndarray::array;
//!
//! let a = array![[4.0, 2.0], [2.0, 3.0]];
//! let x = linalg::solve_spd(a.view(), array![2.0, 1.0].view())?;
//! assert!((a.dot(&x) - array![2.0, 1.0]).iter().all(|e| e.abs() < 1e-12));
//!
//! let mut rng = sampling::seeded(7);
//! let z = sampling::standard_normal(1000, &mut rng);
//! let q = stats::conformal_quantile(z.view(), 0.1)?;
//! assert!(q > 0.8 && q < 1.8);
//! # Ok::<(), mlcore::Error>(())
//! ```
#![deny(missing_docs)]

pub mod check;
pub mod data;
pub mod error;
mod hypothesis;
mod intervals;
pub mod linalg;
mod moments;
pub mod optim;
pub mod sampling;
pub mod special;
pub mod stats;
pub mod timing;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
