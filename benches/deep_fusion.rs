//! deep-fusion: the forward pass of a network fused from two MLPs
//! 64→w→w→10 (f32, batch 64), w ∈ {64, 256, 1024}: dense fused matrices
//! (`Execution::Dense`), block-diagonal execution while the cross blocks are
//! frozen at zero (`Execution::Auto`), and the two small networks run
//! separately and averaged. Compared with NumPy by
//! `scripts/compare/deep_fusion.py` (run with RAYON_NUM_THREADS=1).

use candle_core::{DType, Tensor};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use deep_fusion::train::{BlockMlp, Execution};
use deep_fusion::{Activation, FuseOptions, Mlp, fuse};
use mlcore::sampling::seeded;
use rand::RngExt;

fn bench(c: &mut Criterion) {
    // As the runner does: keep candle's freed buffers (no page faults per call).
    nncore::alloc::retain_freed_memory();
    let mut rng = seeded(0);
    let xs: Vec<f32> = (0..64 * 64).map(|_| rng.random::<f32>()).collect();
    let x = Tensor::from_vec(xs, (64, 64), &candle_core::Device::Cpu).unwrap();
    let mut group = c.benchmark_group("deep_fusion_forward");
    for w in [64usize, 256, 1024] {
        let f = Mlp::random(&[64, w, w, 10], Activation::Relu, DType::F32, &mut rng).unwrap();
        let g = Mlp::random(&[64, w, w, 10], Activation::Relu, DType::F32, &mut rng).unwrap();
        let opts = FuseOptions {
            freeze_cross: true,
            ..Default::default()
        };
        let fused = fuse(&f, &g, &opts, &mut rng).unwrap();
        let net = BlockMlp::from_fused(&fused).unwrap();
        let dense = fused.mlp.clone();
        group.bench_function(BenchmarkId::new("dense", w), |b| {
            b.iter(|| dense.forward(&x).unwrap())
        });
        group.bench_function(BenchmarkId::new("block_diagonal", w), |b| {
            b.iter(|| net.forward(&x, Execution::Auto).unwrap())
        });
        group.bench_function(BenchmarkId::new("two_separate", w), |b| {
            b.iter(|| ((f.forward(&x).unwrap() + g.forward(&x).unwrap()).unwrap() * 0.5).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
