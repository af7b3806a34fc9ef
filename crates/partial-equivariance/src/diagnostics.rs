//! The numeric λ-projection (the reference for [`crate::basis::RelaxedBasis`])
//! and first-class equivariance measurements.
//!
//! Users of escnn/e2cnn often measure equivariance error on feature maps
//! with interpolation and border effects mixed in (escnn #72, e2cnn #11);
//! [`equivariance_error`] measures it on the kernel itself, exactly, for the
//! symmetries of the pixel grid, and [`equivariance_spectrum`] splits a
//! kernel's energy by the irrep ψ under which it transforms (trivial ψ =
//! the equivariant part).

use crate::basis::{HarmonicKernel, KernelBasis, KernelParams, act_on_sampled};
use crate::error::{Error, Result};
use crate::field::FieldType;
use crate::fourier::BandLimitedLikelihood;
use crate::group::{CompactGroup, Irrep, Planar};
use ndarray::{Array1, Array3, ArrayView3, s};

/// `k_λ(x_p) = (1/N) Σ_i λ(h_i) ρ_out(h_i) k(h_i⁻¹ x_p) ρ_in(h_i)ᵀ` on the
/// Haar grid of `resolution` angles, evaluating the continuous kernel at the
/// rotated points — the numeric `∫ λ(h) (h⋆k) dh`, independent of the
/// Fourier machinery. Output `(d_out, d_in, k·k)`. O(N·k²·(#slots·D + d³)).
///
/// # Errors
/// [`Error::GroupMismatch`]; [`Error::ZeroFields`] (resolution 0).
pub fn project(
    kernel: &HarmonicKernel,
    likelihood: &BandLimitedLikelihood<Planar>,
    resolution: usize,
) -> Result<Array3<f64>> {
    let (output, input) = kernel.fields();
    let group = input.group();
    if *likelihood.group() != group {
        return Err(Error::GroupMismatch {
            left: likelihood.group().name(),
            right: group.name(),
        });
    }
    let params = kernel.params();
    let pixels = params.size * params.size;
    let grid = group.haar_grid(resolution)?;
    let mut acc = Array3::zeros((output.dim(), input.dim(), pixels));
    for h in &grid {
        let lam = likelihood.density(h)?;
        let ro = output.representation(h)?;
        let ri = input.representation(h)?;
        let hinv = group.inverse(h);
        for p in 0..pixels {
            let k = kernel.evaluate(hinv.act(params.coord(p)))?;
            let v = ro.dot(&k).dot(&ri.t()) * lam;
            let mut dst = acc.slice_mut(s![.., .., p]);
            dst += &v;
        }
    }
    acc /= grid.len() as f64;
    Ok(acc)
}

/// The relative equivariance error `‖h⋆k − k‖_F / ‖k‖_F` of a sampled
/// kernel (0 for the zero kernel), for h a symmetry of the pixel grid.
/// O(k²·d³).
///
/// # Errors
/// As [`act_on_sampled`]; [`Error::NonFinite`].
pub fn equivariance_error(
    kernel: ArrayView3<'_, f64>,
    input: &FieldType,
    output: &FieldType,
    h: &crate::group::PlanarElement,
) -> Result<f64> {
    crate::error::finite(kernel.iter().copied(), "kernel")?;
    let moved = act_on_sampled(kernel, input, output, h)?;
    let norm = kernel.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm == 0.0 {
        return Ok(0.0);
    }
    let diff = (&moved - &kernel).iter().map(|v| v * v).sum::<f64>().sqrt();
    Ok(diff / norm)
}

/// Energy of a kernel per irrep ψ of its transformation law.
#[derive(Clone, Debug, PartialEq)]
pub struct Spectrum {
    /// `(ψ, Σ w²)` over the basis elements of ψ, sorted by ψ.
    pub energy: Vec<(Irrep, f64)>,
    /// Squared norm of the part of the sampled kernel outside the band.
    pub residual: f64,
}

impl Spectrum {
    /// Fraction of the in-band energy in the trivial irrep (1 = equivariant).
    pub fn invariant_fraction(&self) -> f64 {
        let total: f64 = self.energy.iter().map(|e| e.1).sum();
        if total == 0.0 {
            return 1.0;
        }
        self.energy
            .iter()
            .filter(|e| e.0 == Irrep::TRIVIAL)
            .map(|e| e.1)
            .sum::<f64>()
            / total
    }
}

/// The equivariance spectrum: least-squares coefficients `w` of the sampled
/// kernel in [`KernelBasis::unconstrained`] (orthonormal Q columns per
/// slot, so `Σ w²` is the harmonic-coefficient energy), summed per ψ.
/// O(P·n² ) for P = d_out·d_in·k² samples and n elements.
///
/// # Errors
/// [`Error::ShapeMismatch`], [`Error::NonFinite`], basis errors.
pub fn equivariance_spectrum(
    kernel: ArrayView3<'_, f64>,
    input: &FieldType,
    output: &FieldType,
    params: &KernelParams,
) -> Result<Spectrum> {
    crate::error::finite(kernel.iter().copied(), "kernel")?;
    let full = KernelBasis::unconstrained(input, output, params)?;
    let (n, d_out, d_in, pixels) = full.elements().dim();
    if kernel.dim() != (d_out, d_in, pixels) {
        return Err(Error::ShapeMismatch {
            what: "kernel",
            expected: format!("[{d_out}, {d_in}, {pixels}]"),
            got: format!("{:?}", kernel.dim()),
        });
    }
    let m = d_out * d_in * pixels;
    let a = full
        .elements()
        .view()
        .into_shape_with_order((n, m))
        .map_err(|_| Error::ZeroFields { what: "basis" })?
        .t()
        .to_owned();
    let b: Array1<f64> = kernel.iter().copied().collect();
    let sol = mlcore::linalg::lstsq(a.view(), b.view())?;
    let fitted = a.dot(&sol.x);
    let residual = (&b - &fitted).iter().map(|v| v * v).sum();
    let mut energy: Vec<(Irrep, f64)> = Vec::new();
    for (label, w) in full.labels().iter().zip(sol.x.iter()) {
        match energy.iter_mut().find(|e| e.0 == label.psi) {
            Some(e) => e.1 += w * w,
            None => energy.push((label.psi, w * w)),
        }
    }
    energy.sort_by_key(|e| e.0);
    let _ = input.group().name();
    Ok(Spectrum { energy, residual })
}
