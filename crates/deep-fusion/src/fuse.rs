//! The fusion operator (paper Eq. 5, reconstructed): k networks of equal
//! depth become one network whose width is the sum of theirs and whose
//! function is a fixed combination `Σ cᵢ fᵢ(x)` of theirs.
//!
//! For networks `f₁ … f_k` with layers `(W_l^{(i)}, b_l^{(i)})`, `l = 1 … L`:
//!
//! * **input layer** `W₁ = [W₁^{(1)}; …; W₁^{(k)}]` (row-stacked: every part
//!   reads the same `x`), `b₁ = [b₁^{(1)}; …; b₁^{(k)}]`;
//! * **hidden layers** `W_l` is the k×k block matrix with `W_l^{(i)}` on the
//!   diagonal and cross blocks `C_l^{(ij)}` off it (zero by default,
//!   [`CrossInit::Gaussian`] on request), `b_l` stacked;
//! * **output layer** `W_L = [c₁ W_L^{(1)}, …, c_k W_L^{(k)}]`,
//!   `b_L = Σ cᵢ b_L^{(i)}`.
//!
//! With zero cross blocks the hidden state of the fused network is the
//! concatenation of the parts' hidden states (σ is element-wise), so
//! `F(x) = Σ cᵢ fᵢ(x)` exactly, for any activation. The combination weights
//! `cᵢ` come from [`Combine`]: the paper averages (`cᵢ = 1/k`, "½" for two).
//! Choices the paper leaves open, made here: `Sum` and `Weighted(α)` are
//! offered besides the average; a one-layer network (no hidden layer) fuses
//! to the combined affine map (there is nothing to widen); networks of
//! different input or output widths are refused.

use crate::error::{Error, Result};
use crate::mlp::{Dense, Mlp, check_finite, tensor1, tensor2};
use ndarray::{Array1, Array2, ArrayView2, s};
use rand::Rng;
use rand_distr::{Distribution, Normal};

/// How the output layer combines the parts' outputs: `F = Σ cᵢ fᵢ`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Combine {
    /// `cᵢ = 1/k` (the paper's choice: `F = ½(f + g)`).
    Average,
    /// `cᵢ = 1`.
    Sum,
    /// Two networks only: `F = α f + (1 − α) g`, `α ∈ [0, 1]`.
    Weighted(f64),
}

impl Combine {
    /// The name (for errors).
    pub fn name(&self) -> &'static str {
        match self {
            Combine::Average => "Average",
            Combine::Sum => "Sum",
            Combine::Weighted(_) => "Weighted",
        }
    }

    /// The weights `c₁ … c_k` for `k` networks. O(k).
    ///
    /// # Errors
    /// [`Error::EmptyNetwork`] for `k = 0`; [`Error::CombineArity`] for
    /// `Weighted` with `k ≠ 2`; [`Error::InvalidCombineWeight`] for
    /// `α ∉ [0, 1]` or NaN.
    pub fn weights(&self, k: usize) -> Result<Vec<f64>> {
        if k == 0 {
            return Err(Error::EmptyNetwork {
                what: "no networks to fuse",
            });
        }
        match *self {
            Combine::Average => Ok(vec![1.0 / k as f64; k]),
            Combine::Sum => Ok(vec![1.0; k]),
            Combine::Weighted(a) => {
                if !(0.0..=1.0).contains(&a) {
                    return Err(Error::InvalidCombineWeight(a));
                }
                if k != 2 {
                    return Err(Error::CombineArity {
                        combine: "Weighted",
                        needed: 2,
                        got: k,
                    });
                }
                Ok(vec![a, 1.0 - a])
            }
        }
    }
}

/// How the cross blocks `C_l^{(ij)}` (`i ≠ j`) of the hidden layers start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CrossInit {
    /// `C = 0`: the fused network equals the combination exactly.
    Zero,
    /// `C_{rs} ~ N(0, σ²)` i.i.d. (breaks exactness by `O(σ)`; the
    /// certificate measures by how much).
    Gaussian {
        /// `σ ≥ 0`.
        sigma: f64,
    },
}

/// Options of [`fuse`], [`self_fuse`] and [`fuse_many`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FuseOptions {
    /// Output combination (default [`Combine::Average`], the paper's).
    pub combine: Combine,
    /// Cross-block initialisation (default [`CrossInit::Zero`]).
    pub cross_init: CrossInit,
    /// Whether training keeps the cross blocks frozen (default `false`: the
    /// paper lets them train so the network can leave the ensemble).
    pub freeze_cross: bool,
}

impl Default for FuseOptions {
    fn default() -> Self {
        Self {
            combine: Combine::Average,
            cross_init: CrossInit::Zero,
            freeze_cross: false,
        }
    }
}

