//! Rigid motions: poses, conversions with validation, errors between poses,
//! uniform random rotations.
//!
//! A pose is `T = (R, t)` acting as `x ↦ R x + t` ([`Pose`], nalgebra's
//! `Isometry3<f64>`). Every conversion from user numbers validates: a matrix
//! must be a rotation (`det R = 1`, `‖RᵀR − I‖_F ≤` [`ROTATION_TOL`]), a
//! quaternion must be unit ([`UNIT_TOL`]), a 4×4 matrix homogeneous.

use crate::error::{Error, Result};
use nalgebra::{
    Isometry3, Matrix3, Quaternion, Rotation3, Translation3, Unit, UnitQuaternion, Vector3,
};
use ndarray::{Array2, ArrayView2};
use rand::{Rng, RngExt};
use std::f64::consts::PI;

/// A rigid motion `x ↦ R x + t` in SE(3).
pub type Pose = Isometry3<f64>;

/// Largest `‖RᵀR − I‖_F` and `|det R − 1|` accepted as a rotation.
pub const ROTATION_TOL: f64 = 1e-6;

/// Largest `|‖q‖ − 1|` accepted as a unit quaternion.
pub const UNIT_TOL: f64 = 1e-6;

fn check_finite(values: &[f64], what: &'static str) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// Validates a 3×3 matrix as a rotation and re-orthonormalises it.
///
/// Accepts `M` when `|det M − 1| ≤ ROTATION_TOL` and
/// `‖MᵀM − I‖_F ≤ ROTATION_TOL`; returns the nearest rotation (polar factor
/// by SVD, `U diag(1, 1, det UVᵀ) Vᵀ`), so small rounding in stored
/// matrices does not accumulate. O(1).
///
/// # Errors
/// [`Error::NonFinite`]; [`Error::NotARotation`] with `det` and `orth_err`.
pub fn rotation_from_matrix(m: &Matrix3<f64>) -> Result<Rotation3<f64>> {
    check_finite(m.as_slice(), "rotation matrix")?;
    let det = m.determinant();
    let orth_err = (m.transpose() * m - Matrix3::identity()).norm();
    if !((det - 1.0).abs() <= ROTATION_TOL && orth_err <= ROTATION_TOL) {
        return Err(Error::NotARotation { det, orth_err });
    }
    let Some(svd) = m.try_svd(true, true, f64::EPSILON, 10_000) else {
        return Err(Error::NotARotation { det, orth_err });
    };
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return Err(Error::NotARotation { det, orth_err });
    };
    let d = (u * v_t).determinant().signum();
    let r = u * Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, d)) * v_t;
    Ok(Rotation3::from_matrix_unchecked(r))
}

/// A unit quaternion from `[w, x, y, z]` (scalar first, as MuJoCo and
/// transforms3d write it), validated and renormalised.
///
/// # Errors
/// [`Error::NonFinite`]; [`Error::NotAUnitQuaternion`] when
/// `|‖q‖ − 1| > UNIT_TOL`.
pub fn quaternion_from_wxyz(q: [f64; 4]) -> Result<UnitQuaternion<f64>> {
    check_finite(&q, "quaternion")?;
    let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if (norm - 1.0).abs() > UNIT_TOL {
        return Err(Error::NotAUnitQuaternion { norm });
    }
    Ok(UnitQuaternion::from_quaternion(Quaternion::new(
        q[0], q[1], q[2], q[3],
    )))
}

/// `[w, x, y, z]` of a unit quaternion, with `w ≥ 0` (the canonical one of ±q).
pub fn quaternion_to_wxyz(q: &UnitQuaternion<f64>) -> [f64; 4] {
    let s = if q.w < 0.0 { -1.0 } else { 1.0 };
    [s * q.w, s * q.i, s * q.j, s * q.k]
}

/// The rotation `exp([ω]×)` of a rotation vector `ω = θ·axis` (axis-angle),
/// by Rodrigues' formula. `ω = 0` gives the identity.
///
/// # Errors
/// [`Error::NonFinite`].
pub fn rotation_from_axis_angle(omega: [f64; 3]) -> Result<UnitQuaternion<f64>> {
    check_finite(&omega, "rotation vector")?;
    Ok(UnitQuaternion::from_scaled_axis(Vector3::from(omega)))
}

/// The rotation vector `θ·axis` with `θ ∈ [0, π]` of a rotation (`log`).
pub fn rotation_to_axis_angle(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let v = q.scaled_axis();
    [v.x, v.y, v.z]
}

/// A pose from a rotation and a translation vector.
///
/// # Errors
/// [`Error::NonFinite`] in the translation.
pub fn pose(rotation: UnitQuaternion<f64>, translation: [f64; 3]) -> Result<Pose> {
    check_finite(&translation, "translation")?;
    Ok(Isometry3::from_parts(
        Translation3::from(Vector3::from(translation)),
        rotation,
    ))
}

