//! Point clouds from sensors: depth back-projection, voxel downsampling,
//! normals, and tactile contact points through the hand's link poses.

use crate::error::{self, Error, Result};
use crate::kdtree::KdTree;
use crate::points::{from_points, from_vectors, to_points};
use crate::se3::Pose;
use nalgebra::{Matrix3, Point3, SymmetricEigen, Vector3};
use ndarray::{Array2, ArrayView1, ArrayView2};
use std::collections::BTreeMap;

/// Pinhole intrinsics: pixel `(u, v)` (column, row) at depth `z` is the
/// camera-frame point `((u − c_x) z / f_x, (v − c_y) z / f_y, z)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intrinsics {
    /// Focal length along x, pixels.
    pub fx: f64,
    /// Focal length along y, pixels.
    pub fy: f64,
    /// Principal point x, pixels.
    pub cx: f64,
    /// Principal point y, pixels.
    pub cy: f64,
    /// Image width, pixels.
    pub width: usize,
    /// Image height, pixels.
    pub height: usize,
}

impl Intrinsics {
    /// Validates: `f_x, f_y` finite and `> 0`, `c_x, c_y` finite, a non-empty image.
    ///
    /// # Errors
    /// [`Error::BadIntrinsics`] naming the problem.
    pub fn check(&self) -> Result<()> {
        let bad = |reason: String| Err(Error::BadIntrinsics { reason });
        if !(self.fx.is_finite() && self.fx > 0.0 && self.fy.is_finite() && self.fy > 0.0) {
            return bad(format!(
                "focal lengths fx = {}, fy = {} must be finite and > 0",
                self.fx, self.fy
            ));
        }
        if !(self.cx.is_finite() && self.cy.is_finite()) {
            return bad(format!(
                "principal point ({}, {}) must be finite",
                self.cx, self.cy
            ));
        }
        if self.width == 0 || self.height == 0 {
            return bad(format!(
                "image size {} × {} is empty",
                self.width, self.height
            ));
        }
        error::alloc(self.width.saturating_mul(self.height), 8, "image").map_err(|_| {
            Error::BadIntrinsics {
                reason: format!("image size {} × {} too large", self.width, self.height),
            }
        })
    }

    /// Projects a camera-frame point with `z > 0` to `(u, v)` pixel coordinates.
    pub fn project(&self, p: &Point3<f64>) -> Option<(f64, f64)> {
        (p.z > 0.0).then(|| (self.fx * p.x / p.z + self.cx, self.fy * p.y / p.z + self.cy))
    }

    /// The unit-depth ray direction `((u − c_x)/f_x, (v − c_y)/f_y, 1)` of pixel `(u, v)`.
    pub fn ray(&self, u: f64, v: f64) -> Vector3<f64> {
        Vector3::new((u - self.cx) / self.fx, (v - self.cy) / self.fy, 1.0)
    }
}

/// Back-projects a depth image (metres, `height × width`, row `v`, column
/// `u`) to camera-frame points `z·((u − c_x)/f_x, (v − c_y)/f_y, 1)`, in
/// row-major pixel order. Pixels with depth 0 (no measurement) or outside
/// the `mask` (when given) are skipped. O(h·w).
///
/// # Errors
/// [`Error::BadIntrinsics`]; [`Error::BadShape`] when the depth or mask
/// shape is not `height × width`; [`Error::NonFinite`] / [`Error::BadParameter`]
/// for a NaN, infinite or negative depth; [`Error::EmptyCloud`] when no pixel remains.
pub fn back_project(
    depth: ArrayView2<'_, f64>,
    intrinsics: &Intrinsics,
    mask: Option<ArrayView2<'_, bool>>,
) -> Result<Array2<f64>> {
    intrinsics.check()?;
    let shape = (intrinsics.height, intrinsics.width);
    if depth.dim() != shape {
        return Err(Error::BadShape {
            what: "depth",
            got: depth.shape().to_vec(),
            expected: "height × width of the intrinsics",
        });
    }
    if let Some(m) = &mask
        && m.dim() != shape
    {
        return Err(Error::BadShape {
            what: "mask",
            got: m.shape().to_vec(),
            expected: "height × width of the intrinsics",
        });
    }
    let mut pts = Vec::new();
    for ((v, u), &z) in depth.indexed_iter() {
        if !z.is_finite() {
            return Err(Error::NonFinite {
                what: "depth",
                index: v * shape.1 + u,
            });
        }
        if z < 0.0 {
            return Err(Error::BadParameter {
                name: "depth",
                value: z,
                reason: "depths must be ≥ 0 (0 = no measurement)",
            });
        }
        if z == 0.0 || mask.as_ref().is_some_and(|m| !m[[v, u]]) {
            continue;
        }
        let r = intrinsics.ray(u as f64, v as f64);
        pts.push(Point3::from(r * z));
    }
    if pts.is_empty() {
        return Err(Error::EmptyCloud {
            what: "back-projected depth",
        });
    }
    Ok(from_points(&pts))
}

