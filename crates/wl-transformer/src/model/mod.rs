//! The models on candle: the (k,s)-GT ([`TupleGraphTransformer`]) with
//! LPE or SPE, and the Edge Transformer ([`EdgeTransformer`]). One graph
//! per forward call; training sums per-graph losses over a mini-batch
//! (there is no padding mask because there is no padding). Weights are
//! `f32` for training or `f64` for the exact-equality audits.

mod et;
mod gt;
pub mod layers;
mod pe_nets;

pub use et::{EdgeTransformer, TriangularAttention};
pub use gt::{TransformerLayer, TupleGraphTransformer};
pub use pe_nets::{LpeNet, SpeNet};

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::pe::Laplacian;
use candle_core::Tensor;
use rand::Rng;

/// Which positional encoding feeds the GT's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeKind {
    /// None (node labels and degrees only).
    None,
    /// Laplacian PE ([`LpeNet`]).
    Lpe,
    /// Stable and expressive PE ([`SpeNet`]).
    Spe,
}

/// Hyper-parameters of the (k,s)-GT. `Default` is the paper's PCQM4Mv2
/// setting at order 2 (12 layers, d = 768, 16 heads, 96 eigenvectors,
/// LPE, max degree 100, degree dim 16, dropout 0.1, stochastic depth 0.1);
/// [`GtConfig::small`] is the CPU setting (4 layers, d = 64, 4 heads, 16
/// eigenvectors).
#[derive(Debug, Clone, PartialEq)]
pub struct GtConfig {
    /// Tuple order k (≥ 1; the official code stops at 3).
    pub order: usize,
    /// Component bound s of `V^k_s` (1 ≤ s ≤ k).
    pub s: usize,
    /// Transformer layers.
    pub layers: usize,
    /// Width d.
    pub dim: usize,
    /// Attention heads (divide d).
    pub heads: usize,
    /// Positional encoding.
    pub pe: PeKind,
    /// Eigenpairs kept (`None`: the full spectrum; SPE needs it for exact invariance).
    pub num_vecs: Option<usize>,
    /// Laplacian of the PE.
    pub laplacian: Laplacian,
    /// PE output width per node.
    pub pe_dim: usize,
    /// SPE's ψ hidden width.
    pub phi_dim: usize,
    /// SPE channels m.
    pub spe_channels: usize,
    /// SPE's ρ: GIN layers + 1.
    pub rho_layers: usize,
    /// Largest node degree the degree embedding accepts.
    pub max_degree: usize,
    /// Degree embedding width.
    pub degree_dim: usize,
    /// Node-label vocabulary (labels must be `< node_labels`).
    pub node_labels: usize,
    /// Edge-label vocabulary (labels must be `< edge_labels`).
    pub edge_labels: usize,
    /// Dropout after attention (training only).
    pub dropout: f64,
    /// Attention dropout (training only).
    pub attn_dropout: f64,
    /// Stochastic depth: layer `i` drops with `drop_path·(i+1)/L`.
    pub drop_path: f64,
    /// Output width.
    pub out_dim: usize,
}

impl Default for GtConfig {
    fn default() -> Self {
        GtConfig {
            order: 2,
            s: 1,
            layers: 12,
            dim: 768,
            heads: 16,
            pe: PeKind::Lpe,
            num_vecs: Some(96),
            laplacian: Laplacian::Normalized,
            pe_dim: 768,
            phi_dim: 16,
            spe_channels: 16,
            rho_layers: 2,
            max_degree: 100,
            degree_dim: 16,
            node_labels: 128,
            edge_labels: 8,
            dropout: 0.1,
            attn_dropout: 0.1,
            drop_path: 0.1,
            out_dim: 1,
        }
    }
}

impl GtConfig {
    /// The CPU setting: 4 layers, d = 64, 4 heads, 16 eigenvectors, PE width 64.
    pub fn small() -> GtConfig {
        GtConfig {
            layers: 4,
            dim: 64,
            heads: 4,
            num_vecs: Some(16),
            pe_dim: 64,
            ..GtConfig::default()
        }
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`Error::OrderZero`], [`Error::UnsupportedOrder`] for k > 4,
    /// [`Error::BadComponentBound`], [`Error::HeadsDoNotDivide`],
    /// [`Error::NumVecsZero`], [`Error::BadParameter`].
    pub fn check(&self) -> Result<()> {
        if self.order == 0 {
            return Err(Error::OrderZero);
        }
        if self.order > 4 {
            return Err(Error::UnsupportedOrder(self.order));
        }
        if self.s == 0 || self.s > self.order {
            return Err(Error::BadComponentBound {
                s: self.s,
                k: self.order,
            });
        }
        if self.heads == 0 || self.dim == 0 || !self.dim.is_multiple_of(self.heads) {
            return Err(Error::HeadsDoNotDivide {
                dim: self.dim,
                heads: self.heads,
            });
        }
        if self.num_vecs == Some(0) {
            return Err(Error::NumVecsZero);
        }
        if self.pe == PeKind::Lpe && self.num_vecs.is_none() {
            return Err(bad(
                "num_vecs",
                "None",
                "LPE needs a fixed number of eigenvectors",
            ));
        }
        for (name, v) in [
            ("layers", self.layers),
            ("pe_dim", self.pe_dim),
            ("phi_dim", self.phi_dim),
            ("spe_channels", self.spe_channels),
            ("degree_dim", self.degree_dim),
            ("node_labels", self.node_labels),
            ("edge_labels", self.edge_labels),
            ("out_dim", self.out_dim),
        ] {
            if v == 0 {
                return Err(bad(name, "0", "must be at least 1"));
            }
        }
        for (name, p) in [
            ("dropout", self.dropout),
            ("attn_dropout", self.attn_dropout),
            ("drop_path", self.drop_path),
        ] {
            if !(0.0..1.0).contains(&p) {
                return Err(bad(name, &p.to_string(), "must lie in [0, 1)"));
            }
        }
        Ok(())
    }
}

