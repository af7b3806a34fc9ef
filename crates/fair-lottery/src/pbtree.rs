//! A windowed divide-and-conquer Poisson–binomial tree (private).
//!
//! Leaves are independent Bernoulli(pᵢ) units; each internal node stores the
//! distribution of the number of successes among its leaves,
//! `P_node(j)`, but only on a window `[μ − t, μ + t]` around its mean
//! `μ = Σ pᵢ`, with `t = T/3 + √(T²/9 + 2Tv)`, `v = Σ pᵢ(1 − pᵢ)` and
//! `T = 45`: by Bernstein's inequality the mass outside the window is below
//! `2e⁻⁴⁵ ≈ 6·10⁻²⁰`, below double precision relative to the
//! probabilities the tree is queried for (targets within a few units of
//! `Σ p`, where `P(K = target) ≳ 1/(4√v)`). Storing only windows makes the
//! whole tree `O(Σ_nodes t) = O(n)` memory and its construction
//! `O(Σ_nodes t²) = O(n·T)`-ish instead of the `O(nk)` of the classical
//! elementary-symmetric-polynomial table (which for n = 10⁶, k = 10⁵ would be
//! 10¹¹ doubles). All entries are probabilities (sums of non-negative terms):
//! no cancellation, no overflow, no log domain needed.
//!
//! Queries:
//! - `prob(target)`: `P(K = target)` for the total count `K`;
//! - `outside(target)`: for every leaf `i`, `P(K₋ᵢ = target − 1)` and
//!   `P(K₋ᵢ = target)` (the count among the other leaves), by a top-down pass
//!   of "outside" distributions `Out_c = Out_parent ⊛ P_sibling`;
//! - `sample(target, rng)`: the leaves of a draw from the conditional
//!   Bernoulli law given `K = target`, top-down: at a node with count `r`,
//!   the left child gets `j` with probability `∝ P_left(j)·P_right(r − j)`.

use rand::{Rng, RngExt};

/// Bernstein exponent of the truncation (tail mass ≤ 2e^{-T}).
const T: f64 = 45.0;

fn half_width(v: f64) -> f64 {
    T / 3.0 + (T * T / 9.0 + 2.0 * T * v).sqrt()
}

#[derive(Debug, Clone)]
pub(crate) struct PbTree {
    /// Number of real leaves.
    n: usize,
    /// Leaves in the (power-of-two) heap.
    leaves: usize,
    /// Per heap node (index 0 unused): window start, length, offset in `data`.
    lo: Vec<usize>,
    len: Vec<usize>,
    off: Vec<usize>,
    /// Per heap node: number of real leaves below, mean and variance.
    count: Vec<usize>,
    mean: Vec<f64>,
    data: Vec<f64>,
    p: Vec<f64>,
}

/// Dot product with eight independent accumulators (vectorises).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s: f64 = acc.iter().sum();
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `out[m − wlo] = Σⱼ a[j]·b[m − alo − blo − j]` for `m ∈ [wlo, whi]`
/// (`b_rev` is `b` reversed, so that each output is a contiguous dot product).
fn convolve_window(
    a: &[f64],
    alo: usize,
    b_rev: &[f64],
    blo: usize,
    wlo: usize,
    whi: usize,
    out: &mut Vec<f64>,
) {
    let base = alo + blo;
    let lb = b_rev.len();
    for m in wlo..=whi {
        let d = m - base; // index into the full convolution
        let j_lo = d.saturating_sub(lb - 1);
        let j_hi = d.min(a.len() - 1);
        if j_lo <= j_hi {
            // b[d − j] = b_rev[lb − 1 − d + j]
            let r0 = lb - 1 + j_lo - d;
            out.push(dot(&a[j_lo..=j_hi], &b_rev[r0..r0 + (j_hi - j_lo + 1)]));
        } else {
            out.push(0.0);
        }
    }
}

