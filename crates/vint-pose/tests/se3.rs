//! SE(3) properties of the spec: T·T⁻¹ = I (1e-12), conversion round trips,
//! validation, Shoemake uniformity, typed frame chains.

mod common;

use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use ndarray::Array2;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use vint_pose::Error;
use vint_pose::frames::{Base, Camera, FrameChain, Hand, Object, Transform};
use vint_pose::se3::*;

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x5e3),
        ..ProptestConfig::with_cases(cases)
    }
}

fn arb_pose() -> impl Strategy<Value = Pose> {
    (
        prop::array::uniform3(-3.2f64..3.2),
        prop::array::uniform3(-2.0f64..2.0),
    )
        .prop_map(|(w, t)| pose(rotation_from_axis_angle(w).unwrap(), t).unwrap())
}

proptest! {
    #![proptest_config(cfg(256))]

    /// Spec: T·T⁻¹ = I to 1e-12 (entrywise, 4×4).
    #[test]
    fn pose_times_inverse_is_identity_1e12(p in arb_pose()) {
        let m = (p * p.inverse()).to_homogeneous();
        let e = (m - nalgebra::Matrix4::identity()).abs().max();
        prop_assert!(e <= 1e-12, "max |T T⁻¹ − I| = {e}");
        let m2 = (p.inverse() * p).to_homogeneous();
        prop_assert!((m2 - nalgebra::Matrix4::identity()).abs().max() <= 1e-12);
    }

    /// Spec: quaternion ↔ matrix round trip (to 1e-12).
    #[test]
    fn quaternion_matrix_round_trip(p in arb_pose()) {
        let q = p.rotation;
        let m = q.to_rotation_matrix().into_inner();
        let r = rotation_from_matrix(&m).unwrap();
        let q2 = UnitQuaternion::from_rotation_matrix(&r);
        prop_assert!(q.angle_to(&q2) <= 1e-12 * 10.0);
        let wxyz = quaternion_to_wxyz(&q);
        let q3 = quaternion_from_wxyz(wxyz).unwrap();
        prop_assert!(q.angle_to(&q3) <= 1e-12);
        prop_assert!(wxyz[0] >= 0.0);
    }

    /// Axis-angle and 4×4 array round trips.
    #[test]
    fn axis_angle_and_array_round_trips(p in arb_pose()) {
        let w = rotation_to_axis_angle(&p.rotation);
        let n = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        prop_assert!(n <= std::f64::consts::PI + 1e-12);
        let q = rotation_from_axis_angle(w).unwrap();
        prop_assert!(p.rotation.angle_to(&q) <= 1e-11);
        let a = pose_to_array(&p);
        let back = pose_from_array(a.view()).unwrap();
        prop_assert!((back.to_homogeneous() - p.to_homogeneous()).abs().max() <= 1e-12);
        // 3 × 4 layout too.
        let top = a.slice(ndarray::s![0..3, ..]).to_owned();
        let back3 = pose_from_array(top.view()).unwrap();
        prop_assert!((back3.to_homogeneous() - p.to_homogeneous()).abs().max() <= 1e-12);
    }

    /// The rotation error is a metric on SO(3): symmetric, and ∠(R, R·Rz(θ)) = θ.
    #[test]
    fn rotation_error_is_the_relative_angle(p in arb_pose(), theta in 0.0f64..3.1) {
        let q = p * nalgebra::Isometry3::rotation(Vector3::z() * theta);
        let e = rotation_error_deg(&p, &q);
        prop_assert!((e - theta.to_degrees()).abs() <= 1e-9);
        prop_assert!((rotation_error_deg(&q, &p) - e).abs() <= 1e-9);
        prop_assert!(translation_error(&p, &q) <= 1e-12);
    }
}

