//! `fair-lottery`: drawing `k` winners out of `n` with prescribed inclusion
//! probabilities, the workload a user runs most, at n = 10⁴, 10⁵, 10⁶ with
//! k = n/10 (growth over three sizes).
//!
//! Inputs: claims `1 − U`, `U ~ U[0, 1)` (`seeded(7)`), `π` their
//! Broome-fair probabilities (`Selection::proportional`). Groups:
//! `inclusion_probs` (claims → π), per-draw `systematic`, `pipage`,
//! `cps_draw` (conditional Poisson, after set-up), `successive` (the official
//! code's sampler, on the claims), `successive_setup` (its key threshold),
//! `successive_once` (validation, threshold and one draw in one call),
//! `cps_setup` (calibration), and `sampford`
//! (n ≤ 10⁵: at 10⁶ a draw takes ~800 rejection trials of 10⁶ coins).
//!
//! Run with `cargo bench --bench fair_lottery`; `scripts/compare/fair_lottery.py`
//! times numpy's `Generator.choice(replace=False, p)` and `cps-sampling`
//! on the same inputs and reports the ratios recorded in `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use fair_lottery::probs::{Selection, inclusion_probs};
use fair_lottery::sampler::{
    ConditionalPoisson, FixedSizeSampler, Pipage, Sampford, Successive, Systematic,
};
use mlcore::sampling::seeded;
use rand::RngExt;

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

fn claims(n: usize) -> Vec<f64> {
    let mut rng = seeded(7);
    (0..n).map(|_| 1.0 - rng.random::<f64>()).collect()
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    g
}

fn id(n: usize) -> BenchmarkId {
    BenchmarkId::from_parameter(format!("n{n}_k{}", n / 10))
}

fn draws<S: FixedSizeSampler>(
    c: &mut Criterion,
    name: &str,
    make: impl Fn(&Selection, &[f64]) -> S,
    sizes: &[usize],
) {
    let mut g = group(c, name);
    for &n in sizes {
        let cl = claims(n);
        let sel = Selection::proportional(&cl, n / 10).expect("valid claims");
        let s = make(&sel, &cl);
        let mut rng = seeded(1);
        g.bench_function(id(n), |b| b.iter(|| black_box(s.sample(&mut rng))));
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    let mut g = group(c, "inclusion_probs");
    for n in SIZES {
        let cl = claims(n);
        g.bench_function(id(n), |b| {
            b.iter(|| black_box(inclusion_probs(&cl, n / 10).expect("valid")))
        });
    }
    g.finish();
    draws(c, "systematic", |s, _| Systematic::new(s), &SIZES);
    draws(c, "pipage", |s, _| Pipage::new(s), &SIZES);
    draws(
        c,
        "successive",
        |_, cl| Successive::new(cl, cl.len() / 10).expect("valid"),
        &SIZES,
    );
    draws(
        c,
        "cps_draw",
        |s, _| ConditionalPoisson::new(s).expect("calibrates"),
        &SIZES,
    );
    draws(
        c,
        "sampford",
        |s, _| Sampford::new(s).expect("acceptance rate fine"),
        &SIZES[..2],
    );
    let mut g = group(c, "successive_setup");
    for n in SIZES {
        let cl = claims(n);
        g.bench_function(id(n), |b| {
            b.iter(|| black_box(Successive::new(&cl, n / 10).expect("valid")))
        });
    }
    g.finish();
    // One draw straight from the borrowed claims, validation and threshold
    // included (what numpy's `choice` does per call).
    let mut g = group(c, "successive_once");
    for n in SIZES {
        let cl = claims(n);
        let mut rng = seeded(1);
        g.bench_function(id(n), |b| {
            b.iter(|| black_box(Successive::sample_once(&cl, n / 10, &mut rng).expect("valid")))
        });
    }
    g.finish();
    let mut g = group(c, "cps_setup");
    for n in SIZES {
        let sel = Selection::proportional(&claims(n), n / 10).expect("valid claims");
        g.bench_function(id(n), |b| {
            b.iter(|| black_box(ConditionalPoisson::new(&sel).expect("calibrates")))
        });
    }
    g.finish();
}

criterion_group!(fair_lottery_benches, benches);
criterion_main!(fair_lottery_benches);
