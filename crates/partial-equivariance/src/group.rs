//! Compact groups: the [`CompactGroup`] trait (irreps, real Fourier
//! features, Haar grids, near-identity samples) and its planar
//! implementation [`Planar`] for SO(2), O(2), C_N and D_N.
//!
//! **SO(3) is missing.** The trait is group-agnostic (the tensor-product
//! decomposition in [`crate::decompose`] is numeric and only needs irrep
//! matrices and an exact Haar quadrature), but SO(3) needs Wigner-D matrices
//! in a real basis, an exact quadrature on SO(3) (a Thomson or Gauss grid
//! in three angles) and a base space R³ with spherical harmonics for the
//! kernels; none of that is written yet.
//!
//! Conventions. An element of the planar groups is `g = r_θ f^s`
//! ([`PlanarElement`] with `angle = θ`, `flip = s`), acting on ℝ² as
//! `R(θ)·F^s` with `F = diag(1, −1)` (reflection across the first axis);
//! composition `(θ₁, s₁)(θ₂, s₂) = (θ₁ + (−1)^{s₁} θ₂, s₁ ⊕ s₂)`. The
//! real irreps are labelled [`Irrep`] `(j, m)`:
//! - SO(2) and C_N: `(0, 0)` trivial, `(0, m)` the 2-d rotation `R(mθ)`
//!   (for C_N, 0 < m < N/2; and for even N the 1-d `(0, N/2)`: `cos(Nθ/2) = ±1`);
//! - O(2) and D_N: `(0, 0)` trivial, `(1, 0)` the sign `(−1)^s`, `(1, m)` the
//!   2-d `R(mθ)F^s` (for D_N, 0 < m < N/2; and for even N the 1-d `(0, N/2)`:
//!   `cos(Nθ/2)` and `(1, N/2)`: `(−1)^s cos(Nθ/2)`).

use crate::error::{Error, Result};
use ndarray::{Array2, array};
use rand::Rng;
use rand_distr::{Distribution, Normal};
use std::f64::consts::PI;
use std::fmt::Debug;

/// A real irreducible representation, labelled `(j, m)`: `m` is the
/// frequency, `j = 1` marks the flip-carrying irreps of O(2) / D_N (see the
/// module docs for the full table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Irrep {
    /// 0 or 1: whether the flip acts non-trivially (O(2), D_N).
    pub j: u8,
    /// The frequency m ≥ 0.
    pub m: usize,
}

impl Irrep {
    /// The irrep `(j, m)`.
    pub fn new(j: u8, m: usize) -> Self {
        Irrep { j, m }
    }

    /// The trivial irrep `(0, 0)`.
    pub const TRIVIAL: Irrep = Irrep { j: 0, m: 0 };
}

impl std::fmt::Display for Irrep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.j, self.m)
    }
}

