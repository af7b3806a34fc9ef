//! PerceptAnon's two hot loops, single-threaded: Kendall τ-b by Knight's
//! O(n log n) algorithm at n = 10⁴, 10⁵, 10⁶ (ties on a 1..=10 grid in y,
//! like mean human scores), and SSIM (standard preset, Gaussian window 11)
//! on grey images of side 256, 512 and 1024 (O(h·w·11)).
//!
//! Run with `cargo bench --bench perceptanon`; `scripts/compare/perceptanon.py`
//! runs it and scipy's `kendalltau` / scikit-image's `structural_similarity`
//! on the same inputs (both sides rebuild them from the same 31-bit LCG),
//! and the ratios are in `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ndarray::{Array1, Array2};
use perceptanon::corr::kendall_tau_b;
use perceptanon::image::Image;
use perceptanon::iqa::{SsimParams, ssim};
use perceptanon::simulate::reference_lcg as lcg;

/// x continuous, y = floor(10·(0.6x + 0.4u)) + 1 (ties).
fn pairs(n: usize) -> (Array1<f64>, Array1<f64>) {
    let u = lcg(1, 2 * n);
    let x: Vec<f64> = u[..n].to_vec();
    let y: Vec<f64> = (0..n)
        .map(|i| (10.0 * (0.6 * x[i] + 0.4 * u[n + i])).floor() + 1.0)
        .collect();
    (Array1::from(x), Array1::from(y))
}

/// Two side × side grey images: an LCG field and the same field with its
/// centre quarter zeroed.
fn images(side: usize) -> (Image, Image) {
    let u = lcg(2, side * side);
    let a = Array2::from_shape_fn((side, side), |(i, j)| u[i * side + j]);
    let mut b = a.clone();
    b.slice_mut(ndarray::s![side / 4..3 * side / 4, side / 4..3 * side / 4])
        .fill(0.0);
    (
        Image::grey(a).expect("finite"),
        Image::grey(b).expect("finite"),
    )
}

fn kendall(c: &mut Criterion) {
    let mut group = c.benchmark_group("perceptanon_kendall_tau_b");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let (x, y) = pairs(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &(x, y), |b, (x, y)| {
            b.iter(|| {
                kendall_tau_b(black_box(x.view()), black_box(y.view())).expect("valid input")
            });
        });
    }
    group.finish();
}

fn ssim_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perceptanon_ssim");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let params = SsimParams::standard();
    for side in [256usize, 512, 1024] {
        let (a, b) = images(side);
        group.bench_with_input(
            BenchmarkId::from_parameter(side),
            &(a, b),
            |bench, (a, b)| {
                bench.iter(|| ssim(black_box(a), black_box(b), &params).expect("valid input"));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, kendall, ssim_bench);
criterion_main!(benches);
