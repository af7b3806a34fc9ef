//! Positional encodings computed from the graph alone: Laplacian
//! eigenpairs (the input of LPE and SPE) and relative random-walk
//! probabilities (RRWP). The learned parts (LPE's φ/ρ, SPE's ψ and GIN ρ)
//! live in [`crate::model`].

use crate::error::{Error, Result};
use crate::graph::Graph;
use ndarray::{Array1, Array2, Array3, s};

/// Which Laplacian LPE diagonalises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Laplacian {
    /// `L = I − D^{-1/2} A D^{-1/2}`, degrees clipped to ≥ 1 (isolated nodes
    /// get `L_vv = 1`, so `trace L = n`); eigenvalues in `[0, 2]`.
    #[default]
    Normalized,
    /// `L = D − A`.
    Combinatorial,
}

/// Hyper-parameters of [`laplacian_pe`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LpeConfig {
    /// Eigenpairs kept (`num_vecs ≥ 1`).
    pub num_vecs: usize,
    /// The Laplacian.
    pub laplacian: Laplacian,
    /// Keep half the smallest and half the largest eigenpairs
    /// (`⌈num_vecs/2⌉` smallest, `⌊num_vecs/2⌋` largest) instead of the
    /// `num_vecs` smallest.
    pub large_graph: bool,
}

impl Default for LpeConfig {
    /// The paper's PCQM4Mv2 setting: 96 vectors, normalised Laplacian.
    fn default() -> Self {
        LpeConfig {
            num_vecs: 96,
            laplacian: Laplacian::Normalized,
            large_graph: false,
        }
    }
}

/// Eigenpairs of a graph Laplacian, padded to `num_vecs`.
#[derive(Debug, Clone, PartialEq)]
pub struct LaplacianPe {
    /// Eigenvalues `λ_j ≥ 0` (clamped), ascending within each kept block; 0 in padded slots.
    pub values: Array1<f64>,
    /// Orthonormal eigenvectors as columns, `n × num_vecs`; 0 in padded columns.
    pub vectors: Array2<f64>,
    /// `mask[j]` is true for a real eigenpair, false for padding (`n < num_vecs`).
    /// The official code pads with NaN and replaces NaN by 0 before use; the
    /// mask carries the same information without NaN.
    pub mask: Vec<bool>,
}

/// The Laplacian matrix of `g` (dense, `n × n`). O(n²).
///
/// # Errors
/// [`Error::Empty`] for `n = 0`; [`Error::TooManyTuples`] when `n²` exceeds the limit.
pub fn laplacian(g: &Graph, kind: Laplacian) -> Result<Array2<f64>> {
    let n = g.n();
    if n == 0 {
        return Err(Error::Empty("Laplacian of the null graph"));
    }
    let a = g.adjacency()?;
    let deg: Vec<f64> = (0..n).map(|v| g.degree(v) as f64).collect();
    Ok(match kind {
        Laplacian::Combinatorial => {
            Array2::from_shape_fn((n, n), |(i, j)| if i == j { deg[i] } else { -a[[i, j]] })
        }
        Laplacian::Normalized => Array2::from_shape_fn((n, n), |(i, j)| {
            let di = deg[i].max(1.0);
            let dj = deg[j].max(1.0);
            f64::from(u8::from(i == j)) - a[[i, j]] / (di * dj).sqrt()
        }),
    })
}

/// Full eigendecomposition of the Laplacian, eigenvalues ascending and
/// clamped at 0 (faer's symmetric eigensolver). O(n³).
///
/// # Errors
/// As [`laplacian`]; [`Error::Core`] if the eigensolver fails.
pub fn laplacian_spectrum(g: &Graph, kind: Laplacian) -> Result<(Array1<f64>, Array2<f64>)> {
    let l = laplacian(g, kind)?;
    let e = mlcore::linalg::eigh(l.view())?;
    Ok((e.values.mapv(|x| x.max(0.0)), e.vectors))
}

