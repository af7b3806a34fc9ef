//! Field types: representations `ρ(g) = P (⊕_i ψ_i(g)) Pᵀ` of a planar
//! group on a feature field (trivial, sign, single irreps, regular, or any
//! direct sum with an orthogonal change of basis P).

use crate::decompose::decompose;
use crate::error::{Error, Result};
use crate::group::{CompactGroup, Irrep, Planar, PlanarElement};
use ndarray::{Array2, s};
use std::f64::consts::PI;

/// A field type over a [`Planar`] group.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldType {
    group: Planar,
    irreps: Vec<Irrep>,
    offsets: Vec<usize>,
    dim: usize,
    /// `None` means P = I.
    change_of_basis: Option<Array2<f64>>,
}

impl FieldType {
    /// The direct sum `⊕ ψ_i` (P = I).
    ///
    /// # Errors
    /// [`Error::ZeroFields`] (no irreps), [`Error::InvalidIrrep`].
    pub fn new(group: Planar, irreps: Vec<Irrep>) -> Result<Self> {
        if irreps.is_empty() {
            return Err(Error::ZeroFields { what: "field type" });
        }
        let mut offsets = Vec::with_capacity(irreps.len());
        let mut dim = 0usize;
        for &p in &irreps {
            offsets.push(dim);
            dim = dim
                .checked_add(group.irrep_dim(p)?)
                .ok_or(Error::ZeroFields {
                    what: "field type (overflow)",
                })?;
        }
        Ok(FieldType {
            group,
            irreps,
            offsets,
            dim,
            change_of_basis: None,
        })
    }

    /// `P (⊕ ψ_i) Pᵀ` with an orthogonal P (checked to 1e-9).
    ///
    /// # Errors
    /// As [`FieldType::new`]; [`Error::ShapeMismatch`] when P is not
    /// dim × dim; [`Error::NonFinite`]; [`Error::InvalidParameter`] when P is
    /// not orthogonal.
    pub fn with_change_of_basis(group: Planar, irreps: Vec<Irrep>, p: Array2<f64>) -> Result<Self> {
        let mut f = Self::new(group, irreps)?;
        if p.dim() != (f.dim, f.dim) {
            return Err(Error::ShapeMismatch {
                what: "change of basis",
                expected: format!("[{}, {}]", f.dim, f.dim),
                got: format!("{:?}", p.dim()),
            });
        }
        crate::error::finite(p.iter().copied(), "change of basis")?;
        let ptp = p.t().dot(&p);
        let dev = ptp
            .indexed_iter()
            .map(|((i, j), v)| (v - if i == j { 1.0 } else { 0.0 }).abs())
            .fold(0.0, f64::max);
        if dev > 1e-9 {
            return Err(Error::InvalidParameter {
                name: "change of basis orthogonality defect",
                value: dev,
                expected: "PᵀP = I to 1e-9",
            });
        }
        f.change_of_basis = Some(p);
        Ok(f)
    }

    /// The trivial (scalar) field.
    pub fn trivial(group: Planar) -> Self {
        Self::new(group, vec![Irrep::TRIVIAL]).unwrap_or_else(|_| unreachable!())
    }

    /// The sign field `(−1)^s` (pseudo-scalar) of O(2) / D_N.
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`] for groups without the flip.
    pub fn sign(group: Planar) -> Result<Self> {
        Self::new(group, vec![Irrep::new(1, 0)])
    }

    /// A single irrep ψ.
    ///
    /// # Errors
    /// [`Error::InvalidIrrep`].
    pub fn irrep(group: Planar, psi: Irrep) -> Result<Self> {
        Self::new(group, vec![psi])
    }

    /// The regular representation: for C_N / D_N the permutation
    /// representation `ρ(g) e_h = e_{gh}` on the group elements (grid order),
    /// decomposed into irreps numerically (P = Q of
    /// [`crate::decompose::decompose`]); for SO(2) / O(2) the band-limited
    /// regular representation `⊕_{m(ψ) ≤ L} ψ^{⊕ d_ψ / dim End ψ}` in the
    /// irreps basis (dimension 2L + 1 for SO(2), 4L + 2 for O(2); escnn's
    /// `bl_regular_representation(L)`, up to its change of basis).
    ///
    /// # Errors
    /// Decomposition errors (none for valid groups).
    pub fn regular(group: Planar, band_limit: usize) -> Result<Self> {
        match group.order_n() {
            None => {
                // Multiplicity d_ψ / dim End(ψ): the 2-d irreps of SO(2) are
                // of complex type (once), those of O(2) of real type (twice).
                let mut irreps = Vec::new();
                for p in group.irreps(band_limit) {
                    let copies = if group.has_flip() {
                        group.irrep_dim(p)?
                    } else {
                        1
                    };
                    for _ in 0..copies {
                        irreps.push(p);
                    }
                }
                Self::new(group, irreps)
            }
            Some(n) => {
                let elems = group.haar_grid(1)?;
                let size = elems.len();
                let index = |g: &PlanarElement| -> usize {
                    let k = (g.angle * n as f64 / (2.0 * PI)).round() as i64;
                    let k = k.rem_euclid(n as i64) as usize;
                    k + if g.flip { n } else { 0 }
                };
                let d = decompose(
                    &group,
                    size,
                    |g| {
                        let mut r = Array2::zeros((size, size));
                        for (col, h) in elems.iter().enumerate() {
                            r[[index(&group.compose(g, h)), col]] = 1.0;
                        }
                        Ok(r)
                    },
                    n / 2,
                )?;
                let irreps = d.blocks.iter().map(|b| b.irrep).collect();
                Self::with_change_of_basis(group, irreps, d.q)
            }
        }
    }

    /// The group.
    pub fn group(&self) -> Planar {
        self.group
    }

    /// The irreps, in block order.
    pub fn irreps(&self) -> &[Irrep] {
        &self.irreps
    }

    /// First row of each irrep block (in the irreps basis).
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// Dimension of the field.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The change of basis P, if not the identity.
    pub fn change_of_basis(&self) -> Option<&Array2<f64>> {
        self.change_of_basis.as_ref()
    }

    /// `ρ(g) = P (⊕ ψ_i(g)) Pᵀ`. O(dim³) with P, O(dim²) without.
    ///
    /// # Errors
    /// As [`CompactGroup::check_element`].
    pub fn representation(&self, g: &PlanarElement) -> Result<Array2<f64>> {
        self.group.check_element(g)?;
        let mut r = Array2::zeros((self.dim, self.dim));
        for (p, &o) in self.irreps.iter().zip(&self.offsets) {
            let m = self.group.irrep_matrix(*p, g)?;
            let d = m.nrows();
            r.slice_mut(s![o..o + d, o..o + d]).assign(&m);
        }
        Ok(match &self.change_of_basis {
            Some(p) => p.dot(&r).dot(&p.t()),
            None => r,
        })
    }
}