/// A fused network with its block layout.
#[derive(Debug, Clone)]
pub struct Fused {
    /// The dense fused network `F`.
    pub mlp: Mlp,
    /// `parts[l]`: the widths of the k parts of hidden layer `l`
    /// (`l = 0 … L − 2`).
    pub parts: Vec<Vec<usize>>,
    /// The combination weights `c₁ … c_k`.
    pub weights: Vec<f64>,
    /// Whether the cross blocks are frozen in training.
    pub freeze_cross: bool,
    /// Whether every cross block is zero (true after [`CrossInit::Zero`]).
    pub cross_zero: bool,
}

impl Fused {
    /// The number of fused parts `k`.
    pub fn num_parts(&self) -> usize {
        self.weights.len()
    }
}

/// Fuses two networks: `F = c₁ f + c₂ g` ([`fuse_many`] with `k = 2`).
///
/// # Errors
/// As [`fuse_many`].
pub fn fuse<R: Rng + ?Sized>(f: &Mlp, g: &Mlp, opts: &FuseOptions, rng: &mut R) -> Result<Fused> {
    fuse_many(&[f, g], opts, rng)
}

/// Self-fusion `fuse(f, f)`: twice the width; with [`Combine::Average`] the
/// same function.
///
/// # Errors
/// As [`fuse_many`].
pub fn self_fuse<R: Rng + ?Sized>(f: &Mlp, opts: &FuseOptions, rng: &mut R) -> Result<Fused> {
    fuse_many(&[f, f], opts, rng)
}

/// Fuses `k ≥ 1` networks of equal depth, activation, dtype, input and
/// output width (hidden widths may differ) into one of width `Σ wᵢ` per
/// hidden layer. Time and memory O((Σᵢ wᵢ)²·L) for the block matrices.
///
/// # Errors
/// [`Error::EmptyNetwork`] for no networks; [`Error::ArchitectureMismatch`]
/// for a depth (`layer` = the smaller depth, `left`/`right` the depths), input
/// or output width mismatch; [`Error::ActivationMismatch`];
/// [`Error::Unsupported`] for mixed dtypes; [`Combine::weights`]' errors;
/// [`Error::InvalidParameter`] for σ < 0 or non-finite; [`Error::TooLarge`].
pub fn fuse_many<R: Rng + ?Sized>(nets: &[&Mlp], opts: &FuseOptions, rng: &mut R) -> Result<Fused> {
    let c = opts.combine.weights(nets.len())?;
    let sigma = match opts.cross_init {
        CrossInit::Zero => 0.0,
        CrossInit::Gaussian { sigma } => {
            if !(sigma.is_finite() && sigma >= 0.0) {
                return Err(Error::InvalidParameter {
                    name: "cross-block sigma",
                    value: sigma,
                    expected: "a finite value ≥ 0",
                });
            }
            sigma
        }
    };
    let first = nets[0];
    let (depth, act, dtype) = (first.depth(), first.activation(), first.dtype());
    let sizes0 = first.sizes();
    for net in &nets[1..] {
        if net.depth() != depth {
            return Err(Error::ArchitectureMismatch {
                layer: depth.min(net.depth()),
                left: depth,
                right: net.depth(),
            });
        }
        if net.activation() != act {
            return Err(Error::ActivationMismatch {
                left: act.name(),
                right: net.activation().name(),
            });
        }
        if net.dtype() != dtype {
            return Err(Error::Unsupported("fusing networks of different dtypes"));
        }
        let sz = net.sizes();
        if sz[0] != sizes0[0] {
            return Err(Error::ArchitectureMismatch {
                layer: 0,
                left: sizes0[0],
                right: sz[0],
            });
        }
        if sz[depth] != sizes0[depth] {
            return Err(Error::ArchitectureMismatch {
                layer: depth - 1,
                left: sizes0[depth],
                right: sz[depth],
            });
        }
    }
    for net in nets {
        check_weights(net)?;
    }
    let arrays: Vec<Vec<(Array2<f64>, Array1<f64>)>> =
        nets.iter().map(|n| n.to_arrays()).collect::<Result<_>>()?;
    let parts: Vec<Vec<usize>> = (0..depth - 1)
        .map(|l| arrays.iter().map(|a| a[l].0.nrows()).collect())
        .collect();
    let total = |l: usize| -> Result<usize> {
        parts[l]
            .iter()
            .try_fold(0usize, |acc, &w| acc.checked_add(w))
            .ok_or(Error::TooLarge {
                what: "fused width",
            })
    };
    let normal =
        Normal::new(0.0, sigma.max(f64::MIN_POSITIVE)).map_err(|_| Error::InvalidParameter {
            name: "cross-block sigma",
            value: sigma,
            expected: "a finite value ≥ 0",
        })?;
    let mut layers = Vec::with_capacity(depth);
    for l in 0..depth {
        let (w, b) = if depth == 1 {
            // No hidden layer: the combined affine map.
            let mut w = Array2::<f64>::zeros(arrays[0][0].0.dim());
            let mut b = Array1::<f64>::zeros(arrays[0][0].1.len());
            for (a, &ci) in arrays.iter().zip(&c) {
                w.scaled_add(ci, &a[0].0);
                b.scaled_add(ci, &a[0].1);
            }
            (w, b)
        } else if l + 1 == depth {
            let cols = total(l - 1)?;
            let d_out = sizes0[depth];
            crate::mlp::alloc_check(d_out, cols, "fused output layer")?;
            let mut w = Array2::<f64>::zeros((d_out, cols));
            let mut b = Array1::<f64>::zeros(d_out);
            let mut off = 0;
            for (a, &ci) in arrays.iter().zip(&c) {
                let wi = &a[l].0;
                w.slice_mut(s![.., off..off + wi.ncols()])
                    .assign(&(wi * ci));
                b.scaled_add(ci, &a[l].1);
                off += wi.ncols();
            }
            (w, b)
        } else {
            let rows = total(l)?;
            let cols = if l == 0 { sizes0[0] } else { total(l - 1)? };
            crate::mlp::alloc_check(rows, cols, "fused hidden layer")?;
            let mut w = Array2::<f64>::zeros((rows, cols));
            if l > 0 && sigma > 0.0 {
                w.mapv_inplace(|_| normal.sample(rng));
            }
            let mut b = Array1::<f64>::zeros(rows);
            let (mut r0, mut c0) = (0, 0);
            for a in &arrays {
                let (wi, bi) = &a[l];
                let (r, cc) = wi.dim();
                if l == 0 {
                    w.slice_mut(s![r0..r0 + r, ..]).assign(wi);
                } else {
                    // The diagonal block overwrites any Gaussian draws there.
                    w.slice_mut(s![r0..r0 + r, c0..c0 + cc]).assign(wi);
                }
                b.slice_mut(s![r0..r0 + r]).assign(bi);
                r0 += r;
                c0 += cc;
            }
            (w, b)
        };
        layers.push(Dense {
            w: tensor2(w.view(), dtype)?,
            b: tensor1(&b, dtype)?,
        });
    }
    Ok(Fused {
        mlp: Mlp::from_dense(layers, act),
        parts,
        weights: c,
        freeze_cross: opts.freeze_cross,
        cross_zero: sigma == 0.0 || nets.len() == 1,
    })
}

