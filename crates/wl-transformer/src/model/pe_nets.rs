//! The learned positional-encoding networks: LPE (φ summed over
//! eigenpairs, then ρ) and SPE (ψ per eigenvalue, basis-invariant products
//! `V diag(ψ_c(λ)) Vᵀ`, then a GIN ρ).

use super::layers::{Act, Builder, Mlp};
use crate::error::Result;
use crate::graph::Graph;
use crate::pe::{Laplacian, LpeConfig, laplacian_pe};
use candle_core::{DType, Device, Tensor, Var};
use rand::{Rng, RngExt};

/// Host-side eigen input of a PE network: the kept eigenpairs and a mask.
pub(crate) struct EigenInput {
    pub values: Vec<f64>,
    /// Row-major `n × J`.
    pub vectors: Vec<f64>,
    pub mask: Vec<bool>,
    pub n: usize,
    pub j: usize,
}

pub(crate) fn eigen_input(
    g: &Graph,
    num_vecs: Option<usize>,
    laplacian: Laplacian,
) -> Result<EigenInput> {
    let n = g.n();
    let cfg = LpeConfig {
        num_vecs: num_vecs.unwrap_or(n),
        laplacian,
        large_graph: false,
    };
    let pe = laplacian_pe(g, cfg)?;
    let j = cfg.num_vecs;
    Ok(EigenInput {
        values: pe.values.to_vec(),
        vectors: pe.vectors.iter().copied().collect(),
        mask: pe.mask,
        n,
        j,
    })
}

/// LPE (Kreuzer et al. 2021 as in the official code): per node `i`,
/// `ρ(Σ_j mask_j · φ([V_ij, λ_j + ε_j]))` with `φ = MLP(2→2d→d, ReLU)`,
/// `ρ = MLP(d→2d→d, ReLU)` and a learnable offset `ε_j` initialised to
/// `10⁻¹²·j`. In training each eigenvector's sign is flipped with
/// probability ½. O(n·J·d²).
#[derive(Debug, Clone)]
pub struct LpeNet {
    phi: Mlp,
    rho: Mlp,
    offset: Var,
}

impl LpeNet {
    pub(crate) fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        j: usize,
        d: usize,
    ) -> Result<LpeNet> {
        let phi = Mlp::new(bld, &format!("{name}.phi"), &[2, 2 * d, d], Act::Relu)?;
        let rho = Mlp::new(bld, &format!("{name}.rho"), &[d, 2 * d, d], Act::Relu)?;
        let offs: Vec<f64> = (0..j).map(|i| 1e-12 * i as f64).collect();
        let t = Tensor::from_vec(offs, j, &bld.device)?.to_dtype(bld.dtype)?;
        let offset = bld.params.add(format!("{name}.offset"), &t)?;
        Ok(LpeNet { phi, rho, offset })
    }

    pub(crate) fn forward<R: Rng + ?Sized>(
        &self,
        e: &EigenInput,
        dtype: DType,
        dev: &Device,
        train: Option<&mut R>,
    ) -> Result<Tensor> {
        let (n, j) = (e.n, e.j);
        let mut vecs = e.vectors.clone();
        if let Some(rng) = train {
            for c in 0..j {
                if rng.random::<bool>() {
                    for i in 0..n {
                        vecs[i * j + c] = -vecs[i * j + c];
                    }
                }
            }
        }
        let v = Tensor::from_vec(vecs, (n, j, 1), dev)?.to_dtype(dtype)?;
        let lam = Tensor::from_vec(e.values.clone(), (1, j), dev)?
            .to_dtype(dtype)?
            .broadcast_add(&self.offset.unsqueeze(0)?)?
            .unsqueeze(2)?
            .broadcast_as((n, j, 1))?;
        let inp = Tensor::cat(&[&v, &lam], 2)?;
        let mask: Vec<f64> = e.mask.iter().map(|&m| f64::from(u8::from(m))).collect();
        let mask = Tensor::from_vec(mask, (1, j, 1), dev)?.to_dtype(dtype)?;
        let h = self.phi.forward(&inp)?.broadcast_mul(&mask)?.sum(1)?;
        Ok(self.rho.forward(&h)?)
    }
}

