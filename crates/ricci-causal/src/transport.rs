//! Optimal transport between two discrete measures: the exact Wasserstein-1
//! cost (transportation simplex) and entropic Sinkhorn (log domain).
//!
//! `W1(a, b) = min { Σᵢⱼ Pᵢⱼ Cᵢⱼ : P ≥ 0, P𝟙 = a, Pᵀ𝟙 = b }`.
//!
//! **Why our own solver.** The issue asked to look at maintained crates
//! first: `rust-optimal-transport` binds POT's C++ network simplex (a C++
//! toolchain at build time, and an older ndarray), and `pathfinding` has no
//! min-cost flow on `f64` costs. The problems Ollivier curvature solves are
//! tiny and dense (`(deg x + 1) × (deg y + 1)`), where a dense transportation
//! simplex with no allocation per call beats a general network simplex, so it
//! is written here (~200 lines) and checked against an LP solved by `microlp`
//! in the tests.

use crate::error::{Error, Result};
use ndarray::ArrayView2;

/// Which solver produced a transport cost (always reported to the caller).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SolverUsed {
    /// The exact transportation simplex ([`w1_exact`]).
    Exact,
    /// Entropic Sinkhorn with a rounded, feasible plan ([`sinkhorn`]).
    Sinkhorn,
}

/// Relative tolerance on `|Σa − Σb|`.
pub const MASS_TOL: f64 = 1e-9;

fn check_masses(a: &[f64], b: &[f64], m: usize, n: usize) -> Result<()> {
    if a.len() != m {
        return Err(Error::LengthMismatch {
            what: "a (rows of cost)",
            expected: m,
            got: a.len(),
        });
    }
    if b.len() != n {
        return Err(Error::LengthMismatch {
            what: "b (columns of cost)",
            expected: n,
            got: b.len(),
        });
    }
    for (what, v) in [("a", a), ("b", b)] {
        if let Some((index, &value)) = v
            .iter()
            .enumerate()
            .find(|(_, x)| !(x.is_finite() && **x >= 0.0))
        {
            return Err(Error::NegativeMass { what, index, value });
        }
    }
    let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    if (sa - sb).abs() > MASS_TOL * sa.max(sb).max(1.0) || sa <= 0.0 {
        return Err(Error::MassMismatch { a: sa, b: sb });
    }
    Ok(())
}

fn check_cost(cost: &ArrayView2<'_, f64>) -> Result<()> {
    for ((row, col), &value) in cost.indexed_iter() {
        if !(value.is_finite() && value >= 0.0) {
            return Err(Error::InvalidCost { row, col, value });
        }
    }
    Ok(())
}

/// Exact `W1(a, b)` for the ground cost `cost` (`a.len() × b.len()`).
///
/// Transportation simplex: matrix-minimum start completed to a spanning
/// tree, MODI potentials on the basis tree, Dantzig pricing (Bland's rule after a degenerate pivot, which
/// rules out cycling). Each pivot is `O(m n)`; the problems of Ollivier
/// curvature take a few dozen pivots. Atoms of zero mass are dropped first.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::NegativeMass`];
/// [`Error::InvalidCost`] (negative or non-finite);
/// [`Error::MassMismatch`] when `|Σa − Σb| > 1e-9·max(Σa, Σb, 1)` or the
/// mass is zero; [`Error::NotConverged`] past `50 (m + n)²` pivots (not
/// observed; a safety net).
pub fn w1_exact(a: &[f64], b: &[f64], cost: ArrayView2<'_, f64>) -> Result<f64> {
    let (m, n) = cost.dim();
    check_masses(a, b, m, n)?;
    check_cost(&cost)?;
    let mut ws = Simplex::default();
    ws.solve(a, b, |i, j| cost[[i, j]])
}

/// Reusable transportation-simplex workspace (no allocation per call once
/// warm). Used by the curvature code for one problem per edge.
#[derive(Debug, Default, Clone)]
pub(crate) struct Simplex {
    rows: Vec<usize>,
    cols: Vec<usize>,
    s: Vec<f64>,
    d: Vec<f64>,
    c: Vec<f64>,
    /// Basis cells `(i, j, flow)`.
    basis: Vec<(usize, usize, f64)>,
    u: Vec<f64>,
    v: Vec<f64>,
    adj_start: Vec<usize>,
    adj: Vec<usize>,
    fill: Vec<usize>,
    parent_cell: Vec<usize>,
    depth: Vec<usize>,
    order: Vec<usize>,
    cycle: Vec<usize>,
    tail: Vec<usize>,
    keys: Vec<(i64, usize)>,
    pivots: usize,
}

