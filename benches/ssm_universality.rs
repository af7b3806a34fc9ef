//! `ssm-universality`: the diagonal scan and the Vandermonde condition number.
//!
//! - `states/N{n}/L{l}`: [`DiagLinearRnn::states`] of one input channel
//!   (`M = 1`), `N` eigenvalues from the LRU ring [0.9, 0.999] (`seeded(1)`),
//!   standard-normal input (`seeded(2)`), N = 256 and L ∈ {1024, 4096, 16384}
//!   (growth must be linear in L).
//! - `cond2/L{l}`: [`cond2`] of the `L × L` Vandermonde matrix of the same
//!   ring, L ∈ {32, 64, 128} (growth cubic).
//!
//! Run with `cargo bench --bench ssm_universality`;
//! `scripts/compare/ssm_universality.py` runs the NumPy loop, `np.linalg.cond`
//! and (if installed) `lrnnx` on the same shapes; ratios in `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::{seeded, standard_normal};
use ssm_universality::rnn::DiagLinearRnn;
use ssm_universality::spectrum::Spectrum;
use ssm_universality::vandermonde::cond2;

fn ring() -> Spectrum {
    Spectrum::LruRing {
        r_min: 0.9,
        r_max: 0.999,
        max_phase: std::f64::consts::TAU,
    }
}

fn bench_states(c: &mut Criterion) {
    let mut group = c.benchmark_group("states");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let n = 256;
    let rnn = DiagLinearRnn::from_spectrum(&ring(), n, true, &mut seeded(1)).expect("valid ring");
    for l in [1024usize, 4096, 16384] {
        let v = standard_normal((l, 1), &mut seeded(2));
        group.bench_with_input(
            BenchmarkId::new(format!("N{n}"), format!("L{l}")),
            &l,
            |b, _| b.iter(|| black_box(rnn.states(v.view()).expect("finite"))),
        );
    }
    group.finish();
}

fn bench_cond(c: &mut Criterion) {
    let mut group = c.benchmark_group("cond2");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for l in [32usize, 64, 128] {
        let lambda = ring().sample(l, &mut seeded(1)).expect("valid ring");
        group.bench_with_input(BenchmarkId::from_parameter(format!("L{l}")), &l, |b, &l| {
            b.iter(|| black_box(cond2(&lambda, l).expect("finite")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_states, bench_cond);
criterion_main!(benches);