#[test]
fn not_a_rotation_reports_det_and_orthogonality_error() {
    // 2·I: det 8, ‖4I − I‖_F = 3√3.
    let m = Matrix3::identity() * 2.0;
    match rotation_from_matrix(&m) {
        Err(Error::NotARotation { det, orth_err }) => {
            assert!((det - 8.0).abs() < 1e-12);
            assert!((orth_err - 3.0 * 3f64.sqrt()).abs() < 1e-12);
        }
        other => panic!("{other:?}"),
    }
    // A reflection: det −1, orthogonal.
    let r = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -1.0));
    match rotation_from_matrix(&r) {
        Err(Error::NotARotation { det, orth_err }) => {
            assert!((det + 1.0).abs() < 1e-12);
            assert!(orth_err < 1e-12);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        quaternion_from_wxyz([1.0, 1.0, 0.0, 0.0]),
        Err(Error::NotAUnitQuaternion { .. })
    ));
    let mut a = Array2::<f64>::eye(4);
    a[[3, 0]] = 0.5;
    assert!(matches!(
        pose_from_array(a.view()),
        Err(Error::NotHomogeneous { .. })
    ));
}

/// Shoemake's rotations are Haar-uniform: the angle θ has CDF
/// F(θ) = (θ − sin θ)/π. Kolmogorov–Smirnov with n = 20000 (fixed seed):
/// D < 1.95/√n (the 0.1 % critical value).
#[test]
fn shoemake_rotation_angles_follow_the_haar_law() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let n = 20_000;
    let mut a: Vec<f64> = (0..n).map(|_| random_rotation(&mut rng).angle()).collect();
    a.sort_by(f64::total_cmp);
    let mut d = 0.0f64;
    for (i, &t) in a.iter().enumerate() {
        let f = (t - t.sin()) / std::f64::consts::PI;
        d = d
            .max((f - i as f64 / n as f64).abs())
            .max(((i + 1) as f64 / n as f64 - f).abs());
    }
    assert!(d < 1.95 / (n as f64).sqrt(), "KS D = {d}");
    // The axis is isotropic: mean of the rotated x axis ≈ 0.
    let m = (0..n)
        .map(|_| random_rotation(&mut rng) * Vector3::x())
        .fold(Vector3::zeros(), |s, v| s + v)
        / n as f64;
    assert!(m.norm() < 4.0 / (n as f64).sqrt(), "mean axis {m:?}");
}

#[test]
fn perturbation_respects_its_bounds() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let p = pose(
        rotation_from_axis_angle([0.3, -0.2, 1.0]).unwrap(),
        [0.1, 0.2, 0.3],
    )
    .unwrap();
    for _ in 0..1000 {
        let q = perturb(&p, 15.0, 0.02, &mut rng).unwrap();
        assert!(rotation_error_deg(&p, &q) <= 15.0 + 1e-9);
        assert!(translation_error(&p, &q) <= 0.02 + 1e-12);
    }
    assert!(perturb(&p, -1.0, 0.0, &mut rng).is_err());
    assert!(perturb(&p, 1.0, f64::NAN, &mut rng).is_err());
}

#[test]
fn frame_chain_composes_and_names_the_missing_link() {
    let cb = Transform::<Camera, Base>::new(Pose::translation(0.0, 0.0, 1.0));
    let bh = Transform::<Base, Hand>::new(
        pose(
            rotation_from_axis_angle([0.0, 0.0, 0.5]).unwrap(),
            [0.1, 0.0, 0.0],
        )
        .unwrap(),
    );
    let ho = Transform::<Hand, Object>::new(Pose::translation(0.0, 0.05, 0.0));
    let mut chain = FrameChain::new();
    assert!(matches!(
        chain.camera_from_object(),
        Err(Error::MissingLink {
            to: "camera",
            from: "base"
        })
    ));
    chain.camera_from_base = Some(cb);
    chain.hand_from_object = Some(ho);
    assert!(matches!(
        chain.camera_from_object(),
        Err(Error::MissingLink {
            to: "base",
            from: "hand"
        })
    ));
    chain.base_from_hand = Some(bh);
    let co = chain.camera_from_object().unwrap();
    let direct = cb.pose() * bh.pose() * ho.pose();
    assert!(
        (co.pose().to_homogeneous() - direct.to_homogeneous())
            .abs()
            .max()
            < 1e-15
    );
    let back = chain.hand_from_camera_pose(co).unwrap();
    assert!(
        (back.pose().to_homogeneous() - ho.pose().to_homogeneous())
            .abs()
            .max()
            < 1e-12
    );
    let p = nalgebra::Point3::new(0.01, 0.02, 0.03);
    assert!((co.inverse().apply(&co.apply(&p)) - p).norm() < 1e-15);
    assert!(chain.base_from_object().is_ok());
}
