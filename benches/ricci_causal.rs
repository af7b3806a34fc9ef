//! Exact Ollivier–Ricci curvature of every edge in `ricci-causal`, the
//! workload a user runs most: G(n, m) with m = 4n at n = 250, 500, 1000
//! (growth) and G(2500, 10⁴), α = 0.5, GRC's defaults, one thread
//! (`parallel: false`), distances included; the same on weighted G(n, 4n)
//! (lengths U(0.5, 2), exact transport on the limited distance table) with
//! one Ricci-flow iteration per size; plus one Ricci-flow iteration on the
//! karate club.
//!
//! Run with `cargo bench --bench ricci_causal`; `scripts/compare/ricci_causal.py`
//! times GraphRicciCurvature (OTD, proc = 1) on identical graphs through the
//! crate's `curvature_csv` example and reports the ratios in docs/perf.md.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::seeded;
use rand::RngExt;
use ricci_causal::curvature::{OllivierConfig, ollivier};
use ricci_causal::flow::RicciFlow;
use ricci_causal::generators::{gnm, karate};
use ricci_causal::graph::WeightedGraph;

const SIZES: [(usize, usize); 4] = [(250, 1000), (500, 2000), (1000, 4000), (2500, 10_000)];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ollivier_gnm");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let cfg = OllivierConfig {
        parallel: false,
        ..Default::default()
    };
    for (n, m) in SIZES {
        let g = gnm(n, m, &mut seeded(7)).expect("valid G(n, m)");
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("n{n}_m{m}")),
            &g,
            |b, g| b.iter(|| black_box(ollivier(g, &cfg).expect("curvature"))),
        );
    }
    group.finish();

    let weighted = |n: usize, m: usize| -> WeightedGraph {
        let g = gnm(n, m, &mut seeded(7)).expect("valid G(n, m)");
        let mut rng = seeded(8);
        let w: Vec<f64> = (0..m).map(|_| rng.random_range(0.5..2.0)).collect();
        g.with_weights(&w).expect("positive weights")
    };
    let mut group = c.benchmark_group("ollivier_weighted_gnm");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let flow1 = RicciFlow {
        iterations: 1,
        curvature: cfg,
        ..Default::default()
    };
    for (n, m) in SIZES {
        let g = weighted(n, m);
        group.bench_with_input(BenchmarkId::new("orc", format!("n{n}_m{m}")), &g, |b, g| {
            b.iter(|| black_box(ollivier(g, &cfg).expect("curvature")))
        });
        group.bench_with_input(
            BenchmarkId::new("flow_1_iteration", format!("n{n}_m{m}")),
            &g,
            |b, g| b.iter(|| black_box(flow1.run(g).expect("flow"))),
        );
    }
    group.finish();

    let mut group = c.benchmark_group("ricci_flow");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(3));
    let g = karate();
    let flow = RicciFlow {
        iterations: 1,
        curvature: cfg,
        ..Default::default()
    };
    group.bench_function("karate_1_iteration", |b| {
        b.iter(|| black_box(flow.run(&g).expect("flow")))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