/// A pose from a 4×4 homogeneous matrix or its top 3×4 block (the
/// VTDexM/VinT `6D_pose/i.npy` layouts).
///
/// # Errors
/// [`Error::BadShape`] unless 4×4 or 3×4; [`Error::NonFinite`];
/// [`Error::NotHomogeneous`] when a 4×4's last row is not `[0 0 0 1]`
/// (within [`ROTATION_TOL`]); [`Error::NotARotation`].
pub fn pose_from_array(a: ArrayView2<'_, f64>) -> Result<Pose> {
    let (r, c) = a.dim();
    if c != 4 || !(r == 3 || r == 4) {
        return Err(Error::BadShape {
            what: "pose matrix",
            got: vec![r, c],
            expected: "4 × 4 or 3 × 4",
        });
    }
    for (index, v) in a.iter().enumerate() {
        if !v.is_finite() {
            return Err(Error::NonFinite {
                what: "pose matrix",
                index,
            });
        }
    }
    if r == 4 {
        let row = [a[[3, 0]], a[[3, 1]], a[[3, 2]], a[[3, 3]]];
        let bad =
            row[..3].iter().any(|v| v.abs() > ROTATION_TOL) || (row[3] - 1.0).abs() > ROTATION_TOL;
        if bad {
            return Err(Error::NotHomogeneous { row });
        }
    }
    let m = Matrix3::from_fn(|i, j| a[[i, j]]);
    let rot = rotation_from_matrix(&m)?;
    pose(
        UnitQuaternion::from_rotation_matrix(&rot),
        [a[[0, 3]], a[[1, 3]], a[[2, 3]]],
    )
}

/// The 4×4 homogeneous matrix `[[R, t], [0, 1]]` of a pose.
pub fn pose_to_array(p: &Pose) -> Array2<f64> {
    let m = p.to_homogeneous();
    Array2::from_shape_fn((4, 4), |(i, j)| m[(i, j)])
}

/// Geodesic rotation distance in degrees, `θ = ∠(R_a⁻¹ R_b) ∈ [0°, 180°]`,
/// computed as `2·atan2(‖v‖, |w|)` of the relative quaternion (accurate near
/// 0, unlike `acos((tr − 1)/2)`). O(1).
pub fn rotation_error_deg(a: &Pose, b: &Pose) -> f64 {
    (a.rotation.inverse() * b.rotation).angle().to_degrees()
}

/// Translation distance `‖t_a − t_b‖` (metres when poses are). O(1).
pub fn translation_error(a: &Pose, b: &Pose) -> f64 {
    (a.translation.vector - b.translation.vector).norm()
}

/// A rotation drawn from the uniform (Haar) distribution on SO(3) by
/// Shoemake's subgroup algorithm (Graphics Gems III, 1992): with
/// `u₁, u₂, u₃ ~ U[0, 1)`,
/// `q = (√(1−u₁) sin 2πu₂, √(1−u₁) cos 2πu₂, √u₁ sin 2πu₃, √u₁ cos 2πu₃)`.
/// Its angle θ has density `(1 − cos θ)/π` on `[0, π]`. O(1).
pub fn random_rotation(rng: &mut impl Rng) -> UnitQuaternion<f64> {
    let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    let (s2, c2) = (2.0 * PI * u2).sin_cos();
    let (s3, c3) = (2.0 * PI * u3).sin_cos();
    UnitQuaternion::from_quaternion(Quaternion::new(b * c3, a * s2, a * c2, b * s3))
}

/// A uniformly random unit vector (normalised Gaussian).
pub fn random_unit_vector(rng: &mut impl Rng) -> Unit<Vector3<f64>> {
    loop {
        let v = Vector3::new(
            rng.sample::<f64, _>(rand_distr::StandardNormal),
            rng.sample::<f64, _>(rand_distr::StandardNormal),
            rng.sample::<f64, _>(rand_distr::StandardNormal),
        );
        if let Some(u) = Unit::try_new(v, 1e-12) {
            return u;
        }
    }
}

/// A perturbation of `p`: `Δ·p` with `Δ` a rotation about a uniformly random
/// axis through `p`'s origin by an angle uniform in `[0, max_angle_deg]`, and
/// a translation in a uniformly random direction of length uniform in
/// `[0, max_translation]`. Used for the initial guesses of ICP. O(1).
///
/// # Errors
/// [`Error::BadParameter`] for a negative or non-finite bound.
pub fn perturb(
    p: &Pose,
    max_angle_deg: f64,
    max_translation: f64,
    rng: &mut impl Rng,
) -> Result<Pose> {
    for (name, v) in [
        ("max_angle_deg", max_angle_deg),
        ("max_translation", max_translation),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::BadParameter {
                name,
                value: v,
                reason: "must be finite and ≥ 0",
            });
        }
    }
    let axis = random_unit_vector(rng);
    let angle = rng.random::<f64>() * max_angle_deg.to_radians();
    let dir = random_unit_vector(rng);
    let len = rng.random::<f64>() * max_translation;
    let rot = UnitQuaternion::from_axis_angle(&axis, angle) * p.rotation;
    let t = p.translation.vector + dir.into_inner() * len;
    Ok(Isometry3::from_parts(Translation3::from(t), rot))
}
