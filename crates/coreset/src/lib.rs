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
//! | residual/outlier handling: heavy rows (q = 1) kept, the rest drawn a fixed number of times (reconstructed) | [`coreset::Sampling::FixedSize`] |
//! | weak coreset (Lewis only), theory-shaped budgets | [`coreset::Kind::Weak`], [`coreset::Budget::Theory`] |
//! | solving on the coreset, `[A B]` rows scaled by `q^{−1/p}` | [`coreset::Coreset::solve`], [`coreset::Coreset::scaled_rows`] |
//! | checking `(1 ± ε)`: exact at p = 2, probes for any p, weak ratio | [`verify::exact_distortion_p2`], [`verify::probe_distortion`], [`verify::ProbeSet`], [`verify::weak_ratio`] |
//! | `F(X)` without overflow (residuals near 1e200) | [`regression::cost`], [`regression::ln_cost`] |
//! | uniform sampling (the baseline that misses heavy rows) | [`coreset::Coreset::uniform`] |
//! | application 1: ℓp Euclidean power means from Θ̃(ε⁻²), Θ̃(ε⁻¹), Θ̃(ε^{1−p}) uniform samples | [`power_means::power_mean`], [`power_means::uniform_sample_size`], [`power_means::uniform_coreset`] |
//! | application 2: for 1 < p < 2, Õ(k/ε) rows spanning a (1+ε)-optimal k-subspace (construction and checker reconstructed) | [`subspace::row_subset`], [`subspace::fit_subspace`], [`subspace::check_row_subset`] |
//!
//! **Reconstruction for p ≠ 2 (issue 32).** The probabilities are the
//! spec's, `qᵢ = min{1, k_A wᵢ/d + k_B ρᵢ/Σρ}`, with exact ℓp Lewis weights
//! (not leverage scores) for every `p` and residual sensitivities `ρ` that
//! catch the outlier rows of `B`. The spec's independent Bernoulli draws
//! give a random size whose fluctuation `≈ 1/√k_A` sits on every probe at
//! large `‖X‖`; [`coreset::Sampling::FixedSize`] keeps the heavy rows
//! (`qᵢ = 1`) and draws the others a fixed number of times, which the
//! runner uses for every `p`. The default stays the spec's scheme.
//!
//! **Findings (not held at the quick budget, see the runner's notes).** The
//! spec's p = 3 strong sizing figures (ε ≤ 0.026 / 0.010 / 0.004 at about
//! 89 / 257 / 738 rows) are not met: the 2nd-worst of 10 seeds is 0.071 /
//! 0.029 / 0.026 at the spec's m = 100 and larger at m ∈ {1, 8, 32}
//! (fewer responses average less over directions); the paper's own rate
//! `(d^{p/2}/k)^{1/p}` is far above the spec's figures. The weak coreset at
//! p = 3 with the spec's k = 400 reaches F(X̂)/F(X*) ≈ 1.037 against 1.02
//! (the weak rate at p > 2 is d^{p/2}/ε^{p−1}, so k = 400 is small there),
//! and the p = 3 growth exponent is ≈ 2.3 against the table's 3: a finite
//! probe set sees the CLT rate ε ∝ k^{−1/2}, not the worst case over all X.
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
