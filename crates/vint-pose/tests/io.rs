//! Readers (feature `io`): MJCF forward kinematics against MuJoCo 4.0.0
//! (peer values recorded by scripts/compare/vint_pose_mjcf_fk.py), mesh
//! readers, `.npy`, PNG depth, the directory layout, and format errors
//! naming file and line.
#![cfg(feature = "io")]

use mlcore::data::{Dataset, workspace_data_dir};
use ndarray::{Array1, Array2};
use vint_pose::Error;
use vint_pose::io::layout::{
    decode_depth_png, encode_depth_png, parse_intrinsics_json, parse_matrix_txt,
};
use vint_pose::io::meshes::{parse_obj, parse_ply, parse_stl};
use vint_pose::io::mjcf::Model;
use vint_pose::io::npy::{parse_npy, pose_from_npy, pose_to_npy, to_npy};
use vint_pose::io::{DirLayout, FrameSource};
use vint_pose::se3::{pose, rotation_from_axis_angle};

const ZERO: &[(&str, [f64; 3])] = &[
    (
        "robot0:T_palm_b0",
        [0.988999986732, 0.954000018368, 0.144998941921],
    ),
    (
        "robot0:T_fftip_tip",
        [0.966999973464, 0.771000036735, 0.139998328103],
    ),
    (
        "robot0:T_thtip_tip",
        [0.898144779961, 0.863090729835, 0.148998849085],
    ),
    (
        "robot0:T_lfmetacarpal_front",
        [1.033499986732, 0.906250018369, 0.144998648441],
    ),
    (
        "robot0:Tch_fftip",
        [0.966999984079, 0.777000022042, 0.143998350143],
    ),
    (
        "robot0:palm",
        [0.999999973464, 0.960000036734, 0.139998934771],
    ),
    (
        "robot0:ffdistal",
        [0.966999973464, 0.795000036735, 0.139998416260],
    ),
    (
        "robot0:thdistal",
        [0.916522234669, 0.881482824833, 0.148998867877],
    ),
];

const RAMP: &[(&str, [f64; 3])] = &[
    (
        "robot0:T_palm_b0",
        [0.983608624817, 0.958592803402, 0.147013508517],
    ),
    (
        "robot0:T_fftip_tip",
        [0.898194618976, 0.824488513693, 0.233841730631],
    ),
    (
        "robot0:T_thtip_tip",
        [0.923020838081, 0.900985396042, 0.236437782496],
    ),
    (
        "robot0:T_lfmetacarpal_front",
        [1.021288623259, 0.906069551442, 0.161073157331],
    ),
    (
        "robot0:Tch_fftip",
        [0.902067445877, 0.830465461597, 0.234971910068],
    ),
    (
        "robot0:palm",
        [0.994994390974, 0.960370523744, 0.139998949414],
    ),
    (
        "robot0:ffdistal",
        [0.912229907141, 0.841332576173, 0.224080160813],
    ),
    (
        "robot0:thdistal",
        [0.926675518632, 0.915759397022, 0.215357644804],
    ),
];

fn hand() -> Model {
    let ds = Dataset::open(workspace_data_dir().join("shadow-hand")).unwrap();
    let read = |f: &str| {
        ds.read_to_string(&format!("{f}.gz"))
            .map_err(|e| Error::Format {
                file: f.into(),
                line: 0,
                reason: e.to_string(),
            })
    };
    let top = read("manipulate_block_touch_sensors.xml").unwrap();
    Model::parse_with(&top, "manipulate_block_touch_sensors.xml", read).unwrap()
}

