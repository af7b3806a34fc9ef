//! The exploring baselines: ε = 0 is the plug-in agent, exploration happens
//! at rate ε with uniformly random actions (exact binomial tests), ETC
//! commits after m episodes to a policy that is exactly optimal once the
//! data identify the model (checked by DP values), and bad input.

use cmdp_eluder::Error;
use cmdp_eluder::agent::{Agent, GreedyPlugIn};
use cmdp_eluder::baselines::{EpsilonGreedy, ExploreThenCommit};
use cmdp_eluder::instances::{Instance, xor_instance};
use cmdp_eluder::oracle::{EnumerationLeastSquares, EnumerationLogLoss};
use cmdp_eluder::regret::run_regret;
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, binomial_test};

type Eg = EpsilonGreedy<EnumerationLeastSquares, EnumerationLogLoss>;
type Etc = ExploreThenCommit<EnumerationLeastSquares, EnumerationLogLoss>;

fn eps_greedy(inst: &Instance, eps: f64, seed: u64) -> Eg {
    EpsilonGreedy::new(
        inst.cmdp.space().clone(),
        inst.cmdp.contexts().n_contexts(),
        2,
        EnumerationLeastSquares::new(inst.rewards.clone()),
        EnumerationLogLoss::new(inst.dynamics.clone()),
        eps,
        seed,
    )
    .unwrap()
}

fn etc(inst: &Instance, m: usize, seed: u64) -> Etc {
    ExploreThenCommit::new(
        inst.cmdp.space().clone(),
        inst.cmdp.contexts().n_contexts(),
        2,
        EnumerationLeastSquares::new(inst.rewards.clone()),
        EnumerationLogLoss::new(inst.dynamics.clone()),
        m,
        seed,
    )
    .unwrap()
}

#[test]
fn epsilon_zero_is_the_doubling_plug_in_agent() {
    let inst = xor_instance(10, 8).unwrap();
    for seed in 0..3 {
        let mut a = eps_greedy(&inst, 0.0, 99);
        let mut b = GreedyPlugIn::new(
            inst.cmdp.space().clone(),
            10,
            2,
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
        )
        .unwrap()
        .with_doubling_refits();
        let ra = run_regret(&inst.cmdp, &mut a, 300, &mut seeded(seed)).unwrap();
        let rb = run_regret(&inst.cmdp, &mut b, 300, &mut seeded(seed)).unwrap();
        assert_eq!(ra.cumulative, rb.cumulative);
        assert_eq!(a.explored(), 0);
        assert_eq!(a.oracle_calls(), b.oracle_calls());
    }
}

#[test]
fn exploration_rate_and_actions_are_uniform() {
    let inst = xor_instance(10, 8).unwrap();
    let mut a = eps_greedy(&inst, 0.3, 7);
    let mut rng = seeded(1);
    let n = 3000;
    for _ in 0..n {
        let c = inst.cmdp.contexts().sample(&mut rng);
        let pi = a.act(c).unwrap();
        let traj = inst.cmdp.run_episode(c, &pi, &mut rng).unwrap();
        a.observe(&traj).unwrap();
    }
    // Exact two-sided binomial test of the exploration count against ε.
    let p = binomial_test(a.explored() as u64, n, 0.3, Alternative::TwoSided).unwrap();
    assert!(p > 1e-3, "explored {} of {n}: p = {p}", a.explored());

    // ε = 1: every episode explores; each state's action is Bernoulli(½).
    let mut b = eps_greedy(&inst, 1.0, 8);
    let ns = inst.cmdp.space().n_states();
    let mut ones = vec![0u64; ns];
    let m = 2000;
    for _ in 0..m {
        let pi = b.act(0).unwrap();
        assert_eq!(pi.len(), ns);
        for (s, &act) in pi.iter().enumerate() {
            assert!(act < 2);
            ones[s] += act as u64;
        }
    }
    assert_eq!(b.explored(), m as usize);
    assert_eq!(b.oracle_calls(), 0, "an exploring agent never fits");
    for (s, &k) in ones.iter().enumerate() {
        let p = binomial_test(k, m, 0.5, Alternative::TwoSided).unwrap();
        assert!(p > 1e-4, "state {s}: action 1 in {k} of {m}: p = {p}");
    }
}