impl PbTree {
    /// Builds the tree for success probabilities `p` (each in `[0, 1)`).
    pub fn new(p: &[f64]) -> PbTree {
        let n = p.len();
        let leaves = n.max(1).next_power_of_two();
        let nodes = 2 * leaves;
        let mut tree = PbTree {
            n,
            leaves,
            lo: vec![0; nodes],
            len: vec![0; nodes],
            off: vec![0; nodes],
            count: vec![0; nodes],
            mean: vec![0.0; nodes],
            data: Vec::with_capacity(4 * nodes),
            p: p.to_vec(),
        };
        let mut var = vec![0.0; nodes];
        for leaf in 0..leaves {
            let node = leaves + leaf;
            tree.off[node] = tree.data.len();
            if let Some(q) = p.get(leaf).copied().filter(|&q| q > 0.0) {
                tree.data.push(1.0 - q);
                tree.data.push(q);
                tree.len[node] = 2;
                tree.count[node] = 1;
                tree.mean[node] = q;
                var[node] = q * (1.0 - q);
            } else {
                tree.data.push(1.0);
                tree.len[node] = 1;
                tree.count[node] = usize::from(leaf < n);
            }
        }
        let mut buf = Vec::new();
        let mut rev = Vec::new();
        for node in (1..leaves).rev() {
            let (a, b) = (2 * node, 2 * node + 1);
            tree.count[node] = tree.count[a] + tree.count[b];
            tree.mean[node] = tree.mean[a] + tree.mean[b];
            var[node] = var[a] + var[b];
            let t = half_width(var[node]);
            let full_lo = tree.lo[a] + tree.lo[b];
            let full_hi = full_lo + tree.len[a] + tree.len[b] - 2;
            let wlo = ((tree.mean[node] - t).floor().max(0.0) as usize)
                .max(full_lo)
                .min(full_hi);
            let whi = ((tree.mean[node] + t).ceil() as usize)
                .min(full_hi)
                .max(wlo);
            buf.clear();
            rev.clear();
            rev.extend(tree.slice(b).iter().rev());
            convolve_window(
                tree.slice(a),
                tree.lo[a],
                &rev,
                tree.lo[b],
                wlo,
                whi,
                &mut buf,
            );
            tree.lo[node] = wlo;
            tree.len[node] = buf.len();
            tree.off[node] = tree.data.len();
            tree.data.extend_from_slice(&buf);
        }
        tree
    }

    fn slice(&self, node: usize) -> &[f64] {
        &self.data[self.off[node]..self.off[node] + self.len[node]]
    }

    fn at(&self, node: usize, j: usize) -> f64 {
        if j < self.lo[node] || j >= self.lo[node] + self.len[node] {
            0.0
        } else {
            self.data[self.off[node] + j - self.lo[node]]
        }
    }

    /// `P(K = target)`.
    pub fn prob(&self, target: usize) -> f64 {
        self.at(1, target)
    }

    /// For every leaf `i`: `[P(K₋ᵢ = target − 1), P(K₋ᵢ = target)]`.
    pub fn outside(&self, target: usize) -> Vec<[f64; 2]> {
        // Level-by-level "outside" distributions; the root's is δ₀.
        let mut cur_lo = vec![0usize];
        let mut cur_data: Vec<Vec<f64>> = vec![vec![1.0]];
        let mut first = 1usize; // heap index of the first node of the level
        let mut rev: Vec<f64> = Vec::new();
        while first < self.leaves {
            let width = first; // nodes at this level
            let mut next_lo = Vec::with_capacity(2 * width);
            let mut next_data = Vec::with_capacity(2 * width);
            for (idx, parent) in (first..first + width).enumerate() {
                let (po, plo) = (&cur_data[idx], cur_lo[idx]);
                for (child, sib) in [(2 * parent, 2 * parent + 1), (2 * parent + 1, 2 * parent)] {
                    // Values of the outside count needed: target − (count in child window).
                    let c_lo = self.lo[child];
                    let c_hi = self.lo[child] + self.len[child] - 1;
                    let outside_total = self.n - self.count[child];
                    let need_lo = target.saturating_sub(c_hi + 1).min(outside_total);
                    let need_hi = target.saturating_sub(c_lo).min(outside_total).max(need_lo);
                    let mut out = Vec::new();
                    if po.is_empty() {
                        next_lo.push(0);
                        next_data.push(out);
                        continue;
                    }
                    let full_lo = plo + self.lo[sib];
                    let full_hi = full_lo + po.len() + self.len[sib] - 2;
                    let wlo = need_lo.max(full_lo);
                    let whi = need_hi.min(full_hi);
                    if wlo <= whi {
                        rev.clear();
                        rev.extend(self.slice(sib).iter().rev());
                        convolve_window(po, plo, &rev, self.lo[sib], wlo, whi, &mut out);
                        next_lo.push(wlo);
                    } else {
                        next_lo.push(0);
                    }
                    next_data.push(out);
                }
            }
            cur_lo = next_lo;
            cur_data = next_data;
            first *= 2;
        }
        let get = |v: &Vec<f64>, lo: usize, j: usize| -> f64 {
            if j < lo || j >= lo + v.len() {
                0.0
            } else {
                v[j - lo]
            }
        };
        (0..self.n)
            .map(|i| {
                let (v, lo) = (&cur_data[i], cur_lo[i]);
                let below = if target == 0 {
                    0.0
                } else {
                    get(v, lo, target - 1)
                };
                [below, get(v, lo, target)]
            })
            .collect()
    }

