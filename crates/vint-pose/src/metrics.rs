//! Pose-error metrics (PoseCNN / DenseFusion / LineMOD conventions) and their
//! accuracy curves, each convention named.
//!
//! For model points `X` (`|X| = m`), ground truth `T = (R, t)` and estimate
//! `T̂ = (R̂, t̂)`:
//! - **ADD** `= (1/m) Σₓ ‖(Rx + t) − (R̂x + t̂)‖` ([`add`]);
//! - **ADD-S** `= (1/m) Σₓ min_{x'∈X} ‖(R̂x + t̂) − (Rx' + t)‖` ([`AddS`]), the
//!   symmetric-object variant (also called ADI), with an exact k-d tree;
//! - **ADD(-S)**: ADD-S for objects flagged symmetric, ADD otherwise ([`add_or_s`]).
//!
//! From a list of errors `e₁…e_n`:
//! - **AUC@0.1 m** (YCB-Video): the area under accuracy(τ) for τ ∈ [0, τ_max],
//!   τ_max = 0.10 m, divided by τ_max. Two integration rules are offered and
//!   named ([`AucRule`]): the exact integral of the step curve and the
//!   YCB-Video toolbox's VOC-style sum.
//! - **ADD-S < 2 cm** ([`accuracy_below`] with τ = 0.02 m), an absolute threshold;
//! - **ADD < 0.1·d** (LineMOD; [`accuracy_diameter`]) with `d` the object
//!   diameter ([`object_diameter`]), a relative one. The two are often
//!   confused (0.1 m vs 0.1·d); the names here keep them apart.

use crate::error::{Error, Result};
use crate::kdtree::KdTree;
use crate::points::to_points;
use crate::se3::Pose;
use nalgebra::Point3;
use ndarray::{ArrayView1, ArrayView2};

/// τ_max of the YCB-Video AUC, 0.10 m.
pub const AUC_MAX_THRESHOLD: f64 = 0.10;

/// The "ADD-S < 2 cm" threshold, 0.02 m.
pub const ADD_S_THRESHOLD: f64 = 0.02;

/// The LineMOD relative threshold: ADD below 0.1 × the object diameter.
pub const DIAMETER_FRACTION: f64 = 0.1;

