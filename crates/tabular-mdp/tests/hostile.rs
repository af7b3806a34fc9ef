//! Hostile input at every public entry point of `tabular-mdp`: outcome
//! tables with NaN/∞/negative probabilities and rows not summing to one,
//! next states out of range, ragged or empty action sets, rewards near
//! ±`f64::MAX` and subnormal, discounts and tolerances outside their ranges,
//! horizons and table sizes whose products overflow, policies and
//! environments that name actions or states that do not exist.
//!
//! Each call must return `Err(_)` or an `Ok` whose values are finite. A panic
//! is caught (`catch_unwind`) and turned into a test failure that prints the
//! input. The seed is fixed, so a failure reproduces; the file runs in about
//! a second.
//!
//! The last tests are the regression tests of the defects found by the
//! hostile run of issue 21, each against an independently computed value.

use mlcore::sampling::seeded;
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed, TestCaseError};
use rand::Rng;
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use tabular_mdp::{
    Environment, Error, FiniteMdp, MAX_TABLE_BYTES, MdpEnv, Outcome, QLearningParams, QTable, Step,
    StepSize, ViParams, argmax_first, bellman_optimal, epsilon_greedy, evaluate_finite_horizon,
    finite_horizon, finite_horizon_plain, greedy_policy, policy_evaluation, q_from_v, q_learning,
    sum_reward_target, value_iteration,
};

/// Runs `f`, turning a panic into a test failure that names the call and its input.
fn guard<T>(
    call: &str,
    input: &dyn Debug,
    f: impl FnOnce() -> T,
) -> std::result::Result<T, TestCaseError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        TestCaseError::fail(format!("{call} panicked ({msg}) on input {input:?}"))
    })
}

fn all_finite<'a>(it: impl IntoIterator<Item = &'a f64>) -> bool {
    it.into_iter().all(|x| x.is_finite())
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x7ab_0021),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -10.0..10.0f64,
        2 => prop::sample::select(vec![
            0.0, -0.0, 1.0, 0.5, 1e300, -1e300, 1e-300, f64::MAX, -f64::MAX,
            f64::MIN_POSITIVE, 5e-324, 1.0 + 1e-9, 1.0 - 1e-12,
        ]),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
    ]
}

/// A probability: mostly valid, sometimes not.
fn hostile_prob() -> impl Strategy<Value = f64> {
    prop_oneof![
        6 => Just(1.0),
        3 => Just(0.5),
        2 => 0.0..=1.0f64,
        1 => hostile_f64(),
    ]
}

fn outcome() -> impl Strategy<Value = Outcome> {
    (0usize..5, hostile_prob(), hostile_f64(), any::<bool>()).prop_map(|(next, prob, reward, t)| {
        Outcome {
            next,
            prob,
            reward,
            terminal: t,
        }
    })
}

/// An outcome table `table[s][a]`: 0..4 states, 0..3 actions (sometimes
/// ragged), 0..3 outcomes per pair, next states sometimes out of range.
fn table() -> impl Strategy<Value = Vec<Vec<Vec<Outcome>>>> {
    (0usize..4, 0usize..3).prop_flat_map(|(ns, na)| {
        prop::collection::vec(
            prop_oneof![
                8 => prop::collection::vec(prop::collection::vec(outcome(), 0..3), na..=na),
                1 => prop::collection::vec(prop::collection::vec(outcome(), 0..3), 0..4),
            ],
            ns..=ns,
        )
    })
}

