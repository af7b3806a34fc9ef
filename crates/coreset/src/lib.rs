//! # coreset
//!
//! Coresets for multiple ℓp regression, after
//!
//! > David P. Woodruff, Taisuke Yasuda.
//! > *Coresets for Multiple ℓp Regression.* ICML 2024 (arXiv 2406.02432).
//! > No official code.
//!
//! Given `A ∈ ℝ^{n×d}`, `B ∈ ℝ^{n×m}` and `p ≥ 1`, the objective is
//! `F(X) = ‖AX − B‖ₚ,ₚᵖ = Σᵢⱼ |(AX − B)ᵢⱼ|ᵖ`. A *strong coreset* is a weighted
//! row subset `(S, s)` with `F_S(X) = Σ_{i∈S} sᵢ ‖eᵢᵀ(AX − B)‖ₚᵖ ∈ (1 ± ε) F(X)`
//! for every `X`; a *weak coreset* only preserves the minimiser. The paper
//! shows sizes independent of the number `m` of responses: Õ(ε⁻²d) for
//! `p < 2` and Õ(ε⁻ᵖd^{p/2}) for `p > 2` (strong), an ε factor less for weak
//! coresets when `p > 1`. The construction here samples rows independently
//! with probability `qᵢ = min{1, k_A wᵢ/d + k_B ρᵢ/Σρ}`, where `w` are the ℓp
//! Lewis weights of `A` and `ρ` the residual sensitivities of `B` at a
//! constant-factor solution, and weights kept rows by `1/qᵢ`. The paper is
//! theoretical; the sampling recipe is the standard Lewis-weight and
//! sensitivity construction its bounds are stated for, and every step
//! reconstructed that way is marked in the item's docs.
//!
//! | paper | item |
//! |---|---|
//! | ℓp Lewis weights (Cohen–Peng fixed point, damped iteration for every p) | [`lewis::lewis_weights`], [`lewis::Damping`] |
//! | leverage scores, sketched for tall `A` | [`lewis::leverage_scores`], [`lewis::sketched_leverage_scores`], [`lewis::lewis_weights_sketched`] |
//! | multiple ℓp regression `min_X ‖AX − B‖ₚ,ₚ` | [`regression::solve`], [`regression::cost`] |
//! | strong coreset (Lewis + residual sensitivities) | [`coreset::CoresetBuilder`], [`coreset::Kind::Strong`] |
//! | weak coreset (Lewis only), theory-shaped budgets | [`coreset::Kind::Weak`], [`coreset::Budget::Theory`] |
//! | solving on the coreset, `[A B]` rows scaled by `q^{−1/p}` | [`coreset::Coreset::solve`], [`coreset::Coreset::scaled_rows`] |
//! | checking `(1 ± ε)`: exact at p = 2, probes for any p, weak ratio | [`verify::exact_distortion_p2`], [`verify::probe_distortion`], [`verify::weak_ratio`] |
//! | uniform sampling (the baseline that misses heavy rows) | [`coreset::Coreset::uniform`] |
//! | application 1: ℓp Euclidean power means from Θ̃(ε⁻²), Θ̃(ε⁻¹), Θ̃(ε^{1−p}) uniform samples | [`power_means::power_mean`], [`power_means::uniform_sample_size`], [`power_means::uniform_coreset`] |
//! | application 2: for 1 < p < 2, Õ(k/ε) rows spanning a (1+ε)-optimal k-subspace (construction and checker reconstructed) | [`subspace::row_subset`], [`subspace::fit_subspace`], [`subspace::check_row_subset`] |
//!
//! Feature `parallel` (default): the columns of `B` are solved on rayon's
//! pool, bit-for-bit as on one thread.
//!
//! ```
//! use coreset::coreset::{Budget, CoresetBuilder};
//! use coreset::lewis::{LewisOptions, lewis_weights};
//! use coreset::verify::exact_distortion_p2;
//! use mlcore::sampling::{seeded, standard_normal};
//! use ndarray::Array2;
//!
//! let mut rng = seeded(0);
//! let a: Array2<f64> = standard_normal((2000, 3), &mut rng);
//! let b = a.dot(&standard_normal::<_, _>((3, 8), &mut rng))
//!     + standard_normal::<_, _>((2000, 8), &mut rng);
//!
//! // Lewis weights: Σ w = rank A.
//! let lw = lewis_weights(a.view(), 2.0, &LewisOptions::default())?;
//! assert!((lw.w().sum() - 3.0).abs() < 1e-8);
//!
//! // A strong coreset of about 400 rows, and its exact distortion at p = 2.
//! let c = CoresetBuilder::new(2.0)
//!     .budget(Budget::Rows { k_a: 200.0, k_b: 200.0 })
//!     .build_with_lewis(&lw, a.view(), b.view(), &mut rng)?;
//! let d = exact_distortion_p2(a.view(), b.view(), &c)?;
//! assert!(c.len() < 500 && d.lo > 0.6 && d.hi < 1.4);
//! # Ok::<(), coreset::Error>(())
//! ```
#![deny(missing_docs)]

mod checks;
pub mod coreset;
pub mod error;
pub mod lewis;
mod line_search;
mod power;
pub mod power_means;
pub mod regression;
pub mod subspace;
pub mod verify;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
