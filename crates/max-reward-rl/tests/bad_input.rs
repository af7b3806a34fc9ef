//! Typed errors on bad input, one block per public entry point.

use max_reward_rl::envs::{GridReward, GridWorld, stochastic_trap};
use max_reward_rl::gottipati::{gottipati_operator, gottipati_value_iteration};
use max_reward_rl::qlearning::{greedy_from_table, max_q_learning, q_error, sum_q_learning};
use max_reward_rl::targets::{
    max_discounted_return, max_gae, max_mc_returns, rollout_ys, td3_max_targets,
};
use max_reward_rl::ygrid::YLattice;
use max_reward_rl::{AugmentedPolicy, Error, MaxRewardMdp, MaxRewardParams};
use mlcore::sampling::seeded;
use ndarray::{Array2, Array3};
use tabular_mdp::{FiniteMdp, Outcome, QLearningParams, QTable, ViParams};

fn trap() -> MaxRewardMdp {
    MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(0.9)).unwrap()
}

#[test]
fn discount_outside_unit_interval() {
    for g in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
        let e = MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(g)).unwrap_err();
        assert!(matches!(e, Error::InvalidDiscount { .. }), "{e}");
        assert!(matches!(
            YLattice::new(&[0.0, 1.0], g, 10),
            Err(Error::InvalidDiscount { .. })
        ));
        assert!(matches!(
            rollout_ys(0.0, &[1.0], g),
            Err(Error::InvalidDiscount { .. })
        ));
    }
    let m = trap();
    assert!(matches!(
        sum_q_learning(
            &m,
            1.0,
            0,
            &QLearningParams::default(),
            &mut seeded(0),
            |_, _| {}
        ),
        Err(Error::InvalidDiscount { .. })
    ));
}

