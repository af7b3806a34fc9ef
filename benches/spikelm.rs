//! spikelm: (1) the spike-sparse product `S·W` (accumulate ±W rows, one
//! multiply by α per output) against the dense GEMM (ndarray's `dot`,
//! matrixmultiply) for 128 rows and square weights of 128, 256 and 768 at
//! firing rates 0.05, 0.2 and 0.5; (2) the elastic bi-spiking neuron at
//! T = 4 on 128×768 inputs (candle forward, values on the host) against the
//! plain-slice reference.

use candle_core::{Device, Tensor};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::seeded;
use ndarray::Array2;
use rand::RngExt;
use spikelm::neuron::reference_forward;
use spikelm::sparse::SpikeMatrix;
use spikelm::{AlphaPolicy, ElasticBiSpike, NeuronConfig};

fn bench(c: &mut Criterion) {
    let mut rng = seeded(26);
    let mut g = c.benchmark_group("spikelm_sparse_vs_dense");
    g.sample_size(20);
    for d in [128usize, 256, 768] {
        let w = Array2::from_shape_fn((d, d), |_| rng.random_range(-1.0f32..1.0));
        for rate in [0.05f64, 0.2, 0.5] {
            let s = Array2::from_shape_fn((128, d), |_| {
                if rng.random_bool(rate) {
                    if rng.random_bool(0.5) { 0.5f32 } else { -0.5 }
                } else {
                    0.0
                }
            });
            let m = SpikeMatrix::from_dense(s.view(), 0.5).unwrap();
            let id = format!("d{d}_rate{rate}");
            g.bench_function(BenchmarkId::new("sparse", &id), |b| {
                b.iter(|| m.matmul(w.view()).unwrap())
            });
            g.bench_function(BenchmarkId::new("dense", &id), |b| b.iter(|| s.dot(&w)));
        }
    }
    g.finish();

    let mut g = c.benchmark_group("spikelm_neuron_t4_128x768");
    g.sample_size(20);
    let x: Vec<f32> = (0..4 * 128 * 768)
        .map(|_| rng.random_range(-2.0f32..2.0))
        .collect();
    let neuron =
        ElasticBiSpike::new(NeuronConfig::default(), AlphaPolicy::Fixed(vec![1.0; 4])).unwrap();
    let xt = Tensor::from_vec(x.clone(), (4, 128, 768), &Device::Cpu).unwrap();
    g.bench_function("candle", |b| b.iter(|| neuron.forward(&xt).unwrap()));
    g.bench_function("reference", |b| {
        b.iter(|| reference_forward(&NeuronConfig::default(), &[1.0; 4], &x).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