/// After enough uniform exploration the fitted model is the true one, so the
/// committed policy's value equals V*_c in every context (exact DP values,
/// independent of the agent), with one fit (2 oracle calls).
#[test]
fn etc_commits_to_an_optimal_policy_after_enough_exploration() {
    let inst = xor_instance(10, 8).unwrap();
    let vstar = inst.cmdp.optimal_values().unwrap();
    let m = 600;
    let mut a = etc(&inst, m, 3);
    let mut rng = seeded(11);
    for t in 0..m {
        assert!(!a.committed(), "episode {t}");
        let c = inst.cmdp.contexts().sample(&mut rng);
        let pi = a.act(c).unwrap();
        let traj = inst.cmdp.run_episode(c, &pi, &mut rng).unwrap();
        a.observe(&traj).unwrap();
    }
    assert!(a.committed());
    assert_eq!(a.oracle_calls(), 0);
    for c in 0..10 {
        let pi = a.act(c).unwrap();
        let v = inst.cmdp.policy_value(c, &pi).unwrap();
        assert!((v - vstar[c]).abs() < 1e-12, "c = {c}: {v} vs {}", vstar[c]);
    }
    assert_eq!(a.oracle_calls(), 2, "one fit, never refitted");
    // Later data do not change the committed policy.
    let before: Vec<_> = (0..10).map(|c| a.act(c).unwrap()).collect();
    for _ in 0..50 {
        let c = inst.cmdp.contexts().sample(&mut rng);
        let pi = a.act(c).unwrap();
        let traj = inst.cmdp.run_episode(c, &pi, &mut rng).unwrap();
        a.observe(&traj).unwrap();
    }
    let after: Vec<_> = (0..10).map(|c| a.act(c).unwrap()).collect();
    assert_eq!(before, after);
    assert_eq!(a.oracle_calls(), 2);
}

/// ε-greedy explores, so unlike the plug-in agent (which never tries the
/// risky action on the XOR instance) its plug-in policy reaches V*: after
/// 800 episodes at ε = 0.2 the policy it plays when exploiting is optimal
/// in every context (exact DP values).
#[test]
fn epsilon_greedy_learns_what_greedy_never_tries() {
    let inst = xor_instance(10, 8).unwrap();
    let vstar = inst.cmdp.optimal_values().unwrap();
    let mut a = eps_greedy(&inst, 0.2, 5);
    let mut rng = seeded(12);
    for _ in 0..800 {
        let c = inst.cmdp.contexts().sample(&mut rng);
        let pi = a.act(c).unwrap();
        let traj = inst.cmdp.run_episode(c, &pi, &mut rng).unwrap();
        a.observe(&traj).unwrap();
    }
    // The agent's own greedy choice: ask until an exploiting episode comes
    // (each exploring one is an independent ε-coin).
    for c in 0..10 {
        let mut tries = 0;
        loop {
            let before = a.explored();
            let pi = a.act(c).unwrap();
            if a.explored() == before {
                let v = inst.cmdp.policy_value(c, &pi).unwrap();
                assert!((v - vstar[c]).abs() < 1e-12, "c = {c}: {v} vs {}", vstar[c]);
                break;
            }
            tries += 1;
            assert!(tries < 100);
        }
    }
}

#[test]
fn bad_input_is_a_typed_error() {
    let inst = xor_instance(10, 8).unwrap();
    for eps in [f64::NAN, -0.1, 1.5, f64::INFINITY] {
        let r = EpsilonGreedy::new(
            inst.cmdp.space().clone(),
            10,
            2,
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
            eps,
            0,
        );
        assert!(
            matches!(
                r,
                Err(Error::InvalidParameter {
                    name: "epsilon",
                    ..
                })
            ),
            "ε = {eps}"
        );
    }
    for (nc, na) in [(0, 2), (10, 0)] {
        assert!(matches!(
            ExploreThenCommit::new(
                inst.cmdp.space().clone(),
                nc,
                na,
                EnumerationLeastSquares::new(inst.rewards.clone()),
                EnumerationLogLoss::new(inst.dynamics.clone()),
                5,
                0,
            ),
            Err(Error::EmptyClass { .. })
        ));
    }
    // A context out of range, in the exploring and in the greedy branch.
    let mut explore = eps_greedy(&inst, 1.0, 0);
    assert!(matches!(
        explore.act(10),
        Err(Error::DimensionMismatch { .. })
    ));
    let mut exploit = eps_greedy(&inst, 0.0, 0);
    assert!(matches!(
        exploit.act(10),
        Err(Error::DimensionMismatch { .. })
    ));
    let mut e = etc(&inst, 3, 0);
    assert!(matches!(e.act(10), Err(Error::DimensionMismatch { .. })));
    let mut e0 = etc(&inst, 0, 0);
    assert!(matches!(e0.act(10), Err(Error::DimensionMismatch { .. })));
}