/// A compact group with real irreps, a band-limited real Fourier basis and
/// an exact equal-weight Haar quadrature.
///
/// The Fourier features `φ_L(g)` are an orthogonal basis of the band-limited
/// functions on the group (frequency ≤ L): per irrep ψ (in [`irreps`]
/// order) the linearly independent matrix coefficients of ψ(g). A logit is
/// `ℓ(g) = ⟨θ, φ_L(g)⟩`; expectations `E_λ[φ_L]` determine every Fourier
/// coefficient `λ̂(ψ) = ∫ λ(h) ψ(h) dh` ([`fourier_block`]).
///
/// [`irreps`]: CompactGroup::irreps
/// [`fourier_block`]: CompactGroup::fourier_block
pub trait CompactGroup: Clone + Debug + PartialEq {
    /// A group element.
    type Element: Copy + Debug + PartialEq;
    /// The group's name, e.g. `"SO(2)"`, `"D_4"`.
    fn name(&self) -> String;
    /// The identity e.
    fn identity(&self) -> Self::Element;
    /// The product `a·b`.
    fn compose(&self, a: &Self::Element, b: &Self::Element) -> Self::Element;
    /// The inverse `a⁻¹`.
    fn inverse(&self, a: &Self::Element) -> Self::Element;
    /// Checks that `g` is finite and belongs to the group.
    ///
    /// # Errors
    /// [`Error::NonFinite`], [`Error::InvalidElement`].
    fn check_element(&self, g: &Self::Element) -> Result<()>;
    /// The irreps of frequency ≤ `band_limit` (capped at the group's
    /// largest frequency), sorted by `(m, j)`.
    fn irreps(&self, band_limit: usize) -> Vec<Irrep>;
    /// Dimension of ψ.
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`] when ψ is not an irrep of the group.
    fn irrep_dim(&self, psi: Irrep) -> Result<usize>;
    /// The matrix ψ(g). O(d²).
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`].
    fn irrep_matrix(&self, psi: Irrep, g: &Self::Element) -> Result<Array2<f64>>;
    /// Number of Fourier features of ψ (its independent matrix coefficients).
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`].
    fn feature_count(&self, psi: Irrep) -> Result<usize>;
    /// The Fourier features of ψ at `g`, appended to `out`.
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`].
    fn features_of(&self, psi: Irrep, g: &Self::Element, out: &mut Vec<f64>) -> Result<()>;
    /// `E_Haar[f²]` of each feature of ψ (the diagonal Gram matrix).
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`].
    fn feature_sq_norms(&self, psi: Irrep) -> Result<Vec<f64>>;
    /// `λ̂(ψ) = E_λ[ψ(g)]` from the expectations `E_λ[f]` of ψ's features.
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`], [`Error::ShapeMismatch`].
    fn fourier_block(&self, psi: Irrep, expectations: &[f64]) -> Result<Array2<f64>>;
    /// Largest frequency of the group (`None` for SO(2), O(2)).
    fn max_frequency(&self) -> Option<usize>;
    /// The equal-weight Haar grid: for a continuous group `resolution`
    /// rotation angles (×2 flips for O(2)); a finite group returns all its
    /// elements and ignores `resolution`. Exact for band-limited functions
    /// of frequency < `resolution` (every frequency for finite groups).
    ///
    /// # Errors
    /// [`Error::ZeroFields`] when `resolution = 0` for a continuous group.
    fn haar_grid(&self, resolution: usize) -> Result<Vec<Self::Element>>;
    /// Rotation angles in the grid of that resolution.
    fn grid_angles(&self, resolution: usize) -> usize;
    /// `n` elements near the identity: rotations by angles ~ N(0, σ²) for
    /// SO(2)/O(2) (the paper's alignment samples); none for a finite group
    /// (its grid already holds every element).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for σ not finite and positive.
    fn near_identity(&self, n: usize, sigma: f64, rng: &mut impl Rng)
    -> Result<Vec<Self::Element>>;

    /// The number of features of band L, Σ_{ψ: m ≤ L} count(ψ).
    fn feature_len(&self, band_limit: usize) -> usize {
        self.irreps(band_limit)
            .into_iter()
            .map(|p| self.feature_count(p).unwrap_or(0))
            .sum()
    }

    /// The features `φ_L(g)` (all irreps of frequency ≤ L, in order).
    ///
    /// # Errors
    /// As [`CompactGroup::check_element`].
    fn features(&self, g: &Self::Element, band_limit: usize) -> Result<Vec<f64>> {
        self.check_element(g)?;
        let mut out = Vec::with_capacity(self.feature_len(band_limit));
        for p in self.irreps(band_limit) {
            self.features_of(p, g, &mut out)?;
        }
        Ok(out)
    }

    /// The Gram diagonal of `φ_L`.
    fn sq_norms(&self, band_limit: usize) -> Vec<f64> {
        self.irreps(band_limit)
            .into_iter()
            .flat_map(|p| self.feature_sq_norms(p).unwrap_or_default())
            .collect()
    }

    /// Checks that a grid of that resolution resolves band limit `l`
    /// (frequency ≤ ⌊(angles − 1)/2⌋, and ≤ ⌊N/2⌋ for a finite group).
    ///
    /// # Errors
    /// [`Error::BandLimitTooHigh`].
    fn check_band(&self, l: usize, resolution: usize) -> Result<()> {
        let angles = self.grid_angles(resolution);
        let ok = match self.max_frequency() {
            Some(mf) => l <= mf,
            None => l.checked_mul(2).is_some_and(|v| v < angles),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::BandLimitTooHigh { l, grid: angles })
        }
    }
}

/// An element `r_θ f^s` of a planar group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarElement {
    /// Rotation angle θ (radians).
    pub angle: f64,
    /// Whether the reflection F = diag(1, −1) is applied (first).
    pub flip: bool,
}

impl PlanarElement {
    /// The rotation r_θ.
    pub fn rotation(angle: f64) -> Self {
        PlanarElement { angle, flip: false }
    }

    /// The element r_θ f.
    pub fn flipped(angle: f64) -> Self {
        PlanarElement { angle, flip: true }
    }

    /// The action on ℝ²: `R(θ) F^s x`.
    pub fn act(&self, x: [f64; 2]) -> [f64; 2] {
        let y = if self.flip { [x[0], -x[1]] } else { x };
        let (s, c) = self.angle.sin_cos();
        [c * y[0] - s * y[1], s * y[0] + c * y[1]]
    }
}