impl Simplex {
    /// Solves with masses checked by the caller; `cost(i, j)` on the
    /// original indices.
    pub(crate) fn solve(
        &mut self,
        a: &[f64],
        b: &[f64],
        cost: impl Fn(usize, usize) -> f64,
    ) -> Result<f64> {
        self.rows.clear();
        self.rows.extend((0..a.len()).filter(|&i| a[i] > 0.0));
        self.cols.clear();
        self.cols.extend((0..b.len()).filter(|&j| b[j] > 0.0));
        let (m, n) = (self.rows.len(), self.cols.len());
        if m == 0 || n == 0 {
            return Ok(0.0);
        }
        self.s.clear();
        self.s.extend(self.rows.iter().map(|&i| a[i]));
        self.d.clear();
        self.d.extend(self.cols.iter().map(|&j| b[j]));
        self.c.clear();
        let mut cmax = 0.0f64;
        for &i in &self.rows {
            for &j in &self.cols {
                let x = cost(i, j);
                cmax = cmax.max(x);
                self.c.push(x);
            }
        }
        let tol = 1e-12 * cmax.max(1e-300);
        self.initial_basis(m, n);
        let nb = m + n;
        let cap = 50 * nb * nb;
        let mut degenerate = false;
        for _ in 0..cap {
            self.tree(m, n);
            // Pricing.
            let mut best = (usize::MAX, usize::MAX);
            let mut best_r = -tol;
            'price: for i in 0..m {
                let ui = self.u[i];
                let row = &self.c[i * n..(i + 1) * n];
                for (j, (&cij, &vj)) in row.iter().zip(&self.v).enumerate() {
                    let r = cij - ui - vj;
                    if r < best_r {
                        best = (i, j);
                        best_r = r;
                        if degenerate {
                            break 'price;
                        }
                    }
                }
            }
            if best.0 == usize::MAX {
                return Ok(self
                    .basis
                    .iter()
                    .map(|&(i, j, x)| x * self.c[i * n + j])
                    .sum());
            }
            let (ei, ej) = best;
            // Cycle: path in the tree from column ej to row ei.
            self.cycle.clear();
            let (mut p, mut q) = (m + ej, ei);
            let mut tail = std::mem::take(&mut self.tail);
            tail.clear();
            while p != q {
                if self.depth[p] >= self.depth[q] {
                    let cell = self.parent_cell[p];
                    self.cycle.push(cell);
                    p = self.other(cell, p, m);
                } else {
                    let cell = self.parent_cell[q];
                    tail.push(cell);
                    q = self.other(cell, q, m);
                }
            }
            self.cycle.extend(tail.iter().rev());
            self.tail = tail;
            // Signs along the path: −, +, −, … (odd length, ends with −).
            let mut theta = f64::INFINITY;
            let mut leave = usize::MAX;
            for (k, &cell) in self.cycle.iter().enumerate() {
                if k % 2 == 0 {
                    let x = self.basis[cell].2;
                    let better = x < theta
                        || (x == theta
                            && leave != usize::MAX
                            && cell_key(self.basis[cell]) < cell_key(self.basis[leave]));
                    if better {
                        theta = x;
                        leave = cell;
                    }
                }
            }
            for (k, &cell) in self.cycle.iter().enumerate() {
                if k % 2 == 0 {
                    self.basis[cell].2 -= theta;
                } else {
                    self.basis[cell].2 += theta;
                }
            }
            self.basis[leave] = (ei, ej, theta);
            self.pivots += 1;
            degenerate = theta <= 0.0;
        }
        Err(Error::NotConverged {
            algorithm: "transportation simplex",
            iterations: cap,
            residual: f64::NAN,
        })
    }

    /// Initial basic solution by the matrix-minimum rule (cheapest cell
    /// first, allocate `min(supply, demand)`), whose allocations form a
    /// forest of the row/column graph; zero-flow cells, cheapest first, then
    /// join the forest into a spanning tree of `m + n − 1` cells. On
    /// Ollivier problems (shared atoms at zero cost) this start is close to
    /// optimal and saves most pivots of a north-west-corner start.
    fn initial_basis(&mut self, m: usize, n: usize) {
        self.basis.clear();
        // Cells by (cost in `f64::total_cmp` order, then cell index): integer
        // keys, a total order, so the unstable sort gives the stable order.
        self.keys.clear();
        self.keys
            .extend(self.c.iter().enumerate().map(|(p, &x)| (total_key(x), p)));
        self.keys.sort_unstable();
        self.order.clear();
        self.order.extend(self.keys.iter().map(|k| k.1));
        // Union-find over rows 0..m and columns m..m+n.
        self.depth.clear();
        self.depth.extend(0..m + n);
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let mut used = std::mem::take(&mut self.cycle);
        used.clear();
        used.resize(m * n, 0);
        for k in 0..m * n {
            let cell = self.order[k];
            let (i, j) = (cell / n, cell % n);
            if self.s[i] > 0.0 && self.d[j] > 0.0 {
                let (ri, rj) = (find(&mut self.depth, i), find(&mut self.depth, m + j));
                if ri == rj {
                    continue;
                }
                self.depth[ri] = rj;
                let x = self.s[i].min(self.d[j]);
                self.s[i] -= x;
                self.d[j] -= x;
                if self.s[i] < self.d[j] {
                    self.s[i] = 0.0;
                } else {
                    self.d[j] = 0.0;
                }
                self.basis.push((i, j, x));
                used[cell] = 1;
            }
        }
        for k in 0..m * n {
            if self.basis.len() == m + n - 1 {
                break;
            }
            let cell = self.order[k];
            if used[cell] == 1 {
                continue;
            }
            let (i, j) = (cell / n, cell % n);
            let (ri, rj) = (find(&mut self.depth, i), find(&mut self.depth, m + j));
            if ri != rj {
                self.depth[ri] = rj;
                self.basis.push((i, j, 0.0));
            }
        }
        self.cycle = used;
    }

    fn other(&self, cell: usize, node: usize, m: usize) -> usize {
        let (i, j, _) = self.basis[cell];
        if node == i { m + j } else { i }
    }

    /// Builds the basis tree (rows `0..m`, columns `m..m+n`), rooted at row
    /// 0, with potentials `u_i + v_j = c_ij` on basic cells (`u_0 = 0`).
    fn tree(&mut self, m: usize, n: usize) {
        let nb = m + n;
        self.adj_start.clear();
        self.adj_start.resize(nb + 1, 0);
        for &(i, j, _) in &self.basis {
            self.adj_start[i + 1] += 1;
            self.adj_start[m + j + 1] += 1;
        }
        for k in 0..nb {
            self.adj_start[k + 1] += self.adj_start[k];
        }
        self.adj.clear();
        self.adj.resize(self.adj_start[nb], 0);
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(&self.adj_start[..nb]);
        for (cell, &(i, j, _)) in self.basis.iter().enumerate() {
            self.adj[fill[i]] = cell;
            fill[i] += 1;
            self.adj[fill[m + j]] = cell;
            fill[m + j] += 1;
        }
        self.u.clear();
        self.u.resize(m, 0.0);
        self.v.clear();
        self.v.resize(n, 0.0);
        self.parent_cell.clear();
        self.parent_cell.resize(nb, usize::MAX);
        self.depth.clear();
        self.depth.resize(nb, usize::MAX);
        self.order.clear();
        self.order.push(0);
        self.depth[0] = 0;
        let mut head = 0;
        while head < self.order.len() {
            let x = self.order[head];
            head += 1;
            for k in self.adj_start[x]..self.adj_start[x + 1] {
                let cell = self.adj[k];
                let (i, j, _) = self.basis[cell];
                let y = if x < m { m + j } else { i };
                if self.depth[y] == usize::MAX {
                    self.depth[y] = self.depth[x] + 1;
                    self.parent_cell[y] = cell;
                    if y >= m {
                        self.v[j] = self.c[i * n + j] - self.u[i];
                    } else {
                        self.u[i] = self.c[i * n + j] - self.v[j];
                    }
                    self.order.push(y);
                }
            }
        }
    }
}

