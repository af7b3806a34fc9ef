//! # matrix-completion
//!
//! Schatten-p quasi-norm matrix completion, deep matrix factorisation, its
//! weighted analogue and FRMC, after
//!
//! > Antoine Ledent, Rodrigo Alves.
//! > *Generalization Analysis of Deep Non-linear Matrix Completion.*
//! > ICML 2024, PMLR 235:26290–26360 (OpenReview 40foON48am). No official code.
//!
//! The paper bounds the generalisation error of matrix completion under a
//! Schatten-p quasi-norm constraint, which is equivalent to a depth-`L` matrix
//! factorisation `Z = A₁⋯A_L` with Frobenius penalties (`p = 2/L`): Õ(r·n)
//! samples under uniform sampling, Õ(r^{1−p/2} n^{1+p/2}) distribution-free, and
//! Õ(n·r) for a weighted analogue that reweights the outer factors by the
//! sampling marginals. Its non-linear model, Functionally Rescaled Matrix
//! Completion (FRMC), applies one trainable, capacity-bounded scalar function to
//! every entry of the latent matrix. This crate implements the models it
//! analyses: the Schatten tools (quasi-norm, balanced factorisation, the
//! variational identity, effective rank), soft-impute as the convex `L = 2`
//! reference, deep factorisation of any depth with the plain or weighted
//! penalty, and FRMC with a monotone, Lipschitz-capped piecewise-linear link,
//! all trained with Adam on closed-form gradients computed on the observed
//! entries only (O(N·k + (m+n)·k²) per step). The training objective, the
//! weighting and the link's parametrisation are not published; the
//! reconstructions (from the spec) are marked where they happen.
//!
//! Training runs on one thread by default; [`train::TrainConfig::threads`]
//! spreads the full-batch passes over rayon's threads with bitwise the same
//! result (the passes run over fixed blocks of entries).
//!
//! | paper | item |
//! |---|---|
//! | Schatten-p quasi-norm `‖Z‖_{S_p}`, effective rank | [`schatten::quasi_norm`], [`schatten::schatten_pow`], [`schatten::effective_rank`] |
//! | variational identity `min (1/L)Σ‖A_l‖² = ‖Z‖_{S_{2/L}}^{2/L}` | [`schatten::balanced_factors`], [`schatten::variational_value`] |
//! | weighted analogue `‖D_r^{1/2} Z D_c^{1/2}‖_{S_{2/L}}^{2/L}` (reconstructed) | [`schatten::weighted_balanced_factors`], [`schatten::weighted_variational_value`], [`model::PenaltyWeights::smoothed`] |
//! | nuclear norm (`L = 2`) convex reference | [`schatten::soft_impute`] |
//! | deep matrix factorisation with Frobenius penalties | [`model::DeepMf`], [`train::fit`], [`train::TrainConfig`] |
//! | FRMC `ŷ = f_θ(Zᵢⱼ)`, capacity-bounded link | [`link::MonotonePiecewiseLinear`], [`train::LinkConfig::Frmc`], [`train::fit_from`] (warm start) |
//! | observed set Ω, uniform / distribution-free sampling | [`data::Observations`], [`synthetic::sample`], [`synthetic::Sampling`] |
//! | test RMSE on a held-out split | [`data::Observations::split`], [`metrics::rmse`], [`metrics::evaluate`] |
//! | real data (MovieLens) | [`data::read_movielens_udata`] |
//!
//! ```
//! use matrix_completion::synthetic::{low_rank, sample, Sampling, TrueLink};
//! use matrix_completion::train::{fit, TrainConfig, Weighting};
//! use matrix_completion::metrics::evaluate;
//! use matrix_completion::schatten::{balanced_factors, schatten_pow, variational_value};
//! use mlcore::sampling::seeded;
//!
//! // The variational identity at depth 3: (1/3)Σ‖A_l‖² = Σσ^{2/3}.
//! let mut rng = seeded(0);
//! let g = low_rank(60, 50, 3, &mut rng)?;
//! let f = balanced_factors(g.view(), 3)?;
//! let target = schatten_pow(g.view(), 2.0 / 3.0)?;
//! assert!((variational_value(&f)? - target).abs() < 1e-9 * target);
//!
//! // Complete ratings 1 + 4·sigmoid(1.5 g) seen at 30 % of the entries.
//! let obs = sample(&g, TrueLink::RATINGS, Sampling::Uniform, 900, 0.05, &mut rng)?;
//! let (train, test) = obs.split(0.2, &mut rng)?;
//! let cfg = TrainConfig {
//!     depth: 3, width: 8, lambda: 1e-4, epochs: 400,
//!     weighting: Weighting::Smoothed { zeta: 0.5 },
//!     ..TrainConfig::default()
//! };
//! let fitted = fit(&train, None, &cfg, &mut rng)?;
//! let (rmse, _mae) = evaluate(&fitted.model, &test, Some((1.0, 5.0)))?;
//! assert!(rmse < 0.7 * test.std(), "test RMSE {rmse}");
//! # Ok::<(), matrix_completion::Error>(())
//! ```
#![deny(missing_docs)]

pub mod data;
mod error;
mod kernel;
pub mod link;
pub mod metrics;
pub mod model;
pub mod schatten;
pub mod synthetic;
pub mod train;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
