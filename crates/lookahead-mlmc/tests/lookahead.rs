//! Properties 6 and 7 of the spec, the MLMC argmax, the three-step value.

use lookahead_mlmc::acq::expected_improvement;
use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use lookahead_mlmc::lookahead::{
    InnerSplit, InnerValue, Matching, MlmcLookahead, SaaConfig, TwoStepSaa, TwoStepSamples,
    TwoStepValueSampler, draw_three_step_samples, mlmc_two_step_argmax, three_step_value,
};
use lookahead_mlmc::mlmc::{Coupling, LevelSampler, MlmcConfig, allocate, estimate};
use lookahead_mlmc::optim::Bounds;
use mlcore::sampling::seeded;
use ndarray::{Array1, array};

fn toy_gp() -> (ExactGp, Bounds) {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let f = |x: f64| {
        (-(x - 2.0).powi(2)).exp() + (-(x - 6.0).powi(2) / 10.0).exp() + 1.0 / (x * x + 1.0)
    };
    let y: Array1<f64> = x.column(0).mapv(f);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0).unwrap();
    (
        ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).unwrap(),
        Bounds::new(vec![-10.0], vec![10.0]).unwrap(),
    )
}

fn small_cfg() -> SaaConfig {
    SaaConfig {
        raw_samples: 16,
        restarts: 2,
        inner_raw_samples: 16,
        inner_restarts: 2,
        ..SaaConfig::default()
    }
}

/// Property 6: the SAA two-step value is ≥ EI(x) − 1e-12 (the inner value is ≥ 0),
/// for every split, q₂ ∈ {1, 2} and several x.
#[test]
fn saa_two_step_value_at_least_ei() {
    let (gp, b) = toy_gp();
    let best = gp.best_observed();
    let mut rng = seeded(11);
    for inner in [
        InnerValue::AnalyticEi,
        InnerValue::QEi { q: 1 },
        InnerValue::QEi { q: 2 },
    ] {
        let s = TwoStepSamples::draw(
            8,
            16,
            inner,
            &b.repeat(match inner {
                InnerValue::QEi { q } => q,
                _ => 1,
            }),
            16,
            &mut rng,
        );
        for split in [
            InnerSplit::Full,
            InnerSplit::Antithetic,
            InnerSplit::FirstHalf,
        ] {
            let p = TwoStepSaa::new(&gp, &b, best, inner, &s, split, small_cfg()).unwrap();
            for &x in &[-9.0, -1.0, 1.0, 4.5, 9.5] {
                let sol = p.evaluate(&[x]).unwrap();
                let e = expected_improvement(&gp, array![x].view(), best).unwrap();
                assert!((sol.ei - e).abs() < 1e-14);
                assert!(sol.value >= e - 1e-12, "{inner:?} {split:?} x = {x}");
                assert!(sol.inner_values.iter().all(|&v| v >= 0.0));
            }
        }
    }
}

/// Property 7: with q₂ = 1 and analytic inner EI, every MLMC increment above
/// the first level is exactly 0 (fine and coarse problems coincide), for both couplings.
#[test]
fn analytic_inner_gives_exactly_zero_increments() {
    let (gp, b) = toy_gp();
    let best = gp.best_observed();
    for coupling in [Coupling::Antithetic, Coupling::Standard] {
        let mut s = TwoStepValueSampler::new(
            &gp,
            &[1.0],
            &b,
            best,
            InnerValue::AnalyticEi,
            coupling,
            small_cfg(),
        )
        .unwrap();
        let mut rng = seeded(2);
        for l in 4..=6 {
            let out = s.sample(l, 6, true, &mut rng).unwrap();
            assert!(out.increments().iter().all(|&d| d == 0.0), "level {l}");
        }
        let alloc = allocate(0.05, &MlmcConfig::default()).unwrap();
        let e = estimate(&mut s, &alloc, &mut rng).unwrap();
        for st in &e.levels[1..] {
            assert_eq!(st.mean, 0.0);
            assert_eq!(st.var, 0.0);
        }
    }
}

