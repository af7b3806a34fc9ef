//! `matrix-completion`: the per-step cost of training (objective + closed-form
//! gradient on the observed entries), and soft-impute.
//!
//! Inputs (`seeded(7)`): a rank-5 latent matrix, uniform sampling, ratings
//! `1 + 4·sigmoid(1.5 g)` with noise 0.1. Step sizes: MovieLens-100k shape
//! (943×1682, N = 80 000) and two smaller ones with m, n halved and N quartered
//! each time (236×421, N = 5 000; 472×841, N = 20 000), width k = 32, for
//! L = 2, L = 3, L = 3 weighted and FRMC at L = 3. Soft-impute: 300×300, 20 %
//! observed, λ = 5, 20 iterations (one dense SVD each).
//!
//! Run with `cargo bench --bench matrix_completion`;
//! `scripts/compare/matrix_completion.py` times the numpy/scipy reference of the
//! same step, Surprise's SVD epoch and fancyimpute, and reports the ratios
//! recorded in `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use matrix_completion::link::Link;
use matrix_completion::model::{DeepMf, PenaltyWeights};
use matrix_completion::schatten::{SoftImputeOptions, soft_impute};
use matrix_completion::synthetic::{Sampling, TrueLink, low_rank, sample};
use matrix_completion::train::LinkConfig;
use mlcore::sampling::seeded;

const SIZES: [(usize, usize, usize); 3] =
    [(236, 421, 5_000), (472, 841, 20_000), (943, 1682, 80_000)];
const WIDTH: usize = 32;

fn step(c: &mut Criterion) {
    let mut group = c.benchmark_group("mc_step");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (m, n, nobs) in SIZES {
        let mut rng = seeded(7);
        let g = low_rank(m, n, 5, &mut rng).expect("valid sizes");
        let obs = sample(
            &g,
            TrueLink::RATINGS,
            Sampling::Uniform,
            nobs,
            0.1,
            &mut rng,
        )
        .expect("valid sample");
        let w = PenaltyWeights::smoothed(&obs, 0.5).expect("valid ζ");
        let frmc = LinkConfig::FRMC_DEFAULT.build().expect("valid link");
        let cases: [(&str, usize, Link, bool); 4] = [
            ("L2", 2, Link::Identity(Default::default()), false),
            ("L3", 3, Link::Identity(Default::default()), false),
            ("L3w", 3, Link::Identity(Default::default()), true),
            ("FRMC_L3", 3, frmc, false),
        ];
        for (name, depth, link, weighted) in cases {
            let model = DeepMf::random(m, n, depth, WIDTH, 0.1, link, obs.mean(), &mut rng)
                .expect("valid model");
            let wref = weighted.then_some(&w);
            group.bench_with_input(
                BenchmarkId::new(name, format!("{m}x{n}_N{nobs}")),
                &(),
                |b, _| {
                    b.iter(|| {
                        black_box(
                            model
                                .objective_and_gradient(&obs, 1e-4, wref)
                                .expect("valid input"),
                        )
                    })
                },
            );
        }
    }
    group.finish();
}

fn soft(c: &mut Criterion) {
    let mut group = c.benchmark_group("mc_soft_impute");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let mut rng = seeded(7);
    let g = low_rank(300, 300, 5, &mut rng).expect("valid sizes");
    let obs = sample(
        &g,
        TrueLink::Identity,
        Sampling::Uniform,
        18_000,
        0.1,
        &mut rng,
    )
    .expect("valid sample");
    let opts = SoftImputeOptions {
        max_iters: 20,
        tol: 1e-300,
        max_rank: None,
    };
    group.bench_function("300x300_20iters", |b| {
        b.iter(|| black_box(soft_impute(&obs, 5.0, &opts).expect("valid input")))
    });
    group.finish();
}

criterion_group!(benches, step, soft);
criterion_main!(benches);