/// SPE (Huang et al. 2024, "On the stability of expressive positional
/// encodings"): `ψ = MLP(1→φ_dim→m, ReLU)` per eigenvalue,
/// `Z[i,l,c] = Σ_j V_ij ψ_c(λ_j) V_lj`, then a GIN over the nodes with
/// `Z[·, l, ·]` as features for each `l` (`num_rho_layers − 1` layers
/// `h ← h + MLP((1+ε)h + Σ_{w∈N(v)} h_w)`, then a linear output to `d`),
/// summed over `l`. O(n²·J·m + L·n²·m²).
///
/// Deviation: the official ψ has BatchNorm between layers; with the
/// batch statistics of one graph it is not a function of the graph alone, so
/// it is left out. Invariance to sign flips and to rotations inside
/// degenerate eigenspaces holds exactly (up to rounding) because ψ depends
/// on `λ` only and `Z` is a spectral projector sum — with the full spectrum;
/// truncating inside a degenerate eigenspace breaks it.
#[derive(Debug, Clone)]
pub struct SpeNet {
    psi: Mlp,
    gin: Vec<(Mlp, Var)>,
    out: super::layers::Linear,
}

impl SpeNet {
    pub(crate) fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        phi_dim: usize,
        m: usize,
        rho_layers: usize,
        d: usize,
    ) -> Result<SpeNet> {
        let psi = Mlp::new(bld, &format!("{name}.psi"), &[1, phi_dim, m], Act::Relu)?;
        let mut gin = Vec::new();
        for l in 0..rho_layers.saturating_sub(1) {
            let mlp = Mlp::new(bld, &format!("{name}.gin{l}.mlp"), &[m, m, m], Act::Relu)?;
            let eps = bld.constant(&format!("{name}.gin{l}.eps"), &[1], 0.0)?;
            gin.push((mlp, eps));
        }
        let out = super::layers::Linear::new(bld, &format!("{name}.out"), m, d, true)?;
        Ok(SpeNet { psi, gin, out })
    }

    pub(crate) fn forward(
        &self,
        e: &EigenInput,
        adj: &Tensor,
        dtype: DType,
        dev: &Device,
    ) -> Result<Tensor> {
        let (n, j) = (e.n, e.j);
        let mask: Vec<f64> = e.mask.iter().map(|&m| f64::from(u8::from(m))).collect();
        let mask = Tensor::from_vec(mask, (j, 1), dev)?.to_dtype(dtype)?;
        let lam = Tensor::from_vec(e.values.clone(), (j, 1), dev)?.to_dtype(dtype)?;
        let psi = self.psi.forward(&lam)?.broadcast_mul(&mask)?; // [J, m]
        let m = psi.dims()[1];
        let v = Tensor::from_vec(e.vectors.clone(), (n, j), dev)?.to_dtype(dtype)?;
        // [m, n, J] = V ⊙ ψ_c, then × Vᵀ → [m, i, l] → [l, i, c].
        let vpsi = v.unsqueeze(0)?.broadcast_mul(&psi.t()?.unsqueeze(1)?)?;
        let vt = v
            .t()?
            .contiguous()?
            .unsqueeze(0)?
            .broadcast_as((m, j, n))?
            .contiguous()?;
        let z = vpsi
            .contiguous()?
            .matmul(&vt)?
            .permute((2, 1, 0))?
            .contiguous()?;
        let mut h = z; // [L = n, n, m]
        let a = adj.unsqueeze(0)?.broadcast_as((n, n, n))?.contiguous()?;
        for (mlp, eps) in &self.gin {
            let agg = a.matmul(&h)?;
            let self_term = h.broadcast_mul(&(eps.as_tensor() + 1.0)?)?;
            h = (&h + mlp.forward(&(self_term + agg)?)?)?;
        }
        Ok(self.out.forward(&h)?.sum(0)?)
    }
}
