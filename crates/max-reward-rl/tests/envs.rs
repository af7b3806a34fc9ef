//! Grid worlds: BFS distances, the three reward kinds, slip probabilities,
//! walls, and the goal's terminal transition.

use max_reward_rl::envs::{GridReward, GridWorld};
use max_reward_rl::{MaxRewardMdp, MaxRewardParams};

const MAZE: &str = "
S.#..
..#.#
....G
";

#[test]
fn maze_distances_and_dsp_rewards() {
    let g = GridWorld::from_ascii(
        MAZE,
        GridReward::Dsp {
            beta: 0.5,
            wp_freq: 2,
        },
        0.0,
    )
    .unwrap();
    assert_eq!(g.n_states(), 12);
    assert_eq!(g.dims(), (3, 5));
    assert_eq!(g.cell(g.start()), (0, 0));
    assert_eq!(g.cell(g.goal()), (2, 4));
    let d = g.distances();
    // The start is 6 moves from the goal (down twice, right four times).
    assert_eq!(d[g.start()], 6);
    // (0, 3) reaches the goal through (1, 3): 3 moves.
    assert_eq!(d[g.state_at(0, 3).unwrap()], 3);
    let r = g.state_rewards();
    for s in 0..g.n_states() {
        let want = if s == g.goal() {
            1.0
        } else if d[s].is_multiple_of(2) {
            0.5f64.powi(d[s] as i32 + 1)
        } else {
            0.0
        };
        assert_eq!(r[s], want, "state {s} at distance {}", d[s]);
    }
    // Walls block moves: from (0, 1) moving right stays put.
    let s01 = g.state_at(0, 1).unwrap();
    assert_eq!(g.move_from(s01, 1), s01);
    assert!(g.state_at(0, 2).is_none());
}

#[test]
fn slip_probabilities_and_terminal_goal() {
    let slip = 0.2;
    let g = GridWorld::open(3, 3, GridReward::Sparse, slip).unwrap();
    let mdp = g.to_mdp().unwrap();
    // Centre cell, action right: intended 1 − slip + slip/4, three others slip/4 each.
    let c = g.state_at(1, 1).unwrap();
    let right = g.state_at(1, 2).unwrap();
    let out = mdp.outcomes(c, 1);
    assert_eq!(out.len(), 4);
    for o in out {
        let want = if o.next == right {
            1.0 - slip + slip / 4.0
        } else {
            slip / 4.0
        };
        assert!((o.prob - want).abs() < 1e-15);
        assert_eq!(o.reward, 0.0);
        assert!(!o.terminal);
    }
    // Top-left corner, action up: up and left both stay (merged), 0.8 + 0.05 + 0.05.
    let out = mdp.outcomes(g.start(), 0);
    let stay = out.iter().find(|o| o.next == g.start()).unwrap();
    assert!((stay.prob - 0.9).abs() < 1e-15);
    // Entering the goal pays 1 and ends the episode.
    let above_goal = g.state_at(1, 2).unwrap();
    let o = mdp
        .outcomes(above_goal, 2)
        .iter()
        .find(|o| o.next == g.goal())
        .copied()
        .unwrap();
    assert!(o.terminal && o.reward == 1.0);
    assert!(mdp.outcomes(g.goal(), 0).iter().all(|o| o.terminal));
}

#[test]
fn dense_l2_reward_and_render() {
    let g = GridWorld::open(2, 3, GridReward::DenseL2 { scale: 2.0 }, 0.1).unwrap();
    let r = g.state_rewards();
    // Start (0, 0), goal (1, 2): distance √5.
    assert!((r[g.start()] - (-(5.0f64).sqrt() / 2.0).exp()).abs() < 1e-15);
    assert_eq!(r[g.goal()], 1.0);
    let pic = g.render(None).unwrap();
    assert_eq!(pic, "S..\n..G\n");
    let arrows = g.render(Some(&[1, 1, 2, 0, 3, 0])).unwrap();
    assert_eq!(arrows, ">>v\n^<G\n");
}

/// A continuing grid: the goal is absorbing and pays 1 per step, so its
/// discounted-sum value is exactly 1/(1 − γ) and its max-reward value is
/// r_max = 1 (closed forms); nothing terminates; and on a corridor the
/// sum-optimal policy walks to the goal (value γ^{d−1}/(1 − γ) from distance
/// d, since arriving pays 1 and the goal's waypoint-free neighbours pay 0).
#[test]
fn continuing_goal_is_absorbing_and_paying() {
    let g = GridWorld::from_ascii("S...G", GridReward::Sparse, 0.0)
        .unwrap()
        .continuing();
    assert!(g.is_continuing());
    let mdp = g.to_mdp().unwrap();
    for s in 0..mdp.n_states() {
        for a in 0..mdp.n_actions() {
            assert!(mdp.outcomes(s, a).iter().all(|o| !o.terminal));
        }
    }
    let gamma = 0.9;
    let sum = tabular_mdp::value_iteration(&mdp, gamma, &tabular_mdp::ViParams::default()).unwrap();
    assert!((sum.v[g.goal()] - 1.0 / (1.0 - gamma)).abs() < 1e-8);
    let d = 4;
    let want = gamma.powi(d - 1) / (1.0 - gamma);
    assert!(
        (sum.v[g.start()] - want).abs() < 1e-8,
        "{} vs {want}",
        sum.v[g.start()]
    );
    let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(gamma)).unwrap();
    let max = m.solve(&tabular_mdp::ViParams::default()).unwrap();
    // Max-reward: the first 1 arrives after d moves: γ^{d−1}·1.
    assert!((max.v[[g.start(), 0]] - gamma.powi(d - 1)).abs() < 1e-10);
}
