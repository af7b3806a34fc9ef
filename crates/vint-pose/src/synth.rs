//! Deterministic synthetic in-hand scenes: an object mesh seen by a depth
//! camera, occluded by a hand made of primitives (capsules, spheres, boxes),
//! with noisy partial depth and touch readings at the hand's sensor sites.
//!
//! Rendering is exact geometry, not a learned or approximate model: the mesh
//! is rasterised with a z-buffer (perspective-correct depth at pixel
//! centres) and each occluder is ray-cast analytically; the observed depth is
//! the nearer of the two, with Gaussian noise and random drop-outs. A touch
//! site reads 1 when the object's surface passes through its volume (a box
//! or sphere, as MuJoCo's touch sensor zones), else 0.

use crate::cloud::Intrinsics;
use crate::error::{self, Error, Result};
use crate::kdtree::KdTree;
use crate::mesh::Mesh;
use crate::points::from_points;
use crate::se3::Pose;
use nalgebra::{Point3, UnitQuaternion, Vector3};
use ndarray::{Array1, Array2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// A solid primitive of the hand, in the camera frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Primitive {
    /// All points within `radius` of the segment `a–b`.
    Capsule {
        /// One end of the axis.
        a: Point3<f64>,
        /// The other end.
        b: Point3<f64>,
        /// Radius.
        radius: f64,
    },
    /// A ball.
    Sphere {
        /// Centre.
        center: Point3<f64>,
        /// Radius.
        radius: f64,
    },
    /// An oriented box: `pose` maps box coordinates (`|x_i| ≤ half[i]`) to the camera.
    Cuboid {
        /// Box frame → camera.
        pose: Pose,
        /// Half-extents.
        half: [f64; 3],
    },
}

fn sphere_hit(o: &Vector3<f64>, d: &Vector3<f64>, r: f64) -> Option<f64> {
    // |o + s d|² = r², o relative to the centre (ray origin minus centre).
    let a = d.norm_squared();
    let b = o.dot(d);
    let c = o.norm_squared() - r * r;
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    let s = (-b - disc.sqrt()) / a;
    (s > 0.0).then_some(s)
}

impl Primitive {
    /// The smallest `s > 0` with `s·d` on the primitive's surface, for a ray
    /// from the camera centre with direction `d`; `None` when it misses.
    pub fn ray_hit(&self, d: &Vector3<f64>) -> Option<f64> {
        match *self {
            Primitive::Sphere { center, radius } => sphere_hit(&(-center.coords), d, radius),
            Primitive::Capsule { a, b, radius } => {
                // Cylinder body (Inigo Quilez's ray–capsule), then the two caps.
                let ba = b - a;
                let oa = -a.coords;
                let baba = ba.norm_squared();
                let bard = ba.dot(d);
                let baoa = ba.dot(&oa);
                let rdoa = d.dot(&oa);
                let oaoa = oa.norm_squared();
                let dd = d.norm_squared();
                let mut best: Option<f64> = None;
                if baba > 0.0 {
                    let qa = baba * dd - bard * bard;
                    let qb = baba * rdoa - baoa * bard;
                    let qc = baba * oaoa - baoa * baoa - radius * radius * baba;
                    let h = qb * qb - qa * qc;
                    if qa > 0.0 && h >= 0.0 {
                        let s = (-qb - h.sqrt()) / qa;
                        let y = baoa + s * bard;
                        if s > 0.0 && y > 0.0 && y < baba {
                            best = Some(s);
                        }
                    }
                }
                for c in [a, b] {
                    if let Some(s) = sphere_hit(&(-c.coords), d, radius) {
                        best = Some(best.map_or(s, |x: f64| x.min(s)));
                    }
                }
                best
            }
            Primitive::Cuboid { pose, half } => {
                let inv = pose.inverse();
                let o = inv.translation.vector;
                let dl = inv.rotation * d;
                let (mut t0, mut t1) = (f64::NEG_INFINITY, f64::INFINITY);
                for k in 0..3 {
                    if dl[k].abs() < 1e-300 {
                        if o[k].abs() > half[k] {
                            return None;
                        }
                        continue;
                    }
                    let (mut a, mut b) = ((-half[k] - o[k]) / dl[k], (half[k] - o[k]) / dl[k]);
                    if a > b {
                        std::mem::swap(&mut a, &mut b);
                    }
                    t0 = t0.max(a);
                    t1 = t1.min(b);
                }
                (t0 <= t1 && t0 > 0.0).then_some(t0)
            }
        }
    }

