//! Hostile input at every public entry point: NaN/±∞/huge/negative values,
//! wrong lengths and shapes, out-of-range indices and sizes (up to
//! `usize::MAX`). Each call must return a typed error or a documented `Ok`,
//! never panic, abort on allocation or hang. Seeded, so CI runs the same
//! cases.

use cmdp_eluder::agent::{
    Agent, EUc3rl, EUc3rlParams, GreedyPlugIn, VersionSpaceAgent, VersionSpaceParams,
    confidence_widths, epoch_start,
};
use cmdp_eluder::baselines::{EpsilonGreedy, ExploreThenCommit};
use cmdp_eluder::class::{DynamicsClass, RewardClass};
use cmdp_eluder::cmdp::{ContextDist, LayeredSpace, TabularCmdp, to_finite_mdp};
use cmdp_eluder::eluder::{bernoulli_outputs, eluder_dimension};
use cmdp_eluder::instances::{Instance, xor_instance};
use cmdp_eluder::metric::{
    abs_metric, check_distribution, hellinger, hellinger_metric, total_variation,
};
use cmdp_eluder::oracle::{
    Dataset, EnumerationLeastSquares, EnumerationLogLoss, LeastSquaresOracle, LogLossOracle,
    Transition,
};
use cmdp_eluder::planner::{occupancy, plan_layered, policy_value_layered};
use cmdp_eluder::regret::{growth_exponent, run_regret_against};
use mlcore::sampling::seeded;
use ndarray::{Array, Array1, Array2, Array3};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Ordinary and hostile floats.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -0.5f64..1.5,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::MAX),
        1 => Just(-1e-300),
        1 => Just(0.0),
        1 => Just(1.0),
    ]
}

/// Ordinary and hostile sizes and indices.
fn index() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..12,
        1 => Just(usize::MAX),
        1 => Just(usize::MAX / 2),
        1 => Just(1usize << 40),
        1 => Just(1usize << 31),
    ]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0xc3d9_2024),
        ..ProptestConfig::with_cases(192)
    }
}

fn inst() -> Instance {
    xor_instance(4, 8).unwrap()
}

