//! nncore: one AdamW training step (forward, backward, update) of an MLP
//! 64→h→10 on batches of 32, h ∈ {64, 256, 1024}; each iteration is one
//! epoch of 10 steps through `nncore::train::fit`. Compared with PyTorch by
//! `scripts/compare/nncore.py` (run with RAYON_NUM_THREADS=1).

use candle_core::{Device, Tensor};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::seeded;
use nncore::models::Mlp;
use nncore::params::ParamSet;
use nncore::train::{TrainConfig, fit};
use rand::RngExt;

const STEPS: usize = 10;
const BATCH: usize = 32;

fn bench(c: &mut Criterion) {
    let dev = Device::Cpu;
    let n = STEPS * BATCH;
    let mut rng = seeded(0);
    let xs: Vec<f32> = (0..n * 64).map(|_| rng.random::<f32>()).collect();
    let ys: Vec<u32> = (0..n).map(|_| rng.random_range(0..10u32)).collect();
    let x = Tensor::from_vec(xs, (n, 64), &dev).unwrap();
    let y = Tensor::from_vec(ys, n, &dev).unwrap();
    let mut group = c.benchmark_group("nncore_train_step");
    for h in [64usize, 256, 1024] {
        let mut params = ParamSet::new();
        let mlp = Mlp::new(&[64, h, 10], "fc", &mut params, &mut rng, &dev).unwrap();
        let config = TrainConfig {
            epochs: 1,
            batch_size: BATCH,
            progress: false,
            ..Default::default()
        };
        group.bench_function(BenchmarkId::from_parameter(format!("h{h}")), |b| {
            b.iter(|| {
                fit(
                    &params,
                    n,
                    &config,
                    &mut rng,
                    |idx| {
                        let idx = Tensor::from_vec(
                            idx.iter().map(|&i| i as u32).collect::<Vec<_>>(),
                            idx.len(),
                            &dev,
                        )?;
                        let logits = mlp.forward(&x.index_select(&idx, 0)?)?;
                        candle_nn::loss::cross_entropy(&logits, &y.index_select(&idx, 0)?)
                    },
                    None,
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
