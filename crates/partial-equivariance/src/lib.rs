//! # partial-equivariance
//!
//! Learning the degree of equivariance in steerable CNNs, after
//!
//! > Lars Veefkind, Gabriele Cesa.
//! > *A Probabilistic Approach to Learning the Degree of Equivariance in
//! > Steerable CNNs.* ICML 2024. Official code `QUVA-Lab/partial-escnn`
//! > (restrictively licensed; this crate is reimplemented from the equations).
//!
//! Each layer of a steerable CNN gets a likelihood λ over the symmetry group
//! H, parameterised by band-limited Fourier logits, `λ = exp⟨θ, φ_L⟩ / Z`;
//! its kernel is constrained only on average, `k_λ = ∫ λ(h) (h⋆k) dh`. In
//! the harmonic basis the integral acts through the Fourier coefficients
//! λ̂(ψ) alone: `c_{jJ} = Q · blockdiag(λ̂)`, Q the change of basis that
//! decomposes the tensor product. Uniform λ gives the fully equivariant
//! (Wigner–Eckart) basis, λ → δ_e no constraint. Regularisers keep the
//! likelihoods interpretable: KL between consecutive layers (previous layer
//! detached), KL of the first layer to uniform, and an alignment loss that
//! puts the mode at the identity.
//!
//! | paper | item |
//! |---|---|
//! | compact groups, irreps, Haar grids, near-identity samples (SO(2), O(2), C_N, D_N; SO(3) missing, see [`group`]) | [`group::CompactGroup`], [`group::Planar`] |
//! | tensor-product decomposition, change of basis Q | [`decompose::tensor_product`], [`decompose::decompose`] |
//! | `IrrepsMapFourierBLact` + `FTSoftmaxNormalisation`: λ, log Z, λ̂ (softmax on the grid, ridge least squares) | [`fourier::BandLimitedLikelihood`] |
//! | KL(λ_l ‖ sg λ_{l−1}), KL(λ₀ ‖ U), alignment loss, analytic gradients | [`fourier::BandLimitedLikelihood::kl`], [`kl_uniform`](fourier::BandLimitedLikelihood::kl_uniform), [`alignment_loss`](fourier::BandLimitedLikelihood::alignment_loss), `*_grad` |
//! | field types (trivial, sign, irreps, regular) | [`field::FieldType`] |
//! | steerable kernel basis, Wigner–Eckart (exact) | [`basis::WignerEckartBasis`] |
//! | relaxed basis `c_{jJ} = Q·blockdiag(λ̂)` | [`basis::RelaxedBasis`] |
//! | numeric `∫ λ(h)(h⋆k) dh` (reference) | [`diagnostics::project`] |
//! | equivariance error and spectrum (beyond the paper) | [`diagnostics::equivariance_error`], [`diagnostics::equivariance_spectrum`] |
//! | MLE/MAP fit of λ to observed transformations (toy) | [`fit::fit`], [`fit::von_mises_mixture`] |
//!
//! Not yet here: the `nn` part (relaxed steerable convolutions on candle
//! trained through nncore, the DDMNIST-style experiments); the runner entry
//! marks the CNN comparisons `incomplete`.
//!
//! Deviations, each documented at the item: the normalisation grid is a
//! parameter (the official `2L + 1` points make log Z approximate: 3·10⁻²
//! at L = 2, |θ| = 1); θ(trivial) is dropped inside the KL so the ridge of
//! the least squares cannot make KL negative.
//!
//! ```
//! use partial_equivariance::basis::{KernelParams, RelaxedBasis, WignerEckartBasis};
//! use partial_equivariance::diagnostics::equivariance_error;
//! use partial_equivariance::field::FieldType;
//! use partial_equivariance::fourier::{BandLimitedLikelihood, oversampled_resolution};
//! use partial_equivariance::group::{Irrep, Planar, PlanarElement};
//! use ndarray::Array1;
//!
//! # fn main() -> partial_equivariance::Result<()> {
//! let so2 = Planar::So2;
//! // A likelihood over SO(2) peaked at multiples of 90°: logits at frequency 4.
//! let mut theta = Array1::zeros(9); // [1, cos θ, sin θ, …, cos 4θ, sin 4θ]
//! theta[7] = 2.0;
//! let lik = BandLimitedLikelihood::new(so2, theta.view(), 4, 4, oversampled_resolution(4))?;
//! assert!(lik.kl_uniform() > 0.1);
//! // Scalar → vector-field kernels, 5×5, relaxed by λ: exactly C4-equivariant.
//! let (scalar, vector) = (FieldType::trivial(so2), FieldType::irrep(so2, Irrep::new(0, 1))?);
//! let params = KernelParams::new(5, 4);
//! let relaxed = RelaxedBasis::new(&scalar, &vector, &params, &lik)?;
//! let exact = WignerEckartBasis::new(&scalar, &vector, &params)?;
//! assert!(relaxed.basis().len() > exact.basis().len());
//! let k = relaxed.basis().kernel(Array1::ones(relaxed.basis().len()).view())?;
//! let quarter = PlanarElement::rotation(std::f64::consts::FRAC_PI_2);
//! assert!(equivariance_error(k.view(), &scalar, &vector, &quarter)? < 1e-10);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod basis;
pub mod decompose;
pub mod diagnostics;
pub mod error;
pub mod field;
pub mod fit;
pub mod fourier;
pub mod group;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
