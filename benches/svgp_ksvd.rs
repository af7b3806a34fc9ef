//! svgp-ksvd: the inference forward pass of one attention head (batch 1,
//! p = 32, f64) at N ∈ {64, 256, 1024} tokens: the KEP-SVGP head
//! (s = 10, m = 60 landmarks; posterior mean and deterministic variance),
//! softmax attention, and a dense SGPA-like SVGP head with the keys as
//! inducing points (N×N kernel, Cholesky solve, O(N³)). Expected growth:
//! linear, quadratic, cubic in N.

use candle_core::{DType, Device, Tensor};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::{WorkspaceRng, seeded};
use ndarray::Array2;
use nncore::params::ParamSet;
use rand::RngExt;
use svgp_ksvd::attention::{KepConfig, KepSvgpAttention, SoftmaxAttention};

fn bench(c: &mut Criterion) {
    let mut rng = seeded(0);
    let dev = Device::Cpu;
    let p = 32;
    let mut group = c.benchmark_group("svgp_ksvd_head");
    group.sample_size(10);
    for n in [64usize, 256, 1024] {
        let x = Tensor::randn(0.0f64, 1.0, (1, n, p), &dev).unwrap();
        let cfg = KepConfig {
            s: 10,
            rank_multi: 6,
            ..KepConfig::default()
        };
        let mut params = ParamSet::new();
        let kep =
            KepSvgpAttention::new(&mut params, "k", (p, 1, n), cfg, DType::F64, &mut rng, &dev)
                .unwrap();
        let soft =
            SoftmaxAttention::new(&mut params, "a", p, 1, DType::F64, &mut rng, &dev).unwrap();
        group.bench_function(BenchmarkId::new("kep_svgp", n), |b| {
            b.iter(|| kep.forward(&x, None::<&mut WorkspaceRng>).unwrap())
        });
        group.bench_function(BenchmarkId::new("softmax", n), |b| {
            b.iter(|| soft.forward(&x).unwrap())
        });
        let phi = Array2::from_shape_fn((n, p), |_| rng.random_range(-1.0..1.0));
        let phi = svgp_ksvd::ksvd::normalize_rows(phi.view()).unwrap();
        group.bench_function(BenchmarkId::new("dense_svgp", n), |b| {
            b.iter(|| {
                let mut kuu = phi.dot(&phi.t());
                kuu.diag_mut().mapv_inplace(|v| v + 1e-2);
                let kfu = phi.dot(&phi.t());
                let a = mlcore::linalg::solve_spd(kuu.view(), kfu.t()).unwrap();
                // Posterior variance diag(K_ff − K_fu K_uu⁻¹ K_uf).
                (0..n)
                    .map(|i| 1.0 - kfu.row(i).dot(&a.column(i)))
                    .sum::<f64>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