    fn check(&self) -> Result<()> {
        let bad = |name| {
            Err(Error::BadParameter {
                name,
                value: f64::NAN,
                reason: "primitive has a non-finite or non-positive size",
            })
        };
        let ok = |v: f64| v.is_finite() && v > 0.0;
        match self {
            Primitive::Capsule { a, b, radius } => {
                if !(ok(*radius)
                    && a.coords
                        .iter()
                        .chain(b.coords.iter())
                        .all(|v| v.is_finite()))
                {
                    return bad("capsule");
                }
            }
            Primitive::Sphere { center, radius } => {
                if !(ok(*radius) && center.coords.iter().all(|v| v.is_finite())) {
                    return bad("sphere");
                }
            }
            Primitive::Cuboid { pose, half } => {
                if !(half.iter().all(|&h| ok(h))
                    && pose.to_homogeneous().iter().all(|v| v.is_finite()))
                {
                    return bad("cuboid");
                }
            }
        }
        Ok(())
    }
}

/// A touch-sensor zone in the camera frame: a box (`half`) or a ball
/// (`radius` = `half[0]`, `sphere = true`) at `pose`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TouchZone {
    /// Zone frame → camera.
    pub pose: Pose,
    /// Half-extents (a ball uses `half[0]` as its radius).
    pub half: [f64; 3],
    /// Ball instead of box.
    pub sphere: bool,
}

impl TouchZone {
    fn contains(&self, p: &Point3<f64>) -> bool {
        let l = self.pose.inverse_transform_point(p);
        if self.sphere {
            l.coords.norm() <= self.half[0]
        } else {
            (0..3).all(|k| l[k].abs() <= self.half[k])
        }
    }

    fn bounding_radius(&self) -> f64 {
        if self.sphere {
            self.half[0]
        } else {
            Vector3::from(self.half).norm()
        }
    }
}

/// Where a touch zone in contact reports its contact point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactModel {
    /// The centre of pressure: the centroid of the object's surface samples
    /// inside the zone (what a taxel array finer than the zone reports).
    CentreOfPressure,
    /// The zone's centre (a single taxel per zone, `p = T·p_taxel`); biased
    /// by up to the zone's half-size, mostly into the hand.
    ZoneCentre,
}

/// Sensor-model parameters of a synthetic frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SensorParams {
    /// The depth camera.
    pub intrinsics: Intrinsics,
    /// Standard deviation of additive Gaussian depth noise (metres; default 0.002).
    pub depth_noise: f64,
    /// Probability that a pixel returns no depth (default 0.05).
    pub dropout: f64,
    /// Standard deviation of Gaussian noise on each reported contact point
    /// (metres, isotropic; default 0.002).
    pub contact_noise: f64,
    /// Where a contact is reported (default [`ContactModel::CentreOfPressure`]).
    pub contact_model: ContactModel,
}

impl Default for SensorParams {
    fn default() -> Self {
        SensorParams {
            intrinsics: Intrinsics {
                fx: 160.0,
                fy: 160.0,
                cx: 63.5,
                cy: 63.5,
                width: 128,
                height: 128,
            },
            depth_noise: 0.002,
            dropout: 0.05,
            contact_noise: 0.002,
            contact_model: ContactModel::CentreOfPressure,
        }
    }
}

