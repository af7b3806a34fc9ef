//! The (k,s)-GT: a pre-LN transformer over the tuple tokens `V^k_s` of one
//! graph plus a learned graph token.

use super::layers::{Act, Builder, LayerNorm, Linear, Mlp, MultiHeadAttention};
use super::pe_nets::{LpeNet, SpeNet, eigen_input};
use super::{GtConfig, PeKind, check_labels, dropout};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::tokens::TokenSet;
use candle_core::{DType, Device, Tensor, Var};
use nncore::params::ParamSet;
use rand::{Rng, RngExt};

/// One pre-LN transformer layer:
/// `h ← h + DropPath(Dropout(MHA(LN(h))))`, `h ← h + DropPath(FFN(LN(h)))`,
/// `FFN = Linear(d,d)–GELU–Linear(d,d)`.
#[derive(Debug, Clone)]
pub struct TransformerLayer {
    ln1: LayerNorm,
    attn: MultiHeadAttention,
    ln2: LayerNorm,
    ffn: Mlp,
    drop_path: f64,
}

impl TransformerLayer {
    fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        cfg: &GtConfig,
        i: usize,
    ) -> Result<Self> {
        Ok(TransformerLayer {
            ln1: LayerNorm::new(bld, &format!("{name}.ln1"), cfg.dim)?,
            attn: MultiHeadAttention::new(bld, &format!("{name}.attn"), cfg.dim, cfg.heads)?,
            ln2: LayerNorm::new(bld, &format!("{name}.ln2"), cfg.dim)?,
            ffn: Mlp::new(
                bld,
                &format!("{name}.ffn"),
                &[cfg.dim, cfg.dim, cfg.dim],
                Act::Gelu,
            )?,
            drop_path: cfg.drop_path * (i + 1) as f64 / cfg.layers as f64,
        })
    }

    fn forward<R: Rng + ?Sized>(
        &self,
        h: &Tensor,
        cfg: &GtConfig,
        mut train: Option<&mut R>,
    ) -> Result<Tensor> {
        let (t, d) = h.dims2()?;
        let attn_mask = match train.as_deref_mut() {
            Some(rng) if cfg.attn_dropout > 0.0 => {
                Some(dropout(&[cfg.heads, t, t], cfg.attn_dropout, rng, h)?)
            }
            _ => None,
        };
        let mut a = self
            .attn
            .forward(&self.ln1.forward(h)?, attn_mask.as_ref())?;
        if let Some(rng) = train.as_deref_mut() {
            if cfg.dropout > 0.0 {
                a = a.mul(&dropout(&[t, d], cfg.dropout, rng, h)?)?;
            }
            a = drop_path(a, self.drop_path, rng)?;
        }
        let h = (h + a)?;
        let mut f = self.ffn.forward(&self.ln2.forward(&h)?)?;
        if let Some(rng) = train {
            f = drop_path(f, self.drop_path, rng)?;
        }
        Ok((h + f)?)
    }
}

/// Stochastic depth: drop the whole branch with probability `p`, else scale by `1/(1−p)`.
fn drop_path<R: Rng + ?Sized>(x: Tensor, p: f64, rng: &mut R) -> Result<Tensor> {
    if p <= 0.0 {
        return Ok(x);
    }
    if rng.random::<f64>() < p {
        Ok(x.zeros_like()?)
    } else {
        Ok((x / (1.0 - p))?)
    }
}

/// The (k,s)-GT of Müller & Morris (ICML 2024).
///
/// Tokens: the graph token, then `V^k_s(G)` ([`TokenSet::connected`],
/// deduplicated). Embedding of `t = (v₁..v_k)`:
/// `x_t = E_bond(t) + W_pe[PE(v₁)‖…‖PE(v_k)] + W_deg[D(deg v₁)‖…] + W_x[X(v₁)‖…]`
/// with `E_bond(t) = Σ_{p<q, v_p ~ v_q} E[ℓ(v_p, v_q)]` (0 on the diagonal).
/// Then `L` pre-LN layers ([`TransformerLayer`]) with softmax attention over
/// all tokens of the graph, and the readout
/// `Linear–GELU–LN–Linear` of the graph token.
/// Cost per graph: O(L·(T²d + Td²)) with `T = |V^k_s| + 1`, plus the PE.
#[derive(Debug, Clone)]
pub struct TupleGraphTransformer {
    cfg: GtConfig,
    dtype: DType,
    device: Device,
    graph_token: Var,
    deg_table: Var,
    label_table: Var,
    bond_table: Var,
    w_deg: Linear,
    w_x: Linear,
    w_pe: Option<Linear>,
    lpe: Option<LpeNet>,
    spe: Option<SpeNet>,
    layers: Vec<TransformerLayer>,
    head: (Linear, LayerNorm, Linear),
}