#[test]
fn negative_rewards_need_a_declared_shift() {
    let mdp = FiniteMdp::new(vec![vec![vec![Outcome::terminal(0, 1.0, -0.5)]]]).unwrap();
    let e = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(0.9)).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NegativeReward {
                state: 0,
                action: 0,
                ..
            }
        ),
        "{e}"
    );
    // With the shift the official code uses (subtract the lower bound), fine.
    let ok = MaxRewardMdp::new(
        &mdp,
        &MaxRewardParams {
            gamma: 0.9,
            reward_shift: 0.5,
            ..Default::default()
        },
    );
    assert!(ok.is_ok());
    let bad_shift = MaxRewardParams {
        gamma: 0.9,
        reward_shift: f64::NAN,
        ..Default::default()
    };
    assert!(matches!(
        MaxRewardMdp::new(&mdp, &bad_shift),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        YLattice::new(&[-1.0], 0.9, 10),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn rows_not_summing_to_one_and_empty_actions() {
    // Validation lives in the shared core and reaches users as Error::Mdp.
    let e: Error = FiniteMdp::new(vec![vec![vec![Outcome::new(0, 0.7, 1.0)]]])
        .unwrap_err()
        .into();
    assert!(
        matches!(e, Error::Mdp(tabular_mdp::Error::NotStochastic { .. })),
        "{e}"
    );
    let e: Error = FiniteMdp::new(vec![vec![]]).unwrap_err().into();
    assert!(
        matches!(e, Error::Mdp(tabular_mdp::Error::EmptyActions { state: 0 })),
        "{e}"
    );
}

#[test]
fn lattice_larger_than_the_limit() {
    // A tiny reward against r_max = 1 with γ close to 1: ~10⁵ levels.
    let mdp = FiniteMdp::new(vec![vec![vec![
        Outcome::new(0, 0.5, 1e-40),
        Outcome::terminal(0, 0.5, 1.0),
    ]]])
    .unwrap();
    let p = MaxRewardParams {
        gamma: 0.999,
        max_lattice: 1000,
        ..Default::default()
    };
    let e = MaxRewardMdp::new(&mdp, &p).unwrap_err();
    assert!(matches!(e, Error::YGridTooLarge { limit: 1000, .. }), "{e}");
    // Astronomically many levels are refused before any allocation.
    assert!(matches!(
        YLattice::new(&[1e-300, 1.0], 1.0 - 1e-15, 1_000_000_000),
        Err(Error::YGridTooLarge { .. })
    ));
}

#[test]
fn non_finite_values() {
    let m = trap();
    let mut v = Array2::zeros((m.n_states(), m.n_y()));
    v[[1, 1]] = f64::NAN;
    assert!(matches!(
        m.bellman_optimal(v.view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(m.q_from_v(v.view()), Err(Error::NonFinite { .. })));
    let q = Array2::from_elem((m.n_states(), m.n_actions()), f64::INFINITY);
    assert!(matches!(
        gottipati_operator(&m, q.view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        max_discounted_return(&[0.1, f64::NAN], 0.9),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        rollout_ys(f64::INFINITY, &[0.1], 0.9),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        td3_max_targets(&[0.0], &[f64::NAN], &[false], &[0.0], &[0.0], 0.9),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        max_mc_returns(&[0.1, 0.2], &[false, false], 0.0, Some(f64::NAN), 0.9),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        max_gae(&[0.1], &[false], &[f64::NAN], 0.0, Some(0.0), 0.9, 0.95),
        Err(Error::NonFinite { .. })
    ));
    let bad_grid = GridWorld::open(3, 3, GridReward::DenseL2 { scale: f64::NAN }, 0.1);
    assert!(matches!(bad_grid, Err(Error::InvalidParameter { .. })));
}

#[test]
fn shapes_and_policies() {
    let m = trap();
    let v = Array2::zeros((2, 2));
    assert!(matches!(
        m.bellman_optimal(v.view()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        m.greedy_policy(&Array3::zeros((1, 1, 1))),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        AugmentedPolicy::new(2, 2, vec![0; 3], vec![0; 2]),
        Err(Error::ShapeMismatch { .. })
    ));
    let wrong_size = AugmentedPolicy::markov(&[0, 0], m.n_y()).unwrap();
    assert!(matches!(
        m.evaluate(&wrong_size, &ViParams::default()),
        Err(Error::ShapeMismatch { .. })
    ));
    let bad_action = AugmentedPolicy::markov(&[5, 0, 0, 0], m.n_y()).unwrap();
    assert!(matches!(
        m.evaluate(&bad_action, &ViParams::default()),
        Err(Error::Mdp(tabular_mdp::Error::ActionOutOfRange { .. }))
    ));
    let good = AugmentedPolicy::markov(&[0, 0, 0, 0], m.n_y()).unwrap();
    assert!(matches!(
        m.reach_probability(&good, &[true], 0, 3),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        m.reach_probability(&good, &[false; 4], 9, 3),
        Err(Error::Mdp(tabular_mdp::Error::StateOutOfRange { .. }))
    ));
    assert!(matches!(
        m.reachable(4),
        Err(Error::Mdp(tabular_mdp::Error::StateOutOfRange { .. }))
    ));
    assert!(matches!(
        gottipati_operator(&m, Array2::zeros((1, 1)).view()),
        Err(Error::ShapeMismatch { .. })
    ));
    let small = QTable::new(1, 1, 0.0);
    assert!(matches!(
        greedy_from_table(&m, &small),
        Err(Error::ShapeMismatch { .. })
    ));
    let sol = m.solve(&ViParams::default()).unwrap();
    assert!(matches!(
        q_error(&m, &small, &sol, &m.reachable(0).unwrap()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        td3_max_targets(
            &[0.0, 1.0],
            &[0.0],
            &[false, false],
            &[0.0, 0.0],
            &[0.0, 0.0],
            0.9
        ),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        max_discounted_return(&[], 0.9),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn solver_parameters_and_learning_parameters() {
    let m = trap();
    let bad = ViParams {
        tol: 0.0,
        max_iter: 10,
    };
    assert!(matches!(
        m.solve(&bad),
        Err(Error::Mdp(tabular_mdp::Error::InvalidParameter { .. }))
    ));
    assert!(matches!(m.value_iteration(&bad), Err(Error::Mdp(_))));
    assert!(matches!(
        gottipati_value_iteration(&m, &bad),
        Err(Error::Mdp(_))
    ));
    let few = ViParams {
        tol: 1e-15,
        max_iter: 1,
    };
    assert!(matches!(
        m.value_iteration(&few),
        Err(Error::Mdp(tabular_mdp::Error::NotConverged { .. }))
    ));
    let p = QLearningParams {
        epsilon: 1.5,
        ..Default::default()
    };
    assert!(matches!(
        max_q_learning(&m, 0, &p, &mut seeded(0), |_, _| {}),
        Err(Error::Mdp(tabular_mdp::Error::InvalidParameter {
            name: "epsilon",
            ..
        }))
    ));
    assert!(matches!(
        max_q_learning(
            &m,
            7,
            &QLearningParams::default(),
            &mut seeded(0),
            |_, _| {}
        ),
        Err(Error::Mdp(tabular_mdp::Error::StateOutOfRange { .. }))
    ));
}

#[test]
fn rollout_segments() {
    // A termination before the last step: split the rollout.
    assert!(matches!(
        max_mc_returns(&[0.1, 0.2, 0.3], &[false, true, false], 0.0, Some(0.0), 0.9),
        Err(Error::TerminationInsideSegment { step: 1, len: 3 })
    ));
    assert!(matches!(
        max_gae(
            &[0.1, 0.2],
            &[true, false],
            &[0.0, 0.0],
            0.0,
            Some(0.0),
            0.9,
            0.95
        ),
        Err(Error::TerminationInsideSegment { .. })
    ));
    // A truncated segment needs its bootstrap value.
    assert!(matches!(
        max_mc_returns(&[0.1], &[false], 0.0, None, 0.9),
        Err(Error::InvalidParameter {
            name: "bootstrap",
            ..
        })
    ));
    assert!(matches!(
        max_gae(&[0.1], &[true], &[0.0], 0.0, None, 0.9, 1.5),
        Err(Error::InvalidParameter { name: "lambda", .. })
    ));
    assert!(matches!(
        max_mc_returns(&[], &[], 0.0, None, 0.9),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn grid_worlds() {
    let r = GridReward::Sparse;
    assert!(matches!(
        GridWorld::from_ascii("", r, 0.1),
        Err(Error::InvalidGrid { .. })
    ));
    assert!(matches!(
        GridWorld::from_ascii("S.\n.", r, 0.1),
        Err(Error::InvalidGrid { .. })
    ));
    assert!(matches!(
        GridWorld::from_ascii("S.x\n..G", r, 0.1),
        Err(Error::InvalidGrid { .. })
    ));
    assert!(matches!(
        GridWorld::from_ascii("S..\n...", r, 0.1),
        Err(Error::InvalidGrid { .. })
    ));
    assert!(matches!(
        GridWorld::from_ascii("S.G", r, 1.5),
        Err(Error::InvalidParameter { .. })
    ));
    let dsp = GridReward::Dsp {
        beta: 1.0,
        wp_freq: 3,
    };
    assert!(matches!(
        GridWorld::open(3, 3, dsp, 0.1),
        Err(Error::InvalidParameter { .. })
    ));
    let dsp = GridReward::Dsp {
        beta: 0.9,
        wp_freq: 0,
    };
    assert!(matches!(
        GridWorld::open(3, 3, dsp, 0.1),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        GridWorld::open(1, 1, r, 0.1),
        Err(Error::InvalidGrid { .. })
    ));
}