/// Forward kinematics of the vendored Shadow Hand (includes, default
/// classes, euler/quat/axisangle frames, 24 hinges) equals MuJoCo's
/// `mj_kinematics` at q = 0 and at qₖ = 0.5 sin(0.7k + 0.3), to 1e-9 m.
#[test]
fn shadow_hand_forward_kinematics_matches_mujoco() {
    let m = hand();
    assert_eq!(m.dof(), 24);
    assert_eq!(m.touch_sensors.len(), 97);
    for (q, table) in [
        (Array1::zeros(24), ZERO),
        (
            Array1::from_shape_fn(24, |k| 0.5 * (0.7 * k as f64 + 0.3).sin()),
            RAMP,
        ),
    ] {
        let bodies = m.forward_kinematics(q.view()).unwrap();
        for (name, want) in table {
            let p = if let Ok(s) = m.site_index(name) {
                m.part_pose(&bodies, &m.sites[s])
                    .unwrap()
                    .translation
                    .vector
            } else {
                bodies[m.body_index(name).unwrap()].translation.vector
            };
            for j in 0..3 {
                assert!(
                    (p[j] - want[j]).abs() < 1e-9,
                    "{name}[{j}]: {} vs MuJoCo {}",
                    p[j],
                    want[j]
                );
            }
        }
    }
    assert!(matches!(
        m.joint_index("robot0:nope"),
        Err(Error::UnknownName { kind: "joint", .. })
    ));
    assert!(matches!(
        m.body_index("nope"),
        Err(Error::UnknownName { kind: "body", .. })
    ));
    assert!(matches!(
        m.site_index("nope"),
        Err(Error::UnknownName { kind: "site", .. })
    ));
    assert!(matches!(
        m.forward_kinematics(Array1::zeros(3).view()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(
        m.forward_kinematics(Array1::from_elem(24, f64::NAN).view())
            .is_err()
    );
}

#[test]
fn mjcf_classes_euler_and_errors() {
    // childclass default gives the joint its axis; euler in degrees (the MJCF default).
    let xml = r#"<mujoco>
      <default><default class="a"><joint axis="0 1 0" type="hinge"/></default></default>
      <worldbody>
        <body name="b" pos="1 0 0" euler="0 0 90" childclass="a">
          <joint name="j"/>
          <site name="s" pos="0 0 1"/>
          <geom name="g" type="capsule" fromto="0 0 0 0 0 2" size="0.1"/>
        </body>
      </worldbody>
      <sensor><touch name="t" site="s"/></sensor>
    </mujoco>"#;
    let m = Model::parse(xml, "t.xml").unwrap();
    assert_eq!(m.joints[0].axis, nalgebra::Vector3::new(0.0, 1.0, 0.0));
    let b = m
        .forward_kinematics(Array1::from(vec![std::f64::consts::FRAC_PI_2]).view())
        .unwrap();
    // Body rotated 90° about z: its local y is world −x; the hinge turns local z (the site) about local y onto local x = world y.
    let s = m.part_pose(&b, &m.sites[0]).unwrap().translation.vector;
    assert!(
        (s - nalgebra::Vector3::new(1.0, 1.0, 0.0)).norm() < 1e-12,
        "{s:?}"
    );
    match &m.geoms[0].shape {
        vint_pose::io::mjcf::Shape::Capsule {
            radius,
            half_length,
        } => assert!((radius - 0.1).abs() < 1e-15 && (half_length - 1.0).abs() < 1e-15),
        other => panic!("{other:?}"),
    }
    let bad = Model::parse(
        "<mujoco>\n<worldbody>\n<body pos=\"1 x 0\"/>\n</worldbody></mujoco>",
        "bad.xml",
    );
    assert!(
        matches!(bad, Err(Error::Format { ref file, line: 3, .. }) if file == "bad.xml"),
        "{bad:?}"
    );
    let unknown = Model::parse(
        "<mujoco><worldbody><body childclass=\"zz\"/></worldbody></mujoco>",
        "u.xml",
    );
    assert!(matches!(
        unknown,
        Err(Error::UnknownName { kind: "class", .. })
    ));
    let site = Model::parse(
        "<mujoco><sensor><touch site=\"none\"/></sensor></mujoco>",
        "s.xml",
    );
    assert!(matches!(site, Err(Error::UnknownName { kind: "site", .. })));
    assert!(Model::parse("<mujoco><include file=\"x.xml\"/></mujoco>", "i.xml").is_err());
}

#[test]
fn vendored_meshes_load() {
    let ds = Dataset::open(workspace_data_dir().join("meshes")).unwrap();
    let duck = parse_obj(&ds.read_to_string("duck.obj.gz").unwrap(), "duck.obj").unwrap();
    assert_eq!(duck.vertices().nrows(), 2108);
    let meshes = vint_pose::inhand::load_meshes(&ds).unwrap();
    assert_eq!(meshes.len(), 24);
    // Scales from the URDFs: every object is hand-sized (2–16 cm across).
    for (name, m) in &meshes {
        let (lo, hi) = m.bounds();
        let ext = (hi - lo).max();
        assert!((0.02..0.16).contains(&ext), "{name}: {ext}");
    }
}

#[test]
fn mesh_readers_agree_and_report_lines() {
    let obj = "# tetra\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nf 1/1 3 2\nf 1//1 2 4\nf 1 4 3\nf -3 -2 -1\n";
    let a = parse_obj(obj, "t.obj").unwrap();
    assert_eq!(a.faces().len(), 4);
    assert!((a.area() - (1.5 + 3f64.sqrt() / 2.0)).abs() < 1e-12);
    let mut stl = String::from("solid t\n");
    for f in a.faces() {
        stl.push_str("facet normal 0 0 0\nouter loop\n");
        for &i in f {
            let v = a.vertices();
            stl.push_str(&format!(
                "vertex {} {} {}\n",
                v[[i, 0]],
                v[[i, 1]],
                v[[i, 2]]
            ));
        }
        stl.push_str("endloop\nendfacet\n");
    }
    stl.push_str("endsolid t\n");
    let b = parse_stl(stl.as_bytes(), "t.stl").unwrap();
    assert_eq!(b.vertices().nrows(), 4);
    assert!((b.area() - a.area()).abs() < 1e-12);
    // Binary STL of the same triangles.
    let mut bin = vec![0u8; 80];
    bin.extend((a.faces().len() as u32).to_le_bytes());
    for f in a.faces() {
        bin.extend([0u8; 12]);
        for &i in f {
            for j in 0..3 {
                bin.extend((a.vertices()[[i, j]] as f32).to_le_bytes());
            }
        }
        bin.extend([0u8; 2]);
    }
    assert!((parse_stl(&bin, "t.stl").unwrap().area() - a.area()).abs() < 1e-6);
    let ply = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nelement face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0 1\n1 0 0 1\n1 1 0 1\n0 1 0 1\n3 0 1 2\n3 0 2 3\n";
    let c = parse_ply(ply.as_bytes(), "q.ply").unwrap();
    assert!((c.area() - 1.0).abs() < 1e-12);
    // Binary little-endian PLY: one quad as a 4-gon.
    let mut pb = b"ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty double x\nproperty double y\nproperty double z\nelement face 1\nproperty list uchar uint vertex_indices\nend_header\n".to_vec();
    for v in [
        [0.0f64, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [2.0, 2.0, 0.0],
        [0.0, 2.0, 0.0],
    ] {
        for x in v {
            pb.extend(x.to_le_bytes());
        }
    }
    pb.push(4);
    for i in 0u32..4 {
        pb.extend(i.to_le_bytes());
    }
    assert!((parse_ply(&pb, "b.ply").unwrap().area() - 4.0).abs() < 1e-12);
    // Errors name the file and line.
    assert!(matches!(
        parse_obj("v 0 0 0\nv 1 0 zz\n", "e.obj"),
        Err(Error::Format { line: 2, .. })
    ));
    assert!(matches!(
        parse_obj("v 0 0 0\nf 1 2 3\n", "e.obj"),
        Err(Error::Format { line: 2, .. })
    ));
    assert!(matches!(
        parse_stl(b"solid\nfacet\nvertex 0 0 0\nendfacet\n", "e.stl"),
        Err(Error::Format { line: 4, .. })
    ));
    assert!(matches!(
        parse_ply(b"ply\nformat ascii 1.0\nend_header\n", "e.ply"),
        Err(Error::Format { .. })
    ));
}

#[test]
fn npy_png_txt_json_round_trips() {
    let p = pose(
        rotation_from_axis_angle([0.1, -0.4, 0.2]).unwrap(),
        [0.1, 0.2, 0.3],
    )
    .unwrap();
    let back = pose_from_npy(&pose_to_npy(&p), "p.npy").unwrap();
    assert!((back.to_homogeneous() - p.to_homogeneous()).abs().max() < 1e-15);
    let a = Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64).into_dyn();
    assert_eq!(parse_npy(&to_npy(&a), "a.npy").unwrap(), a);
    // A hand-written version-1 header with '<f4' and Fortran order.
    let mut raw = b"\x93NUMPY\x01\x00".to_vec();
    let mut h = String::from("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }");
    while (10 + h.len() + 1) % 16 != 0 {
        h.push(' ');
    }
    h.push('\n');
    raw.extend((h.len() as u16).to_le_bytes());
    raw.extend(h.as_bytes());
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        raw.extend(v.to_le_bytes());
    }
    let f = parse_npy(&raw, "f.npy").unwrap();
    assert_eq!(f[[0, 1]], 3.0);
    assert_eq!(f[[1, 0]], 2.0);
    assert!(matches!(
        parse_npy(b"not npy", "x.npy"),
        Err(Error::Format { .. })
    ));
    let d = Array2::from_shape_fn((4, 5), |(i, j)| (i * 1000 + j * 7) as u16);
    assert_eq!(
        decode_depth_png(&encode_depth_png(&d).unwrap(), "d.png").unwrap(),
        d
    );
    let t = parse_matrix_txt("1 2 3\n# c\n4,5,6\n", "t.txt").unwrap();
    assert_eq!(t, ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert!(matches!(
        parse_matrix_txt("1 2\n3\n", "t.txt"),
        Err(Error::Format { line: 2, .. })
    ));
    let k = parse_intrinsics_json(
        r#"{"fx": 500, "fy": 500, "cx": 2, "cy": 1.5, "width": 5, "height": 4}"#,
        "k.json",
    )
    .unwrap();
    assert_eq!(k.width, 5);
    assert!(matches!(
        parse_intrinsics_json(
            r#"{"fx": -1, "fy": 1, "cx": 0, "cy": 0, "width": 1, "height": 1}"#,
            "k.json"
        ),
        Err(Error::BadIntrinsics { .. })
    ));
}

#[test]
fn dir_layout_reads_frames() {
    let root = std::env::temp_dir().join(format!("vint-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let o = root.join("mug");
    for d in ["6D_pose", "depth", "tactile/thumb", "joints"] {
        std::fs::create_dir_all(o.join(d)).unwrap();
    }
    std::fs::write(
        root.join("intrinsics.json"),
        r#"{"fx": 100, "fy": 100, "cx": 2, "cy": 1.5, "width": 5, "height": 4}"#,
    )
    .unwrap();
    let p = pose(
        rotation_from_axis_angle([0.0, 0.0, 0.3]).unwrap(),
        [0.0, 0.0, 0.5],
    )
    .unwrap();
    for i in [0usize, 2] {
        std::fs::write(o.join(format!("6D_pose/{i}.npy")), pose_to_npy(&p)).unwrap();
        let d = Array2::from_elem((4, 5), 500u16 + i as u16);
        std::fs::write(
            o.join(format!("depth/{i}.png")),
            encode_depth_png(&d).unwrap(),
        )
        .unwrap();
        std::fs::write(o.join(format!("tactile/thumb/{i}.txt")), "0 1\n2 3\n").unwrap();
        std::fs::write(
            o.join(format!("joints/{i}.npy")),
            to_npy(&Array1::from(vec![0.1, 0.2]).into_dyn()),
        )
        .unwrap();
    }
    let ds = DirLayout::open(&root).unwrap();
    assert_eq!(ds.len(), 2);
    let f = ds.frame(1).unwrap();
    assert_eq!((f.obj_id.as_str(), f.index), ("mug", 2));
    assert!((f.depth_m[[0, 0]] - 0.502).abs() < 1e-12);
    assert_eq!(f.taxels[0].values[[1, 1]], 3.0);
    assert_eq!(f.joints.unwrap().len(), 2);
    assert!(f.rgb.is_none());
    assert!(
        (f.obj_pose.to_homogeneous() - p.to_homogeneous())
            .abs()
            .max()
            < 1e-15
    );
    assert!(matches!(ds.frame(2), Err(Error::IndexOutOfRange { .. })));
    std::fs::write(o.join("depth/2.png"), b"junk").unwrap();
    assert!(matches!(ds.frame(1), Err(Error::Format { .. })));
    std::fs::remove_file(o.join("depth/2.png")).unwrap();
    assert!(matches!(ds.frame(1), Err(Error::Io { .. })));
    std::fs::remove_dir_all(&root).unwrap();
    assert!(DirLayout::open(&root).is_err());
}
