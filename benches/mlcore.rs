//! Dense linear algebra in `mlcore` (faer behind `ndarray`), single-threaded.
//!
//! Measures [`mlcore::linalg::cholesky`], [`mlcore::linalg::svd`] (thin, so
//! full for a square input) and [`mlcore::linalg::eigh`] at n = 100, 400 and
//! 1000, wrapper included (input checks, the copy of the result into
//! `ndarray`). Cholesky and eigh factor the SPD matrix `A = B Bᵀ / n + I`,
//! svd a standard-normal matrix; `B` and that matrix come from `seeded(42)`.
//! All three are O(n³).
//!
//! Run with `cargo bench --bench mlcore`. The side-by-side comparison with
//! numpy on the same workloads is `scripts/compare/mlcore.py`, which runs this
//! benchmark and reads criterion's estimates; the ratios are in `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::linalg;
use mlcore::sampling::{seeded, standard_normal};
use ndarray::Array2;

/// The matrix sizes n (inputs are n × n).
const SIZES: [usize; 3] = [100, 400, 1000];

/// A standard-normal n × n matrix from `seeded(42)`.
fn gaussian(n: usize) -> Array2<f64> {
    standard_normal((n, n), &mut seeded(42))
}

/// The SPD matrix `B Bᵀ / n + I`, with `B` from [`gaussian`].
fn spd(n: usize) -> Array2<f64> {
    let b = gaussian(n);
    b.dot(&b.t()) / n as f64 + Array2::<f64>::eye(n)
}

/// Benchmarks `op` on `input(n)` for every n in [`SIZES`], in group `name`.
fn bench_op<T>(
    c: &mut Criterion,
    name: &str,
    input: fn(usize) -> Array2<f64>,
    op: impl Fn(&Array2<f64>) -> T,
) {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for n in SIZES {
        let a = input(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &a, |bench, a| {
            bench.iter(|| op(black_box(a)));
        });
    }
    group.finish();
}

fn cholesky(c: &mut Criterion) {
    bench_op(c, "cholesky", spd, |a| {
        linalg::cholesky(a.view()).expect("A = B Bᵀ/n + I is positive definite")
    });
}

fn svd(c: &mut Criterion) {
    bench_op(c, "svd", gaussian, |a| {
        linalg::svd(a.view()).expect("svd of a finite matrix")
    });
}

fn eigh(c: &mut Criterion) {
    bench_op(c, "eigh", spd, |a| {
        linalg::eigh(a.view()).expect("eigh of a finite symmetric matrix")
    });
}

criterion_group!(benches, cholesky, svd, eigh);
criterion_main!(benches);
