//! The Rust side of `scripts/compare/vint_pose.py`: reads the inputs the
//! script wrote (`.npy`), runs ICP (point-to-point and point-to-plane) and
//! ADD-S, and prints one JSON line with the poses and single-thread timings.
//!
//! `cargo run --release --example vint_pose_compare -- <dir>`

use ndarray::{Array2, Ix2, Ix3};
use std::time::Instant;
use vint_pose::io::npy::parse_npy;
use vint_pose::metrics::AddS;
use vint_pose::register::{IcpParams, IcpTarget, icp};
use vint_pose::se3::{Pose, pose_from_array, pose_to_array};

fn load(
    dir: &std::path::Path,
    name: &str,
) -> Result<ndarray::ArrayD<f64>, Box<dyn std::error::Error>> {
    let p = dir.join(name);
    Ok(parse_npy(&std::fs::read(&p)?, &p.display().to_string())?)
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (out.expect("reps ≥ 1"), best)
}

fn flat(p: &Pose) -> Vec<f64> {
    pose_to_array(p).iter().copied().collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: vint_pose_compare <dir>")?,
    );
    let params = |p2pl: bool, dist: f64| IcpParams {
        max_iterations: 50,
        max_correspondence_distance: dist,
        trim: 1.0,
        point_to_plane: p2pl,
        tolerance: 1e-12,
    };
    let mut out = serde_json::Map::new();
    // 1. Agreement on the 500-point shape.
    let src = load(&dir, "src500.npy")?.into_dimensionality::<Ix2>()?;
    let dst = load(&dir, "dst500.npy")?.into_dimensionality::<Ix2>()?;
    let target = IcpTarget::new(dst.view(), 10)?;
    for (name, p2pl) in [("icp500_p2p", false), ("icp500_p2pl", true)] {
        let r = icp(
            src.view(),
            &target,
            &Pose::identity(),
            &params(p2pl, 0.05),
            None,
        )?;
        out.insert(
            name.into(),
            serde_json::json!({"pose": flat(&r.pose), "rmse": r.rmse, "iterations": r.iterations}),
        );
    }
    // 2. ICP on n points (timing growth).
    for n in [2_500usize, 5_000, 10_000] {
        let s = load(&dir, &format!("src{n}.npy"))?.into_dimensionality::<Ix2>()?;
        let d = load(&dir, &format!("dst{n}.npy"))?.into_dimensionality::<Ix2>()?;
        let (r, secs) = best_of(3, || {
            let t = IcpTarget::new(d.view(), 10).expect("target");
            icp(s.view(), &t, &Pose::identity(), &params(false, 0.05), None).expect("icp")
        });
        out.insert(
            format!("icp{n}_p2p"),
            serde_json::json!({"pose": flat(&r.pose), "seconds": secs, "iterations": r.iterations}),
        );
    }
    // 3. ADD-S for m model points × the given poses.
    for m in [500usize, 1_000, 2_000] {
        let model: Array2<f64> =
            load(&dir, &format!("model{m}.npy"))?.into_dimensionality::<Ix2>()?;
        let gts = load(&dir, "gt_poses.npy")?.into_dimensionality::<Ix3>()?;
        let ests = load(&dir, "est_poses.npy")?.into_dimensionality::<Ix3>()?;
        let mut pairs = Vec::new();
        for k in 0..gts.shape()[0] {
            pairs.push((
                pose_from_array(gts.index_axis(ndarray::Axis(0), k))?,
                pose_from_array(ests.index_axis(ndarray::Axis(0), k))?,
            ));
        }
        let (vals, secs) = best_of(3, || {
            let a = AddS::new(model.view()).expect("model");
            pairs
                .iter()
                .map(|(g, e)| a.error(g, e).expect("pose"))
                .collect::<Vec<f64>>()
        });
        out.insert(
            format!("adds{m}"),
            serde_json::json!({"values": vals, "seconds": secs}),
        );
    }
    println!("{}", serde_json::Value::Object(out));
    Ok(())
}
