//! Registration: weighted Kabsch/Umeyama for known correspondences, ICP
//! (point-to-point and point-to-plane, trimmed, with a maximum
//! correspondence distance) and its visuo-tactile fusion [`fuse_icp`].
//!
//! Convention (as open3d's `registration_icp`): the result `T` maps the
//! *source* onto the *target*, `T·src ≈ dst`; correspondences pair each
//! source point with its nearest target point. To estimate an object's pose
//! from a partial observation, register the observed cloud (source, camera
//! frame) onto the model (target, object frame): the result is
//! `T_object←camera`; its inverse is the object pose in the camera.

use crate::cloud::normals_with_tree;
use crate::error::{Error, Result};
use crate::kdtree::KdTree;
use crate::points::{to_points, to_vectors, weights as check_weights};
use crate::se3::Pose;
use nalgebra::{
    Isometry3, Matrix3, Matrix6, Point3, SymmetricEigen, Translation3, UnitQuaternion, Vector3,
    Vector6,
};
use ndarray::{ArrayView1, ArrayView2};

/// A similarity `x ↦ s R x + t` found by [`kabsch_umeyama`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alignment {
    /// The rigid part `(R, t)`.
    pub pose: Pose,
    /// The scale `s` (1 unless estimated).
    pub scale: f64,
    /// Weighted RMS residual `√(Σ wᵢ‖s R pᵢ + t − qᵢ‖² / Σ wᵢ)`.
    pub rmse: f64,
}

/// Relative eigenvalue below which a point set counts as collinear.
pub const COLLINEAR_TOL: f64 = 1e-12;

pub(crate) fn kabsch_points(
    p: &[Point3<f64>],
    q: &[Point3<f64>],
    w: &[f64],
    with_scale: bool,
) -> Result<Alignment> {
    let positive = w.iter().filter(|&&x| x > 0.0).count();
    if positive < 3 {
        return Err(Error::DegenerateCorrespondences {
            reason: format!("{positive} correspondences with positive weight, need ≥ 3"),
        });
    }
    let wsum: f64 = w.iter().sum();
    let pm = p
        .iter()
        .zip(w)
        .fold(Vector3::zeros(), |s, (x, &wi)| s + x.coords * wi)
        / wsum;
    let qm = q
        .iter()
        .zip(w)
        .fold(Vector3::zeros(), |s, (x, &wi)| s + x.coords * wi)
        / wsum;
    let mut h = Matrix3::zeros();
    let mut cp = Matrix3::zeros();
    let mut var_p = 0.0;
    for ((a, b), &wi) in p.iter().zip(q).zip(w) {
        let (da, db) = (a.coords - pm, b.coords - qm);
        h += wi * da * db.transpose();
        cp += wi * da * da.transpose();
        var_p += wi * da.norm_squared();
    }
    if !(cp.iter().all(|v| v.is_finite()) && h.iter().all(|v| v.is_finite()) && var_p.is_finite()) {
        return Err(Error::NonFinite {
            what: "covariance of the correspondences (overflow)",
            index: 0,
        });
    }
    let mut ev: Vec<f64> = SymmetricEigen::try_new(cp, f64::EPSILON, 10_000)
        .ok_or_else(|| Error::DegenerateCorrespondences {
            reason: "eigen-decomposition of the source covariance did not converge".into(),
        })?
        .eigenvalues
        .iter()
        .copied()
        .collect();
    ev.sort_by(|a, b| b.total_cmp(a));
    if ev[0].is_nan() || ev[0] <= 0.0 || ev[1] <= COLLINEAR_TOL * ev[0] {
        return Err(Error::DegenerateCorrespondences {
            reason: format!(
                "source points are collinear or coincide (covariance eigenvalues {ev:?})"
            ),
        });
    }
    let Some(svd) = h.try_svd(true, true, f64::EPSILON, 10_000) else {
        return Err(Error::DegenerateCorrespondences {
            reason: "SVD of the cross-covariance did not converge".into(),
        });
    };
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return Err(Error::DegenerateCorrespondences {
            reason: "SVD of the cross-covariance failed".into(),
        });
    };
    let v = v_t.transpose();
    let d = (v * u.transpose()).determinant().signum();
    let dm = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, d));
    let r = v * dm * u.transpose();
    let scale = if with_scale {
        let s = svd.singular_values;
        (s[0] + s[1] + d * s[2]) / var_p
    } else {
        1.0
    };
    let rot = UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(r));
    let t = qm - scale * (rot * pm);
    let pose = Isometry3::from_parts(Translation3::from(t), rot);
    let mut se = 0.0;
    for ((a, b), &wi) in p.iter().zip(q).zip(w) {
        se += wi * (scale * (rot * a.coords) + t - b.coords).norm_squared();
    }
    Ok(Alignment {
        pose,
        scale,
        rmse: (se / wsum).sqrt(),
    })
}

