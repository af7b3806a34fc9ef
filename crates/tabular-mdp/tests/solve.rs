//! Value iteration and policy evaluation against closed forms on small
//! chains and against an exact linear solve on random MDPs.

use mlcore::linalg::lstsq;
use ndarray::{Array1, Array2};
use proptest::prelude::*;
use tabular_mdp::{
    FiniteMdp, Outcome, ViParams, bellman_optimal, policy_evaluation, q_from_v, value_iteration,
};

fn tight() -> ViParams {
    ViParams {
        tol: 1e-12,
        max_iter: 1_000_000,
    }
}

/// A deterministic chain 0 → 1 → … → n−1 with reward 1 on the last move
/// (terminal), and an idle action that stays with reward 0:
/// V*(s) = γ^{n−2−s} for s < n−1.
#[test]
fn chain_with_terminal_reward_has_geometric_values() {
    let n = 6;
    let g = 0.9;
    let mut table = Vec::new();
    for s in 0..n {
        let step = if s + 2 == n {
            Outcome::terminal(s + 1, 1.0, 1.0)
        } else if s + 1 == n {
            Outcome::terminal(s, 1.0, 0.0)
        } else {
            Outcome::new(s + 1, 1.0, 0.0)
        };
        table.push(vec![vec![step], vec![Outcome::new(s, 1.0, 0.0)]]);
    }
    let mdp = FiniteMdp::new(table).unwrap();
    let sol = value_iteration(&mdp, g, &tight()).unwrap();
    for s in 0..n - 1 {
        let want = g.powi((n - 2 - s) as i32);
        assert!(
            (sol.v[s] - want).abs() < 1e-12,
            "s = {s}: {} vs {want}",
            sol.v[s]
        );
        assert_eq!(sol.policy[s], 0);
    }
    assert_eq!(sol.v[n - 1], 0.0);
}

/// A self-loop paying r: V = r/(1 − γ). A two-state stochastic chain under
/// its only policy: V = (I − γP)⁻¹ r in closed form.
#[test]
fn loops_and_two_state_chain_closed_forms() {
    let g = 0.95;
    let mdp = FiniteMdp::new(vec![vec![vec![Outcome::new(0, 1.0, 2.0)]]]).unwrap();
    let sol = value_iteration(&mdp, g, &tight()).unwrap();
    assert!((sol.v[0] - 2.0 / (1.0 - g)).abs() < 1e-10);

    // P = [[1−p, p], [q, 1−q]], rewards r0, r1 paid in the state left.
    let (p, q, r0, r1) = (0.3, 0.6, 1.0, -2.0);
    let mdp = FiniteMdp::new(vec![
        vec![vec![Outcome::new(0, 1.0 - p, r0), Outcome::new(1, p, r0)]],
        vec![vec![Outcome::new(0, q, r1), Outcome::new(1, 1.0 - q, r1)]],
    ])
    .unwrap();
    let det = (1.0 - g * (1.0 - p)) * (1.0 - g * (1.0 - q)) - g * p * g * q;
    let v0 = ((1.0 - g * (1.0 - q)) * r0 + g * p * r1) / det;
    let v1 = (g * q * r0 + (1.0 - g * (1.0 - p)) * r1) / det;
    let sol = value_iteration(&mdp, g, &tight()).unwrap();
    assert!((sol.v[0] - v0).abs() < 1e-10 && (sol.v[1] - v1).abs() < 1e-10);
    let ev = policy_evaluation(&mdp, g, &[0, 0], &tight()).unwrap();
    assert!((ev[0] - v0).abs() < 1e-10 && (ev[1] - v1).abs() < 1e-10);
}

fn random_mdp(max_s: usize, max_a: usize) -> impl Strategy<Value = FiniteMdp> {
    (1..=max_s, 1..=max_a).prop_flat_map(|(ns, na)| {
        let outcome = (0..ns, 1u32..10, -1.0f64..1.0, proptest::bool::weighted(0.1));
        proptest::collection::vec(proptest::collection::vec(outcome, 1..=3), ns * na).prop_map(
            move |raw| {
                let table = (0..ns)
                    .map(|s| {
                        (0..na)
                            .map(|a| {
                                let list = &raw[s * na + a];
                                let total: u32 = list.iter().map(|o| o.1).sum();
                                list.iter()
                                    .map(|&(n, w, r, t)| Outcome {
                                        next: n,
                                        prob: f64::from(w) / f64::from(total),
                                        reward: r,
                                        terminal: t,
                                    })
                                    .collect()
                            })
                            .collect()
                    })
                    .collect();
                FiniteMdp::new(table).unwrap()
            },
        )
    })
}

/// (I − γP_π) V = r_π solved exactly (SVD least squares of a non-singular system).
fn exact_policy_value(mdp: &FiniteMdp, g: f64, policy: &[usize]) -> Array1<f64> {
    let n = mdp.n_states();
    let mut a = Array2::<f64>::eye(n);
    let mut b = Array1::<f64>::zeros(n);
    for s in 0..n {
        for o in mdp.outcomes(s, policy[s]) {
            b[s] += o.prob * o.reward;
            if !o.terminal {
                a[[s, o.next]] -= g * o.prob;
            }
        }
    }
    lstsq(a.view(), b.view()).unwrap().x
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Value iteration is within tol of V*: its greedy policy's exact value
    /// equals V (1e-9), V is a fixed point of T* (1e-9), and no
    /// deterministic policy beats it (all policies enumerated, S·A small).
    #[test]
    fn value_iteration_matches_exact_solutions(mdp in random_mdp(4, 2), g in 0.3f64..0.97) {
        let sol = value_iteration(&mdp, g, &tight()).unwrap();
        let exact = exact_policy_value(&mdp, g, &sol.policy);
        for s in 0..mdp.n_states() {
            prop_assert!((sol.v[s] - exact[s]).abs() < 1e-9);
        }
        let tv = bellman_optimal(&mdp, g, sol.v.view()).unwrap();
        prop_assert!((&tv - &sol.v).iter().all(|d| d.abs() < 1e-9));
        let q = q_from_v(&mdp, g, sol.v.view()).unwrap();
        prop_assert_eq!(q, sol.q.clone());
        let (ns, na) = (mdp.n_states(), mdp.n_actions());
        for code in 0..na.pow(ns as u32) {
            let pol: Vec<usize> = (0..ns).map(|s| (code / na.pow(s as u32)) % na).collect();
            let v = policy_evaluation(&mdp, g, &pol, &tight()).unwrap();
            let ex = exact_policy_value(&mdp, g, &pol);
            for s in 0..ns {
                prop_assert!((v[s] - ex[s]).abs() < 1e-9);
                prop_assert!(v[s] <= sol.v[s] + 1e-9);
            }
        }
    }
}
