//! Decomposition of a representation into irreps: the change of basis Q
//! with `ρ(g) Q = Q · blockdiag_ψ ψ(g)` (Q orthogonal), in particular for
//! tensor products `ψ_a ⊗ ψ_b` (frequencies |m_a ± m_b| for the planar
//! groups) and for the kernel-space representations of [`crate::basis`].
//!
//! The decomposition is numeric and group-agnostic: for each candidate
//! irrep ψ, the intertwiners `X = ∫ ρ(h) E ψ(h)ᵀ dh` (E running over the
//! matrix units) span `Hom_G(ψ, ρ)`; they are orthonormalised copy by copy
//! (`X ← X − Σ_c U_c U_cᵀ X`, then `X / √(tr XᵀX / d_ψ)`, valid because
//! `XᵀX` commutes with ψ and is symmetric, hence a multiple of I for the
//! real- and complex-type irreps alike). The Haar integral uses the group's
//! exact equal-weight grid, so Q is exact to rounding. Cost
//! O(|grid| · D · Σ_ψ d_ψ · (D + d_ψ)) for a D-dimensional ρ.

use crate::error::{Error, Result};
use crate::group::{CompactGroup, Irrep};
use ndarray::{Array2, ArrayView2, s};

/// One irrep block of a [`Decomposition`].
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The irrep ψ.
    pub irrep: Irrep,
    /// First column of the block in Q.
    pub offset: usize,
    /// d_ψ.
    pub dim: usize,
}

/// `ρ = Q (⊕ ψ) Qᵀ`.
#[derive(Clone, Debug, PartialEq)]
pub struct Decomposition {
    /// The orthogonal change of basis, D × D.
    pub q: Array2<f64>,
    /// The irrep blocks, in column order.
    pub blocks: Vec<Block>,
}

impl Decomposition {
    /// The columns `Q_ψ` (D × d_ψ) of one block.
    pub fn columns(&self, block: &Block) -> ArrayView2<'_, f64> {
        self.q.slice(s![.., block.offset..block.offset + block.dim])
    }

    /// Dimension D of ρ.
    pub fn dim(&self) -> usize {
        self.q.nrows()
    }
}

/// The Kronecker product `a ⊗ b` (row-major index `(i, k)` ↦ `i·rows(b) + k`).
pub fn kron(a: &Array2<f64>, b: &Array2<f64>) -> Array2<f64> {
    let (ar, ac) = a.dim();
    let (br, bc) = b.dim();
    let mut out = Array2::zeros((ar * br, ac * bc));
    for i in 0..ar {
        for j in 0..ac {
            let v = a[[i, j]];
            out.slice_mut(s![i * br..(i + 1) * br, j * bc..(j + 1) * bc])
                .assign(&(b * v));
        }
    }
    out
}

/// Decomposes the D-dimensional orthogonal representation `rep` into the
/// irreps of frequency ≤ `max_frequency`.
///
/// `rep` must be a homomorphism into O(D) whose matrix entries have
/// frequency ≤ `max_frequency`. Complexity in the module docs.
///
/// # Errors
/// [`Error::ZeroFields`] for D = 0; errors of `rep`; [`Error::ShapeMismatch`]
/// when `rep` returns a matrix that is not D × D or the irreps found do not
/// fill D dimensions (`rep` not orthogonal, or of higher frequency).
pub fn decompose<G: CompactGroup>(
    group: &G,
    dim: usize,
    rep: impl Fn(&G::Element) -> Result<Array2<f64>>,
    max_frequency: usize,
) -> Result<Decomposition> {
    if dim == 0 {
        return Err(Error::ZeroFields {
            what: "representation",
        });
    }
    // Integrands ρ ψ have frequency ≤ 2F; the grid is exact below `resolution`.
    let resolution = 4 * max_frequency + 4;
    let grid = group.haar_grid(resolution)?;
    let rhos = grid.iter().map(&rep).collect::<Result<Vec<_>>>()?;
    for r in &rhos {
        if r.dim() != (dim, dim) {
            return Err(Error::ShapeMismatch {
                what: "representation matrix",
                expected: format!("[{dim}, {dim}]"),
                got: format!("{:?}", r.dim()),
            });
        }
    }
    let inv_n = 1.0 / grid.len() as f64;
    let mut q = Array2::zeros((dim, dim));
    let mut blocks = Vec::new();
    let mut filled = 0usize;
    for psi in group.irreps(2 * max_frequency) {
        let d = group.irrep_dim(psi)?;
        let psis = grid
            .iter()
            .map(|g| group.irrep_matrix(psi, g))
            .collect::<Result<Vec<_>>>()?;
        let mut copies: Vec<Array2<f64>> = Vec::new();
        for a in 0..dim {
            for b in 0..d {
                // X = mean_h ρ(h)[:, a] ψ(h)[:, b]ᵀ.
                let mut x = Array2::<f64>::zeros((dim, d));
                for (r, p) in rhos.iter().zip(&psis) {
                    for k in 0..dim {
                        let rk = r[[k, a]];
                        if rk != 0.0 {
                            for l in 0..d {
                                x[[k, l]] += rk * p[[l, b]];
                            }
                        }
                    }
                }
                x *= inv_n;
                for u in &copies {
                    let proj = u.dot(&u.t().dot(&x));
                    x -= &proj;
                }
                let norm2 = x.iter().map(|v| v * v).sum::<f64>() / d as f64;
                if norm2 > 1e-10 {
                    x /= norm2.sqrt();
                    copies.push(x);
                }
            }
        }
        for u in copies {
            if filled + d > dim {
                return Err(Error::ShapeMismatch {
                    what: "irrep decomposition",
                    expected: format!("{dim} dimensions"),
                    got: format!("more than {dim} (representation not orthogonal?)"),
                });
            }
            q.slice_mut(s![.., filled..filled + d]).assign(&u);
            blocks.push(Block {
                irrep: psi,
                offset: filled,
                dim: d,
            });
            filled += d;
        }
    }
    if filled != dim {
        return Err(Error::ShapeMismatch {
            what: "irrep decomposition",
            expected: format!("{dim} dimensions"),
            got: format!("{filled} (representation above frequency {max_frequency}?)"),
        });
    }
    Ok(Decomposition { q, blocks })
}

/// The decomposition of `ψ_a ⊗ ψ_b` (row-major Kronecker order), with its
/// change of basis Q. For SO(2), `ψ_a ⊗ ψ_b = ψ_{|a−b|} ⊕ ψ_{a+b}` (with
/// `ψ_0 ⊕ ψ_0` when a = b); O(2) splits `ψ_0 ⊕ ψ_0` into trivial ⊕ sign.
///
/// # Errors
/// [`Error::InvalidIrrep`] when a or b is not an irrep of the group.
pub fn tensor_product<G: CompactGroup>(group: &G, a: Irrep, b: Irrep) -> Result<Decomposition> {
    let dim = group.irrep_dim(a)? * group.irrep_dim(b)?;
    decompose(
        group,
        dim,
        |g| Ok(kron(&group.irrep_matrix(a, g)?, &group.irrep_matrix(b, g)?)),
        a.m + b.m,
    )
}
