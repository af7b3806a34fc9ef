//! Tabular max-Q-learning converges to q* (P5) and, on the waypoint grid,
//! learns to reach the goal where sum-reward Q-learning learns to park.

use max_reward_rl::envs::{GridReward, GridWorld, TRAP_GAMMA, stochastic_trap};
use max_reward_rl::qlearning::{greedy_from_table, max_q_learning, q_error, sum_q_learning};
use max_reward_rl::{AugmentedPolicy, MaxRewardMdp, MaxRewardParams};
use mlcore::sampling::seeded;
use tabular_mdp::{QLearningParams, StepSize, ViParams, greedy_policy};

/// P5: tabular max-Q (α = 1/n^0.6, ε = 0.2, 2·10⁵ steps) reaches
/// ‖Q − Q*‖∞ ≤ 0.02 over the reachable augmented states of the trap MDP in
/// at least 19 of 20 seeds.
#[test]
fn p5_max_q_learning_converges_on_the_trap() {
    let m =
        MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(TRAP_GAMMA)).unwrap();
    let exact = m.solve(&ViParams::default()).unwrap();
    let mask = m.reachable(0).unwrap();
    assert_eq!(mask.iter().filter(|&&b| b).count(), 3);
    let params = QLearningParams {
        steps: 200_000,
        epsilon: 0.2,
        step_size: StepSize::Polynomial { exponent: 0.6 },
        ..Default::default()
    };
    let mut good = 0;
    for seed in 0..20 {
        let table = max_q_learning(&m, 0, &params, &mut seeded(seed), |_, _| {}).unwrap();
        let err = q_error(&m, &table, &exact, &mask).unwrap();
        if err <= 0.02 {
            good += 1;
        }
    }
    assert!(good >= 19, "only {good}/20 seeds within 0.02");
}

/// Same seed, same table.
#[test]
fn max_q_learning_is_reproducible() {
    let m =
        MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(TRAP_GAMMA)).unwrap();
    let p = QLearningParams {
        steps: 5_000,
        ..Default::default()
    };
    let a = max_q_learning(&m, 0, &p, &mut seeded(3), |_, _| {}).unwrap();
    let b = max_q_learning(&m, 0, &p, &mut seeded(3), |_, _| {}).unwrap();
    assert_eq!(a, b);
}

/// On the 6×6 slippery DSP grid, after 3·10⁵ steps the greedy max-Q policy
/// reaches the goal within 100 steps with probability ≥ 0.6 (exact), the
/// greedy sum-Q policy with probability ≤ 0.1, in at least 4 of 5 seeds.
#[test]
fn learned_policies_on_the_waypoint_grid() {
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
    let p = QLearningParams {
        steps: 300_000,
        max_episode_len: 100,
        ..Default::default()
    };
    let goal = g.goal_mask();
    let mut good = 0;
    for seed in 0..5 {
        let tm = max_q_learning(&m, g.start(), &p, &mut seeded(seed), |_, _| {}).unwrap();
        let pm = greedy_from_table(&m, &tm).unwrap();
        let reach_max = m.reach_probability(&pm, &goal, g.start(), 100).unwrap();
        let ts = sum_q_learning(&m, 0.99, g.start(), &p, &mut seeded(seed), |_, _| {}).unwrap();
        let ps = AugmentedPolicy::markov(&greedy_policy(ts.q.view()), m.n_y()).unwrap();
        let reach_sum = m.reach_probability(&ps, &goal, g.start(), 100).unwrap();
        if reach_max >= 0.6 && reach_sum <= 0.1 {
            good += 1;
        }
    }
    assert!(good >= 4, "{good}/5");
}
