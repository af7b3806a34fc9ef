//! Split-conformal RAPS in `conformal-sets`: calibrate on n rows and predict
//! sets for n more, K classes, the workload a user runs most.
//!
//! Inputs: probabilities from the synthetic calibrated classifier
//! (`Dirichlet(0.1·1_K)`, `seeded(7)`); RAPS with the trial's settings
//! (λ = 0.5, k_reg = 5, randomised, no empty sets) at α = 0.1, and LAC.
//! Sizes: (n, K) = (10⁴, 100) and (10⁴, 1000), plus (10³, 1000) for growth.
//!
//! Run with `cargo bench --bench conformal_sets`; `scripts/compare/conformal_sets.py`
//! runs MAPIE on the same arrays (identical sets) and reports the ratios
//! recorded in `docs/perf.md`.

use std::hint::black_box;
use std::time::Duration;

use conformal_sets::calibrate::{QuantileRule, SplitConformal};
use conformal_sets::score::{ConformityScore, Lac, Raps};
use conformal_sets::synthetic::dirichlet_classifier;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::seeded;

const SIZES: [(usize, usize); 3] = [(1_000, 1_000), (10_000, 100), (10_000, 1_000)];

fn bench_score<S: ConformityScore + Clone>(c: &mut Criterion, name: &str, score: S) {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (n, k) in SIZES {
        let mut rng = seeded(7);
        let (pc, yc) = dirichlet_classifier(n, k, 0.1, &mut rng).expect("valid parameters");
        let (pt, _) = dirichlet_classifier(n, k, 0.1, &mut rng).expect("valid parameters");
        let cal = SplitConformal::new(score.clone(), 0.1, QuantileRule::FiniteSample)
            .expect("valid alpha");
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("n{n}_K{k}")),
            &(pc, yc, pt),
            |b, (pc, yc, pt)| {
                b.iter(|| {
                    let mut rng = seeded(1);
                    let fitted = cal.calibrate(pc.view(), yc, &mut rng).expect("calibrates");
                    black_box(fitted.predict(pt.view(), &mut rng).expect("predicts"))
                })
            },
        );
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_score(c, "raps", Raps::default());
    bench_score(c, "lac", Lac);
}

criterion_group!(conformal, benches);
criterion_main!(conformal);