impl TupleGraphTransformer {
    /// Builds the model with fresh weights in `params` (names prefixed `gt.`).
    ///
    /// # Errors
    /// [`GtConfig::check`]'s errors.
    pub fn new<R: Rng + ?Sized>(
        cfg: &GtConfig,
        params: &mut ParamSet,
        dtype: DType,
        rng: &mut R,
    ) -> Result<TupleGraphTransformer> {
        cfg.check()?;
        let device = Device::Cpu;
        let mut bld = Builder {
            params,
            rng,
            dtype,
            device: device.clone(),
        };
        let (k, d) = (cfg.order, cfg.dim);
        let graph_token = bld.normal("gt.graph_token", &[1, d], 1.0)?;
        let deg_table = bld.normal(
            "gt.degree_embedding",
            &[cfg.max_degree + 1, cfg.degree_dim],
            1.0,
        )?;
        let label_table = bld.normal("gt.atom_embedding", &[cfg.node_labels, d], 1.0)?;
        let bond_table = bld.normal("gt.bond_embedding", &[cfg.edge_labels, d], 1.0)?;
        let w_deg = Linear::new(&mut bld, "gt.w_deg", k * cfg.degree_dim, d, true)?;
        let w_x = Linear::new(&mut bld, "gt.w_x", k * d, d, true)?;
        let (w_pe, lpe, spe) = match cfg.pe {
            PeKind::None => (None, None, None),
            PeKind::Lpe => {
                let j = cfg.num_vecs.unwrap_or(0);
                (
                    Some(Linear::new(&mut bld, "gt.w_pe", k * cfg.pe_dim, d, true)?),
                    Some(LpeNet::new(&mut bld, "gt.lpe", j, cfg.pe_dim)?),
                    None,
                )
            }
            PeKind::Spe => (
                Some(Linear::new(&mut bld, "gt.w_pe", k * cfg.pe_dim, d, true)?),
                None,
                Some(SpeNet::new(
                    &mut bld,
                    "gt.spe",
                    cfg.phi_dim,
                    cfg.spe_channels,
                    cfg.rho_layers,
                    cfg.pe_dim,
                )?),
            ),
        };
        let layers = (0..cfg.layers)
            .map(|i| TransformerLayer::new(&mut bld, &format!("gt.layers.{i}"), cfg, i))
            .collect::<Result<Vec<_>>>()?;
        let head = (
            Linear::new(&mut bld, "gt.head.0", d, d, true)?,
            LayerNorm::new(&mut bld, "gt.head.ln", d)?,
            Linear::new(&mut bld, "gt.head.1", d, cfg.out_dim, true)?,
        );
        Ok(TupleGraphTransformer {
            cfg: cfg.clone(),
            dtype,
            device,
            graph_token,
            deg_table,
            label_table,
            bond_table,
            w_deg,
            w_x,
            w_pe,
            lpe,
            spe,
            layers,
            head,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &GtConfig {
        &self.cfg
    }

    /// Inference: the graph-level output `[out_dim]` (no dropout).
    ///
    /// # Errors
    /// [`Error::Empty`] for the null graph, [`Error::DegreeOverflow`],
    /// [`Error::ShapeMismatch`] for a node or edge label outside the
    /// embedding tables, [`Error::TooManyTuples`], candle errors.
    pub fn forward(&self, g: &Graph) -> Result<Tensor> {
        self.forward_impl::<rand::rngs::StdRng>(g, None)
    }

    /// Training pass: dropout, attention dropout, stochastic depth and LPE
    /// sign flips drawn from `rng`.
    ///
    /// # Errors
    /// As [`TupleGraphTransformer::forward`].
    pub fn forward_train<R: Rng + ?Sized>(&self, g: &Graph, rng: &mut R) -> Result<Tensor> {
        self.forward_impl(g, Some(rng))
    }

    fn forward_impl<R: Rng + ?Sized>(
        &self,
        g: &Graph,
        mut train: Option<&mut R>,
    ) -> Result<Tensor> {
        let cfg = &self.cfg;
        let n = g.n();
        if n == 0 {
            return Err(Error::Empty("the null graph has no tokens"));
        }
        check_labels(g, cfg.node_labels, cfg.edge_labels)?;
        for v in 0..n {
            if g.degree(v) > cfg.max_degree {
                return Err(Error::DegreeOverflow {
                    deg: g.degree(v),
                    max: cfg.max_degree,
                });
            }
        }
        let (dev, dt) = (&self.device, self.dtype);
        let tokens = TokenSet::connected(g, cfg.order, cfg.s)?;
        let t = tokens.len();
        let k = cfg.order;
        // Per-node features.
        let degs: Vec<u32> = (0..n).map(|v| g.degree(v) as u32).collect();
        let deg_emb = self
            .deg_table
            .index_select(&Tensor::from_vec(degs, n, dev)?, 0)?;
        let lab_emb = self
            .label_table
            .index_select(&Tensor::from_vec(g.node_labels().to_vec(), n, dev)?, 0)?;
        let pe = match (&self.lpe, &self.spe) {
            (Some(lpe), _) => Some(lpe.forward(
                &eigen_input(g, cfg.num_vecs, cfg.laplacian)?,
                dt,
                dev,
                train.as_deref_mut(),
            )?),
            (_, Some(spe)) => {
                let adj =
                    Tensor::from_vec(g.adjacency()?.into_raw_vec_and_offset().0, (n, n), dev)?
                        .to_dtype(dt)?;
                Some(spe.forward(&eigen_input(g, cfg.num_vecs, cfg.laplacian)?, &adj, dt, dev)?)
            }
            _ => None,
        };
        // Gather per position and concatenate.
        let gather = |table: &Tensor| -> Result<Tensor> {
            let parts = (0..k)
                .map(|p| {
                    let idx: Vec<u32> = tokens.iter().map(|tu| tu[p]).collect();
                    Ok(table.index_select(&Tensor::from_vec(idx, t, dev)?, 0)?)
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Tensor::cat(&parts, 1)?)
        };
        let mut x =
            (self.w_deg.forward(&gather(&deg_emb)?)? + self.w_x.forward(&gather(&lab_emb)?)?)?;
        if let (Some(pe), Some(w)) = (&pe, &self.w_pe) {
            x = (x + w.forward(&gather(pe)?)?)?;
        }
        // E_bond through a count matrix C[t, ℓ] of position pairs joined by an ℓ-edge.
        let mut counts = vec![0f64; t * cfg.edge_labels];
        for (i, tu) in tokens.iter().enumerate() {
            for p in 0..k {
                for q in p + 1..k {
                    if let Some(l) = g.edge_label(tu[p] as usize, tu[q] as usize) {
                        counts[i * cfg.edge_labels + l as usize] += 1.0;
                    }
                }
            }
        }
        let c = Tensor::from_vec(counts, (t, cfg.edge_labels), dev)?.to_dtype(dt)?;
        x = (x + c.matmul(self.bond_table.as_tensor())?)?;
        let mut h = Tensor::cat(&[self.graph_token.as_tensor(), &x], 0)?;
        for layer in &self.layers {
            h = layer.forward(&h, cfg, train.as_deref_mut())?;
        }
        let g_tok = h.narrow(0, 0, 1)?;
        let (l0, ln, l1) = &self.head;
        let y = l1.forward(&ln.forward(&l0.forward(&g_tok)?.gelu_erf()?)?)?;
        Ok(y.squeeze(0)?)
    }
}