/// Weighted Kabsch (rigid) or Umeyama (similarity, `with_scale`) alignment of
/// corresponding rows of `src` and `dst` (`n × 3`): minimises
/// `Σ wᵢ ‖s R pᵢ + t − qᵢ‖²`. With centroids `p̄, q̄` (weighted),
/// `H = Σ wᵢ (pᵢ − p̄)(qᵢ − q̄)ᵀ = U S Vᵀ`, `D = diag(1, 1, sign det(V Uᵀ))`:
/// `R = V D Uᵀ`, `s = tr(S D)/Σ wᵢ‖pᵢ − p̄‖²`, `t = q̄ − s R p̄`
/// (Umeyama 1991). Exact for noise-free correspondences of ≥ 3
/// non-collinear points. O(n).
///
/// # Errors
/// Point validation errors; [`Error::LengthMismatch`]; weight errors;
/// [`Error::DegenerateCorrespondences`] for fewer than 3 positive weights or
/// collinear source points.
pub fn kabsch_umeyama(
    src: ArrayView2<'_, f64>,
    dst: ArrayView2<'_, f64>,
    weights: Option<ArrayView1<'_, f64>>,
    with_scale: bool,
) -> Result<Alignment> {
    let p = to_points(src, "src")?;
    let q = to_points(dst, "dst")?;
    if p.len() != q.len() {
        return Err(Error::LengthMismatch {
            what: "dst",
            got: q.len(),
            expected: p.len(),
        });
    }
    let w = match weights {
        Some(w) => check_weights(w, p.len(), "weights")?,
        None => vec![1.0; p.len()],
    };
    kabsch_points(&p, &q, &w, with_scale)
}

/// ICP hyper-parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IcpParams {
    /// Most iterations (default 50).
    pub max_iterations: usize,
    /// Pairs farther apart than this are dropped (metres; `+∞` keeps all;
    /// default 0.05).
    pub max_correspondence_distance: f64,
    /// Fraction of the remaining pairs kept, the closest ones (trimmed ICP,
    /// Chetverikov et al. 2002); in `(0, 1]`, default 1.
    pub trim: f64,
    /// Minimise point-to-plane distances `((T p − q)·n_q)²` (Chen & Medioni
    /// 1992, linearised as in open3d) instead of point-to-point `‖T p − q‖²`.
    pub point_to_plane: bool,
    /// Stop when the increment's rotation angle (rad) plus translation norm
    /// is below this (default 1e-10).
    pub tolerance: f64,
}

impl Default for IcpParams {
    fn default() -> Self {
        IcpParams {
            max_iterations: 50,
            max_correspondence_distance: 0.05,
            trim: 1.0,
            point_to_plane: false,
            tolerance: 1e-10,
        }
    }
}

