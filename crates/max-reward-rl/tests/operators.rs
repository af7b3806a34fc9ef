//! The max-reward Bellman operators and solvers: contraction (P1), structure
//! of v in y (P3), export equivalence (P6), and the agreement of the three
//! solvers (plain value iteration, the layered solver, policy evaluation).

mod common;

use max_reward_rl::{AugmentedPolicy, MaxRewardMdp, MaxRewardParams};
use ndarray::Array2;
use proptest::prelude::*;
use tabular_mdp::{ViParams, value_iteration};

fn tight() -> ViParams {
    ViParams {
        tol: 1e-12,
        max_iter: 1_000_000,
    }
}

fn sup(a: &Array2<f64>, b: &Array2<f64>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// P1: ‖T*V1 − T*V2‖∞ ≤ γ‖V1 − V2‖∞ + 1e-12 and the same for T^π
    /// (random MDPs, S ≤ 6, A ≤ 3, rewards in {0, .25, .5, 1}, γ ∈ [0.5, 0.99]).
    #[test]
    fn p1_operators_are_gamma_contractions(
        mdp in common::random_mdp(6, 3, false),
        gamma in 0.5f64..0.99,
        seed in any::<u64>(),
    ) {
        let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(gamma)).unwrap();
        let shape = (m.n_states(), m.n_y());
        let mut rng = mlcore::sampling::seeded(seed);
        use rand::RngExt;
        let v1 = Array2::from_shape_fn(shape, |_| rng.random::<f64>() * 2.0);
        let v2 = Array2::from_shape_fn(shape, |_| rng.random::<f64>() * 2.0);
        let d = sup(&v1, &v2);
        let t1 = m.bellman_optimal(v1.view()).unwrap();
        let t2 = m.bellman_optimal(v2.view()).unwrap();
        prop_assert!(sup(&t1, &t2) <= gamma * d + 1e-12);
        let actions = (0..shape.0 * shape.1).map(|i| (i * 7 + 3) % m.n_actions()).collect();
        let pol = AugmentedPolicy::new(shape.0, shape.1, actions, vec![0; shape.0]).unwrap();
        let p1 = m.bellman_policy(&pol, v1.view()).unwrap();
        let p2 = m.bellman_policy(&pol, v2.view()).unwrap();
        prop_assert!(sup(&p1, &p2) <= gamma * d + 1e-12);
    }

    /// P3: v* ≥ y; y ↦ v*(s, y) non-decreasing and 1-Lipschitz on the
    /// lattice; y ≤ v*(s, y) ≤ max(y, r_max), hence v* = y once y ≥ r_max
    /// (the saturated class, which the solver treats analytically).
    #[test]
    fn p3_value_is_monotone_lipschitz_and_at_least_y(
        mdp in common::random_mdp(6, 3, false),
        gamma in 0.5f64..0.99,
    ) {
        let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(gamma)).unwrap();
        let sol = m.solve(&tight()).unwrap();
        let ys = m.lattice().values();
        let r_max = m.lattice().r_max();
        for s in 0..m.n_states() {
            for (y, &yv) in ys.iter().enumerate() {
                let v = sol.v[[s, y]];
                prop_assert!(v >= yv - 1e-12, "v = {v} < y = {yv}");
                prop_assert!(v <= yv.max(r_max) + 1e-12);
                if y > 0 {
                    let dv = v - sol.v[[s, y - 1]];
                    let dy = yv - ys[y - 1];
                    prop_assert!(dv >= -1e-12, "not monotone: {dv}");
                    prop_assert!(dv <= dy + 1e-12, "not 1-Lipschitz: {dv} > {dy}");
                }
            }
        }
    }

    /// P6: the exported standard MDP, solved by ordinary value iteration,
    /// has the values of the max-reward solution (1e-10).
    #[test]
    fn p6_export_has_the_same_values(
        mdp in common::random_mdp(6, 3, false),
        gamma in 0.5f64..0.95,
    ) {
        let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(gamma)).unwrap();
        let sol = m.solve(&tight()).unwrap();
        let (std_mdp, g) = m.export_standard_mdp().unwrap();
        prop_assert_eq!(std_mdp.n_states(), m.n_augmented() + 1);
        let vs = value_iteration(&std_mdp, g, &tight()).unwrap();
        for s in 0..m.n_states() {
            for y in 0..m.n_y() {
                let a = sol.v[[s, y]];
                let b = vs.v[m.export_index(s, y).unwrap()];
                prop_assert!((a - b).abs() <= 1e-10, "({s}, {y}): {a} vs {b}");
            }
        }
    }

    /// The layered solver, plain value iteration on (s, y), and the exact
    /// evaluation of the greedy policy agree (1e-10), and the greedy policy
    /// is a fixed point of its own operator.
    #[test]
    fn solvers_agree(
        mdp in common::random_mdp(6, 3, false),
        gamma in 0.5f64..0.95,
    ) {
        let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(gamma)).unwrap();
        let a = m.solve(&tight()).unwrap();
        let b = m.value_iteration(&tight()).unwrap();
        prop_assert!(sup(&a.v, &b.v) <= 1e-10);
        let ev = m.evaluate(&a.policy, &tight()).unwrap();
        prop_assert!(sup(&a.v, &ev) <= 1e-10);
        let tv = m.bellman_optimal(a.v.view()).unwrap();
        prop_assert!(sup(&a.v, &tv) <= 1e-10);
    }
}

/// Every other policy is worth at most v* (exact evaluation), on a fixed instance.
#[test]
fn no_markov_policy_beats_the_optimum() {
    let mdp = max_reward_rl::envs::stochastic_trap();
    let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(0.9)).unwrap();
    let sol = m.solve(&tight()).unwrap();
    for first in 0..2 {
        let pol = AugmentedPolicy::markov(&[first, 0, 0, 0], m.n_y()).unwrap();
        let v = m.evaluate(&pol, &tight()).unwrap();
        assert!(v[[0, 0]] <= sol.v[[0, 0]] + 1e-12);
    }
}
