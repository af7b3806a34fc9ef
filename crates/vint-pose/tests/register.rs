//! Registration properties of the spec: Kabsch exact for noise-free
//! correspondences (1e-9), the cube under Rz(30°), t = (0.1, 0.2, 0.3) to
//! 1e-12, ICP from ≤ 15° / 2 cm on the 500-point asymmetric shape to
//! RMSE < 1e-6 in ≤ 50 iterations; Umeyama's scale; trimming; fusion.

mod common;

use common::{asymmetric_shape, cube, random_cloud, to_pts};
use nalgebra::Point3;
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use vint_pose::Error;
use vint_pose::register::*;
use vint_pose::se3::{
    Pose, perturb, pose, rotation_error_deg, rotation_from_axis_angle, translation_error,
};

fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x4ab5),
        ..ProptestConfig::with_cases(cases)
    }
}

fn transform(x: &Array2<f64>, t: &Pose, s: f64) -> Array2<f64> {
    let p = to_pts(x);
    Array2::from_shape_fn((p.len(), 3), |(i, j)| {
        let q = t.rotation * (p[i].coords * s) + t.translation.vector;
        q[j]
    })
}

fn max_diff(a: &Pose, b: &Pose) -> f64 {
    (a.to_homogeneous() - b.to_homogeneous()).abs().max()
}

proptest! {
    #![proptest_config(cfg(128))]

    /// Spec: Kabsch is exact (1e-9) for noise-free correspondences of n ≥ 3
    /// non-collinear points, with or without weights; Umeyama recovers the scale.
    #[test]
    fn kabsch_exact_for_noise_free_correspondences_1e9(seed in 0u64..100_000, n in 3usize..40, w in prop::array::uniform3(-3.2f64..3.2), t in prop::array::uniform3(-1.0f64..1.0), s in 0.2f64..5.0) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = random_cloud(n, 0.1, &mut rng);
        let truth = pose(rotation_from_axis_angle(w).unwrap(), t).unwrap();
        let y = transform(&x, &truth, 1.0);
        let fit = kabsch_umeyama(x.view(), y.view(), None, false).unwrap();
        prop_assert!(max_diff(&fit.pose, &truth) <= 1e-9, "{}", max_diff(&fit.pose, &truth));
        prop_assert!(fit.rmse <= 1e-9);
        let weights = Array1::from_shape_fn(n, |i| 0.5 + (i % 3) as f64);
        let fw = kabsch_umeyama(x.view(), y.view(), Some(weights.view()), false).unwrap();
        prop_assert!(max_diff(&fw.pose, &truth) <= 1e-9);
        let ys = transform(&x, &truth, s);
        let fs = kabsch_umeyama(x.view(), ys.view(), None, true).unwrap();
        prop_assert!((fs.scale - s).abs() <= 1e-9 * s);
        prop_assert!(max_diff(&fs.pose, &truth) <= 1e-9);
    }
}

/// Spec: Kabsch on the cube corners with R = Rz(30°), t = (0.1, 0.2, 0.3) recovers them to 1e-12.
#[test]
fn kabsch_cube_rz30_to_1e12() {
    let c = cube(0.05);
    let truth = pose(
        rotation_from_axis_angle([0.0, 0.0, 30f64.to_radians()]).unwrap(),
        [0.1, 0.2, 0.3],
    )
    .unwrap();
    let y = transform(&c, &truth, 1.0);
    let fit = kabsch_umeyama(c.view(), y.view(), None, false).unwrap();
    assert!(
        max_diff(&fit.pose, &truth) <= 1e-12,
        "{}",
        max_diff(&fit.pose, &truth)
    );
    let r = fit.pose.rotation.to_rotation_matrix();
    let (s30, c30) = 30f64.to_radians().sin_cos();
    assert!((r[(0, 0)] - c30).abs() < 1e-12 && (r[(1, 0)] - s30).abs() < 1e-12);
    for (i, p) in to_pts(&c).iter().enumerate() {
        let q = fit.pose * p;
        for j in 0..3 {
            assert!((q[j] - y[[i, j]]).abs() <= 1e-12);
        }
    }
}