/// The integer whose order is `f64::total_cmp`'s (the same transform std
/// uses).
#[inline]
fn total_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

fn cell_key(c: (usize, usize, f64)) -> (usize, usize) {
    (c.0, c.1)
}

/// Options of [`sinkhorn`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SinkhornParams {
    /// Entropic regularisation `ε > 0` (in cost units).
    pub reg: f64,
    /// Iteration cap.
    pub max_iter: usize,
    /// Stop when the row-marginal error `‖P𝟙 − a‖₁` is below `tol`.
    pub tol: f64,
}

impl Default for SinkhornParams {
    /// `ε = 0.1` (GRC's `OTDSinkhornMix`), 10⁴ iterations, `tol = 1e-9`.
    fn default() -> Self {
        SinkhornParams {
            reg: 0.1,
            max_iter: 10_000,
            tol: 1e-9,
        }
    }
}

/// The outcome of [`sinkhorn`].
#[derive(Debug, Clone, PartialEq)]
pub struct SinkhornResult {
    /// `⟨P̃, C⟩` of the rounded plan `P̃` (feasible, so `≥ W1`).
    pub cost: f64,
    /// Iterations run.
    pub iterations: usize,
    /// `‖P𝟙 − a‖₁` before rounding.
    pub marginal_error: f64,
}

fn lse(it: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = it.collect();
    let mx = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if mx == f64::NEG_INFINITY {
        return mx;
    }
    mx + v.iter().map(|x| (x - mx).exp()).sum::<f64>().ln()
}