impl SensorParams {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::BadIntrinsics`]; [`Error::BadParameter`] for negative/NaN noise
    /// or a dropout outside `[0, 1)`.
    pub fn check(&self) -> Result<()> {
        self.intrinsics.check()?;
        for (name, v) in [
            ("depth_noise", self.depth_noise),
            ("contact_noise", self.contact_noise),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::BadParameter {
                    name,
                    value: v,
                    reason: "must be finite and ≥ 0",
                });
            }
        }
        if !(self.dropout >= 0.0 && self.dropout < 1.0) {
            return Err(Error::BadParameter {
                name: "dropout",
                value: self.dropout,
                reason: "must be in [0, 1)",
            });
        }
        Ok(())
    }
}

/// One synthetic frame.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthFrame {
    /// Observed depth (metres, 0 = no return), `height × width`: the nearer of
    /// object and hand, noisy, with drop-outs.
    pub depth: Array2<f64>,
    /// The object's visible pixels (perfect segmentation).
    pub mask: Array2<bool>,
    /// Touch readings, one per zone (1 = contact).
    pub readings: Array1<f64>,
    /// Contact points in the camera frame (zone centres plus noise), `m × 3`.
    pub contacts: Array2<f64>,
    /// Fraction of the object's pixels hidden by the hand, `1 − visible/unoccluded` (1 if the object is out of view).
    pub occlusion: f64,
    /// Pixels of the object without the hand.
    pub object_pixels: usize,
}

/// Z-buffer of the mesh at `camera ← object`: depth at pixel centres, +∞ where empty. O(F + covered pixels).
pub(crate) fn rasterize(mesh: &Mesh, cam_from_obj: &Pose, k: &Intrinsics) -> Array2<f64> {
    let mut z = Array2::from_elem((k.height, k.width), f64::INFINITY);
    let v: Vec<Point3<f64>> = mesh.points().iter().map(|p| cam_from_obj * p).collect();
    for f in mesh.faces() {
        let [a, b, c] = f.map(|i| v[i]);
        if a.z <= 1e-6 || b.z <= 1e-6 || c.z <= 1e-6 {
            continue;
        }
        let pa = k.project(&a).unwrap_or_default();
        let pb = k.project(&b).unwrap_or_default();
        let pc = k.project(&c).unwrap_or_default();
        let area = (pb.0 - pa.0) * (pc.1 - pa.1) - (pb.1 - pa.1) * (pc.0 - pa.0);
        if area.abs() < 1e-18 {
            continue;
        }
        let umin = pa.0.min(pb.0).min(pc.0).ceil().max(0.0);
        let umax = pa.0.max(pb.0).max(pc.0).floor().min(k.width as f64 - 1.0);
        let vmin = pa.1.min(pb.1).min(pc.1).ceil().max(0.0);
        let vmax = pa.1.max(pb.1).max(pc.1).floor().min(k.height as f64 - 1.0);
        if umin > umax || vmin > vmax {
            continue;
        }
        for vv in vmin as usize..=vmax as usize {
            for uu in umin as usize..=umax as usize {
                let (x, y) = (uu as f64, vv as f64);
                let w0 = ((pb.0 - x) * (pc.1 - y) - (pb.1 - y) * (pc.0 - x)) / area;
                let w1 = ((pc.0 - x) * (pa.1 - y) - (pc.1 - y) * (pa.0 - x)) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let depth = 1.0 / (w0 / a.z + w1 / b.z + w2 / c.z);
                let cell = &mut z[[vv, uu]];
                if depth < *cell {
                    *cell = depth;
                }
            }
        }
    }
    z
}

/// Depth of the nearest occluder at each pixel centre (+∞ where none). O(h·w·#primitives).
pub(crate) fn raycast(occluders: &[Primitive], k: &Intrinsics) -> Array2<f64> {
    Array2::from_shape_fn((k.height, k.width), |(v, u)| {
        let d = k.ray(u as f64, v as f64);
        occluders
            .iter()
            .filter_map(|p| p.ray_hit(&d))
            .fold(f64::INFINITY, f64::min)
    })
}

/// Dense surface samples of a mesh in its own frame, with a k-d tree, for
/// contact detection.
#[derive(Debug, Clone)]
pub struct SurfaceIndex {
    tree: KdTree,
}

impl SurfaceIndex {
    /// Samples `n` surface points (area-weighted) and indexes them.
    ///
    /// # Errors
    /// As [`Mesh::sample_surface`].
    pub fn new(mesh: &Mesh, n: usize, rng: &mut impl Rng) -> Result<Self> {
        let (p, _) = mesh.sample_points(n, rng)?;
        Ok(SurfaceIndex {
            tree: KdTree::new(&p)?,
        })
    }
}

/// Renders one synthetic in-hand frame: the object `mesh` at `cam_from_obj`,
/// the hand's `occluders` and touch `zones` (camera frame). A zone reads 1
/// when some sample of `surface` (the object's surface, object frame) lies
/// inside it; its contact point ([`ContactModel`]) is the centre of pressure
/// of the surface inside the zone or the zone's centre, plus isotropic
/// Gaussian noise (`contact_noise`). O(F + h·w·P).
///
/// # Errors
/// [`SensorParams::check`] errors; [`Error::BadParameter`] for a malformed
/// primitive or zone; [`Error::NonFinite`] in the pose.
pub fn render_frame(
    mesh: &Mesh,
    surface: &SurfaceIndex,
    cam_from_obj: &Pose,
    occluders: &[Primitive],
    zones: &[TouchZone],
    params: &SensorParams,
    rng: &mut impl Rng,
) -> Result<SynthFrame> {
    params.check()?;
    if cam_from_obj.to_homogeneous().iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "camera ← object pose",
            index: 0,
        });
    }
    for p in occluders {
        p.check()?;
    }
    for z in zones {
        if !(z.half.iter().all(|h| h.is_finite() && *h > 0.0)
            && z.pose.to_homogeneous().iter().all(|v| v.is_finite()))
        {
            return Err(Error::BadParameter {
                name: "touch zone",
                value: f64::NAN,
                reason: "non-finite pose or non-positive size",
            });
        }
    }
    let k = &params.intrinsics;
    let obj = rasterize(mesh, cam_from_obj, k);
    let occ = raycast(occluders, k);
    let mut depth = Array2::zeros((k.height, k.width));
    let mut mask = Array2::from_elem((k.height, k.width), false);
    let (mut object_pixels, mut visible) = (0usize, 0usize);
    for ((idx, &zo), &zh) in obj.indexed_iter().zip(occ.iter()) {
        if zo.is_finite() {
            object_pixels += 1;
        }
        let z = zo.min(zh);
        if !z.is_finite() {
            continue;
        }
        let object_seen = zo < zh;
        if object_seen {
            visible += 1;
        }
        if rng.random::<f64>() < params.dropout {
            continue;
        }
        let noisy = z + params.depth_noise * rng.sample::<f64, _>(StandardNormal);
        if noisy > 0.0 {
            depth[idx] = noisy;
            mask[idx] = object_seen;
        }
    }
    let occlusion = if object_pixels == 0 {
        1.0
    } else {
        1.0 - visible as f64 / object_pixels as f64
    };
    let obj_from_cam = cam_from_obj.inverse();
    let mut readings = Array1::zeros(zones.len());
    let mut contacts = Vec::new();
    for (i, z) in zones.iter().enumerate() {
        let c_obj = obj_from_cam * Point3::from(z.pose.translation.vector);
        let near = surface.tree.within(&c_obj, z.bounding_radius());
        let inside: Vec<Point3<f64>> = near
            .iter()
            .map(|&j| cam_from_obj * surface.tree.points()[j])
            .filter(|p| z.contains(p))
            .collect();
        if !inside.is_empty() {
            readings[i] = 1.0;
            let at = match params.contact_model {
                ContactModel::CentreOfPressure => {
                    inside.iter().fold(Vector3::zeros(), |s, p| s + p.coords) / inside.len() as f64
                }
                ContactModel::ZoneCentre => z.pose.translation.vector,
            };
            let noise = Vector3::from_fn(|_, _| {
                params.contact_noise * rng.sample::<f64, _>(StandardNormal)
            });
            contacts.push(Point3::from(at + noise));
        }
    }
    Ok(SynthFrame {
        depth,
        mask,
        readings,
        contacts: from_points(&contacts),
        occlusion,
        object_pixels,
    })
}

/// A camera at `eye` looking at `target` (optical frame: z forward, x right,
/// y down, with "up" the world `up` direction): returns `camera ← world`.
///
/// # Errors
/// [`Error::NonFinite`]; [`Error::BadParameter`] when `eye = target`.
pub fn look_at(eye: &Point3<f64>, target: &Point3<f64>, up: &Vector3<f64>) -> Result<Pose> {
    for (i, v) in eye
        .coords
        .iter()
        .chain(target.coords.iter())
        .chain(up.iter())
        .enumerate()
    {
        error::finite(*v, "look_at input").map_err(|_| Error::NonFinite {
            what: "look_at input",
            index: i,
        })?;
    }
    let fwd = target - eye;
    let len = fwd.norm();
    if !(len > 0.0 && len.is_finite()) {
        return Err(Error::BadParameter {
            name: "eye",
            value: len,
            reason: "eye and target coincide or are too far apart",
        });
    }
    let z = fwd / len;
    let mut x = z.cross(up);
    if x.norm() < 1e-9 {
        x = z.cross(&Vector3::x());
        if x.norm() < 1e-9 {
            x = z.cross(&Vector3::y());
        }
    }
    let x = x.normalize();
    let y = z.cross(&x);
    if !(x.iter().chain(y.iter()).all(|v| v.is_finite())) {
        return Err(Error::NonFinite {
            what: "look_at frame",
            index: 0,
        });
    }
    let m = nalgebra::Matrix3::from_columns(&[x, y, z]);
    let rot = UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(m));
    let world_from_cam = Pose::from_parts(nalgebra::Translation3::from(eye.coords), rot);
    Ok(world_from_cam.inverse())
}
