//! Antonio Orvieto, Soham De, Caglar Gulcehre, Razvan Pascanu, Samuel L. Smith.
//! *Universality of Linear Recurrences Followed by Non-linear Projections:
//! Finite-Width Guarantees and Benefits of Complex Eigenvalues.* ICML 2024
//! (arXiv 2307.11888).
//!
//! A linear diagonal recurrence `x_k = Λ x_{k−1} + B v_k` followed by a
//! position-wise MLP approximates regular causal sequence-to-sequence maps to
//! any precision. The proof separates concerns: the recurrence is a lossless
//! encoding of the input trajectory (for `M = 1`, `x_k = diag(b) V_k (v_k … v_1)ᵀ`
//! with the Vandermonde matrix `V_k`, injective once `N ≥ L` and the `λ` are
//! distinct), and the MLP processes that encoding. How hard the MLP's job is
//! depends on `‖V⁺‖`, i.e. on `κ₂(V)`: real eigenvalues make `κ₂` grow
//! exponentially in `L`, while complex eigenvalues spread in phase near the
//! unit circle (the LRU/S4 initialisations) keep it `O(1)` with modest
//! oversampling. No official code exists; the theorem statements were
//! reconstructed in the workspace's spec, and this crate quotes no constant
//! the paper does not give.
//!
//! | paper | item |
//! |---|---|
//! | §2 model `x_k = Λx_{k−1} + Bv_k`, `y_k = g(Re x_k, Im x_k)` | [`rnn::DiagLinearRnn`], [`mlp::PositionwiseMlp`], [`mlp::Stack`] |
//! | §3 lossless encoding, `N = LM` construction | [`reconstruct::Reconstructor`], [`rnn::DiagLinearRnn::block_for_channels`] |
//! | §4 Vandermonde conditioning, complex vs real | [`vandermonde::cond2`], [`spectrum::Spectrum`], [`vandermonde::memory_budget`] |
//! | LRU initialisation `λ = exp(−exp ν + iθ)`, `γ = √(1 − |λ|²)` | [`spectrum::LruParams`], [`spectrum::Spectrum::LruRing`] |
//! | finite-width MLP (random features + ridge) | [`readout::RandomFeatureMlp`] |
//! | finite-width MLP trained by gradient descent (feature `candle`) | `readout::trained::TrainedMlp` |
//! | §5 experiments: reconstruction, ODE-driven map | [`tasks`], [`experiments`], [`io`] |
//!
//! Beyond the paper: a compressed mode (`N < L·M`) that says which lags stay
//! recoverable ([`reconstruct::Reconstructor::recoverable_lags`]), warnings for
//! real, phase-restricted or clustered spectra ([`spectrum::warnings`]), and a
//! prediction of κ from the spectrum alone ([`vandermonde::memory_budget`]).
//! The default readout is the closed-form random-feature MLP; the opt-in cargo
//! feature `candle` adds `readout::trained::TrainedMlp`, a one-hidden-layer
//! MLP whose two layers are trained (AdamW by default) through the workspace's
//! `nncore` on candle's CPU backend (the default build does not pull candle).
//!
//! ## What the reproduction finds (`cargo run --release -- ssm-universality`)
//!
//! - Lossless encoding holds on real data: every vendored UCR series
//!   (ItalyPowerDemand L = 24, GunPoint L = 150 from a complex ring [0.9, 1] at
//!   N = 8L; JapaneseVowels' 12 channels through N = L·M) is recovered from its
//!   final state to ≤ 5e-15 relative, while real U[0, 1] spectra at the same N
//!   have κ₂ ≥ 2e16 and lose ~20 % of the signal.
//! - The κ table's contrast is reproduced in orders of magnitude; its N = L
//!   medians are heavy-tailed (issue 31), so tests assert ratios only.
//! - Memory: within capacity (L = 96 real inputs, N = 64 complex states), rings
//!   with r_min ≥ 0.9 recover all lags, r_min = 0 only the ~55 newest. Over
//!   capacity (L = 256) no ring recovers old lags and r_min = 0.99 recovers none.
//! - Finite width: the pendulum's test MSE falls with N and with D for random
//!   drivers. For the sunspot driver the median falls with D (0.075 → 0.032
//!   from D = 16 to 1024) but the per-seed trends are not significant at 0.05
//!   at the quick or full budget (one-sided Wilcoxon p = 0.063): the claim is reported
//!   *not held* there. On this smooth fading-memory target, real eigenvalues
//!   in [0.5, 0.99] do as well as the complex ring at equal N for random
//!   drivers: the complex advantage shows in conditioning and memory, not in
//!   every regression task.
//!
//! ```
//! use ssm_universality::{C64, rnn::DiagLinearRnn, spectrum::Spectrum, vandermonde::cond2};
//! use ssm_universality::reconstruct::{Mode, Reconstructor, relative_error};
//! use rand::SeedableRng;
//! # fn main() -> ssm_universality::Result<()> {
//! // Roots of unity of radius 0.95: κ₂(V) = 0.95^−(L−1) exactly (NumPy: 4.904201 at L = 32).
//! let lambda = Spectrum::RootsOfUnity { r: 0.95 }.sample(32, &mut rand_chacha::ChaCha8Rng::seed_from_u64(0))?;
//! assert!((cond2(&lambda, 32)? / 0.95f64.powi(-31) - 1.0).abs() < 1e-9);
//!
//! // Lossless encoding: recover 32 inputs from the final state x_32.
//! let rnn = DiagLinearRnn::new(lambda, ndarray::Array2::from_elem((32, 1), C64::new(1.0, 0.0)), true)?;
//! let v = ndarray::Array2::from_shape_fn((32, 1), |(k, _)| (k as f64 * 0.7).sin());
//! let rec = Reconstructor::fit(&rnn, 32, 1e-12, Mode::Exact)?;
//! let v_hat = rec.reconstruct(rnn.final_state(v.view())?.view())?;
//! assert!(relative_error(&v_hat, &v)? < 1e-12);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod error;
pub mod experiments;
pub mod io;
pub mod mlp;
pub mod readout;
pub mod reconstruct;
pub mod rnn;
pub mod spectrum;
pub mod tasks;
pub mod vandermonde;

pub use error::{Error, Result};

/// A complex number in double precision (`num_complex::Complex<f64>`, the same type as `faer::c64`).
pub type C64 = num_complex::Complex<f64>;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
