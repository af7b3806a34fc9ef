//! Clouds and synthetic scenes against closed forms: back-projection of a
//! rendered cube lies on the cube's surface, occluders hide what they
//! cover, voxel centroids, plane normals, taxel contacts through link poses.

use nalgebra::{Point3, Vector3};
use ndarray::{Array1, Array2};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use vint_pose::Error;
use vint_pose::cloud::*;
use vint_pose::mesh::Mesh;
use vint_pose::se3::{Pose, pose, rotation_from_axis_angle};
use vint_pose::synth::*;

fn params(noise: bool) -> SensorParams {
    let mut p = SensorParams::default();
    if !noise {
        p.depth_noise = 0.0;
        p.dropout = 0.0;
        p.contact_noise = 0.0;
    }
    p
}

/// A noise-free render of a box, back-projected, lies on the box surface
/// (distance to the nearest face ≤ 1e-9 m), and its visible pixels are all
/// object pixels when nothing occludes.
#[test]
fn rendered_box_back_projects_onto_its_surface() {
    let h = [0.03, 0.02, 0.025];
    let mesh = Mesh::cuboid(h).unwrap();
    let surf = SurfaceIndex::new(&mesh, 5000, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    let gt = pose(
        rotation_from_axis_angle([0.4, -0.3, 0.2]).unwrap(),
        [0.01, -0.005, 0.35],
    )
    .unwrap();
    let p = params(false);
    let f = render_frame(
        &mesh,
        &surf,
        &gt,
        &[],
        &[],
        &p,
        &mut ChaCha8Rng::seed_from_u64(2),
    )
    .unwrap();
    assert_eq!(f.occlusion, 0.0);
    assert!(f.object_pixels > 200);
    let pts = back_project(f.depth.view(), &p.intrinsics, Some(f.mask.view())).unwrap();
    assert_eq!(pts.nrows(), f.object_pixels);
    let inv = gt.inverse();
    for r in pts.rows() {
        let l = inv * Point3::new(r[0], r[1], r[2]);
        // On the surface: inside the box and on (at least) one face.
        let out = (0..3)
            .map(|k| l[k].abs() - h[k])
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(out.abs() < 1e-9, "{l:?}");
    }
}

/// A sphere in front of the object hides it: occlusion = 1 and no object pixel remains.
#[test]
fn occluder_hides_the_object() {
    let mesh = Mesh::cuboid([0.02; 3]).unwrap();
    let surf = SurfaceIndex::new(&mesh, 2000, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    let gt = Pose::translation(0.0, 0.0, 0.4);
    let big = Primitive::Sphere {
        center: Point3::new(0.0, 0.0, 0.2),
        radius: 0.05,
    };
    let f = render_frame(
        &mesh,
        &surf,
        &gt,
        &[big],
        &[],
        &params(false),
        &mut ChaCha8Rng::seed_from_u64(2),
    )
    .unwrap();
    assert_eq!(f.occlusion, 1.0);
    assert!(f.mask.iter().all(|&m| !m));
    // Its depth at the centre pixel is the sphere's near point, 0.15 m (pixel centre 63.5 is not integral: check near).
    let z = f.depth[[64, 64]];
    assert!((z - 0.15).abs() < 2e-4, "{z}");
    // A capsule across half the image hides about half of it.
    let cap = Primitive::Capsule {
        a: Point3::new(-1.0, 0.0, 0.3),
        b: Point3::new(1.0, 0.0, 0.3),
        radius: 0.004,
    };
    let g = render_frame(
        &mesh,
        &surf,
        &gt,
        &[cap],
        &[],
        &params(false),
        &mut ChaCha8Rng::seed_from_u64(2),
    )
    .unwrap();
    assert!(g.occlusion > 0.1 && g.occlusion < 0.6, "{}", g.occlusion);
    // Ray–box: a cuboid occluder straight ahead.
    let bx = Primitive::Cuboid {
        pose: Pose::translation(0.0, 0.0, 0.1),
        half: [0.01, 0.01, 0.01],
    };
    assert!((bx.ray_hit(&Vector3::new(0.0, 0.0, 1.0)).unwrap() - 0.09).abs() < 1e-15);
    assert!(bx.ray_hit(&Vector3::new(1.0, 0.0, 1.0)).is_none());
}

/// A touch zone through the object's surface reads 1 and reports the
/// centre of pressure on that surface; a zone in free space reads 0.
#[test]
fn touch_zones_detect_contact() {
    let mesh = Mesh::cuboid([0.02; 3]).unwrap();
    let surf = SurfaceIndex::new(&mesh, 20000, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    let gt = Pose::translation(0.0, 0.0, 0.4);
    let on_face = TouchZone {
        pose: Pose::translation(0.0, 0.0, 0.38),
        half: [0.004, 0.004, 0.003],
        sphere: false,
    };
    let away = TouchZone {
        pose: Pose::translation(0.1, 0.0, 0.38),
        half: [0.004, 0.004, 0.003],
        sphere: true,
    };
    let f = render_frame(
        &mesh,
        &surf,
        &gt,
        &[],
        &[on_face, away],
        &params(false),
        &mut ChaCha8Rng::seed_from_u64(2),
    )
    .unwrap();
    assert_eq!(f.readings.to_vec(), vec![1.0, 0.0]);
    assert_eq!(f.contacts.nrows(), 1);
    // The front face is z = 0.38 in the camera frame.
    assert!((f.contacts[[0, 2]] - 0.38).abs() < 1e-12);
    assert!(f.contacts[[0, 0]].abs() < 0.001 && f.contacts[[0, 1]].abs() < 0.001);
}

#[test]
fn back_projection_closed_form_and_mask() {
    let k = Intrinsics {
        fx: 100.0,
        fy: 200.0,
        cx: 1.0,
        cy: 0.5,
        width: 3,
        height: 2,
    };
    let d = Array2::from_shape_vec((2, 3), vec![1.0, 0.0, 2.0, 0.5, 0.5, 0.5]).unwrap();
    let p = back_project(d.view(), &k, None).unwrap();
    assert_eq!(p.nrows(), 5);
    // Pixel (u = 0, v = 0), z = 1: ((0 − 1)/100, (0 − 0.5)/200, 1).
    assert_eq!(p.row(0).to_vec(), vec![-0.01, -0.0025, 1.0]);
    // Pixel (u = 2, v = 0), z = 2.
    assert_eq!(p.row(1).to_vec(), vec![0.02, -0.005, 2.0]);
    let mask =
        Array2::from_shape_vec((2, 3), vec![false, false, true, false, false, false]).unwrap();
    assert_eq!(
        back_project(d.view(), &k, Some(mask.view()))
            .unwrap()
            .nrows(),
        1
    );
    let none = Array2::from_elem((2, 3), false);
    assert!(matches!(
        back_project(d.view(), &k, Some(none.view())),
        Err(Error::EmptyCloud { .. })
    ));
    let mut bad = d.clone();
    bad[[1, 1]] = f64::NAN;
    assert!(matches!(
        back_project(bad.view(), &k, None),
        Err(Error::NonFinite { index: 4, .. })
    ));
}

#[test]
fn voxels_and_normals() {
    let p = Array2::from_shape_vec(
        (4, 3),
        vec![
            0.01, 0.01, 0.01, 0.03, 0.01, 0.01, 0.15, 0.0, 0.0, 0.16, 0.0, 0.0,
        ],
    )
    .unwrap();
    let v = voxel_downsample(p.view(), 0.1).unwrap();
    assert_eq!(v.nrows(), 2);
    assert!((v[[0, 0]] - 0.02).abs() < 1e-15 && (v[[1, 0]] - 0.155).abs() < 1e-15);
    // A tilted plane: every PCA normal is ± its normal, oriented to the viewpoint.
    let n = Vector3::new(1.0, 2.0, 2.0) / 3.0;
    let (a, b) = (
        Vector3::new(2.0, -1.0, 0.0).normalize(),
        n.cross(&Vector3::new(2.0, -1.0, 0.0).normalize()),
    );
    let pts = Array2::from_shape_fn((100, 3), |(i, j)| {
        (a * (i % 10) as f64 * 0.01 + b * (i / 10) as f64 * 0.01)[j]
    });
    let nr = estimate_normals(pts.view(), 8, Some([1.0, 2.0, 2.0])).unwrap();
    for r in nr.rows() {
        let d = r[0] * n.x + r[1] * n.y + r[2] * n.z;
        assert!((d - 1.0).abs() < 1e-9, "{d}");
    }
    assert!(matches!(
        estimate_normals(pts.view(), 2, None),
        Err(Error::BadParameter { .. })
    ));
}

/// Contacts are the taxel positions mapped through their link poses, for readings above the threshold.
#[test]
fn taxel_contacts_through_link_poses() {
    let links = [
        Pose::translation(1.0, 0.0, 0.0),
        pose(
            rotation_from_axis_angle([0.0, 0.0, std::f64::consts::FRAC_PI_2]).unwrap(),
            [0.0, 1.0, 0.0],
        )
        .unwrap(),
    ];
    let taxels = [
        Taxel {
            link: 0,
            position: [0.0, 0.0, 0.1],
        },
        Taxel {
            link: 1,
            position: [0.1, 0.0, 0.0],
        },
        Taxel {
            link: 1,
            position: [0.0, 0.0, 0.0],
        },
    ];
    let (c, idx) = taxel_contacts(
        &links,
        &taxels,
        Array1::from(vec![0.5, 0.9, 0.0]).view(),
        0.1,
    )
    .unwrap();
    assert_eq!(idx, vec![0, 1]);
    assert!((c[[0, 0]] - 1.0).abs() < 1e-15 && (c[[0, 2]] - 0.1).abs() < 1e-15);
    // Rz(90°)·(0.1, 0, 0) + (0, 1, 0) = (0, 1.1, 0).
    assert!(c[[1, 0]].abs() < 1e-15 && (c[[1, 1]] - 1.1).abs() < 1e-15);
    let bad = [Taxel {
        link: 5,
        position: [0.0; 3],
    }];
    assert!(matches!(
        taxel_contacts(&links, &bad, Array1::from(vec![1.0]).view(), 0.1),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        taxel_contacts(&links, &taxels, Array1::from(vec![1.0]).view(), 0.1),
        Err(Error::LengthMismatch { .. })
    ));
}

#[test]
fn look_at_points_the_optical_axis() {
    let eye = Point3::new(0.3, 0.2, 0.5);
    let target = Point3::new(0.0, 0.0, 0.1);
    let cw = look_at(&eye, &target, &Vector3::z()).unwrap();
    let t = cw * target;
    assert!(t.x.abs() < 1e-12 && t.y.abs() < 1e-12 && (t.z - (target - eye).norm()).abs() < 1e-12);
    assert!(look_at(&eye, &eye, &Vector3::z()).is_err());
}