/// A valid MDP with hostile rewards: each pair splits its mass over two
/// outcomes (probabilities p and 1 − p).
fn valid_mdp() -> impl Strategy<Value = FiniteMdp> {
    (1usize..4, 1usize..3).prop_flat_map(|(ns, na)| {
        prop::collection::vec(
            (
                0usize..ns,
                0usize..ns,
                0.0..=1.0f64,
                hostile_f64(),
                hostile_f64(),
                any::<bool>(),
            ),
            ns * na,
        )
        .prop_map(move |pairs| {
            let table = (0..ns)
                .map(|s| {
                    (0..na)
                        .map(|a| {
                            let (n1, n2, p, r1, r2, t) = pairs[s * na + a];
                            let fin = |r: f64| if r.is_finite() { r } else { 1.0 };
                            vec![
                                Outcome {
                                    next: n1,
                                    prob: p,
                                    reward: fin(r1),
                                    terminal: t,
                                },
                                Outcome::new(n2, 1.0 - p, fin(r2)),
                            ]
                        })
                        .collect()
                })
                .collect();
            FiniteMdp::new(table).expect("a valid table")
        })
    })
}

fn horizon() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..6,
        1 => Just(1usize << 40),
        1 => Just(usize::MAX / 2),
        1 => Just(usize::MAX),
    ]
}

/// An environment that misbehaves on demand.
#[derive(Debug, Clone)]
struct HostileEnv {
    n_codes: usize,
    n_actions: usize,
    code: usize,
    reward: f64,
    terminal: bool,
}

