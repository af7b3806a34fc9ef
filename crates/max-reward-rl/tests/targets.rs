//! Deep-RL targets: the TD3-max terminal branch, max Monte-Carlo returns
//! against their definition, and max-GAE against the explicit λ-average of
//! n-step max returns.

use max_reward_rl::targets::{
    max_discounted_return, max_gae, max_mc_returns, rollout_ys, td3_max_target, td3_max_targets,
    y_update,
};
use proptest::prelude::*;

#[test]
fn y_update_and_return() {
    assert!((y_update(0.2, 0.5, 0.5) - 1.0).abs() < 1e-15);
    assert!((y_update(0.8, 0.5, 0.5) - 1.6).abs() < 1e-15);
    // max(0.1, 0.9·0.5, 0.81·1.0) = 0.81
    assert!((max_discounted_return(&[0.1, 0.5, 1.0], 0.9).unwrap() - 0.81).abs() < 1e-15);
    // Identity of the paper: max_k γ^k r_k = γ^t · max(y_t, G_t).
    let r = [0.3, 0.0, 0.7, 0.2, 0.9, 0.1];
    let g = 0.8;
    let ys = rollout_ys(0.0, &r, g).unwrap();
    let full = max_discounted_return(&r, g).unwrap();
    for t in 0..r.len() {
        let gt = max_discounted_return(&r[t..], g).unwrap();
        assert!((full - g.powi(t as i32) * ys[t].max(gt)).abs() < 1e-12);
    }
}

/// The terminal TD3-max target is max(y, r) (not max(y, r)/γ as in the
/// official code), consistent with γ·max(Q', ŷ) when Q' = ŷ.
#[test]
fn td3_terminal_branch_is_consistent() {
    let (y, r, g) = (0.3, 0.6, 0.9);
    let y_hat = y_update(y, r, g);
    let terminal = td3_max_target(y, r, true, 5.0, 5.0, g);
    assert!((terminal - 0.6).abs() < 1e-15);
    // A critic that already knows v(s', ŷ) = ŷ gives the same number.
    let bootstrapped = td3_max_target(y, r, false, y_hat, y_hat, g);
    assert!((terminal - bootstrapped).abs() < 1e-15);
    // Clipped double-Q: the minimum of the two critics, floored at ŷ.
    let t = td3_max_target(y, r, false, 0.9, 0.8, g);
    assert!((t - g * 0.8).abs() < 1e-15);
    let batch = td3_max_targets(
        &[y, y],
        &[r, r],
        &[true, false],
        &[5.0, 0.9],
        &[5.0, 0.8],
        g,
    )
    .unwrap();
    assert_eq!(batch, vec![terminal, t]);
}

/// n-step max return of the definition: max(ŷ_t^{(k)}, γ^k V(s_{t+k}, y_{t+k})).
fn n_step(
    r: &[f64],
    ys: &[f64],
    values: &[f64],
    boot: Option<f64>,
    g: f64,
    t: usize,
    k: usize,
) -> f64 {
    let n = r.len();
    let m = (0..k)
        .map(|j| g.powi(j as i32) * r[t + j])
        .fold(f64::NEG_INFINITY, f64::max);
    let y_hat = ys[t].max(m);
    if t + k == n {
        match boot {
            None => y_hat,
            Some(v) => y_hat.max(g.powi(k as i32) * v),
        }
    } else {
        y_hat.max(g.powi(k as i32) * values[t + k])
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Max-MC returns equal their definition; max-GAE equals the explicit
    /// λ-weighted average of n-step max returns (1e-12), for critics with
    /// V ≥ y; λ = 1 gives max-MC.
    #[test]
    fn max_gae_equals_lambda_average_of_n_step_returns(
        r in proptest::collection::vec(0.0f64..1.0, 1..12),
        extra in proptest::collection::vec(0.0f64..0.5, 12),
        y0 in 0.0f64..0.5,
        g in 0.5f64..0.99,
        lambda in 0.0f64..1.0,
        terminal in any::<bool>(),
        boot_extra in 0.0f64..0.5,
    ) {
        let n = r.len();
        let ys = rollout_ys(y0, &r, g).unwrap();
        // A critic with V(s_t, y_t) ≥ y_t.
        let values: Vec<f64> = (0..n).map(|t| ys[t] + extra[t]).collect();
        let mut term = vec![false; n];
        term[n - 1] = terminal;
        let boot = if terminal { None } else { Some(ys[n] + boot_extra) };
        let mc = max_mc_returns(&r, &term, y0, boot, g).unwrap();
        for (t, x) in mc.iter().enumerate() {
            prop_assert!((x - n_step(&r, &ys, &values, boot, g, t, n - t)).abs() < 1e-12);
        }
        let gae = max_gae(&r, &term, &values, y0, boot, g, lambda).unwrap();
        for t in 0..n {
            let len = n - t;
            let mut want = 0.0;
            for k in 1..len {
                want += (1.0 - lambda) * lambda.powi(k as i32 - 1) * n_step(&r, &ys, &values, boot, g, t, k);
            }
            want += lambda.powi(len as i32 - 1) * n_step(&r, &ys, &values, boot, g, t, len);
            prop_assert!((gae.returns[t] - want).abs() < 1e-12, "t = {}: {} vs {}", t, gae.returns[t], want);
            prop_assert!((gae.advantages[t] - (want - values[t])).abs() < 1e-12);
        }
        let one = max_gae(&r, &term, &values, y0, boot, g, 1.0).unwrap();
        for (x, m) in one.returns.iter().zip(&mc) {
            prop_assert!((x - m).abs() < 1e-12);
        }
    }
}