fn check_pose(p: &Pose, what: &'static str) -> Result<()> {
    let h = p.to_homogeneous();
    match h.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// ADD = `(1/m) Σₓ ‖(Rx + t) − (R̂x + t̂)‖` for model points `X` (`m × 3`). O(m).
///
/// # Errors
/// [`Error::BadShape`], [`Error::EmptyCloud`], [`Error::NonFinite`] (points or poses).
pub fn add(model: ArrayView2<'_, f64>, gt: &Pose, est: &Pose) -> Result<f64> {
    let x = to_points(model, "model points")?;
    check_pose(gt, "ground-truth pose")?;
    check_pose(est, "estimated pose")?;
    Ok(add_points(&x, gt, est))
}

pub(crate) fn add_points(x: &[Point3<f64>], gt: &Pose, est: &Pose) -> f64 {
    let s: f64 = x.iter().map(|p| (gt * p - est * p).norm()).sum();
    s / x.len() as f64
}

/// ADD-S with a k-d tree over the model points, built once and reused for
/// many pose pairs.
///
/// `ADD-S = (1/m) Σₓ min_{x'} ‖(R̂x + t̂) − (Rx' + t)‖`; since `T` is rigid,
/// the inner minimum equals `min_{x'} ‖Rᵀ(R̂x + t̂ − t) − x'‖`, a nearest
/// neighbour query in the model's own frame. O(m log m) to build,
/// O(m log m) expected per pose pair (O(m²) brute force).
#[derive(Debug, Clone)]
pub struct AddS {
    tree: KdTree,
}

impl AddS {
    /// Builds the tree over the model points (`m × 3`).
    ///
    /// # Errors
    /// [`Error::BadShape`], [`Error::EmptyCloud`], [`Error::NonFinite`].
    pub fn new(model: ArrayView2<'_, f64>) -> Result<Self> {
        let x = to_points(model, "model points")?;
        Ok(AddS {
            tree: KdTree::new(&x)?,
        })
    }

    /// Builds from points already validated.
    pub(crate) fn from_points(x: &[Point3<f64>]) -> Result<Self> {
        Ok(AddS {
            tree: KdTree::new(x)?,
        })
    }

    /// ADD-S between `gt` and `est`.
    ///
    /// # Errors
    /// [`Error::NonFinite`] in a pose.
    pub fn error(&self, gt: &Pose, est: &Pose) -> Result<f64> {
        check_pose(gt, "ground-truth pose")?;
        check_pose(est, "estimated pose")?;
        let rel = gt.inverse() * est;
        let x = self.tree.points();
        let s: f64 = x.iter().map(|p| self.tree.nearest(&(rel * p)).1).sum();
        Ok(s / x.len() as f64)
    }

    /// ADD (no symmetry) on the same points.
    ///
    /// # Errors
    /// [`Error::NonFinite`] in a pose.
    pub fn add(&self, gt: &Pose, est: &Pose) -> Result<f64> {
        check_pose(gt, "ground-truth pose")?;
        check_pose(est, "estimated pose")?;
        Ok(add_points(self.tree.points(), gt, est))
    }

    /// ADD(-S): ADD-S when `symmetric`, ADD otherwise.
    ///
    /// # Errors
    /// [`Error::NonFinite`] in a pose.
    pub fn add_or_s(&self, gt: &Pose, est: &Pose, symmetric: bool) -> Result<f64> {
        if symmetric {
            self.error(gt, est)
        } else {
            self.add(gt, est)
        }
    }
}

/// ADD-S for one pose pair (builds a tree; use [`AddS`] for many pairs).
///
/// # Errors
/// As [`AddS::new`] and [`AddS::error`].
pub fn add_s(model: ArrayView2<'_, f64>, gt: &Pose, est: &Pose) -> Result<f64> {
    AddS::new(model)?.error(gt, est)
}

/// ADD(-S): ADD-S when the object is flagged `symmetric`, ADD otherwise.
///
/// # Errors
/// As [`add`] / [`add_s`].
pub fn add_or_s(model: ArrayView2<'_, f64>, gt: &Pose, est: &Pose, symmetric: bool) -> Result<f64> {
    if symmetric {
        add_s(model, gt, est)
    } else {
        add(model, gt, est)
    }
}

/// The object diameter `d = max_{x, x'} ‖x − x'‖` over the model points,
/// exact by brute force over pairs: O(m²) time, O(1) memory.
///
/// # Errors
/// [`Error::BadShape`], [`Error::EmptyCloud`], [`Error::NonFinite`].
pub fn object_diameter(model: ArrayView2<'_, f64>) -> Result<f64> {
    let x = to_points(model, "model points")?;
    Ok(diameter_points(&x))
}

pub(crate) fn diameter_points(x: &[Point3<f64>]) -> f64 {
    let mut best = 0.0f64;
    for (i, a) in x.iter().enumerate() {
        for b in &x[i + 1..] {
            best = best.max((a - b).norm_squared());
        }
    }
    best.sqrt()
}

fn check_errors(errors: ArrayView1<'_, f64>) -> Result<()> {
    if errors.is_empty() {
        return Err(Error::EmptyCloud { what: "errors" });
    }
    for (index, &e) in errors.iter().enumerate() {
        if e.is_nan() || e < 0.0 {
            return Err(if e.is_nan() {
                Error::NonFinite {
                    what: "errors",
                    index,
                }
            } else {
                Error::BadParameter {
                    name: "errors",
                    value: e,
                    reason: "pose errors must be ≥ 0 (+inf is allowed for a failure)",
                }
            });
        }
    }
    Ok(())
}

fn check_threshold(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::BadThreshold {
            name,
            value,
            reason: "must be finite and > 0",
        })
    }
}

/// The integration rule of an AUC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AucRule {
    /// The exact area under the step curve `acc(τ) = #{eᵢ ≤ τ}/n`, divided
    /// by τ_max: `AUC = (1/n) Σᵢ max(0, τ_max − eᵢ)/τ_max`. Errors ≥ τ_max
    /// contribute 0.
    Continuous,
    /// The YCB-Video toolbox's `VOCap` (PoseCNN, DenseFusion, PVN3D): sort
    /// the errors ≤ τ_max, `d₀ = 0`, `a_k = k/n`, then
    /// `AUC = Σ_k (d_k − d_{k−1})·a_k + (τ_max − d_K)·a_K`, divided by τ_max
    /// (a right-endpoint Riemann sum: each interval gets the accuracy at its
    /// right end). It exceeds the continuous rule by at most 1/n; an error
    /// equal to τ_max counts (1/n), an error above it does not.
    VocYcb,
}