/// The planar compact groups: SO(2), O(2), the cyclic C_N and dihedral D_N
/// (rotations by multiples of 2π/N, with the flip for D_N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Planar {
    /// The rotations SO(2).
    So2,
    /// Rotations and reflections O(2).
    O2,
    /// C_N, N ≥ 1.
    Cyclic(usize),
    /// D_N, N ≥ 1.
    Dihedral(usize),
}

fn rot(a: f64) -> Array2<f64> {
    let (s, c) = a.sin_cos();
    array![[c, -s], [s, c]]
}

impl Planar {
    /// C_N.
    ///
    /// # Errors
    /// [`Error::ZeroFields`] for N = 0.
    pub fn cyclic(n: usize) -> Result<Self> {
        if n == 0 {
            return Err(Error::ZeroFields {
                what: "C_N with N = 0",
            });
        }
        Ok(Planar::Cyclic(n))
    }

    /// D_N.
    ///
    /// # Errors
    /// [`Error::ZeroFields`] for N = 0.
    pub fn dihedral(n: usize) -> Result<Self> {
        if n == 0 {
            return Err(Error::ZeroFields {
                what: "D_N with N = 0",
            });
        }
        Ok(Planar::Dihedral(n))
    }

    /// Whether the group contains the flip.
    pub fn has_flip(&self) -> bool {
        matches!(self, Planar::O2 | Planar::Dihedral(_))
    }

    /// N for a finite group.
    pub fn order_n(&self) -> Option<usize> {
        match self {
            Planar::Cyclic(n) | Planar::Dihedral(n) => Some(*n),
            _ => None,
        }
    }

    /// The 1-d irrep `(·, N/2)` exists (even N).
    fn half(&self, m: usize) -> bool {
        self.order_n().is_some_and(|n| n % 2 == 0 && 2 * m == n)
    }

    /// How the base-space harmonics `Y_j(x) = [cos jφ, sin jφ]` (or `[1]`
    /// for j = 0) transform: `Y_j(g x) = B_j(g) Y_j(x)` with
    /// `B_j(r_θ f^s) = R(jθ) F^s`. O(1).
    pub fn base_harmonic_matrix(&self, j: usize, g: &PlanarElement) -> Array2<f64> {
        if j == 0 {
            return array![[1.0]];
        }
        let mut r = rot(j as f64 * g.angle);
        if g.flip {
            r.column_mut(1).mapv_inplace(|v| -v);
        }
        r
    }

    fn valid(&self, psi: Irrep) -> bool {
        match self {
            Planar::So2 => psi.j == 0,
            Planar::O2 => psi.j == 1 || psi.m == 0 && psi.j == 0,
            Planar::Cyclic(n) => psi.j == 0 && 2 * psi.m <= *n,
            Planar::Dihedral(n) => {
                2 * psi.m <= *n && (psi.j == 1 || psi.j == 0 && (psi.m == 0 || self.half(psi.m)))
            }
        }
    }

    fn invalid(&self, psi: Irrep) -> Error {
        Error::InvalidIrrep {
            irrep: psi.to_string(),
            group: self.name(),
        }
    }
}

impl CompactGroup for Planar {
    type Element = PlanarElement;

    fn name(&self) -> String {
        match self {
            Planar::So2 => "SO(2)".into(),
            Planar::O2 => "O(2)".into(),
            Planar::Cyclic(n) => format!("C_{n}"),
            Planar::Dihedral(n) => format!("D_{n}"),
        }
    }

    fn identity(&self) -> PlanarElement {
        PlanarElement::rotation(0.0)
    }

    fn compose(&self, a: &PlanarElement, b: &PlanarElement) -> PlanarElement {
        let angle = if a.flip {
            a.angle - b.angle
        } else {
            a.angle + b.angle
        };
        PlanarElement {
            angle: angle.rem_euclid(2.0 * PI),
            flip: a.flip ^ b.flip,
        }
    }

    fn inverse(&self, a: &PlanarElement) -> PlanarElement {
        // (r_θ f)⁻¹ = f r_{−θ} = r_θ f; (r_θ)⁻¹ = r_{−θ}.
        if a.flip {
            *a
        } else {
            PlanarElement::rotation((-a.angle).rem_euclid(2.0 * PI))
        }
    }

    fn check_element(&self, g: &PlanarElement) -> Result<()> {
        if !g.angle.is_finite() {
            return Err(Error::NonFinite {
                what: "group element angle",
                index: 0,
            });
        }
        let bad = || Error::InvalidElement {
            angle: g.angle,
            flip: g.flip,
            group: self.name(),
        };
        if g.flip && !self.has_flip() {
            return Err(bad());
        }
        if let Some(n) = self.order_n() {
            let k = g.angle * n as f64 / (2.0 * PI);
            if (k - k.round()).abs() > 1e-9 {
                return Err(bad());
            }
        }
        Ok(())
    }

