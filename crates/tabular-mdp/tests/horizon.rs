//! Finite-horizon DP against brute force over all non-stationary
//! deterministic policies, with and without a bonus, and the cap.

use proptest::prelude::*;
use tabular_mdp::{
    FiniteMdp, Outcome, evaluate_finite_horizon, finite_horizon, finite_horizon_plain,
};

fn random_mdp() -> impl Strategy<Value = FiniteMdp> {
    (1usize..=3, 1usize..=2).prop_flat_map(|(ns, na)| {
        let outcome = (0..ns, 1u32..10, 0.0f64..1.0, proptest::bool::weighted(0.1));
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

/// Brute force: the best value over all A^{S·H} non-stationary deterministic
/// policies, each evaluated by direct recursion (an independent evaluator).
fn brute_force(
    mdp: &FiniteMdp,
    horizon: usize,
    g: f64,
    bonus: &dyn Fn(usize, usize, usize) -> f64,
) -> Vec<f64> {
    let (ns, na) = (mdp.n_states(), mdp.n_actions());
    let total = na.pow((ns * horizon) as u32);
    let mut best = vec![f64::NEG_INFINITY; ns];
    fn value(
        mdp: &FiniteMdp,
        pol: &[usize],
        h: usize,
        s: usize,
        horizon: usize,
        g: f64,
        bonus: &dyn Fn(usize, usize, usize) -> f64,
    ) -> f64 {
        if h == horizon {
            return 0.0;
        }
        let a = pol[h * mdp.n_states() + s];
        let mut x = bonus(h, s, a);
        for o in mdp.outcomes(s, a) {
            let cont = if o.terminal {
                0.0
            } else {
                g * value(mdp, pol, h + 1, o.next, horizon, g, bonus)
            };
            x += o.prob * (o.reward + cont);
        }
        x
    }
    for code in 0..total {
        let pol: Vec<usize> = (0..ns * horizon)
            .map(|i| (code / na.pow(i as u32)) % na)
            .collect();
        for (s, b) in best.iter_mut().enumerate() {
            *b = b.max(value(mdp, &pol, 0, s, horizon, g, bonus));
        }
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Backward induction equals the best of all non-stationary policies
    /// (1e-12), with a bonus b(h, s, a) too; the returned policy attains it.
    #[test]
    fn finite_horizon_dp_equals_brute_force(mdp in random_mdp(), horizon in 1usize..=3, g in 0.5f64..=1.0) {
        let sol = finite_horizon_plain(&mdp, horizon, g).unwrap();
        let want = brute_force(&mdp, horizon, g, &|_, _, _| 0.0);
        for (s, w) in want.iter().enumerate() {
            prop_assert!((sol.v[[0, s]] - w).abs() < 1e-12);
        }
        let v = evaluate_finite_horizon(&mdp, horizon, g, |h, s| sol.policy[[h, s]]).unwrap();
        prop_assert!((&v - &sol.v).iter().all(|d| d.abs() < 1e-12));

        let bonus = |h: usize, s: usize, a: usize| 0.1 * ((h + 2 * s + 3 * a) % 4) as f64;
        let sol_b = finite_horizon(&mdp, horizon, g, bonus, |_| f64::INFINITY).unwrap();
        let want_b = brute_force(&mdp, horizon, g, &bonus);
        for (s, w) in want_b.iter().enumerate() {
            prop_assert!((sol_b.v[[0, s]] - w).abs() < 1e-12);
        }
    }
}

/// The cap: Q_h = min{H − h, …} with a bonus of 10 makes every Q_h equal to
/// its cap H − h.
#[test]
fn cap_clips_optimistic_values() {
    let mdp = FiniteMdp::new(vec![
        vec![
            vec![Outcome::new(1, 1.0, 1.0)],
            vec![Outcome::new(0, 1.0, 0.0)],
        ],
        vec![
            vec![Outcome::new(0, 1.0, 0.5)],
            vec![Outcome::new(1, 1.0, 0.2)],
        ],
    ])
    .unwrap();
    let h_max = 4;
    let sol = finite_horizon(&mdp, h_max, 1.0, |_, _, _| 10.0, |h| (h_max - h) as f64).unwrap();
    for h in 0..h_max {
        for s in 0..2 {
            assert_eq!(sol.v[[h, s]], (h_max - h) as f64);
        }
    }
    // Without bonus: alternate 0 → 1 → 0 → 1 earns 1 + 0.5 + 1 + 0.5 = 3.
    let plain = finite_horizon_plain(&mdp, h_max, 1.0).unwrap();
    assert!((plain.v[[0, 0]] - 3.0).abs() < 1e-15);
}