/// The exactness certificate of a fusion on a probe batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Certificate {
    /// `max_{x, o} |F(x)_o − Σ cᵢ fᵢ(x)_o|`.
    pub max_abs: f64,
    /// `max_{x, o} |F(x)_o − Σ cᵢ fᵢ(x)_o| / (1 + Σ |fᵢ(x)_o|)`, the
    /// quantity property test 1 bounds by 1e-12.
    pub max_rel: f64,
}

/// Measures how far the fused network is from the combination of its parts
/// on `probe: [n, d_in]`, evaluated in the fused network's dtype. O(n·(cost
/// of F + Σ cost of fᵢ)).
///
/// # Errors
/// [`Error::CombineArity`] when `nets` and the fusion's weights differ in
/// number; [`Error::EmptyNetwork`] for an empty probe; [`Error::NonFinite`]
/// for a NaN/∞ probe; [`Error::Shape`] for a wrong probe width.
pub fn exactness_certificate(
    fused: &Fused,
    nets: &[&Mlp],
    probe: ArrayView2<'_, f64>,
) -> Result<Certificate> {
    if nets.len() != fused.weights.len() {
        return Err(Error::CombineArity {
            combine: "certificate",
            needed: fused.weights.len(),
            got: nets.len(),
        });
    }
    let big = fused.mlp.forward_array(probe)?;
    let mut comb = Array2::<f64>::zeros(big.dim());
    let mut scale = Array2::<f64>::ones(big.dim());
    for (n, &ci) in nets.iter().zip(&fused.weights) {
        let y = n.to_dtype(fused.mlp.dtype())?.forward_array(probe)?;
        if y.dim() != big.dim() {
            return Err(Error::Shape {
                what: "part output vs fused output",
                expected: vec![big.nrows(), big.ncols()],
                got: vec![y.nrows(), y.ncols()],
            });
        }
        comb.scaled_add(ci, &y);
        scale += &y.mapv(f64::abs);
    }
    let (mut max_abs, mut max_rel) = (0.0f64, 0.0f64);
    for ((a, b), s) in big.iter().zip(&comb).zip(&scale) {
        let d = (a - b).abs();
        max_abs = max_abs.max(d);
        max_rel = max_rel.max(d / s);
    }
    Ok(Certificate { max_abs, max_rel })
}

/// Checks that every weight of `net` is finite (fusion of NaN weights would
/// silently propagate them).
pub(crate) fn check_weights(net: &Mlp) -> Result<()> {
    for l in net.layers() {
        check_finite(l.weight(), "weights")?;
        check_finite(l.bias(), "weights")?;
    }
    Ok(())
}
