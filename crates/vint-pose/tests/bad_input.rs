//! Hostile input at every public entry point: arbitrary shapes and values
//! (NaN, ±∞, huge, empty) must give `Ok` or a typed `Err`, never a panic;
//! NaN data gives a typed error.

use nalgebra::{Matrix3, Point3};
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use vint_pose::Error;
use vint_pose::cloud::*;
use vint_pose::kdtree::KdTree;
use vint_pose::mesh::Mesh;
use vint_pose::metrics::*;
use vint_pose::register::*;
use vint_pose::se3::*;
use vint_pose::synth::*;

fn cfg() -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0xbad),
        ..ProptestConfig::with_cases(200)
    }
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => -1.0f64..1.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(1e300),
        1 => Just(0.0),
    ]
}

fn array() -> impl Strategy<Value = Array2<f64>> {
    (0usize..12, 0usize..5).prop_flat_map(|(r, c)| {
        prop::collection::vec(value(), r * c)
            .prop_map(move |v| Array2::from_shape_vec((r, c), v).unwrap())
    })
}

fn any_pose() -> impl Strategy<Value = Pose> {
    (
        prop::array::uniform3(value()),
        prop::array::uniform3(value()),
    )
        .prop_map(|(w, t)| {
            let q = rotation_from_axis_angle(w)
                .unwrap_or_else(|_| nalgebra::UnitQuaternion::identity());
            // Bypass validation to build a possibly non-finite pose.
            Pose::from_parts(nalgebra::Translation3::new(t[0], t[1], t[2]), q)
        })
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn metrics_and_registration_never_panic(a in array(), b in array(), gt in any_pose(), est in any_pose(), thr in value(), w in prop::collection::vec(value(), 0..12), k in 0usize..20) {
        let _ = add(a.view(), &gt, &est);
        let _ = add_s(a.view(), &gt, &est);
        let _ = add_or_s(a.view(), &gt, &est, true);
        let _ = object_diameter(a.view());
        if let Ok(m) = AddS::new(a.view()) {
            let _ = m.error(&gt, &est);
            let _ = m.add_or_s(&gt, &est, false);
        }
        let e = Array1::from(w.clone());
        let _ = auc(e.view(), thr, AucRule::Continuous);
        let _ = auc(e.view(), thr, AucRule::VocYcb);
        let _ = accuracy_below(e.view(), thr);
        let _ = accuracy_diameter(e.view(), thr, 0.1);
        let _ = accuracy_curve(e.view(), &[thr, 0.05]);
        let _ = auc_per_object(&[e.view()], thr, AucRule::Continuous);
        let _ = auc_pooled(&[e.view(), e.view()], thr, AucRule::VocYcb);
        let _ = kabsch_umeyama(a.view(), b.view(), Some(e.view()), true);
        let _ = kabsch_umeyama(a.view(), a.view(), None, false);
        let _ = voxel_downsample(a.view(), thr);
        let _ = estimate_normals(a.view(), k, Some([thr, 0.0, 1.0]));
        if let Ok(t) = IcpTarget::new(b.view(), k) {
            let p = IcpParams { max_iterations: k, max_correspondence_distance: thr, trim: thr, point_to_plane: k % 2 == 0, tolerance: 1e-9 };
            let _ = icp(a.view(), &t, &est, &p, Some(e.view()));
            let _ = icp(a.view(), &t, &est, &IcpParams::default(), None);
            let _ = fuse_icp(a.view(), b.view(), thr, &t, &gt, &IcpParams::default());
        }
        let _ = IcpTarget::with_normals(a.view(), b.view());
        let _ = Mesh::new(a.view(), &[[0, 1, 2], [k, 0, 1]]);
        let _ = pose_from_array(a.view());
        let _ = perturb(&gt, thr, thr, &mut ChaCha8Rng::seed_from_u64(1));
        let _ = rotation_from_matrix(&Matrix3::from_fn(|i, j| a.get((i, j)).copied().unwrap_or(thr)));
        let _ = quaternion_from_wxyz([thr, 0.0, 0.0, 0.0]);
        let pts: Vec<Point3<f64>> = a.rows().into_iter().filter(|r| r.len() == 3).map(|r| Point3::new(r[0], r[1], r[2])).collect();
        if let Ok(tree) = KdTree::new(&pts) {
            let q = Point3::new(thr, 0.0, 0.0);
            let _ = tree.nearest(&q);
            let _ = tree.k_nearest(&q, k);
            let _ = tree.within(&q, thr);
        }
    }

    #[test]
    fn clouds_and_scenes_never_panic(d in array(), fx in value(), cx in value(), wdt in 0usize..6, hgt in 0usize..6, noise in value(), links in prop::collection::vec(any_pose(), 0..3), r in prop::collection::vec(value(), 0..4), link in 0usize..4) {
        let k = Intrinsics { fx, fy: 1.0, cx, cy: 0.0, width: wdt, height: hgt };
        let _ = back_project(d.view(), &k, None);
        let m = Array2::from_elem(d.dim(), true);
        let _ = back_project(d.view(), &k, Some(m.view()));
        let taxels: Vec<Taxel> = r.iter().map(|&x| Taxel { link, position: [x, 0.0, 0.0] }).collect();
        let _ = taxel_contacts(&links, &taxels, Array1::from(r.clone()).view(), noise);
        let mesh = Mesh::cuboid([0.02; 3]).unwrap();
        let surf = SurfaceIndex::new(&mesh, 50, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
        let p = SensorParams {
            intrinsics: Intrinsics { fx: 20.0, fy: 20.0, cx: 4.0, cy: 4.0, width: 8, height: 8 },
            depth_noise: noise,
            dropout: noise,
            ..SensorParams::default()
        };
        let occ = [Primitive::Capsule { a: Point3::new(cx, 0.0, 0.2), b: Point3::new(0.0, fx, 0.2), radius: noise }];
        let zone = TouchZone { pose: links.first().copied().unwrap_or_else(Pose::identity), half: [noise; 3], sphere: false };
        let gt = links.last().copied().unwrap_or_else(|| Pose::translation(0.0, 0.0, 0.3));
        let _ = render_frame(&mesh, &surf, &gt, &occ, &[zone], &p, &mut ChaCha8Rng::seed_from_u64(3));
        let _ = Mesh::cuboid([noise, 1.0, 1.0]);
        let _ = mesh.scaled(noise);
        let _ = mesh.sample_surface(link, &mut ChaCha8Rng::seed_from_u64(0));
        let _ = look_at(&Point3::new(fx, 0.0, 0.0), &Point3::new(0.0, cx, 0.0), &nalgebra::Vector3::z());
    }

    /// Byte soup into every reader: typed errors only.
    #[test]
    fn readers_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300), text in "[ -~\n]{0,300}") {
        use vint_pose::io::layout::*;
        use vint_pose::io::meshes::*;
        use vint_pose::io::npy::*;
        let _ = parse_obj(&text, "x.obj");
        let _ = parse_stl(&bytes, "x.stl");
        let _ = parse_stl(text.as_bytes(), "x.stl");
        let _ = parse_ply(&bytes, "x.ply");
        let _ = parse_ply(format!("ply\nformat ascii 1.0\n{text}\nend_header\n{text}").as_bytes(), "x.ply");
        let _ = parse_npy(&bytes, "x.npy");
        let mut npy = b"\x93NUMPY\x01\x00".to_vec();
        npy.extend((text.len() as u16).to_le_bytes());
        npy.extend(text.as_bytes());
        npy.extend(&bytes);
        let _ = parse_npy(&npy, "x.npy");
        let _ = pose_from_npy(&npy, "x.npy");
        let _ = decode_depth_png(&bytes, "x.png");
        let _ = decode_rgb_png(&bytes, "x.png");
        let _ = parse_matrix_txt(&text, "x.txt");
        let _ = parse_intrinsics_json(&text, "x.json");
        let _ = vint_pose::io::mjcf::Model::parse(&text, "x.xml");
        let _ = vint_pose::io::mjcf::Model::parse(&format!("<mujoco><worldbody><body pos=\"{text}\"><joint range=\"{text}\"/></body></worldbody></mujoco>").replace(['<', '&'], " "), "x.xml");
    }
}

