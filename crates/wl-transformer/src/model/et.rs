//! The Edge Transformer (Bergen et al. 2021; Müller, Kusuma, Bonnet &
//! Morris, "Towards Principled Graph Transformers", NeurIPS 2024): pair
//! states `X ∈ R^{n×n×d}` updated by triangular attention. Without PEs it
//! is exactly as expressive as 2-FWL (= 3-WL).

use super::layers::{Act, Builder, LayerNorm, Linear, Mlp};
use super::{EtConfig, check_labels};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::pe::{RrwpPowers, rrwp};
use candle_core::{D, DType, Device, Tensor, Var};
use ndarray::Array3;
use nncore::params::ParamSet;
use rand::Rng;

/// Triangular attention, per head `h` with `d_k = d/H`:
/// `score_{ijl} = ⟨X_il W_Q, X_lj W_K⟩/√d_k`, `α_{ijl} = softmax_l(score)`,
/// `V_{ijl} = (X_il W_{V1}) ⊙ (X_lj W_{V2})`, `out_ij = W_O Σ_l α_{ijl} V_{ijl}`.
/// O(n³·d) time and memory.
#[derive(Debug, Clone)]
pub struct TriangularAttention {
    q: Linear,
    k: Linear,
    v1: Linear,
    v2: Linear,
    o: Linear,
    heads: usize,
}

fn host(t: &Tensor) -> Result<Vec<f64>> {
    Ok(t.to_dtype(DType::F64)?.flatten_all()?.to_vec1::<f64>()?)
}

impl TriangularAttention {
    fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        d: usize,
        heads: usize,
    ) -> Result<Self> {
        if heads == 0 || !d.is_multiple_of(heads) {
            return Err(Error::HeadsDoNotDivide { dim: d, heads });
        }
        Ok(TriangularAttention {
            q: Linear::new(bld, &format!("{name}.q"), d, d, true)?,
            k: Linear::new(bld, &format!("{name}.k"), d, d, true)?,
            v1: Linear::new(bld, &format!("{name}.v1"), d, d, true)?,
            v2: Linear::new(bld, &format!("{name}.v2"), d, d, true)?,
            o: Linear::new(bld, &format!("{name}.o"), d, d, true)?,
            heads,
        })
    }

    /// The attention on `x: [n, n, d]` with batched tensor products.
    ///
    /// # Errors
    /// candle's shape errors when `x` is not `[n, n, d]`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (n, n2, d) = x.dims3()?;
        if n != n2 {
            return Err(Error::ShapeMismatch {
                expected: "[n, n, d]".into(),
                got: format!("{:?}", x.dims()),
            });
        }
        let (h, dk) = (self.heads, d / self.heads);
        let split = |y: Tensor| y.reshape((n, n, h, dk));
        // q[h, l, i, c] = Q[i, l, h, c]; k[h, l, c, j] = K[l, j, h, c].
        let q = split(self.q.forward(x)?)?
            .permute((2, 1, 0, 3))?
            .contiguous()?;
        let k = split(self.k.forward(x)?)?
            .permute((2, 0, 3, 1))?
            .contiguous()?;
        let s = (q.matmul(&k)? / (dk as f64).sqrt())?; // [h, l, i, j]
        let a = candle_nn::ops::softmax(&s.permute((0, 2, 3, 1))?.contiguous()?, D::Minus1)?; // [h, i, j, l]
        // v1[h, i, l, c] = V1[i, l, h, c]; v2[h, j, l, c] = V2[l, j, h, c].
        let v1 = split(self.v1.forward(x)?)?
            .permute((2, 0, 1, 3))?
            .contiguous()?;
        let v2 = split(self.v2.forward(x)?)?
            .permute((2, 1, 0, 3))?
            .contiguous()?;
        let prod = a
            .unsqueeze(4)?
            .broadcast_mul(&v1.unsqueeze(2)?)?
            .broadcast_mul(&v2.unsqueeze(1)?)?; // [h, i, j, l, c]
        let out = prod
            .sum(3)?
            .permute((1, 2, 0, 3))?
            .contiguous()?
            .reshape((n, n, d))?;
        Ok(self.o.forward(&out)?)
    }

    /// The same map as [`TriangularAttention::forward`] by a plain triple
    /// loop over `(i, j, l)` in `f64` on the host — the reference the
    /// batched version is tested against. O(n³·d).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `x` is not `n × n × d` with the model's `d`.
    pub fn forward_naive(&self, x: &Array3<f64>) -> Result<Array3<f64>> {
        let (n, n2, d) = x.dim();
        let wd = self.q.weight().dims()[1];
        if n != n2 || d != wd {
            return Err(Error::ShapeMismatch {
                expected: format!("[n, n, {wd}]"),
                got: format!("{:?}", x.shape()),
            });
        }
        let lin = |l: &Linear, v: &[f64]| -> Result<Vec<f64>> {
            let w = host(l.weight().as_tensor())?;
            let b = match l.bias() {
                Some(b) => host(b.as_tensor())?,
                None => vec![0.0; d],
            };
            Ok((0..d)
                .map(|o| b[o] + (0..d).map(|c| w[o * d + c] * v[c]).sum::<f64>())
                .collect())
        };
        let mut proj = vec![vec![vec![0.0; d]; n * n]; 4];
        for i in 0..n {
            for j in 0..n {
                let v: Vec<f64> = (0..d).map(|c| x[[i, j, c]]).collect();
                for (p, l) in [&self.q, &self.k, &self.v1, &self.v2]
                    .into_iter()
                    .enumerate()
                {
                    proj[p][i * n + j] = lin(l, &v)?;
                }
            }
        }
        let (h, dk) = (self.heads, d / self.heads);
        let mut out = Array3::zeros((n, n, d));
        for i in 0..n {
            for j in 0..n {
                let mut cat = vec![0.0; d];
                for hh in 0..h {
                    let r = hh * dk..(hh + 1) * dk;
                    let scores: Vec<f64> = (0..n)
                        .map(|l| {
                            r.clone()
                                .map(|c| proj[0][i * n + l][c] * proj[1][l * n + j][c])
                                .sum::<f64>()
                                / (dk as f64).sqrt()
                        })
                        .collect();
                    let mx = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    let z: f64 = scores.iter().map(|s| (s - mx).exp()).sum();
                    for l in 0..n {
                        let alpha = (scores[l] - mx).exp() / z;
                        for c in r.clone() {
                            cat[c] += alpha * proj[2][i * n + l][c] * proj[3][l * n + j][c];
                        }
                    }
                }
                let o = lin(&self.o, &cat)?;
                for c in 0..d {
                    out[[i, j, c]] = o[c];
                }
            }
        }
        Ok(out)
    }
}

