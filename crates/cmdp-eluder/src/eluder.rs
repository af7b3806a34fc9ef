//! The generalised Eluder dimension w.r.t. any bounded metric, by brute force.
//!
//! Definition (Russo & Van Roy 2013, extended to a metric ρ on outputs as in
//! the paper; the exact wording of the paper's extension is reconstructed):
//! a point x is ε-independent of x₁, …, xₙ w.r.t. (𝒫, ρ) if there are
//! P, P' ∈ 𝒫 with
//!
//! Σᵢ ρ(P(xᵢ), P'(xᵢ))² ≤ ε²  and  ρ(P(x), P'(x)) > ε.
//!
//! d_E(𝒫, ε) is the length of the longest sequence of domain points such
//! that, **for one common** ε' ≥ ε, every element is ε'-independent of its
//! predecessors.
//!
//! A repeated point is never independent of a prefix containing it (its own
//! term already bounds ρ(P(x), P'(x)) ≤ ε'), so sequences have distinct
//! elements and d_E ≤ |X|.
//!
//! Computation: a depth-first search over sequences of distinct points that
//! carries the exact set of admissible ε' as a finite union of intervals
//! [√(Σ_prefix ρ²), ρ(x)) ∩ [ε, ∞) (one per pair of models), intersected
//! along the sequence; a branch dies when the set is empty. This is exact (no
//! grid over ε'), and exponential: O(|X|! · |𝒫|² · |X|) in the worst case,
//! pruned by the bound "depth + points left ≤ best". Domains are limited to
//! [`MAX_DOMAIN`] points.

use crate::error::{Error, Result, mismatch};
use ndarray::{Array2, ArrayView1};

/// Output tables of a class of Bernoulli models, for [`eluder_dimension`]
/// with the Hellinger metric: `table[k][x]` is model k's success
/// probability at domain point x, and row x of the k-th output is
/// (p, 1 − p). O(|𝒫|·|X|).
///
/// # Errors
/// [`Error::EmptyClass`] for no models; [`Error::DimensionMismatch`] when
/// the rows differ in length; [`Error::InvalidParameter`] for a probability
/// outside [0, 1] (NaN included).
pub fn bernoulli_outputs(table: &[Vec<f64>]) -> Result<Vec<Array2<f64>>> {
    let first = table.first().ok_or(Error::EmptyClass {
        what: "Bernoulli class",
    })?;
    for row in table {
        if row.len() != first.len() {
            return Err(mismatch(
                "domain size of every model",
                first.len(),
                row.len(),
            ));
        }
        if let Some(&value) = row.iter().find(|p| !(0.0..=1.0).contains(*p)) {
            return Err(Error::InvalidParameter {
                name: "Bernoulli probability",
                value,
                expected: "in [0, 1]",
            });
        }
    }
    Ok(table
        .iter()
        .map(|row| {
            Array2::from_shape_fn(
                (row.len(), 2),
                |(x, j)| if j == 0 { row[x] } else { 1.0 - row[x] },
            )
        })
        .collect())
}

/// Largest domain the brute force accepts.
pub const MAX_DOMAIN: usize = 14;

/// The result of [`eluder_dimension`].
#[derive(Debug, Clone, PartialEq)]
pub struct EluderResult {
    /// d_E(𝒫, ε).
    pub dimension: usize,
    /// One longest sequence (domain indices in order).
    pub sequence: Vec<usize>,
    /// An ε' ≥ ε at which every element of `sequence` is ε'-independent of
    /// its predecessors (the smallest admissible one).
    pub eps_prime: f64,
}