impl IcpParams {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::BadParameter`] for `max_iterations = 0`, a non-positive or
    /// NaN correspondence distance, `trim ∉ (0, 1]`, a negative or NaN tolerance.
    pub fn check(&self) -> Result<()> {
        if self.max_iterations == 0 {
            return Err(Error::BadParameter {
                name: "max_iterations",
                value: 0.0,
                reason: "must be ≥ 1",
            });
        }
        let d = self.max_correspondence_distance;
        if d.is_nan() || d <= 0.0 {
            return Err(Error::BadParameter {
                name: "max_correspondence_distance",
                value: d,
                reason: "must be > 0 (+inf allowed)",
            });
        }
        if !(self.trim > 0.0 && self.trim <= 1.0) {
            return Err(Error::BadParameter {
                name: "trim",
                value: self.trim,
                reason: "must be in (0, 1]",
            });
        }
        if !(self.tolerance >= 0.0 && self.tolerance.is_finite()) {
            return Err(Error::BadParameter {
                name: "tolerance",
                value: self.tolerance,
                reason: "must be finite and ≥ 0",
            });
        }
        Ok(())
    }
}

/// The target of ICP: its points, a k-d tree over them (built once), and
/// normals for point-to-plane.
#[derive(Debug, Clone)]
pub struct IcpTarget {
    tree: KdTree,
    normals: Vec<Vector3<f64>>,
}

impl IcpTarget {
    /// A target with normals estimated by PCA of `k_normals` neighbours
    /// ([`crate::cloud::estimate_normals`], oriented away from the centroid).
    /// O(n k log n).
    ///
    /// # Errors
    /// Point validation errors; [`Error::BadParameter`] unless `3 ≤ k_normals ≤ n`.
    pub fn new(dst: ArrayView2<'_, f64>, k_normals: usize) -> Result<Self> {
        let p = to_points(dst, "target points")?;
        if k_normals < 3 || k_normals > p.len() {
            return Err(Error::BadParameter {
                name: "k_normals",
                value: k_normals as f64,
                reason: "need 3 ≤ k ≤ number of points",
            });
        }
        let tree = KdTree::new(&p)?;
        let normals = normals_with_tree(&p, &tree, k_normals, None)?;
        Ok(IcpTarget { tree, normals })
    }

    /// A target with given normals (`n × 3`, normalised here).
    ///
    /// # Errors
    /// Point validation errors; [`Error::LengthMismatch`]; [`Error::BadParameter`] for a zero normal.
    pub fn with_normals(dst: ArrayView2<'_, f64>, normals: ArrayView2<'_, f64>) -> Result<Self> {
        let p = to_points(dst, "target points")?;
        let n = to_vectors(normals, "target normals")?;
        if n.len() != p.len() {
            return Err(Error::LengthMismatch {
                what: "target normals",
                got: n.len(),
                expected: p.len(),
            });
        }
        let mut normals = Vec::with_capacity(n.len());
        for v in n {
            let len = v.norm();
            if !(len > 0.0 && len.is_finite()) {
                return Err(Error::BadParameter {
                    name: "target normals",
                    value: len,
                    reason: "normals must be non-zero",
                });
            }
            normals.push(v / len);
        }
        Ok(IcpTarget {
            tree: KdTree::new(&p)?,
            normals,
        })
    }

    /// Number of target points.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Always `false`.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }
}

/// The result of [`icp`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IcpResult {
    /// The estimated `T` with `T·src ≈ dst`.
    pub pose: Pose,
    /// Weighted RMS point-to-point distance of the kept pairs at `pose`.
    pub rmse: f64,
    /// Fraction of source points kept as pairs at `pose` (open3d's fitness).
    pub fitness: f64,
    /// Updates performed.
    pub iterations: usize,
    /// Whether the increment fell below the tolerance before `max_iterations`.
    pub converged: bool,
}

struct Pairs {
    src: Vec<Point3<f64>>,
    dst: Vec<Point3<f64>>,
    normal: Vec<Vector3<f64>>,
    w: Vec<f64>,
    se: f64,
    wsum: f64,
}

fn pairs(
    src: &[Point3<f64>],
    w: &[f64],
    t: &Pose,
    target: &IcpTarget,
    params: &IcpParams,
) -> Pairs {
    let mut cand: Vec<(f64, usize, usize, Point3<f64>)> = Vec::with_capacity(src.len());
    for (i, p) in src.iter().enumerate() {
        if w[i] <= 0.0 {
            continue;
        }
        let tp = t * p;
        let (j, d) = target.tree.nearest(&tp);
        if d.is_finite() && d <= params.max_correspondence_distance {
            cand.push((d, i, j, tp));
        }
    }
    if params.trim < 1.0 {
        cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let keep = ((params.trim * cand.len() as f64).ceil() as usize).min(cand.len());
        cand.truncate(keep);
    }
    let pts = target.tree.points();
    let mut out = Pairs {
        src: Vec::with_capacity(cand.len()),
        dst: Vec::with_capacity(cand.len()),
        normal: Vec::with_capacity(cand.len()),
        w: Vec::with_capacity(cand.len()),
        se: 0.0,
        wsum: 0.0,
    };
    for (d, i, j, tp) in cand {
        out.src.push(tp);
        out.dst.push(pts[j]);
        out.normal.push(target.normals[j]);
        out.w.push(w[i]);
        out.se += w[i] * d * d;
        out.wsum += w[i];
    }
    out
}

fn point_to_plane_step(pr: &Pairs) -> Result<Pose> {
    let mut a = Matrix6::zeros();
    let mut b = Vector6::zeros();
    for (((p, q), n), &wi) in pr.src.iter().zip(&pr.dst).zip(&pr.normal).zip(&pr.w) {
        let c = p.coords.cross(n);
        let j = Vector6::new(c.x, c.y, c.z, n.x, n.y, n.z);
        let r = (p - q).dot(n);
        a += wi * j * j.transpose();
        b -= wi * r * j;
    }
    let Some(x) = a.cholesky().map(|c| c.solve(&b)) else {
        return Err(Error::DegenerateCorrespondences {
            reason: "point-to-plane normal equations are singular (planar or too few pairs)".into(),
        });
    };
    let rot = UnitQuaternion::from_scaled_axis(Vector3::new(x[0], x[1], x[2]));
    Ok(Isometry3::from_parts(
        Translation3::new(x[3], x[4], x[5]),
        rot,
    ))
}

pub(crate) fn icp_points(
    src: &[Point3<f64>],
    w: &[f64],
    target: &IcpTarget,
    init: &Pose,
    params: &IcpParams,
) -> Result<IcpResult> {
    params.check()?;
    if init.to_homogeneous().iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "initial pose",
            index: 0,
        });
    }
    let mut t = *init;
    let mut iterations = 0;
    let mut converged = false;
    while iterations < params.max_iterations {
        let pr = pairs(src, w, &t, target, params);
        let step = if params.point_to_plane {
            if pr.src.len() < 6 {
                return Err(Error::DegenerateCorrespondences {
                    reason: format!(
                        "{} pairs within the correspondence distance, point-to-plane needs ≥ 6",
                        pr.src.len()
                    ),
                });
            }
            point_to_plane_step(&pr)?
        } else {
            kabsch_points(&pr.src, &pr.dst, &pr.w, false)?.pose
        };
        if step.to_homogeneous().iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "ICP increment (overflow)",
                index: 0,
            });
        }
        t = step * t;
        iterations += 1;
        if step.rotation.angle() + step.translation.vector.norm() < params.tolerance {
            converged = true;
            break;
        }
    }
    let pr = pairs(src, w, &t, target, params);
    let rmse = if pr.wsum > 0.0 {
        (pr.se / pr.wsum).sqrt()
    } else {
        f64::INFINITY
    };
    Ok(IcpResult {
        pose: t,
        rmse,
        fitness: pr.src.len() as f64 / src.len() as f64,
        iterations,
        converged,
    })
}

/// Iterative closest point from `init`: repeat — pair each (transformed)
/// source point with its nearest target point, drop pairs beyond
/// `max_correspondence_distance`, keep the `trim` fraction closest, and
/// update `T ← ΔT·T` with ΔT from weighted Kabsch (point-to-point) or the
/// linearised point-to-plane normal equations — until the increment is below
/// `tolerance` or `max_iterations` updates. Per iteration O(n log m).
///
/// # Errors
/// Point validation and weight errors; parameter errors
/// ([`IcpParams::check`]); [`Error::NonFinite`] in `init`;
/// [`Error::DegenerateCorrespondences`] when too few pairs remain.
pub fn icp(
    src: ArrayView2<'_, f64>,
    target: &IcpTarget,
    init: &Pose,
    params: &IcpParams,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<IcpResult> {
    let p = to_points(src, "source points")?;
    let w = match weights {
        Some(w) => check_weights(w, p.len(), "weights")?,
        None => vec![1.0; p.len()],
    };
    icp_points(&p, &w, target, init, params)
}

/// Visuo-tactile ICP: the visual points (`n_v × 3`) and the tactile contact
/// points (`n_t × 3`, may be `0 × 3`) are registered together onto the
/// target, each visual point with weight 1 and each tactile point with
/// weight `w_tactile · n_v / n_t`, so that the tactile points together weigh
/// `w_tactile` times the visual ones (`w_tactile = 0`: vision only; `1`:
/// equal say). Otherwise as [`icp`].
///
/// # Errors
/// As [`icp`]; [`Error::BadParameter`] for a negative or non-finite `w_tactile`.
pub fn fuse_icp(
    visual: ArrayView2<'_, f64>,
    tactile: ArrayView2<'_, f64>,
    w_tactile: f64,
    target: &IcpTarget,
    init: &Pose,
    params: &IcpParams,
) -> Result<IcpResult> {
    if !(w_tactile.is_finite() && w_tactile >= 0.0) {
        return Err(Error::BadParameter {
            name: "w_tactile",
            value: w_tactile,
            reason: "must be finite and ≥ 0",
        });
    }
    let mut p = to_points(visual, "visual points")?;
    let nv = p.len();
    let t = if tactile.nrows() == 0 && tactile.ncols() == 3 {
        Vec::new()
    } else {
        to_points(tactile, "tactile points")?
    };
    let nt = t.len();
    let mut w = vec![1.0; nv];
    if nt > 0 {
        let wt = w_tactile * nv as f64 / nt as f64;
        p.extend(t);
        w.extend(std::iter::repeat_n(wt, nt));
    }
    icp_points(&p, &w, target, init, params)
}