/// A table of the given shape filled from `vals` (cycled), so hostile
/// values land anywhere in it.
fn filled<Sh: ndarray::ShapeBuilder>(shape: Sh, vals: &[f64]) -> Array<f64, Sh::Dim> {
    let mut a = Array::<f64, Sh::Dim>::zeros(shape);
    for (i, x) in a.iter_mut().enumerate() {
        *x = vals[i % vals.len()];
    }
    a
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn spaces_and_contexts(sizes in prop::collection::vec(index(), 0..5), s in index(), h in index(),
                           probs in prop::collection::vec(value(), 0..6), n in index()) {
        if let Ok(space) = LayeredSpace::new(&sizes) {
            let _ = space.layer_of(s);
            let _ = space.layer_range(h);
            prop_assert!(space.n_states() >= space.horizon());
        }
        if let Ok(d) = ContextDist::new(probs.clone()) {
            prop_assert!(d.probs().iter().all(|p| p.is_finite() && *p >= 0.0));
            let c = d.sample(&mut seeded(1));
            prop_assert!(c < d.n_contexts());
        }
        let _ = ContextDist::uniform(n);
        let _ = epoch_start(n);
    }

    #[test]
    fn cmdp_construction_and_queries(vals in prop::collection::vec(value(), 1..8), na in 0usize..3,
                                     nc in 0usize..3, c in index(), policy in prop::collection::vec(index(), 0..8)) {
        let space = LayeredSpace::new(&[1, 2, 2]).unwrap();
        let ns = space.n_states();
        let ctx = ContextDist::uniform(nc.max(1)).unwrap();
        let r = filled((nc, ns, na), &vals);
        let p = filled((nc, ns, na, ns), &vals);
        let _ = space.check_dynamics(p.view(), na, 0);
        let _ = to_finite_mdp(&space, na, &r, &p, c);
        if let Ok(m) = TabularCmdp::new(space.clone(), na, ctx, r, p) {
            let _ = m.context_mdp(c);
            let _ = m.policy_value(c, &policy);
            let _ = m.run_episode(c, &policy, &mut seeded(2));
            if let Ok(v) = m.optimal_values() {
                prop_assert!(v.iter().all(|x| x.is_finite()));
            }
        }
        // The real instance with a hostile policy and context.
        let inst = inst();
        let _ = inst.cmdp.policy_value(c, &policy);
        let _ = inst.cmdp.run_episode(c, &policy, &mut seeded(3));
    }

    #[test]
    fn classes_and_instances(vals in prop::collection::vec(value(), 1..8), k in index(), tol in value(),
                             nc in index(), nd in index(), domain in prop::collection::vec((index(), index(), index()), 0..4)) {
        let inst = inst();
        let _ = inst.rewards.model(k);
        let _ = inst.dynamics.model(k);
        let _ = inst.rewards.index_of(&filled((4, 5, 2), &vals), tol);
        let _ = inst.dynamics.index_of(&filled((4, 5, 2, 5), &vals), tol);
        let _ = inst.rewards.eluder_outputs(&domain);
        let _ = inst.dynamics.eluder_outputs(&domain);
        let _ = RewardClass::from_tables(vec![filled((2, 5, 2), &vals)]);
        let _ = RewardClass::from_tables(vec![]);
        let _ = RewardClass::from_fn(k, (nc, 2, 2), |_, _, _, _| vals[0]);
        let space = LayeredSpace::new(&[1, 2, 2]).unwrap();
        let _ = DynamicsClass::from_tables(space.clone(), 2, vec![filled((2, 5, 2, 5), &vals)]);
        let _ = DynamicsClass::from_fn(space, 2, nc, k, |_, _, _, _, _| vals[0]);
        // Small sizes only where the result is allocatable; huge ones must
        // be refused before allocating.
        if nc < 64 {
            let _ = xor_instance(nc, nd);
        } else {
            prop_assert!(xor_instance(nc, 8).is_err() || nc < 1 << 20);
        }
    }

    #[test]
    fn oracles_and_data(vals in prop::collection::vec(value(), 1..8), c in index(), s in index(),
                        a in index(), next in prop::option::of(index()), dims in (index(), index(), index())) {
        let _ = Dataset::new(dims.0, dims.1, dims.2);
        let inst = inst();
        let mut d = Dataset::new(4, 5, 2).unwrap();
        let _ = d.push(Transition { context: c, state: s, action: a, reward: vals[0], next });
        let _ = d.squared_loss(&filled((4, 5, 2), &vals));
        let _ = d.log_loss(&filled((4, 5, 2, 5), &vals), 0);
        let _ = d.log_loss(&filled((1, 1, 1, 1), &vals), 0);
        let mut lso = EnumerationLeastSquares::new(inst.rewards.clone());
        let mut llo = EnumerationLogLoss::new(inst.dynamics.clone());
        let _ = lso.fit(&d);
        let _ = llo.fit(&d);
        let _ = lso.losses(&Dataset::new(1, 1, 1).unwrap());
        let _ = llo.losses(&Dataset::new(9, 2, 3).unwrap());
    }

    #[test]
    fn metrics_and_eluder(p in prop::collection::vec(value(), 0..5), q in prop::collection::vec(value(), 0..5),
                          table in prop::collection::vec(prop::collection::vec(value(), 0..4), 0..4), eps in value()) {
        let (pv, qv) = (Array1::from(p.clone()), Array1::from(q.clone()));
        let _ = check_distribution("p", pv.view());
        if let Ok(h) = hellinger(pv.view(), qv.view()) {
            prop_assert!((0.0..=1.0).contains(&h));
        }
        if let Ok(t) = total_variation(pv.view(), qv.view()) {
            prop_assert!((0.0..=1.0).contains(&t));
        }
        let _ = hellinger_metric(pv.view(), qv.view());
        let _ = abs_metric(pv.view(), qv.view());
        if let Ok(outputs) = bernoulli_outputs(&table) {
            let _ = eluder_dimension(&outputs, eps, hellinger_metric);
        }
        let raw: Vec<Array2<f64>> = table
            .iter()
            .filter(|r| !r.is_empty())
            .map(|r| Array2::from_shape_fn((r.len(), 1), |(i, _)| r[i]))
            .collect();
        let _ = eluder_dimension(&raw, eps, abs_metric);
        let pts: Vec<(f64, f64)> = p.iter().copied().zip(q.iter().copied()).collect();
        let _ = growth_exponent(&pts);
    }

    #[test]
    fn planner(vals in prop::collection::vec(value(), 1..8), shape in (0usize..7, 0usize..3, 0usize..7),
               policy in prop::collection::vec(index(), 0..7), cap in any::<bool>()) {
        let space = LayeredSpace::new(&[1, 2, 2]).unwrap();
        let r: Array2<f64> = filled((shape.0, shape.1), &vals);
        let p: Array3<f64> = filled(shape, &vals);
        let b: Array2<f64> = filled((shape.0, shape.1), &vals);
        let _ = plan_layered(&space, r.view(), p.view(), Some(b.view()), cap);
        let _ = plan_layered(&space, r.view(), p.view(), None, cap);
        let _ = policy_value_layered(&space, r.view(), p.view(), &policy);
        let _ = occupancy(&space, p.view(), &policy);
        // Valid shapes with hostile values: a typed error or finite output.
        let r5: Array2<f64> = filled((5, 2), &vals);
        let p5: Array3<f64> = filled((5, 2, 5), &vals);
        // Overflow to ±∞ is documented only beyond f64::MAX / (H·S).
        let moderate = vals.iter().all(|v| v.abs() <= 1e300);
        if let Ok(plan) = plan_layered(&space, r5.view(), p5.view(), None, cap) {
            prop_assert!(!moderate || plan.v.iter().all(|x| x.is_finite()));
        }
    }

    #[test]
    fn agents(delta in value(), scale in value(), eps in value(), c in index(), m in index(),
              comparator in prop::collection::vec(value(), 0..6), nf in index(), np in index()) {
        let inst = inst();
        let space = inst.cmdp.space().clone();
        let lso = || EnumerationLeastSquares::new(inst.rewards.clone());
        let llo = || EnumerationLogLoss::new(inst.dynamics.clone());
        let _ = confidence_widths(nf, np, delta);
        let params = EUc3rlParams { delta, beta_scale: scale };
        let _ = params.check();
        let mut agents: Vec<Box<dyn Agent>> = Vec::new();
        if let Ok(a) = EUc3rl::new(space.clone(), 4, 2, lso(), llo(), params) {
            agents.push(Box::new(a));
        }
        let vs = VersionSpaceParams { delta, beta_f: Some(scale), beta_p: None };
        if let Ok(a) = VersionSpaceAgent::new(inst.rewards.clone(), inst.dynamics.clone(), vs) {
            agents.push(Box::new(a));
        }
        if let Ok(a) = GreedyPlugIn::new(space.clone(), 4, 2, lso(), llo()) {
            agents.push(Box::new(a));
        }
        if let Ok(a) = EpsilonGreedy::new(space.clone(), 4, 2, lso(), llo(), eps, 5) {
            agents.push(Box::new(a));
        }
        let _ = GreedyPlugIn::new(space.clone(), c, m, lso(), llo());
        let _ = EUc3rl::new(space.clone(), c, m, lso(), llo(), EUc3rlParams::default());
        if m < 1 << 20 {
            agents.push(Box::new(ExploreThenCommit::new(space.clone(), 4, 2, lso(), llo(), m, 6).unwrap()));
        }
        for agent in &mut agents {
            let _ = agent.act(c);
            let _ = run_regret_against(&inst.cmdp, agent.as_mut(), &comparator, 3, &mut seeded(7));
            let _ = run_regret_against(&inst.cmdp, agent.as_mut(), &[1.0; 4], 0, &mut seeded(7));
        }
    }
}

/// Sizes far beyond memory are refused before allocating (a typed error,
/// not an abort).
#[test]
fn huge_sizes_are_typed_errors() {
    for n in [usize::MAX, 1 << 40, 1 << 33] {
        assert!(ContextDist::uniform(n).is_err(), "{n}");
        assert!(Dataset::new(n, 2, 2).is_err(), "{n}");
        assert!(Dataset::new(1, n, 1).is_err(), "{n}");
        assert!(LayeredSpace::new(&[1, n]).is_err(), "{n}");
        assert!(RewardClass::from_fn(n, (2, 2, 2), |_, _, _, _| 0.5).is_err());
        assert!(xor_instance(n, 8).is_err(), "{n}");
    }
    let space = LayeredSpace::new(&[1, 2, 2]).unwrap();
    assert!(DynamicsClass::from_fn(space, 2, 1 << 40, 2, |_, _, _, _, _| 0.0).is_err());
    assert_eq!(epoch_start(0), 0);
    assert_eq!(epoch_start(1), 1);
    assert_eq!(epoch_start(11), 1024);
    assert_eq!(epoch_start(65), usize::MAX);
    assert_eq!(epoch_start(usize::MAX), usize::MAX);
}
