//! `vint-pose` workloads: ADD-S of 1,000 pose pairs for 500 / 1k / 2k model
//! points (k-d tree), point-to-point ICP on 2.5k / 5k / 10k points (target
//! tree built inside the timed loop), and one synthetic in-hand frame
//! (render, back-project, both ICPs, metrics). One thread.
//!
//! Run with `cargo bench --bench vint_pose`; `scripts/compare/vint_pose.py`
//! times open3d's `registration_icp` and a NumPy brute-force ADD-S on the same
//! kind of input and records the ratios in docs/perf.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::data::{Dataset, workspace_data_dir};
use mlcore::sampling::seeded;
use nalgebra::Point3;
use ndarray::Array2;
use vint_pose::inhand::{InHandConfig, ObjectModel, ShadowHand, load_meshes, run_frame};
use vint_pose::metrics::AddS;
use vint_pose::register::{IcpParams, IcpTarget, icp};
use vint_pose::se3::{Pose, perturb, random_unit_vector};

fn shape(n: usize, seed: u64) -> Array2<f64> {
    let mut rng = seeded(seed);
    let mut out = Array2::zeros((n, 3));
    for i in 0..n {
        let u = random_unit_vector(&mut rng);
        let bump = 1.0
            + 0.6
                * u.dot(&nalgebra::Vector3::new(1.0, 0.5, 0.3).normalize())
                    .max(0.0)
                    .powi(3);
        for (j, a) in [0.08, 0.04, 0.02].into_iter().enumerate() {
            out[[i, j]] = a * u[j] * bump;
        }
    }
    out
}

fn moved(x: &Array2<f64>, t: &Pose) -> Array2<f64> {
    Array2::from_shape_fn(x.dim(), |(i, j)| {
        (t * Point3::new(x[[i, 0]], x[[i, 1]], x[[i, 2]]))[j]
    })
}

fn bench(c: &mut Criterion) {
    let mut rng = seeded(1);
    let pairs: Vec<(Pose, Pose)> = (0..1000)
        .map(|_| {
            let g = perturb(&Pose::identity(), 180.0, 0.1, &mut rng).expect("pose");
            (g, perturb(&g, 30.0, 0.02, &mut rng).expect("pose"))
        })
        .collect();
    let mut group = c.benchmark_group("add_s_1000_poses");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for m in [500usize, 1000, 2000] {
        let model = shape(m, 2);
        group.bench_with_input(BenchmarkId::from_parameter(m), &model, |b, model| {
            b.iter(|| {
                let a = AddS::new(model.view()).expect("model");
                black_box(
                    pairs
                        .iter()
                        .map(|(g, e)| a.error(g, e).expect("pose"))
                        .sum::<f64>(),
                )
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("icp_p2p");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let truth = perturb(&Pose::identity(), 12.0, 0.015, &mut seeded(3)).expect("pose");
    let params = IcpParams {
        max_iterations: 50,
        max_correspondence_distance: 0.05,
        trim: 1.0,
        point_to_plane: false,
        tolerance: 1e-12,
    };
    for n in [2500usize, 5000, 10_000] {
        let dst = shape(n, 4);
        let src = moved(&dst, &truth.inverse());
        group.bench_with_input(
            BenchmarkId::from_parameter(n),
            &(src, dst),
            |b, (src, dst)| {
                b.iter(|| {
                    let t = IcpTarget::new(dst.view(), 10).expect("target");
                    black_box(icp(src.view(), &t, &Pose::identity(), &params, None).expect("icp"))
                })
            },
        );
    }
    group.finish();
    let data = workspace_data_dir();
    let hand = ShadowHand::from_dataset(&Dataset::open(data.join("shadow-hand")).expect("data"))
        .expect("hand");
    let (name, mesh) = load_meshes(&Dataset::open(data.join("meshes")).expect("data"))
        .expect("meshes")
        .remove(0);
    let cfg = InHandConfig::default();
    let obj = ObjectModel::new(
        &name,
        mesh,
        cfg.model_points,
        cfg.surface_samples,
        &mut seeded(5),
    )
    .expect("object");
    let mut rng = seeded(6);
    c.bench_function("inhand_frame_duck", |b| {
        b.iter(|| black_box(run_frame(&hand, &obj, &cfg, &mut rng).expect("frame")))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