/// Brute-force generalised Eluder dimension d_E(𝒫, ε) w.r.t. the metric `metric`.
///
/// `outputs[k]` is model k's output table: row x is P_k(x), the output at
/// domain point x (a distribution for dynamics classes with the Hellinger
/// metric [`crate::metric::hellinger_metric`], a length-1 vector for reward
/// classes with [`crate::metric::abs_metric`]). All tables must have the
/// same number of rows |X|. The metric must return finite values ≥ 0 (a
/// bounded metric); it is evaluated once per (pair, point).
///
/// Complexity: O(|𝒫|²·|X|) metric calls, then the exponential search
/// described in the module docs.
///
/// # Errors
/// [`Error::EmptyClass`] for no models or an empty domain;
/// [`Error::DimensionMismatch`] for tables of different shapes;
/// [`Error::InvalidParameter`] unless ε is finite and > 0;
/// [`Error::InvalidMetric`] for a NaN, infinite or negative distance;
/// [`Error::DomainTooLarge`] for |X| > [`MAX_DOMAIN`].
pub fn eluder_dimension<M>(outputs: &[Array2<f64>], eps: f64, metric: M) -> Result<EluderResult>
where
    M: Fn(ArrayView1<'_, f64>, ArrayView1<'_, f64>) -> f64,
{
    if outputs.is_empty() {
        return Err(Error::EmptyClass {
            what: "model class",
        });
    }
    let (nx, k) = outputs[0].dim();
    if nx == 0 {
        return Err(Error::EmptyClass {
            what: "Eluder domain",
        });
    }
    for o in outputs {
        if o.dim() != (nx, k) {
            return Err(mismatch(
                "output table",
                format!("{nx} × {k}"),
                format!("{:?}", o.dim()),
            ));
        }
    }
    if !(eps.is_finite() && eps > 0.0) {
        return Err(Error::InvalidParameter {
            name: "eps",
            value: eps,
            expected: "a finite eps > 0",
        });
    }
    if nx > MAX_DOMAIN {
        return Err(Error::DomainTooLarge {
            max: MAX_DOMAIN,
            got: nx,
        });
    }
    // dist[p][x] for unordered pairs that can ever witness independence.
    let mut dist: Vec<Vec<f64>> = Vec::new();
    for a in 0..outputs.len() {
        for b in a + 1..outputs.len() {
            let mut row = Vec::with_capacity(nx);
            for x in 0..nx {
                let d = metric(outputs[a].row(x), outputs[b].row(x));
                if !d.is_finite() || d < 0.0 {
                    return Err(Error::InvalidMetric {
                        model_a: a,
                        model_b: b,
                        point: x,
                        value: d,
                    });
                }
                row.push(d);
            }
            if row.iter().any(|&d| d > eps) {
                dist.push(row);
            }
        }
    }
    let mut search = Search {
        dist: &dist,
        nx,
        best: Vec::new(),
        best_eps: eps,
        seq: Vec::new(),
        seen: std::collections::HashMap::new(),
    };
    let sums = vec![0.0; dist.len()];
    search.dfs(0, &sums, vec![(eps, f64::INFINITY)]);
    Ok(EluderResult {
        dimension: search.best.len(),
        sequence: search.best,
        eps_prime: search.best_eps,
    })
}

struct Search<'a> {
    dist: &'a [Vec<f64>],
    nx: usize,
    best: Vec<usize>,
    best_eps: f64,
    seq: Vec<usize>,
    /// Admissible-ε' sets already explored from each set of used points: a
    /// state whose set is contained in an explored one cannot do better.
    seen: std::collections::HashMap<u32, Vec<Intervals>>,
}

fn contained(small: &Intervals, big: &Intervals) -> bool {
    small
        .iter()
        .all(|&(lo, hi)| big.iter().any(|&(blo, bhi)| blo <= lo && hi <= bhi))
}

/// Sorted, disjoint, half-open intervals [lo, hi).
type Intervals = Vec<(f64, f64)>;

fn union(mut iv: Intervals) -> Intervals {
    iv.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Intervals = Vec::with_capacity(iv.len());
    for (lo, hi) in iv {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

fn intersect(a: &Intervals, b: &Intervals) -> Intervals {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if lo < hi {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

impl Search<'_> {
    fn dfs(&mut self, used: u32, sums: &[f64], feasible: Intervals) {
        if self.seq.len() > self.best.len() {
            self.best = self.seq.clone();
            self.best_eps = feasible[0].0;
        }
        if self.best.len() == self.nx {
            return;
        }
        let explored = self.seen.entry(used).or_default();
        if explored.iter().any(|big| contained(&feasible, big)) {
            return;
        }
        explored.push(feasible.clone());
        for x in 0..self.nx {
            if used & (1 << x) != 0 {
                continue;
            }
            let cand: Intervals = self
                .dist
                .iter()
                .zip(sums)
                .filter_map(|(d, &s)| {
                    let lo = s.sqrt();
                    (d[x] > lo).then_some((lo, d[x]))
                })
                .collect();
            let next = intersect(&feasible, &union(cand));
            if next.is_empty() {
                continue;
            }
            let new_sums: Vec<f64> = self
                .dist
                .iter()
                .zip(sums)
                .map(|(d, &s)| s + d[x] * d[x])
                .collect();
            self.seq.push(x);
            self.dfs(used | (1 << x), &new_sums, next);
            self.seq.pop();
            if self.best.len() == self.nx {
                return;
            }
        }
    }
}