/// NaN data is a typed `NonFinite` error at each data entry point.
#[test]
fn nan_gives_non_finite() {
    let mut a = Array2::<f64>::zeros((5, 3));
    a[[2, 1]] = f64::NAN;
    let id = Pose::identity();
    assert!(matches!(
        add(a.view(), &id, &id),
        Err(Error::NonFinite { index: 7, .. })
    ));
    assert!(matches!(
        add_s(a.view(), &id, &id),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        object_diameter(a.view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        kabsch_umeyama(a.view(), a.view(), None, false),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        voxel_downsample(a.view(), 0.1),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        IcpTarget::new(a.view(), 3),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        auc(
            Array1::from(vec![f64::NAN]).view(),
            0.1,
            AucRule::Continuous
        ),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        auc(Array1::<f64>::zeros(0).view(), 0.1, AucRule::Continuous),
        Err(Error::EmptyCloud { .. })
    ));
    assert!(matches!(
        auc(Array1::<f64>::zeros(2).view(), 0.0, AucRule::Continuous),
        Err(Error::BadThreshold { .. })
    ));
    assert!(matches!(
        add(Array2::<f64>::zeros((3, 2)).view(), &id, &id),
        Err(Error::BadShape { .. })
    ));
    let nan_pose = Pose::translation(f64::NAN, 0.0, 0.0);
    assert!(matches!(
        add(Array2::<f64>::zeros((3, 3)).view(), &id, &nan_pose),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        rotation_from_matrix(&Matrix3::from_element(f64::NAN)),
        Err(Error::NonFinite { .. })
    ));
    let bad = IcpParams {
        trim: 0.0,
        ..IcpParams::default()
    };
    assert!(matches!(
        bad.check(),
        Err(Error::BadParameter { name: "trim", .. })
    ));
}