impl Environment for HostileEnv {
    type State = usize;
    fn n_codes(&self) -> usize {
        self.n_codes
    }
    fn n_actions(&self) -> usize {
        self.n_actions
    }
    fn encode(&self, s: &usize) -> usize {
        *s
    }
    fn reset<R: Rng + ?Sized>(&mut self, _rng: &mut R) -> usize {
        0
    }
    fn step<R: Rng + ?Sized>(&mut self, _s: &usize, _a: usize, _rng: &mut R) -> Step<usize> {
        Step {
            next: self.code,
            reward: self.reward,
            terminal: self.terminal,
        }
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn construction_never_panics_and_validates(t in table()) {
        let r = guard("FiniteMdp::new", &t, || FiniteMdp::new(t.clone()))?;
        if let Ok(mdp) = r {
            for s in 0..mdp.n_states() {
                for a in 0..mdp.n_actions() {
                    let list = mdp.outcomes(s, a);
                    prop_assert!(!list.is_empty());
                    let sum: f64 = list.iter().map(|o| o.prob).sum();
                    prop_assert!((sum - 1.0).abs() <= tabular_mdp::STOCHASTIC_TOL, "sum {sum} on {t:?}");
                    prop_assert!(list.iter().all(|o| o.next < mdp.n_states() && o.reward.is_finite() && (0.0..=1.0).contains(&o.prob)));
                    let r = guard("expected_reward", &t, || mdp.expected_reward(s, a))?;
                    prop_assert!(r.is_finite());
                }
            }
            guard("reward_set", &t, || mdp.reward_set())?;
            guard("is_deterministic", &t, || mdp.is_deterministic())?;
            guard("write_text", &t, || mdp.write_text(Vec::new()).unwrap())?;
        }
    }

    #[test]
    fn solvers_never_panic_nor_return_non_finite(
        mdp in valid_mdp(),
        gamma in prop_oneof![3 => 0.0..=1.0f64, 1 => hostile_f64()],
        tol in prop_oneof![Just(1e-8), hostile_f64()],
        max_iter in prop_oneof![Just(0usize), 1usize..300],
        v in prop::collection::vec(hostile_f64(), 0..5),
        policy in prop::collection::vec(prop_oneof![0usize..3, Just(usize::MAX)], 0..5),
        h in horizon(),
        bonus in hostile_f64(),
        cap in hostile_f64(),
        start in prop_oneof![0usize..5, Just(usize::MAX)],
        seed in any::<u64>(),
    ) {
        let input = (&mdp, gamma, tol, max_iter, &v, &policy, h, bonus, cap, start);
        let params = ViParams { tol, max_iter };
        let v = Array1::from(v.clone());
        let r = guard("q_from_v", &input, || q_from_v(&mdp, gamma, v.view()))?;
        prop_assert!(r.as_ref().map_or(true, all_finite), "q_from_v {r:?}");
        let r = guard("bellman_optimal", &input, || bellman_optimal(&mdp, gamma, v.view()))?;
        prop_assert!(r.as_ref().map_or(true, all_finite), "bellman_optimal {r:?}");
        let r = guard("value_iteration", &input, || value_iteration(&mdp, gamma, &params))?;
        if let Ok(sol) = &r {
            prop_assert!(all_finite(&sol.v) && all_finite(&sol.q) && sol.residual.is_finite(), "{sol:?}");
            prop_assert!(sol.policy.iter().all(|&a| a < mdp.n_actions()));
        }
        let r = guard("policy_evaluation", &input, || policy_evaluation(&mdp, gamma, &policy, &params))?;
        prop_assert!(r.as_ref().map_or(true, all_finite), "policy_evaluation {r:?}");
        let r = guard("finite_horizon", &input, || finite_horizon(&mdp, h, gamma, |_, _, _| bonus, |_| cap))?;
        if let Ok(sol) = &r {
            prop_assert!(all_finite(&sol.v) && all_finite(&sol.q), "{sol:?}");
            prop_assert!(sol.policy.iter().all(|&a| a < mdp.n_actions()));
        }
        let r = guard("finite_horizon_plain", &input, || finite_horizon_plain(&mdp, h, gamma))?;
        if let Ok(sol) = &r {
            prop_assert!(all_finite(&sol.v) && all_finite(&sol.q), "{sol:?}");
        }
        if h > 1 << 30 {
            prop_assert!(matches!(r, Err(Error::TooLarge { .. }) | Err(Error::InvalidDiscount { .. })), "{r:?}");
        }
        let pol = policy.clone();
        let r = guard("evaluate_finite_horizon", &input, || {
            evaluate_finite_horizon(&mdp, h, gamma, |t, s| pol.get(t + s).copied().unwrap_or(0))
        })?;
        prop_assert!(r.as_ref().map_or(true, all_finite), "evaluate_finite_horizon {r:?}");
        let r = guard("check_policy", &input, || mdp.check_policy(&policy))?;
        prop_assert_eq!(r.is_ok(), policy.len() == mdp.n_states() && policy.iter().all(|&a| a < mdp.n_actions()));
        let _ = guard("check_state", &input, || mdp.check_state(start))?;
        let mut rng = seeded(seed);
        if start < mdp.n_states() {
            for a in 0..mdp.n_actions() {
                let o = guard("sample", &input, || mdp.sample(start, a, &mut rng))?;
                prop_assert!(o.next < mdp.n_states() && o.prob > 0.0);
            }
        }
        let env = guard("MdpEnv::new", &input, || MdpEnv::new(&mdp, start))?;
        if let Ok(mut env) = env {
            let qp = QLearningParams {
                steps: 200,
                epsilon: gamma,
                step_size: if tol > 0.0 { StepSize::Constant(tol.min(2.0)) } else { StepSize::Polynomial { exponent: tol } },
                max_episode_len: max_iter,
                init_q: bonus,
                report_every: 7,
            };
            let target_gamma = if gamma.is_finite() { gamma.clamp(0.0, 1.0) } else { 0.5 };
            let r = guard("q_learning", &input, || {
                q_learning(&mut env, &qp, sum_reward_target(target_gamma), &mut rng, |_, _| {})
            })?;
            if let Ok(t) = &r {
                prop_assert!(all_finite(&t.q), "{t:?}");
                let g = guard("QTable::greedy", &input, || t.greedy(0))?;
                prop_assert!(g < mdp.n_actions());
                prop_assert!(guard("QTable::max", &input, || t.max(0))?.is_finite());
            }
        }
    }

    #[test]
    fn q_learning_with_hostile_environments(
        n_codes in prop_oneof![0usize..4, Just(usize::MAX), Just(1usize << 40)],
        n_actions in prop_oneof![0usize..3, Just(usize::MAX)],
        code in prop_oneof![0usize..5, Just(usize::MAX)],
        reward in hostile_f64(),
        terminal in any::<bool>(),
        q0 in hostile_f64(),
        row in prop::collection::vec(hostile_f64(), 0..4),
        eps in hostile_f64(),
        seed in any::<u64>(),
    ) {
        let input = (n_codes, n_actions, code, reward, terminal, q0, &row, eps);
        let mut env = HostileEnv { n_codes, n_actions, code, reward, terminal };
        let mut rng = seeded(seed);
        let params = QLearningParams { steps: 50, init_q: if q0.is_finite() { q0 } else { 0.0 }, ..QLearningParams::default() };
        let r = guard("q_learning", &input, || {
            q_learning(&mut env, &params, sum_reward_target(0.9), &mut rng, |_, _| {})
        })?;
        if let Ok(t) = &r {
            prop_assert!(all_finite(&t.q), "{t:?}");
        }
        if n_codes.checked_mul(n_actions).is_none_or(|n| n > MAX_TABLE_BYTES / 16) {
            prop_assert!(matches!(r, Err(Error::TooLarge { .. }) | Err(Error::InvalidParameter { .. })), "{r:?}");
        }
        let r = guard("QTable::try_new", &input, || QTable::try_new(n_codes, n_actions, q0))?;
        let fits = n_codes.checked_mul(n_actions).is_some_and(|n| n <= MAX_TABLE_BYTES / 16)
            && n_codes.max(n_actions) <= isize::MAX as usize;
        prop_assert_eq!(r.is_ok(), fits);
        let a = guard("epsilon_greedy", &input, || epsilon_greedy(&row, eps, &mut rng))?;
        prop_assert!(a < row.len().max(1));
        let a = guard("argmax_first", &input, || argmax_first(&row))?;
        prop_assert!(a < row.len().max(1));
        let q = Array2::from_shape_vec((1, row.len()), row.clone()).unwrap();
        let p = guard("greedy_policy", &input, || greedy_policy(q.view()))?;
        prop_assert_eq!(p.len(), 1);
    }
}

// ---------------------------------------------------------------------------
// Regression tests of the defects found by the hostile run (issue 21).

fn two_by_two(reward: f64) -> FiniteMdp {
    FiniteMdp::new(vec![vec![vec![Outcome::new(0, 1.0, reward)]; 2]; 2]).unwrap()
}

/// Overflowed `horizon + 1` (debug) or aborted allocating H·S·A entries
/// before. Now a typed error naming the size, before any allocation: with
/// H = 2⁴⁰, S = A = 2 the tables need (2⁴⁰+1)·2 + 2⁴⁰·4 + 2⁴⁰·2 = 8·2⁴⁰ + 2
/// entries, 2⁴⁶ + 16 bytes, by hand, above the 2³⁴-byte cap.
#[test]
fn finite_horizon_checks_the_table_size_first() {
    let mdp = two_by_two(1.0);
    for h in [usize::MAX, usize::MAX / 2, 1 << 62] {
        match finite_horizon_plain(&mdp, h, 1.0) {
            Err(Error::TooLarge { size, .. }) => assert!(size.contains("overflows"), "{size}"),
            other => panic!("horizon {h}: {other:?}"),
        }
        assert!(matches!(
            evaluate_finite_horizon(&mdp, h, 1.0, |_, _| 0),
            Err(Error::TooLarge { .. })
        ));
    }
    match finite_horizon_plain(&mdp, 1 << 40, 1.0) {
        Err(Error::TooLarge { size, .. }) => {
            let entries = 8u128 * (1 << 40) + 2;
            assert!(size.contains(&entries.to_string()), "{size}");
            assert!(size.contains(&(entries * 8).to_string()), "{size}");
        }
        other => panic!("{other:?}"),
    }
    // Just under the cap is allowed in principle; a moderate horizon works:
    // undiscounted reward 1 per step for 1000 steps is worth 1000.
    let sol = finite_horizon_plain(&mdp, 1000, 1.0).unwrap();
    assert_eq!(sol.v[[0, 0]], 1000.0);
}

/// A state with 2¹⁶ actions followed by 2¹⁶ − 1 states without any asked
/// for 2³² + 1 offsets (34 GB) before the shape check; now the ragged table
/// is rejected first, naming state 1.
#[test]
fn construction_checks_shapes_before_allocating() {
    let n = 1usize << 16;
    let mut table: Vec<Vec<Vec<Outcome>>> = vec![Vec::new(); n];
    table[0] = vec![Vec::new(); n];
    assert!(matches!(
        FiniteMdp::new(table),
        Err(Error::EmptyActions { state: 1 })
    ));
}

/// Rewards near f64::MAX: value iteration returned ∞ as "converged" (the
/// residual ∞ − ∞ is NaN, which `max` ignores), finite-horizon DP returned ∞.
/// V* = r/(1 − γ) = 1e308/0.1 = 1e309 > f64::MAX, and three undiscounted
/// steps of 1e308 sum to 3e308 > f64::MAX, by hand.
#[test]
fn overflowing_values_are_typed_errors() {
    let mdp = two_by_two(1e308);
    assert!(matches!(
        value_iteration(&mdp, 0.9, &ViParams::default()),
        Err(Error::Overflow { .. })
    ));
    assert!(matches!(
        policy_evaluation(&mdp, 0.9, &[0, 0], &ViParams::default()),
        Err(Error::Overflow { .. })
    ));
    assert!(matches!(
        finite_horizon_plain(&mdp, 3, 1.0),
        Err(Error::Overflow { what: "Q", .. })
    ));
    assert!(matches!(
        evaluate_finite_horizon(&mdp, 3, 1.0, |_, _| 0),
        Err(Error::Overflow { what: "V", .. })
    ));
    // One step is fine: V = 1e308 exactly.
    assert_eq!(finite_horizon_plain(&mdp, 1, 1.0).unwrap().v[[0, 0]], 1e308);
    // A finite cap bounds the overflowing sum: Q = min(cap, 3e308) = 5.
    let capped = finite_horizon(&mdp, 3, 1.0, |_, _, _| 0.0, |_| 5.0).unwrap();
    assert!(capped.q.iter().all(|&q| q == 5.0));
    // A cap of −∞ is not a cap.
    assert!(matches!(
        finite_horizon(&mdp, 3, 1.0, |_, _, _| 0.0, |_| f64::NEG_INFINITY),
        Err(Error::NonFinite { what: "cap", .. })
    ));
    assert!(matches!(
        q_from_v(&mdp, 0.9, Array1::from(vec![f64::MAX, f64::MAX]).view()),
        Err(Error::Overflow { what: "Q", .. })
    ));
}

/// A Q table too large for memory was a capacity-overflow panic or an
/// abort; Q-learning's update overflowed for targets of opposite sign near
/// ±f64::MAX. With α = 1 the update is the target itself, by hand.
#[test]
fn q_learning_sizes_and_updates() {
    let mut env = HostileEnv {
        n_codes: usize::MAX,
        n_actions: 2,
        code: 0,
        reward: 0.0,
        terminal: true,
    };
    let mut rng = seeded(3);
    assert!(matches!(
        q_learning(
            &mut env,
            &QLearningParams::default(),
            sum_reward_target(0.9),
            &mut rng,
            |_, _| {}
        ),
        Err(Error::TooLarge { .. })
    ));
    let mut env = HostileEnv {
        n_codes: 1,
        n_actions: 1,
        code: 0,
        reward: f64::MAX,
        terminal: true,
    };
    let params = QLearningParams {
        steps: 1,
        step_size: StepSize::Constant(1.0),
        init_q: -f64::MAX,
        ..QLearningParams::default()
    };
    let t = q_learning(
        &mut env,
        &params,
        sum_reward_target(0.9),
        &mut rng,
        |_, _| {},
    )
    .unwrap();
    assert_eq!(t.q[[0, 0]], f64::MAX);
}