/// Hyper-parameters of the Edge Transformer. `Default`: the ZINC setting
/// (10 layers, d = 64, 8 heads); [`EtConfig::small`]: 2 layers, d = 32, 4 heads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtConfig {
    /// Layers.
    pub layers: usize,
    /// Width d.
    pub dim: usize,
    /// Heads (divide d).
    pub heads: usize,
    /// RRWP channels added to the input (`None`: no PE, ET ≡ 2-FWL).
    pub rrwp_steps: Option<usize>,
    /// Node-label vocabulary.
    pub node_labels: usize,
    /// Edge-label vocabulary.
    pub edge_labels: usize,
    /// Output width.
    pub out_dim: usize,
}

impl Default for EtConfig {
    fn default() -> Self {
        EtConfig {
            layers: 10,
            dim: 64,
            heads: 8,
            rrwp_steps: None,
            node_labels: 128,
            edge_labels: 8,
            out_dim: 1,
        }
    }
}

impl EtConfig {
    /// 2 layers, d = 32, 4 heads.
    pub fn small() -> EtConfig {
        EtConfig {
            layers: 2,
            dim: 32,
            heads: 4,
            ..EtConfig::default()
        }
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`Error::HeadsDoNotDivide`], [`Error::NumVecsZero`], [`Error::BadParameter`].
    pub fn check(&self) -> Result<()> {
        if self.heads == 0 || self.dim == 0 || !self.dim.is_multiple_of(self.heads) {
            return Err(Error::HeadsDoNotDivide {
                dim: self.dim,
                heads: self.heads,
            });
        }
        if self.rrwp_steps == Some(0) {
            return Err(Error::NumVecsZero);
        }
        for (name, v) in [
            ("layers", self.layers),
            ("node_labels", self.node_labels),
            ("edge_labels", self.edge_labels),
            ("out_dim", self.out_dim),
        ] {
            if v == 0 {
                return Err(bad(name, "0", "must be at least 1"));
            }
        }
        Ok(())
    }
}

fn bad(name: &'static str, value: &str, reason: &'static str) -> Error {
    Error::BadParameter {
        name,
        value: value.to_string(),
        reason,
    }
}

pub(crate) fn check_labels(g: &Graph, node_labels: usize, edge_labels: usize) -> Result<()> {
    if let Some(&l) = g.node_labels().iter().find(|&&l| l as usize >= node_labels) {
        return Err(Error::ShapeMismatch {
            expected: format!("node labels < {node_labels}"),
            got: l.to_string(),
        });
    }
    if let Some((_, _, l)) = g
        .labelled_edges()
        .into_iter()
        .find(|e| e.2 as usize >= edge_labels)
    {
        return Err(Error::ShapeMismatch {
            expected: format!("edge labels < {edge_labels}"),
            got: l.to_string(),
        });
    }
    Ok(())
}

pub(crate) fn dropout<R: Rng + ?Sized>(
    shape: &[usize],
    p: f64,
    rng: &mut R,
    like: &Tensor,
) -> Result<Tensor> {
    Ok(nncore::init::dropout_mask(shape, p, rng, like.device())?.to_dtype(like.dtype())?)
}

/// `‖a − b‖_∞`, the separation of two model outputs.
///
/// # Errors
/// [`Error::ShapeMismatch`] for different shapes; [`Error::NonFinite`].
pub fn max_abs_diff(a: &Tensor, b: &Tensor) -> Result<f64> {
    if a.dims() != b.dims() {
        return Err(Error::ShapeMismatch {
            expected: format!("{:?}", a.dims()),
            got: format!("{:?}", b.dims()),
        });
    }
    let d = (a.to_dtype(candle_core::DType::F64)? - b.to_dtype(candle_core::DType::F64)?)?
        .abs()?
        .flatten_all()?
        .max(0)?
        .to_scalar::<f64>()?;
    if !d.is_finite() {
        return Err(Error::NonFinite("model output"));
    }
    Ok(d)
}