/// The Edge Transformer: `X_ij = Linear([x_i‖x_j]) + E[type(i,j)] (+ Linear(RRWP_ij))`
/// with node embeddings `x_i` of the node labels and pair types
/// diagonal / non-edge / edge with label ℓ; `L` pre-LN layers
/// `X ← X + TriAttn(LN(X))`, `X ← X + FFN(LN(X))` (FFN d→2d→d, GELU);
/// readout `node_i = Σ_j (X_ij + X_ji)`, `y = MLP(Σ_i node_i)`. O(L·n³·d).
#[derive(Debug, Clone)]
pub struct EdgeTransformer {
    cfg: EtConfig,
    dtype: DType,
    device: Device,
    node_table: Var,
    pair_table: Var,
    input: Linear,
    rrwp_in: Option<Linear>,
    layers: Vec<(LayerNorm, TriangularAttention, LayerNorm, Mlp)>,
    readout: Mlp,
}

impl EdgeTransformer {
    /// Builds the model with fresh weights in `params` (names prefixed `et.`).
    ///
    /// # Errors
    /// [`EtConfig::check`]'s errors.
    pub fn new<R: Rng + ?Sized>(
        cfg: &EtConfig,
        params: &mut ParamSet,
        dtype: DType,
        rng: &mut R,
    ) -> Result<Self> {
        cfg.check()?;
        let device = Device::Cpu;
        let mut bld = Builder {
            params,
            rng,
            dtype,
            device: device.clone(),
        };
        let d = cfg.dim;
        let node_table = bld.normal("et.node_embedding", &[cfg.node_labels, d], 1.0)?;
        let pair_table = bld.normal("et.pair_embedding", &[cfg.edge_labels + 2, d], 1.0)?;
        let input = Linear::new(&mut bld, "et.input", 2 * d, d, true)?;
        let rrwp_in = match cfg.rrwp_steps {
            Some(s) => Some(Linear::new(&mut bld, "et.rrwp", s, d, true)?),
            None => None,
        };
        let mut layers = Vec::new();
        for i in 0..cfg.layers {
            let p = format!("et.layers.{i}");
            layers.push((
                LayerNorm::new(&mut bld, &format!("{p}.ln1"), d)?,
                TriangularAttention::new(&mut bld, &format!("{p}.attn"), d, cfg.heads)?,
                LayerNorm::new(&mut bld, &format!("{p}.ln2"), d)?,
                Mlp::new(&mut bld, &format!("{p}.ffn"), &[d, 2 * d, d], Act::Gelu)?,
            ));
        }
        let readout = Mlp::new(&mut bld, "et.readout", &[d, d, cfg.out_dim], Act::Gelu)?;
        Ok(EdgeTransformer {
            cfg: cfg.clone(),
            dtype,
            device,
            node_table,
            pair_table,
            input,
            rrwp_in,
            layers,
            readout,
        })
    }