    /// Conditional Bernoulli inclusion probabilities given `K = target`:
    /// `πᵢ = pᵢ·P(K₋ᵢ = target − 1)/P(K = target)`, and `1 − πᵢ` computed as
    /// `(1 − pᵢ)·P(K₋ᵢ = target)/P(K = target)` (no cancellation near 1).
    pub fn conditional_inclusion(&self, target: usize) -> (Vec<f64>, Vec<f64>) {
        let total = self.prob(target);
        let outs = self.outside(target);
        let mut pi = Vec::with_capacity(self.n);
        let mut co = Vec::with_capacity(self.n);
        for (i, o) in outs.iter().enumerate() {
            pi.push(self.p[i] * o[0] / total);
            co.push((1.0 - self.p[i]) * o[1] / total);
        }
        (pi, co)
    }

    /// Leaves of one draw given `K = target` (in increasing order of leaf index).
    pub fn sample<R: Rng + ?Sized>(&self, target: usize, rng: &mut R, out: &mut Vec<usize>) {
        let mut stack: Vec<(usize, usize)> = vec![(1, target)];
        while let Some((node, r)) = stack.pop() {
            if r == 0 {
                continue;
            }
            if node >= self.leaves {
                out.push(node - self.leaves);
                continue;
            }
            let (a, b) = (2 * node, 2 * node + 1);
            if r == self.count[node] {
                // Every real leaf below is in.
                stack.push((b, self.count[b]));
                stack.push((a, self.count[a]));
                continue;
            }
            let (a_lo, b_lo) = (self.lo[a], self.lo[b]);
            let (sa, sb) = (self.slice(a), self.slice(b));
            let a_hi = a_lo + sa.len() - 1;
            let b_hi = b_lo + sb.len() - 1;
            let j_lo = a_lo.max(r.saturating_sub(b_hi));
            let j_hi = a_hi.min(r.saturating_sub(b_lo)).min(r);
            // Two passes over the feasible splits: the total, then the draw.
            let mut total = 0.0;
            if j_lo <= j_hi && r >= b_lo {
                for j in j_lo..=j_hi {
                    total += sa[j - a_lo] * sb[r - j - b_lo];
                }
            }
            let j = if total > 0.0 {
                let u = rng.random::<f64>() * total;
                let mut acc = 0.0;
                let mut pick = j_hi;
                for j in j_lo..=j_hi {
                    acc += sa[j - a_lo] * sb[r - j - b_lo];
                    if acc > u {
                        pick = j;
                        break;
                    }
                }
                pick
            } else {
                // Unreachable for targets near the mean (mass ≥ 1e-30); keep a
                // valid split rather than panic.
                r.saturating_sub(self.count[b])
                    .max(j_lo.min(r))
                    .min(self.count[a])
            };
            stack.push((b, r - j));
            stack.push((a, j));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(p: &[f64]) -> Vec<f64> {
        let mut d = vec![1.0];
        for &q in p {
            let mut e = vec![0.0; d.len() + 1];
            for (j, &x) in d.iter().enumerate() {
                e[j] += x * (1.0 - q);
                e[j + 1] += x * q;
            }
            d = e;
        }
        d
    }

    #[test]
    fn tree_matches_brute_force_poisson_binomial() {
        for n in [1usize, 2, 3, 7, 64, 300, 1000, 5000] {
            let p: Vec<f64> = (0..n)
                .map(|i| 0.2 * ((i * 7919 % 1000) as f64 + 0.5) / 1000.0)
                .collect();
            let b = brute(&p);
            let tree = PbTree::new(&p);
            let mu = p.iter().sum::<f64>().round() as usize;
            for t in [mu.saturating_sub(2), mu, mu + 1] {
                if t <= n {
                    let x = tree.prob(t);
                    assert!(
                        (x - b[t]).abs() <= 1e-12 * b[t].max(1e-300) + 1e-300,
                        "n {n} t {t}: {x} vs {}",
                        b[t]
                    );
                }
            }
        }
    }
}
