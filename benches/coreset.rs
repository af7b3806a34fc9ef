//! `coreset`: ℓp Lewis weights, and coreset-then-solve against the full solve.
//!
//! - `lewis_weights/p{p}/n{n}`: [`coreset::lewis::lewis_weights`] of a
//!   standard-normal `n × 20` matrix (`seeded(1)`), n = 2·10⁴, 6.3·10⁴ and
//!   2·10⁵ (the growth must be linear in n), p ∈ {1, 3}; tolerance 1e-10.
//! - `multiple_regression/{full,coreset}`: n = 10⁵, d = 10, m = 50, p = 1.5,
//!   Gaussian design, `B = A X₀ + t₃ noise` with 20 rows shifted by ±100
//!   (`seeded(2)`). `full` is [`coreset::regression::solve`] on all rows;
//!   `coreset` builds a strong coreset with `k_A = k_B = 1000` (residuals from
//!   a Lewis sample of 2000 rows, [`Residuals::LewisSample`]), Lewis weights
//!   included, and solves on it. Both with the default `parallel` feature on
//!   one thread (`RAYON_NUM_THREADS=1` is set by the script; criterion runs
//!   with whatever the environment gives).
//!
//! Run with `cargo bench --bench coreset`; `scripts/compare/coreset.py` runs
//! the numpy reference on the same shapes and reports the ratios recorded in
//! `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use coreset::coreset::{Budget, CoresetBuilder, Residuals};
use coreset::lewis::{LewisOptions, lewis_weights};
use coreset::regression::{IrlsOptions, solve};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::Array2;
use rand::RngExt;
use rand_distr::StudentT;

/// Rows of the Lewis-weight inputs (d = 20).
const LEWIS_SIZES: [usize; 3] = [20_000, 63_246, 200_000];

fn bench_lewis(c: &mut Criterion) {
    let mut group = c.benchmark_group("lewis_weights");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for p in [1.0, 3.0] {
        for n in LEWIS_SIZES {
            let a: Array2<f64> = standard_normal((n, 20), &mut seeded(1));
            group.bench_with_input(
                BenchmarkId::new(format!("p{p}"), format!("n{n}")),
                &a,
                |b, a| {
                    b.iter(|| {
                        black_box(lewis_weights(a.view(), p, &LewisOptions::default()).unwrap())
                    })
                },
            );
        }
    }
    group.finish();
}

/// The regression workload: `(A, B)` with n = 10⁵, d = 10, m = 50.
pub fn regression_data() -> (Array2<f64>, Array2<f64>) {
    let (n, d, m) = (100_000, 10, 50);
    let mut rng = seeded(2);
    let a: Array2<f64> = standard_normal((n, d), &mut rng);
    let x0: Array2<f64> = standard_normal((d, m), &mut rng);
    let t = StudentT::new(3.0).unwrap();
    let mut b = a.dot(&x0) + Array2::from_shape_simple_fn((n, m), || rng.sample(t));
    for k in 0..20 {
        let i = (k * 4999 + 7) % n;
        b.row_mut(i)
            .mapv_inplace(|v| v + if k % 2 == 0 { 100.0 } else { -100.0 });
    }
    (a, b)
}

fn bench_regression(c: &mut Criterion) {
    let (a, b) = regression_data();
    let p = 1.5;
    let opts = IrlsOptions::default();
    let mut group = c.benchmark_group("multiple_regression");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    group.bench_function("full", |bch| {
        bch.iter(|| black_box(solve(a.view(), b.view(), p, None, &opts).unwrap()))
    });
    let builder = CoresetBuilder::new(p)
        .budget(Budget::Rows {
            k_a: 1000.0,
            k_b: 1000.0,
        })
        .residuals(Residuals::LewisSample { rows: 2000.0 });
    group.bench_function("coreset", |bch| {
        bch.iter(|| {
            let c = builder.build(a.view(), b.view(), &mut seeded(3)).unwrap();
            black_box(c.solve(a.view(), b.view(), &opts).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench_lewis, bench_regression);
criterion_main!(benches);