    /// The triangular attention of layer `i`.
    pub fn attention(&self, i: usize) -> Option<&TriangularAttention> {
        self.layers.get(i).map(|l| &l.1)
    }

    /// The initial pair states `[n, n, d]`.
    ///
    /// # Errors
    /// As [`EdgeTransformer::forward`].
    pub fn embed(&self, g: &Graph) -> Result<Tensor> {
        let n = g.n();
        if n == 0 {
            return Err(Error::Empty("the null graph has no pairs"));
        }
        check_labels(g, self.cfg.node_labels, self.cfg.edge_labels)?;
        crate::tokens::check_count(n, 3, crate::tokens::DEFAULT_TUPLE_LIMIT)?;
        let (dev, d) = (&self.device, self.cfg.dim);
        let x = self
            .node_table
            .index_select(&Tensor::from_vec(g.node_labels().to_vec(), n, dev)?, 0)?;
        let xi = x.unsqueeze(1)?.broadcast_as((n, n, d))?;
        let xj = x.unsqueeze(0)?.broadcast_as((n, n, d))?;
        let mut h = self
            .input
            .forward(&Tensor::cat(&[&xi, &xj], 2)?.contiguous()?)?;
        let types: Vec<u32> = (0..n * n)
            .map(|c| {
                let (i, j) = (c / n, c % n);
                if i == j {
                    0
                } else {
                    g.edge_label(i, j).map_or(1, |l| l + 2)
                }
            })
            .collect();
        let e = self
            .pair_table
            .index_select(&Tensor::from_vec(types, n * n, dev)?, 0)?
            .reshape((n, n, d))?;
        h = (h + e)?;
        if let (Some(lin), Some(steps)) = (&self.rrwp_in, self.cfg.rrwp_steps) {
            let r = rrwp(g, steps, RrwpPowers::Consecutive)?;
            let r = Tensor::from_vec(r.into_raw_vec_and_offset().0, (n, n, steps), dev)?
                .to_dtype(self.dtype)?;
            h = (h + lin.forward(&r)?)?;
        }
        Ok(h)
    }

    /// The graph-level output `[out_dim]`.
    ///
    /// # Errors
    /// [`Error::Empty`] for the null graph, [`Error::ShapeMismatch`] for
    /// labels outside the tables, [`Error::TooManyTuples`] when `n³` exceeds
    /// the tuple limit, candle errors.
    pub fn forward(&self, g: &Graph) -> Result<Tensor> {
        let mut h = self.embed(g)?;
        for (ln1, attn, ln2, ffn) in &self.layers {
            h = (&h + attn.forward(&ln1.forward(&h)?)?)?;
            h = (&h + ffn.forward(&ln2.forward(&h)?)?)?;
        }
        let nodes = (h.sum(1)? + h.sum(0)?)?;
        Ok(self.readout.forward(&nodes.sum_keepdim(0)?)?.squeeze(0)?)
    }
}