/// LPE input: the `num_vecs` eigenpairs of the Laplacian chosen by `cfg`,
/// padded (with `mask = false`) when `n < num_vecs`. O(n³).
///
/// # Errors
/// [`Error::NumVecsZero`], [`Error::Empty`] for `n = 0`, and those of [`laplacian_spectrum`].
pub fn laplacian_pe(g: &Graph, cfg: LpeConfig) -> Result<LaplacianPe> {
    if cfg.num_vecs == 0 {
        return Err(Error::NumVecsZero);
    }
    let (vals, vecs) = laplacian_spectrum(g, cfg.laplacian)?;
    let n = g.n();
    let k = cfg.num_vecs;
    let chosen: Vec<usize> = if n <= k {
        (0..n).collect()
    } else if cfg.large_graph {
        let lo = k.div_ceil(2);
        (0..lo).chain(n - (k - lo)..n).collect()
    } else {
        (0..k).collect()
    };
    let mut values = Array1::zeros(k);
    let mut vectors = Array2::zeros((n, k));
    let mut mask = vec![false; k];
    for (slot, &j) in chosen.iter().enumerate() {
        values[slot] = vals[j];
        vectors
            .slice_mut(s![.., slot])
            .assign(&vecs.slice(s![.., j]));
        mask[slot] = true;
    }
    Ok(LaplacianPe {
        values,
        vectors,
        mask,
    })
}

/// How [`rrwp`] forms the powers of the random-walk matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RrwpPowers {
    /// True powers `I, P, P², …, P^{K−1}`.
    #[default]
    Consecutive,
    /// The Edge Transformer's official code: `I, P, P², P⁴, …` (repeated
    /// squaring; channel `k ≥ 1` holds `P^{2^{k−1}}`).
    RepeatedSquaring,
}

/// Relative random-walk probabilities: `R[i, j, k] = (P^{e_k})_{ij}` with
/// `P = D⁻¹A` (degree clipped at 1, so isolated nodes have a zero row) and
/// exponents `e = (0, 1, 2, …, K−1)` or, with
/// [`RrwpPowers::RepeatedSquaring`], `(0, 1, 2, 4, …)`. O(K·n³).
///
/// # Errors
/// [`Error::NumVecsZero`] for `steps = 0`, [`Error::Empty`] for `n = 0`,
/// [`Error::TooManyTuples`] when `n²·K` exceeds the tuple limit.
pub fn rrwp(g: &Graph, steps: usize, powers: RrwpPowers) -> Result<Array3<f64>> {
    if steps == 0 {
        return Err(Error::NumVecsZero);
    }
    let n = g.n();
    if n == 0 {
        return Err(Error::Empty("RRWP of the null graph"));
    }
    let cells = crate::tokens::check_count(n, 2, crate::tokens::DEFAULT_TUPLE_LIMIT)?;
    if cells
        .checked_mul(steps)
        .is_none_or(|c| c > crate::tokens::DEFAULT_TUPLE_LIMIT)
    {
        return Err(Error::TooManyTuples {
            n,
            k: 2,
            limit: crate::tokens::DEFAULT_TUPLE_LIMIT,
        });
    }
    let mut p = g.adjacency()?;
    for i in 0..n {
        let d = (g.degree(i) as f64).max(1.0);
        p.row_mut(i).mapv_inplace(|x| x / d);
    }
    let mut out = Array3::zeros((n, n, steps));
    let mut cur: Array2<f64> = Array2::eye(n);
    for k in 0..steps {
        out.slice_mut(s![.., .., k]).assign(&cur);
        cur = match (powers, k) {
            (RrwpPowers::Consecutive, _) | (RrwpPowers::RepeatedSquaring, 0) => cur.dot(&p),
            (RrwpPowers::RepeatedSquaring, _) => cur.dot(&cur),
        };
    }
    Ok(out)
}
