//! Exactness of the augmented-state solution: against exhaustive expectimax
//! over history-dependent policies (P2), against the Gottipati fixed point on
//! deterministic MDPs (P4), the worked example (0.700 vs 0.675), and the
//! grid-world claim (sum-optimal loops on waypoints, max-optimal reaches the goal).

mod common;

use max_reward_rl::envs::{GridReward, GridWorld, TRAP_GAMMA, stochastic_trap};
use max_reward_rl::gottipati::gottipati_value_iteration;
use max_reward_rl::targets::max_discounted_return;
use max_reward_rl::{AugmentedPolicy, MaxRewardMdp, MaxRewardParams};
use proptest::prelude::*;
use tabular_mdp::{FiniteMdp, Outcome, ViParams};

fn tight() -> ViParams {
    ViParams {
        tol: 1e-13,
        max_iter: 1_000_000,
    }
}

/// The base MDP unrolled over `horizon` layers: state h·S + s; every
/// outcome of the last layer is terminal.
fn layered(base: &FiniteMdp, horizon: usize) -> FiniteMdp {
    let (ns, na) = (base.n_states(), base.n_actions());
    let mut table = Vec::new();
    for h in 0..horizon {
        for s in 0..ns {
            let row = (0..na)
                .map(|a| {
                    base.outcomes(s, a)
                        .iter()
                        .map(|o| {
                            let last = h + 1 == horizon;
                            Outcome {
                                next: if last {
                                    h * ns + o.next
                                } else {
                                    (h + 1) * ns + o.next
                                },
                                prob: o.prob,
                                reward: o.reward,
                                terminal: o.terminal || last,
                            }
                        })
                        .collect()
                })
                .collect();
            table.push(row);
        }
    }
    FiniteMdp::new(table).unwrap()
}

/// Exhaustive expectimax over history-dependent policies: the best
/// E[max_t γ^t r_t] given the full reward history so far.
fn expectimax(
    base: &FiniteMdp,
    gamma: f64,
    s: usize,
    h: usize,
    horizon: usize,
    hist: &mut Vec<f64>,
) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for a in 0..base.n_actions() {
        let mut acc = 0.0;
        for o in base.outcomes(s, a) {
            hist.push(o.reward);
            let x = if o.terminal || h + 1 == horizon {
                max_discounted_return(hist, gamma).unwrap()
            } else {
                expectimax(base, gamma, o.next, h + 1, horizon, hist)
            };
            hist.pop();
            acc += o.prob * x;
        }
        best = best.max(acc);
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// P2: DP on (s, y) equals exhaustive expectimax over history-dependent
    /// policies of E[max_t γ^t r_t] (H ≤ 4, S ≤ 4, A ≤ 2, stochastic), 1e-10.
    #[test]
    fn p2_dp_on_augmented_states_equals_history_expectimax(
        base in common::random_mdp(4, 2, false),
        horizon in 1usize..=4,
        gamma in 0.5f64..0.99,
    ) {
        let mdp = layered(&base, horizon);
        let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(gamma)).unwrap();
        let sol = m.solve(&tight()).unwrap();
        for s in 0..base.n_states() {
            let want = expectimax(&base, gamma, s, 0, horizon, &mut Vec::new());
            let got = sol.v[[s, 0]];
            prop_assert!((got - want).abs() <= 1e-10, "s = {s}: {got} vs {want}");
        }
    }

    /// P4: on deterministic MDPs, v*(s, 0) equals the Gottipati fixed point (1e-10).
    #[test]
    fn p4_deterministic_mdps_agree_with_gottipati(
        mdp in common::random_mdp(6, 3, true),
        gamma in 0.5f64..0.99,
    ) {
        let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(gamma)).unwrap();
        let sol = m.solve(&tight()).unwrap();
        let g = gottipati_value_iteration(&m, &tight()).unwrap();
        for s in 0..m.n_states() {
            prop_assert!((sol.v[[s, 0]] - g.v[s]).abs() <= 1e-10);
        }
    }
}

/// The worked example: A = 0.700, B = 0.675, v(s1, 0.5/0.9) = 0.7778;
/// Gottipati: A = 0.5, picks B.
#[test]
fn stochastic_trap_known_values() {
    let m =
        MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(TRAP_GAMMA)).unwrap();
    let sol = m.solve(&tight()).unwrap();
    assert!((sol.q[[0, 0, 0]] - 0.700).abs() < 1e-12);
    assert!((sol.q[[0, 0, 1]] - 0.675).abs() < 1e-12);
    assert_eq!(sol.policy.action(0, 0).unwrap(), 0);
    let y1 = m
        .lattice()
        .values()
        .iter()
        .position(|&y| (y - 0.5 / 0.9).abs() < 1e-12)
        .expect("0.5/0.9 is a lattice point");
    assert!((sol.v[[1, y1]] - (0.5 * 1.0 + 0.5 * (0.5 / 0.9))).abs() < 1e-12);
    assert!((sol.v[[1, y1]] - 0.7778).abs() < 1e-4);
    let g = gottipati_value_iteration(&m, &tight()).unwrap();
    assert!((g.q[[0, 0]] - 0.5).abs() < 1e-12);
    assert!((g.q[[0, 1]] - 0.675).abs() < 1e-12);
    assert_eq!(g.policy[0], 1);
    // Following Gottipati's choice costs 0.025 of max-reward value.
    let pol = AugmentedPolicy::markov(&g.policy, m.n_y()).unwrap();
    let v = m.evaluate(&pol, &tight()).unwrap();
    assert!((v[[0, 0]] - 0.675).abs() < 1e-12);
}

/// The lattice of the trap: rewards {0, 0.5, 0.75, 1}, γ = 0.9: y = 0 and
/// r·0.9^{−j} < 1 for j ≥ 1: 0.5·0.9^{−1..6} and 0.75·0.9^{−1..2} (9 points).
#[test]
fn trap_lattice_is_exact() {
    let m = MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(0.9)).unwrap();
    let mut want = vec![0.0];
    want.extend((1..=6).map(|j| 0.5 * 0.9f64.powi(-j)));
    want.extend((1..=2).map(|j| 0.75 * 0.9f64.powi(-j)));
    want.sort_by(f64::total_cmp);
    let got = m.lattice().values();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-12);
    }
}

/// The headline claim on a small slippery DSP grid: the sum-reward optimal
/// policy parks on waypoints (goal almost never reached in 100 steps) while
/// the max-reward optimal policy reaches the goal.
#[test]
fn dsp_grid_sum_loops_max_reaches_goal() {
    let g = GridWorld::open(
        6,
        6,
        GridReward::Dsp {
            beta: 0.9,
            wp_freq: 3,
        },
        0.2,
    )
    .unwrap();
    let mdp = g.to_mdp().unwrap();
    let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(0.95)).unwrap();
    let sol = m.solve(&ViParams::default()).unwrap();
    let sum = tabular_mdp::value_iteration(&mdp, 0.99, &ViParams::default()).unwrap();
    let goal = g.goal_mask();
    let p_max = m
        .reach_probability(&sol.policy, &goal, g.start(), 100)
        .unwrap();
    let p_sum = m
        .reach_probability(
            &AugmentedPolicy::markov(&sum.policy, m.n_y()).unwrap(),
            &goal,
            g.start(),
            100,
        )
        .unwrap();
    assert!(p_max > 0.99, "max-reward reach {p_max}");
    assert!(p_sum < 0.05, "sum-reward reach {p_sum}");
}