/// Entropic optimal transport by log-domain Sinkhorn (stable for small `ε`):
///
/// `fᵢ = ε log aᵢ − ε LSEⱼ((gⱼ − Cᵢⱼ)/ε)`, `gⱼ = ε log bⱼ − ε LSEᵢ((fᵢ − Cᵢⱼ)/ε)`,
/// `Pᵢⱼ = exp((fᵢ + gⱼ − Cᵢⱼ)/ε)`.
///
/// The plan is then rounded onto the transport polytope (Altschuler, Weed &
/// Rigollet 2017, Alg. 2), so the reported cost is the cost of a feasible
/// plan: `W1 ≤ cost ≤ W1 + O(ε log(mn))`. `O(m n)` per iteration.
///
/// # Errors
/// As [`w1_exact`], plus [`Error::InvalidParameter`] for `ε ≤ 0` or
/// `tol ≤ 0`, and [`Error::NotConverged`] when the marginal error is still
/// above `tol` after `max_iter` iterations.
pub fn sinkhorn(
    a: &[f64],
    b: &[f64],
    cost: ArrayView2<'_, f64>,
    p: &SinkhornParams,
) -> Result<SinkhornResult> {
    let (m, n) = cost.dim();
    check_masses(a, b, m, n)?;
    check_cost(&cost)?;
    mlcore::check::require(
        p.reg.is_finite() && p.reg > 0.0,
        "reg",
        p.reg,
        "a finite ε > 0",
    )?;
    mlcore::check::require(p.tol > 0.0, "tol", p.tol, "tol > 0")?;
    let rows: Vec<usize> = (0..m).filter(|&i| a[i] > 0.0).collect();
    let cols: Vec<usize> = (0..n).filter(|&j| b[j] > 0.0).collect();
    let (m, n) = (rows.len(), cols.len());
    let c: Vec<f64> = rows
        .iter()
        .flat_map(|&i| cols.iter().map(move |&j| (i, j)))
        .map(|(i, j)| cost[[i, j]])
        .collect();
    let la: Vec<f64> = rows.iter().map(|&i| a[i].ln()).collect();
    let lb: Vec<f64> = cols.iter().map(|&j| b[j].ln()).collect();
    let eps = p.reg;
    let mut f = vec![0.0; m];
    let mut g = vec![0.0; n];
    let mut err = f64::INFINITY;
    let mut it = 0;
    let plan = |f: &[f64], g: &[f64]| -> Vec<f64> {
        let mut pl = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                pl[i * n + j] = ((f[i] + g[j] - c[i * n + j]) / eps).exp();
            }
        }
        pl
    };
    while it < p.max_iter {
        it += 1;
        for i in 0..m {
            f[i] = eps * la[i] - eps * lse((0..n).map(|j| (g[j] - c[i * n + j]) / eps));
        }
        for j in 0..n {
            g[j] = eps * lb[j] - eps * lse((0..m).map(|i| (f[i] - c[i * n + j]) / eps));
        }
        if it % 10 == 0 || it == p.max_iter {
            let pl = plan(&f, &g);
            err = (0..m)
                .map(|i| (pl[i * n..(i + 1) * n].iter().sum::<f64>() - la[i].exp()).abs())
                .sum();
            if err < p.tol {
                break;
            }
        }
    }
    if err >= p.tol {
        return Err(Error::NotConverged {
            algorithm: "Sinkhorn",
            iterations: it,
            residual: err,
        });
    }
    // Rounding onto U(a, b).
    let mut pl = plan(&f, &g);
    let av: Vec<f64> = la.iter().map(|x| x.exp()).collect();
    let bv: Vec<f64> = lb.iter().map(|x| x.exp()).collect();
    for i in 0..m {
        let r: f64 = pl[i * n..(i + 1) * n].iter().sum();
        let s = if r > av[i] { av[i] / r } else { 1.0 };
        pl[i * n..(i + 1) * n].iter_mut().for_each(|x| *x *= s);
    }
    for j in 0..n {
        let col: f64 = (0..m).map(|i| pl[i * n + j]).sum();
        let s = if col > bv[j] { bv[j] / col } else { 1.0 };
        (0..m).for_each(|i| pl[i * n + j] *= s);
    }
    let er: Vec<f64> = (0..m)
        .map(|i| (av[i] - pl[i * n..(i + 1) * n].iter().sum::<f64>()).max(0.0))
        .collect();
    let ec: Vec<f64> = (0..n)
        .map(|j| (bv[j] - (0..m).map(|i| pl[i * n + j]).sum::<f64>()).max(0.0))
        .collect();
    let tot: f64 = er.iter().sum();
    let mut total = 0.0;
    for i in 0..m {
        for j in 0..n {
            let mut x = pl[i * n + j];
            if tot > 0.0 {
                x += er[i] * ec[j] / tot;
            }
            total += x * c[i * n + j];
        }
    }
    Ok(SinkhornResult {
        cost: total,
        iterations: it,
        marginal_error: err,
    })
}