#[test]
fn kabsch_rejects_degenerate_input() {
    let line = Array2::from_shape_fn((5, 3), |(i, j)| [i as f64, 2.0 * i as f64, 0.5][j]);
    assert!(matches!(
        kabsch_umeyama(line.view(), line.view(), None, false),
        Err(Error::DegenerateCorrespondences { .. })
    ));
    let two = Array2::from_shape_fn((2, 3), |(i, j)| (i + j) as f64);
    assert!(matches!(
        kabsch_umeyama(two.view(), two.view(), None, false),
        Err(Error::DegenerateCorrespondences { .. })
    ));
    let c = cube(1.0);
    let w = Array1::from(vec![1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert!(matches!(
        kabsch_umeyama(c.view(), c.view(), Some(w.view()), false),
        Err(Error::DegenerateCorrespondences { .. })
    ));
    // Coplanar (not collinear) is fine.
    let plane = Array2::from_shape_fn((4, 3), |(i, j)| [(i & 1) as f64, (i >> 1) as f64, 0.0][j]);
    assert!(kabsch_umeyama(plane.view(), plane.view(), None, false).is_ok());
}

/// Spec: ICP from ≤ 15° / 2 cm perturbations on a 500-point asymmetric shape
/// reaches RMSE < 1e-6 in ≤ 50 iterations — checked on 100 seeded starts,
/// point-to-point, and point-to-plane (normals by PCA of 10 neighbours).
#[test]
fn icp_converges_from_15_degrees_2_cm() {
    let x = asymmetric_shape();
    let target_pp = IcpTarget::new(x.view(), 10).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let params = IcpParams {
        max_iterations: 50,
        max_correspondence_distance: f64::INFINITY,
        trim: 1.0,
        point_to_plane: false,
        tolerance: 1e-12,
    };
    let mut worst = (0.0f64, 0usize);
    for trial in 0..100 {
        let truth = perturb(&Pose::identity(), 15.0, 0.02, &mut rng).unwrap();
        // src = truth⁻¹ · x, so T = truth maps src onto x.
        let src = transform(&x, &truth.inverse(), 1.0);
        for p2pl in [false, true] {
            let fit = icp(
                src.view(),
                &target_pp,
                &Pose::identity(),
                &IcpParams {
                    point_to_plane: p2pl,
                    ..params
                },
                None,
            )
            .unwrap();
            assert!(
                fit.rmse < 1e-6,
                "trial {trial} p2pl {p2pl}: rmse {} after {} iterations",
                fit.rmse,
                fit.iterations
            );
            assert!(fit.iterations <= 50);
            assert!(
                rotation_error_deg(&fit.pose, &truth) < 1e-4
                    && translation_error(&fit.pose, &truth) < 1e-6
            );
            worst = (worst.0.max(fit.rmse), worst.1.max(fit.iterations));
        }
    }
    assert!(worst.0 < 1e-6, "{worst:?}");
}

/// Trimming discards outliers: 20 % of the source points are replaced by
/// far-away junk; trimmed ICP (trim 0.8) still recovers the pose.
#[test]
fn trimmed_icp_ignores_outliers() {
    let x = asymmetric_shape();
    let target = IcpTarget::new(x.view(), 10).unwrap();
    let truth = pose(
        rotation_from_axis_angle([0.0, 0.1, 0.05]).unwrap(),
        [0.005, -0.004, 0.003],
    )
    .unwrap();
    let mut src = transform(&x, &truth.inverse(), 1.0);
    for i in (0..500).step_by(5) {
        src[[i, 2]] += 0.03;
    }
    let params = IcpParams {
        max_iterations: 50,
        max_correspondence_distance: 0.05,
        trim: 0.8,
        point_to_plane: false,
        tolerance: 1e-12,
    };
    let fit = icp(src.view(), &target, &Pose::identity(), &params, None).unwrap();
    assert!(
        rotation_error_deg(&fit.pose, &truth) < 1e-6,
        "{}",
        rotation_error_deg(&fit.pose, &truth)
    );
    assert!(translation_error(&fit.pose, &truth) < 1e-8);
    assert!((fit.fitness - 0.8).abs() < 0.01);
}

/// fuse_icp with w_tactile = 0 is plain ICP; exact tactile points on the
/// surface keep the exact answer; tactile points alone pin down the pose when
/// the visual part is ambiguous (a plane patch).
#[test]
fn fuse_icp_weights_the_tactile_points() {
    let x = asymmetric_shape();
    let target = IcpTarget::new(x.view(), 10).unwrap();
    let truth = pose(
        rotation_from_axis_angle([0.05, 0.0, 0.1]).unwrap(),
        [0.004, 0.002, -0.003],
    )
    .unwrap();
    let src = transform(&x, &truth.inverse(), 1.0);
    let params = IcpParams {
        max_correspondence_distance: f64::INFINITY,
        tolerance: 1e-12,
        ..IcpParams::default()
    };
    let visual = src.slice(ndarray::s![0..300, ..]).to_owned();
    let tactile = src.slice(ndarray::s![300..500;20, ..]).to_owned();
    let a = fuse_icp(
        visual.view(),
        tactile.view(),
        0.0,
        &target,
        &Pose::identity(),
        &params,
    )
    .unwrap();
    let b = icp(visual.view(), &target, &Pose::identity(), &params, None).unwrap();
    assert_eq!(a.pose, b.pose);
    let f = fuse_icp(
        visual.view(),
        tactile.view(),
        1.0,
        &target,
        &Pose::identity(),
        &params,
    )
    .unwrap();
    assert!(f.rmse < 1e-6 && rotation_error_deg(&f.pose, &truth) < 1e-4);
    let empty = Array2::<f64>::zeros((0, 3));
    assert!(
        fuse_icp(
            visual.view(),
            empty.view(),
            1.0,
            &target,
            &Pose::identity(),
            &params
        )
        .is_ok()
    );
    assert!(matches!(
        fuse_icp(
            visual.view(),
            tactile.view(),
            -1.0,
            &target,
            &Pose::identity(),
            &params
        ),
        Err(Error::BadParameter { .. })
    ));
    let _ = Point3::<f64>::origin();
}
