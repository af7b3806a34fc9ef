//! Typed errors on bad input, one block per public entry point.

use mlcore::sampling::seeded;
use ndarray::Array1;
use tabular_mdp::{
    Error, FiniteMdp, MdpEnv, Outcome, QLearningParams, StepSize, ViParams, bellman_optimal,
    evaluate_finite_horizon, finite_horizon, finite_horizon_plain, policy_evaluation, q_learning,
    sum_reward_target, value_iteration,
};

fn ok_mdp() -> FiniteMdp {
    FiniteMdp::new(vec![vec![vec![Outcome::new(0, 1.0, 1.0)]; 2]; 2]).unwrap()
}

#[test]
fn mdp_construction() {
    assert!(matches!(FiniteMdp::new(vec![]), Err(Error::NoStates)));
    assert!(matches!(
        FiniteMdp::new(vec![vec![]]),
        Err(Error::EmptyActions { state: 0 })
    ));
    let ragged = vec![
        vec![vec![Outcome::new(0, 1.0, 0.0)]],
        vec![vec![Outcome::new(0, 1.0, 0.0)]; 2],
    ];
    assert!(matches!(
        FiniteMdp::new(ragged),
        Err(Error::RaggedActions { state: 1, .. })
    ));
    assert!(matches!(
        FiniteMdp::new(vec![vec![vec![]]]),
        Err(Error::EmptyOutcomes { .. })
    ));
    let far = vec![vec![vec![Outcome::new(3, 1.0, 0.0)]]];
    assert!(matches!(
        FiniteMdp::new(far),
        Err(Error::NextStateOutOfRange { next: 3, .. })
    ));
    let neg = vec![vec![vec![
        Outcome::new(0, -0.5, 0.0),
        Outcome::new(0, 1.5, 0.0),
    ]]];
    assert!(matches!(
        FiniteMdp::new(neg),
        Err(Error::InvalidProbability { .. })
    ));
    let nan_p = vec![vec![vec![Outcome::new(0, f64::NAN, 0.0)]]];
    assert!(matches!(
        FiniteMdp::new(nan_p),
        Err(Error::InvalidProbability { .. })
    ));
    let short = vec![vec![vec![
        Outcome::new(0, 0.5, 0.0),
        Outcome::new(0, 0.4, 0.0),
    ]]];
    assert!(matches!(
        FiniteMdp::new(short),
        Err(Error::NotStochastic { .. })
    ));
    let inf_r = vec![vec![vec![Outcome::new(0, 1.0, f64::INFINITY)]]];
    assert!(matches!(
        FiniteMdp::new(inf_r),
        Err(Error::NonFinite { what: "reward", .. })
    ));
}

#[test]
fn discounts_and_solver_parameters() {
    let mdp = ok_mdp();
    for g in [0.0, 1.0, 1.2, f64::NAN] {
        assert!(matches!(
            value_iteration(&mdp, g, &ViParams::default()),
            Err(Error::InvalidDiscount { .. })
        ));
        assert!(matches!(
            policy_evaluation(&mdp, g, &[0, 0], &ViParams::default()),
            Err(Error::InvalidDiscount { .. })
        ));
        assert!(matches!(
            bellman_optimal(&mdp, g, Array1::zeros(2).view()),
            Err(Error::InvalidDiscount { .. })
        ));
    }
    // Finite horizon accepts γ = 1 but not 0 or above 1.
    assert!(finite_horizon_plain(&mdp, 2, 1.0).is_ok());
    assert!(matches!(
        finite_horizon_plain(&mdp, 2, 1.5),
        Err(Error::InvalidDiscount { .. })
    ));
    assert!(matches!(
        finite_horizon_plain(&mdp, 0, 1.0),
        Err(Error::InvalidParameter { .. })
    ));
    for bad in [
        ViParams {
            tol: 0.0,
            max_iter: 5,
        },
        ViParams {
            tol: f64::NAN,
            max_iter: 5,
        },
        ViParams {
            tol: 1e-3,
            max_iter: 0,
        },
    ] {
        assert!(matches!(
            value_iteration(&mdp, 0.9, &bad),
            Err(Error::InvalidParameter { .. })
        ));
    }
    let few = ViParams {
        tol: 1e-14,
        max_iter: 3,
    };
    assert!(matches!(
        value_iteration(&mdp, 0.9, &few),
        Err(Error::NotConverged { iterations: 3, .. })
    ));
}

#[test]
fn values_bonuses_and_policies() {
    let mdp = ok_mdp();
    assert!(matches!(
        bellman_optimal(&mdp, 0.9, Array1::zeros(3).view()),
        Err(Error::ShapeMismatch { .. })
    ));
    let nan = Array1::from_vec(vec![0.0, f64::NAN]);
    assert!(matches!(
        bellman_optimal(&mdp, 0.9, nan.view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        finite_horizon(&mdp, 2, 1.0, |_, _, _| f64::NAN, |_| 1.0),
        Err(Error::NonFinite { what: "bonus", .. })
    ));
    assert!(matches!(
        finite_horizon(&mdp, 2, 1.0, |_, _, _| 0.0, |_| f64::NAN),
        Err(Error::NonFinite { what: "cap", .. })
    ));
    assert!(matches!(
        policy_evaluation(&mdp, 0.9, &[0], &ViParams::default()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        policy_evaluation(&mdp, 0.9, &[0, 7], &ViParams::default()),
        Err(Error::ActionOutOfRange { .. })
    ));
    assert!(matches!(
        evaluate_finite_horizon(&mdp, 2, 1.0, |_, _| 9),
        Err(Error::ActionOutOfRange { .. })
    ));
}

#[test]
fn q_learning_parameters() {
    let mdp = ok_mdp();
    assert!(matches!(
        MdpEnv::new(&mdp, 5),
        Err(Error::StateOutOfRange { .. })
    ));
    let mut env = MdpEnv::new(&mdp, 0).unwrap();
    let bads = [
        QLearningParams {
            epsilon: -0.1,
            ..Default::default()
        },
        QLearningParams {
            step_size: StepSize::Constant(0.0),
            ..Default::default()
        },
        QLearningParams {
            step_size: StepSize::Polynomial { exponent: 0.5 },
            ..Default::default()
        },
        QLearningParams {
            max_episode_len: 0,
            ..Default::default()
        },
        QLearningParams {
            init_q: f64::NAN,
            ..Default::default()
        },
    ];
    for p in bads {
        assert!(matches!(
            q_learning(
                &mut env,
                &p,
                sum_reward_target(0.9),
                &mut seeded(0),
                |_, _| {}
            ),
            Err(Error::InvalidParameter { .. })
        ));
    }
    // A target that blows up is reported, not propagated as NaN.
    let p = QLearningParams {
        steps: 10,
        ..Default::default()
    };
    assert!(matches!(
        q_learning(
            &mut env,
            &p,
            |_: &usize, _: &_, _| f64::NAN,
            &mut seeded(0),
            |_, _| {}
        ),
        Err(Error::NonFinite {
            what: "TD target",
            ..
        })
    ));
}