/// Voxel-grid downsampling: points are binned into cubes of side `voxel`
/// (`key = ⌊p / voxel⌋`) and each non-empty cube is replaced by the centroid
/// of its points; output sorted by voxel key (deterministic). O(n log n).
///
/// # Errors
/// Point validation errors; [`Error::BadParameter`] for a non-positive
/// voxel or one so small that a key overflows (`|p|/voxel > 2⁵²`).
pub fn voxel_downsample(points: ArrayView2<'_, f64>, voxel: f64) -> Result<Array2<f64>> {
    let p = to_points(points, "points")?;
    error::positive(voxel, "voxel")?;
    let mut bins: BTreeMap<[i64; 3], (Vector3<f64>, usize)> = BTreeMap::new();
    for q in &p {
        let mut key = [0i64; 3];
        for a in 0..3 {
            let k = (q[a] / voxel).floor();
            if k.is_nan() || k.abs() > 4_503_599_627_370_496.0 {
                return Err(Error::BadParameter {
                    name: "voxel",
                    value: voxel,
                    reason: "too small for the cloud's extent (voxel index overflows)",
                });
            }
            key[a] = k as i64;
        }
        let e = bins.entry(key).or_insert((Vector3::zeros(), 0));
        e.0 += q.coords;
        e.1 += 1;
    }
    let out: Vec<Point3<f64>> = bins
        .values()
        .map(|(s, n)| Point3::from(s / *n as f64))
        .collect();
    Ok(from_points(&out))
}

/// Unit normals by PCA of each point's `k` nearest neighbours (itself
/// included): the eigenvector of the smallest eigenvalue of the
/// neighbourhood's covariance `Σ (p − p̄)(p − p̄)ᵀ`. Oriented towards
/// `viewpoint` when given (`n·(viewpoint − p) ≥ 0`), else away from the
/// cloud's centroid (`n·(p − c) ≥ 0`, outward for star-shaped objects).
/// O(n k log n).
///
/// # Errors
/// Point validation errors; [`Error::BadParameter`] unless `3 ≤ k ≤ n`;
/// [`Error::NonFinite`] in the viewpoint.
pub fn estimate_normals(
    points: ArrayView2<'_, f64>,
    k: usize,
    viewpoint: Option<[f64; 3]>,
) -> Result<Array2<f64>> {
    let p = to_points(points, "points")?;
    if k < 3 || k > p.len() {
        return Err(Error::BadParameter {
            name: "k",
            value: k as f64,
            reason: "need 3 ≤ k ≤ number of points",
        });
    }
    if let Some(v) = viewpoint {
        for (index, x) in v.iter().enumerate() {
            if !x.is_finite() {
                return Err(Error::NonFinite {
                    what: "viewpoint",
                    index,
                });
            }
        }
    }
    let tree = KdTree::new(&p)?;
    Ok(from_vectors(&normals_with_tree(
        &p,
        &tree,
        k,
        viewpoint.map(Point3::from),
    )?))
}