/// Area under the accuracy–threshold curve on `[0, max_threshold]`, divided
/// by `max_threshold` (so in `[0, 1]`), by the named `rule`. O(n log n).
///
/// `errors` may hold `+∞` for a failed estimate.
///
/// # Errors
/// [`Error::EmptyCloud`] for no errors, [`Error::NonFinite`] for NaN,
/// [`Error::BadParameter`] for a negative error, [`Error::BadThreshold`].
pub fn auc(errors: ArrayView1<'_, f64>, max_threshold: f64, rule: AucRule) -> Result<f64> {
    check_errors(errors)?;
    check_threshold("max_threshold", max_threshold)?;
    let n = errors.len() as f64;
    Ok(match rule {
        AucRule::Continuous => {
            // Σ (1 − eᵢ/τ_max)₊ / n: exactly 1 when every error is 0.
            errors
                .iter()
                .map(|&e| (1.0 - e / max_threshold).max(0.0))
                .sum::<f64>()
                / n
        }
        AucRule::VocYcb => {
            let mut d: Vec<f64> = errors
                .iter()
                .copied()
                .filter(|&e| e <= max_threshold)
                .collect();
            if d.is_empty() {
                return Ok(0.0);
            }
            d.sort_by(f64::total_cmp);
            let mut area = 0.0;
            let mut prev = 0.0;
            for (k, &dk) in d.iter().enumerate() {
                area += (dk - prev) * (k + 1) as f64 / n;
                prev = dk;
            }
            area += (max_threshold - prev) * d.len() as f64 / n;
            area / max_threshold
        }
    })
}

/// Fraction of errors strictly below `threshold` (e.g. "ADD-S < 2 cm" with
/// [`ADD_S_THRESHOLD`]). O(n).
///
/// # Errors
/// As [`auc`].
pub fn accuracy_below(errors: ArrayView1<'_, f64>, threshold: f64) -> Result<f64> {
    check_errors(errors)?;
    check_threshold("threshold", threshold)?;
    Ok(errors.iter().filter(|&&e| e < threshold).count() as f64 / errors.len() as f64)
}

/// LineMOD accuracy: the fraction of errors below `fraction · diameter`
/// (ADD < 0.1·d with [`DIAMETER_FRACTION`]). O(n).
///
/// # Errors
/// As [`auc`]; [`Error::BadThreshold`] for a non-positive diameter or fraction.
pub fn accuracy_diameter(errors: ArrayView1<'_, f64>, diameter: f64, fraction: f64) -> Result<f64> {
    check_threshold("diameter", diameter)?;
    check_threshold("fraction", fraction)?;
    accuracy_below(errors, fraction * diameter)
}

/// The accuracy curve `acc(τ) = #{eᵢ ≤ τ}/n` at each threshold. O(n log n + T log n).
///
/// # Errors
/// As [`auc`]; [`Error::BadThreshold`] for a negative or non-finite threshold.
pub fn accuracy_curve(errors: ArrayView1<'_, f64>, thresholds: &[f64]) -> Result<Vec<f64>> {
    check_errors(errors)?;
    let mut d: Vec<f64> = errors.to_vec();
    d.sort_by(f64::total_cmp);
    thresholds
        .iter()
        .map(|&t| {
            if !(t.is_finite() && t >= 0.0) {
                return Err(Error::BadThreshold {
                    name: "thresholds",
                    value: t,
                    reason: "must be finite and ≥ 0",
                });
            }
            Ok(d.partition_point(|&e| e <= t) as f64 / d.len() as f64)
        })
        .collect()
}

/// AUC of each object's errors separately (per-object curves; report their
/// mean as "mean of per-object AUC").
///
/// # Errors
/// As [`auc`], for any group.
pub fn auc_per_object(
    groups: &[ArrayView1<'_, f64>],
    max_threshold: f64,
    rule: AucRule,
) -> Result<Vec<f64>> {
    if groups.is_empty() {
        return Err(Error::EmptyCloud {
            what: "object groups",
        });
    }
    groups
        .iter()
        .map(|g| auc(*g, max_threshold, rule))
        .collect()
}

/// AUC of all objects' errors pooled into one curve (every frame weighs the
/// same; objects with more frames weigh more, unlike the mean of
/// [`auc_per_object`]).
///
/// # Errors
/// As [`auc`].
pub fn auc_pooled(
    groups: &[ArrayView1<'_, f64>],
    max_threshold: f64,
    rule: AucRule,
) -> Result<f64> {
    let all: Vec<f64> = groups.iter().flat_map(|g| g.iter().copied()).collect();
    auc(ArrayView1::from(&all[..]), max_threshold, rule)
}
