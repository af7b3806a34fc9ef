//! `lookahead-mlmc`: the two-step 1+2-EI SAA value, the workload every
//! acquisition optimiser step runs, on the spec's 1-D GP (5 points, fixed
//! Matérn-5/2), at x = 1 with the inner batch fixed (as BoTorch's
//! `qMultiStepLookahead.forward`), N = M ∈ {64, 128, 256} (cost ∝ N·M);
//! the same value with the inner maximisations solved (`evaluate`,
//! N = M ∈ {16, 32, 64}); the paper's MLMC argmax at ε ∈ {0.2, 0.15, 0.1};
//! and the three-step 1+1+1-EI SAA value with its middle and last stages
//! solved (`ThreeStepSaa::evaluate`, M = 4, N ∈ {2, 4, 8}; cost ∝ N·M).
//!
//! Run with `cargo bench --bench lookahead_mlmc`;
//! `scripts/compare/lookahead_mlmc.py` times BoTorch on the fixed-inner value.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use lookahead_mlmc::lookahead::{
    InnerSplit, InnerValue, MlmcLookahead, SaaConfig, ThreeStepSaa, ThreeStepSamples, TwoStepSaa,
    TwoStepSamples, mlmc_two_step_argmax,
};
use lookahead_mlmc::optim::{Bounds, LbfgsConfig};
use lookahead_mlmc::testfns::toy1d;
use mlcore::sampling::seeded;
use ndarray::{Array1, array};

fn spec_gp() -> ExactGp {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(toy1d);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0).expect("valid");
    ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).expect("valid")
}

fn benches(c: &mut Criterion) {
    let gp = spec_gp();
    let bounds = Bounds::new(vec![-10.0], vec![10.0]).expect("valid");
    let best = gp.best_observed();
    let inner = InnerValue::QEi { q: 2 };
    let mut g = c.benchmark_group("two_step_fixed_inner");
    g.sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for nm in [64usize, 128, 256] {
        let s = TwoStepSamples::draw(nm, nm, inner, &bounds.repeat(2), 1, &mut seeded(1));
        let p = TwoStepSaa::new(
            &gp,
            &bounds,
            best,
            inner,
            &s,
            InnerSplit::Full,
            SaaConfig::default(),
        )
        .expect("valid");
        let xs = vec![vec![vec![1.5, 2.5]]; nm];
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("N{nm}_M{nm}")),
            &xs,
            |b, xs| b.iter(|| black_box(p.value_with_inner(black_box(&[1.0]), xs).expect("valid"))),
        );
    }
    g.finish();
    let mut g = c.benchmark_group("two_step_solved_inner");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for nm in [16usize, 32, 64] {
        let cfg = SaaConfig::default();
        let s = TwoStepSamples::draw(
            nm,
            nm,
            inner,
            &bounds.repeat(2),
            cfg.inner_raw_samples,
            &mut seeded(1),
        );
        g.bench_function(BenchmarkId::from_parameter(format!("N{nm}_M{nm}")), |b| {
            b.iter(|| {
                let p = TwoStepSaa::new(&gp, &bounds, best, inner, &s, InnerSplit::Full, cfg)
                    .expect("valid");
                black_box(p.evaluate(&[1.0]).expect("solves").value)
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("mlmc_argmax");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let spec = MlmcLookahead {
        saa: SaaConfig {
            raw_samples: 32,
            restarts: 3,
            inner_raw_samples: 16,
            inner_restarts: 2,
            ..SaaConfig::default()
        },
        ..MlmcLookahead::default()
    };
    for eps in [0.2, 0.15, 0.1] {
        g.bench_function(BenchmarkId::from_parameter(format!("eps{eps}")), |b| {
            b.iter(|| {
                black_box(
                    mlmc_two_step_argmax(&gp, &bounds, eps, &spec, &mut seeded(3))
                        .expect("runs")
                        .x,
                )
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("three_step_value");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let cfg3 = SaaConfig {
        inner_raw_samples: 12,
        inner_restarts: 2,
        lbfgs: LbfgsConfig {
            max_iters: 8,
            max_evals: Some(16),
            ..LbfgsConfig::default()
        },
        inner_lbfgs: LbfgsConfig {
            max_iters: 10,
            ..LbfgsConfig::default()
        },
        ..SaaConfig::default()
    };
    for n in [2usize, 4, 8] {
        let s = ThreeStepSamples::draw(n, 4, &bounds, cfg3.inner_raw_samples, &mut seeded(1));
        g.bench_function(BenchmarkId::from_parameter(format!("N{n}_M4")), |b| {
            b.iter(|| {
                let p = ThreeStepSaa::new(&gp, &bounds, best, &s, InnerSplit::Full, cfg3)
                    .expect("valid");
                black_box(p.evaluate(&[1.0]).expect("solves").value)
            })
        });
    }
    g.finish();
}

criterion_group!(lookahead, benches);
criterion_main!(lookahead);