pub(crate) fn normals_with_tree(
    p: &[Point3<f64>],
    tree: &KdTree,
    k: usize,
    viewpoint: Option<Point3<f64>>,
) -> Result<Vec<Vector3<f64>>> {
    let centroid =
        Point3::from(p.iter().fold(Vector3::zeros(), |s, q| s + q.coords) / p.len() as f64);
    p.iter()
        .map(|q| {
            let nb = tree.k_nearest(q, k);
            let mean = nb
                .iter()
                .fold(Vector3::zeros(), |s, &(i, _)| s + p[i].coords)
                / nb.len() as f64;
            let mut c = Matrix3::zeros();
            for &(i, _) in &nb {
                let d = p[i].coords - mean;
                c += d * d.transpose();
            }
            if !c.iter().all(|v| v.is_finite()) {
                return Err(Error::NonFinite {
                    what: "neighbourhood covariance (overflow)",
                    index: 0,
                });
            }
            let eig = SymmetricEigen::try_new(c, f64::EPSILON, 10_000).ok_or(Error::NonFinite {
                what: "neighbourhood covariance (no convergence)",
                index: 0,
            })?;
            let j = eig.eigenvalues.imin();
            let mut n: Vector3<f64> = eig.eigenvectors.column(j).into_owned();
            let norm = n.norm();
            n = if norm > 0.0 { n / norm } else { Vector3::z() };
            let toward = match viewpoint {
                Some(v) => v - q,
                None => q - centroid,
            };
            if n.dot(&toward) < 0.0 {
                n = -n;
            }
            Ok(n)
        })
        .collect()
}

/// One taxel (touch sensor) of a hand: the link it is mounted on and its
/// position in that link's frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Taxel {
    /// Index of the link (into the link-pose list).
    pub link: usize,
    /// Position in the link frame.
    pub position: [f64; 3],
}

/// Contact points from touch readings: for each taxel whose reading exceeds
/// `threshold`, `p = T_base←link(q) · p_taxel` with the link poses from the
/// hand's forward kinematics. Returns an `m × 3` array (possibly `0 × 3`
/// when nothing touches) and the indices of the taxels in contact. O(#taxels).
///
/// # Errors
/// [`Error::LengthMismatch`] when readings and taxels differ in length;
/// [`Error::IndexOutOfRange`] for a taxel's link; [`Error::NonFinite`] in a
/// reading, position or link pose; [`Error::BadThreshold`] for a NaN threshold.
pub fn taxel_contacts(
    link_poses: &[Pose],
    taxels: &[Taxel],
    readings: ArrayView1<'_, f64>,
    threshold: f64,
) -> Result<(Array2<f64>, Vec<usize>)> {
    if readings.len() != taxels.len() {
        return Err(Error::LengthMismatch {
            what: "readings",
            got: readings.len(),
            expected: taxels.len(),
        });
    }
    if !threshold.is_finite() {
        return Err(Error::BadThreshold {
            name: "threshold",
            value: threshold,
            reason: "must be finite",
        });
    }
    for (index, l) in link_poses.iter().enumerate() {
        if l.to_homogeneous().iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "link poses",
                index,
            });
        }
    }
    let mut pts = Vec::new();
    let mut idx = Vec::new();
    for (i, (t, &r)) in taxels.iter().zip(readings.iter()).enumerate() {
        if !r.is_finite() {
            return Err(Error::NonFinite {
                what: "readings",
                index: i,
            });
        }
        if t.position.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "taxel positions",
                index: i,
            });
        }
        let Some(pose) = link_poses.get(t.link) else {
            return Err(Error::IndexOutOfRange {
                what: "taxel link",
                index: t.link,
                len: link_poses.len(),
            });
        };
        if r > threshold {
            pts.push(pose * Point3::from(t.position));
            idx.push(i);
        }
    }
    Ok((from_points(&pts), idx))
}
