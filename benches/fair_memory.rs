//! Tabular FairQCM on the Donut (N = 3, presence 0.8, the official tabular
//! setting): time per training episode with and without counterfactual
//! memories (official window, offset 0, width 2), for T = 6, 12, 18 (growth:
//! O(T) steps per episode, O(T·2ᴺ) counterfactuals per episode at most).
//!
//! The learner is built once per size and trained continuously; each
//! iteration is one episode. Run with `cargo bench --bench fair_memory`;
//! `scripts/compare/fair_memory.py` times the official `ql.py` itself (CPU
//! time, median of 5) against the example `fair_memory_official` on the
//! T = 12 setting and reports the ratios recorded in `docs/perf.md`; this
//! bench gives the growth in T.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use fair_memory::{CounterfactualSet, Donut, DonutConfig, FairQcm, QcmParams};
use mlcore::sampling::seeded;

const HORIZONS: [usize; 3] = [6, 12, 18];

fn bench(c: &mut Criterion) {
    for (name, cf) in [
        ("episode_no_cf", CounterfactualSet::None),
        (
            "episode_window_cf",
            CounterfactualSet::Window {
                offset: 0,
                width: 2,
            },
        ),
    ] {
        let mut group = c.benchmark_group(name);
        group
            .sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        for t in HORIZONS {
            let env = Donut::new(DonutConfig {
                horizon: t,
                ..DonutConfig::default()
            })
            .expect("valid Donut");
            let params = QcmParams {
                counterfactuals: cf,
                ..QcmParams::default()
            };
            let mut learner = FairQcm::new(&env, params).expect("valid learner");
            let mut rng = seeded(7);
            group.bench_function(BenchmarkId::from_parameter(format!("T{t}")), |b| {
                b.iter(|| black_box(learner.run_episode(&mut rng)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