    fn irreps(&self, band_limit: usize) -> Vec<Irrep> {
        let top = match self.order_n() {
            Some(n) => band_limit.min(n / 2),
            None => band_limit,
        };
        let mut out = Vec::new();
        for m in 0..=top {
            for j in 0..=1u8 {
                let p = Irrep { j, m };
                if self.valid(p) {
                    out.push(p);
                }
            }
        }
        out
    }

    fn irrep_dim(&self, psi: Irrep) -> Result<usize> {
        if !self.valid(psi) {
            return Err(self.invalid(psi));
        }
        Ok(if psi.m == 0 || self.half(psi.m) { 1 } else { 2 })
    }

    fn irrep_matrix(&self, psi: Irrep, g: &PlanarElement) -> Result<Array2<f64>> {
        let sigma = if g.flip { -1.0 } else { 1.0 };
        let mth = psi.m as f64 * g.angle;
        Ok(match self.irrep_dim(psi)? {
            1 => {
                let base = if psi.m == 0 { 1.0 } else { mth.cos() };
                array![[if psi.j == 1 { sigma * base } else { base }]]
            }
            _ => {
                let mut r = rot(mth);
                if g.flip {
                    r.column_mut(1).mapv_inplace(|v| -v);
                }
                r
            }
        })
    }

    fn feature_count(&self, psi: Irrep) -> Result<usize> {
        Ok(match self.irrep_dim(psi)? {
            1 => 1,
            _ if psi.j == 1 => 4,
            _ => 2,
        })
    }

    fn features_of(&self, psi: Irrep, g: &PlanarElement, out: &mut Vec<f64>) -> Result<()> {
        let sigma = if g.flip { -1.0 } else { 1.0 };
        let (s, c) = (psi.m as f64 * g.angle).sin_cos();
        match self.feature_count(psi)? {
            1 => out.push(self.irrep_matrix(psi, g)?[[0, 0]]),
            2 => out.extend([c, s]),
            _ => out.extend([c, s, sigma * c, sigma * s]),
        }
        Ok(())
    }

    fn feature_sq_norms(&self, psi: Irrep) -> Result<Vec<f64>> {
        Ok(match self.feature_count(psi)? {
            1 => vec![1.0],
            k => vec![0.5; k],
        })
    }

    fn fourier_block(&self, psi: Irrep, e: &[f64]) -> Result<Array2<f64>> {
        let k = self.feature_count(psi)?;
        if e.len() != k {
            return Err(Error::ShapeMismatch {
                what: "feature expectations",
                expected: k.to_string(),
                got: e.len().to_string(),
            });
        }
        // ψ = [[c, −σs], [s, σc]] (σ = 1 without flips).
        Ok(match k {
            1 => array![[e[0]]],
            2 => array![[e[0], -e[1]], [e[1], e[0]]],
            _ => array![[e[0], -e[3]], [e[1], e[2]]],
        })
    }

    fn max_frequency(&self) -> Option<usize> {
        self.order_n().map(|n| n / 2)
    }

    fn haar_grid(&self, resolution: usize) -> Result<Vec<PlanarElement>> {
        let n = match self.order_n() {
            Some(n) => n,
            None if resolution == 0 => {
                return Err(Error::ZeroFields {
                    what: "Haar grid resolution",
                });
            }
            None => resolution,
        };
        let flips: &[bool] = if self.has_flip() {
            &[false, true]
        } else {
            &[false]
        };
        let mut out = Vec::with_capacity(n * flips.len());
        for &flip in flips {
            for k in 0..n {
                out.push(PlanarElement {
                    angle: 2.0 * PI * k as f64 / n as f64,
                    flip,
                });
            }
        }
        Ok(out)
    }

    fn grid_angles(&self, resolution: usize) -> usize {
        self.order_n().unwrap_or(resolution)
    }

    fn near_identity(
        &self,
        n: usize,
        sigma: f64,
        rng: &mut impl Rng,
    ) -> Result<Vec<PlanarElement>> {
        if !(sigma.is_finite() && sigma > 0.0) {
            return Err(Error::InvalidParameter {
                name: "sigma",
                value: sigma,
                expected: "finite and > 0",
            });
        }
        if self.order_n().is_some() {
            return Ok(Vec::new());
        }
        let normal = Normal::new(0.0, sigma).map_err(|_| Error::InvalidParameter {
            name: "sigma",
            value: sigma,
            expected: "finite and > 0",
        })?;
        Ok((0..n)
            .map(|_| PlanarElement::rotation(normal.sample(rng)))
            .collect())
    }
}