/// With q₂ = 2 the increments are not zero, and the antithetic increments
/// have a smaller variance than the standard ones (same base samples, seeds fixed).
#[test]
fn antithetic_increments_smaller_than_standard_on_two_step() {
    let (gp, b) = toy_gp();
    let best = gp.best_observed();
    let var = |coupling| {
        let mut s = TwoStepValueSampler::new(
            &gp,
            &[1.0],
            &b,
            best,
            InnerValue::QEi { q: 2 },
            coupling,
            small_cfg(),
        )
        .unwrap();
        let mut rng = seeded(21);
        let d = s.sample(5, 60, true, &mut rng).unwrap().increments();
        let m = d.iter().sum::<f64>() / d.len() as f64;
        d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (d.len() - 1) as f64
    };
    let (va, vs) = (var(Coupling::Antithetic), var(Coupling::Standard));
    assert!(va > 0.0);
    assert!(va < vs, "antithetic {va} vs standard {vs}");
}

/// The MLMC argmax at ε = 0.15 (levels 3, 4; N = [9, 4]) runs, stays in the
/// box, and its value is positive; every matching rule gives a point in the box.
#[test]
fn mlmc_argmax_runs_with_every_matching_rule() {
    let (gp, b) = toy_gp();
    for matching in [Matching::Point, Matching::Forward, Matching::Backward] {
        let spec = MlmcLookahead {
            matching,
            saa: small_cfg(),
            ..MlmcLookahead::default()
        };
        let mut rng = seeded(4);
        let r = mlmc_two_step_argmax(&gp, &b, 0.15, &spec, &mut rng).unwrap();
        assert_eq!(r.allocation.n, vec![9, 4]);
        assert_eq!(r.levels.len(), 2);
        assert!(r.x[0] >= -10.0 && r.x[0] <= 10.0);
        assert!(r.value > 0.0);
        assert!(r.levels[1].matched_distance >= 0.0);
    }
}

/// Three-step value ≥ EI(x), and with the same outer fantasies it is at
/// least the two-step value with analytic inner EI (the middle stage adds a
/// non-negative term), up to the solvers' accuracy.
#[test]
fn three_step_value_dominates_two_step_analytic() {
    let (gp, b) = toy_gp();
    let best = gp.best_observed();
    let mut rng = seeded(8);
    let cfg = small_cfg();
    let (outer, second, raw) = draw_three_step_samples(4, 4, &b, 16, &mut rng);
    let x = [1.0];
    let (v3, stages) = three_step_value(
        &gp,
        &b,
        best,
        &x,
        &outer,
        &second,
        &raw,
        InnerSplit::Full,
        &cfg,
    )
    .unwrap();
    let e = expected_improvement(&gp, array![1.0].view(), best).unwrap();
    assert!(v3 >= e - 1e-12);
    assert_eq!(stages.len(), 4);
    let s2 = TwoStepSamples {
        outer: outer.clone(),
        inner: vec![],
        m: 1,
        inner_raw: raw.clone(),
    };
    let v2 = TwoStepSaa::new(
        &gp,
        &b,
        best,
        InnerValue::AnalyticEi,
        &s2,
        InnerSplit::Full,
        cfg,
    )
    .unwrap()
    .evaluate(&x)
    .unwrap()
    .value;
    assert!(v3 >= v2 - 1e-6, "three-step {v3} vs two-step {v2}");
    let (va, _) = three_step_value(
        &gp,
        &b,
        best,
        &x,
        &outer,
        &second,
        &raw,
        InnerSplit::Antithetic,
        &cfg,
    )
    .unwrap();
    assert!(va >= e - 1e-12);
}

/// The three-step MLMC sampler: fine and coarse values are ≥ EI(x₀), and
/// increments are finite; level 0 has no coarse part.
#[test]
fn three_step_sampler_levels() {
    use lookahead_mlmc::lookahead::ThreeStepValueSampler;
    let (gp, b) = toy_gp();
    let best = gp.best_observed();
    let e = expected_improvement(&gp, array![1.0].view(), best).unwrap();
    let mut s =
        ThreeStepValueSampler::new(&gp, &[1.0], &b, best, Coupling::Antithetic, small_cfg())
            .unwrap();
    let mut rng = seeded(5);
    let (out, work) = lookahead_mlmc::cost::measure(|| s.sample(1, 2, true, &mut rng).unwrap());
    // The cost is the work counted during the call: N = 2 fantasies, each
    // with a middle-stage maximisation in the fine problem and in the two
    // antithetic halves, solved twice (coupled solve), and M = 2 second-stage
    // maximisations below each middle-stage objective value.
    assert_eq!(out.cost, work.units());
    assert!(work.inner_optimisations >= 2 * (1 + 2) * 2);
    let c = out.coarse.as_ref().unwrap();
    for (f, c) in out.fine.iter().zip(c) {
        assert!(*f >= e - 1e-12 && *c >= e - 1e-12);
        assert!((f - c).is_finite());
    }
}
