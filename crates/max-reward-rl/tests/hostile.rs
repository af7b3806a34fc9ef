//! Hostile input at every public entry point: random NaN/±∞/huge/tiny/
//! negative values, wrong lengths, out-of-range indices and sizes. Each call
//! must return a typed error (or a documented `Ok` with finite output),
//! never panic, abort or hang. Seeded, so CI runs the same cases.

use max_reward_rl::envs::{GridReward, GridWorld, stochastic_trap};
use max_reward_rl::gottipati::{gottipati_operator, gottipati_value_iteration};
use max_reward_rl::qlearning::{greedy_from_table, q_error};
use max_reward_rl::targets::{
    max_discounted_return, max_gae, max_mc_returns, rollout_ys, td3_max_targets,
};
use max_reward_rl::ygrid::YLattice;
use max_reward_rl::{AugmentedPolicy, MaxRewardMdp, MaxRewardParams};
use ndarray::{Array2, Array3};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use tabular_mdp::{QTable, ViParams};

/// Ordinary and hostile floats.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -2.0f64..2.0,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::MAX),
        1 => Just(-f64::MAX),
        1 => Just(1e-300),
        1 => Just(0.0),
    ]
}

/// Ordinary and hostile sizes and indices.
fn index() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..8,
        1 => Just(usize::MAX),
        1 => Just(usize::MAX / 2),
        1 => Just(1usize << 40),
    ]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x3a11_2024),
        ..ProptestConfig::with_cases(256)
    }
}

fn trap() -> MaxRewardMdp {
    MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(0.9)).unwrap()
}

fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

proptest! {
    #![proptest_config(config())]

    /// The lattice and the MDP wrapper: γ, rewards and the lattice limit.
    #[test]
    fn lattice_and_wrapper(rewards in prop::collection::vec(value(), 0..6), gamma in value(), limit in index()) {
        let r = YLattice::new(&rewards, gamma, limit.min(1 << 20));
        let bad = !(gamma > 0.0 && gamma < 1.0) || rewards.iter().any(|r| !r.is_finite() || *r < 0.0);
        if bad {
            prop_assert!(r.is_err());
        }
        if let Ok(lat) = r {
            prop_assert!(all_finite(lat.values()));
            prop_assert!(lat.value(lat.len()).is_err());
            prop_assert!(lat.next(lat.len() + 1, 0).is_err());
            prop_assert!(lat.next(0, lat.rewards().len()).is_err());
            prop_assert!(lat.next_row(lat.rewards().len()).is_err());
        }
        let params = MaxRewardParams { gamma, reward_shift: rewards.first().copied().unwrap_or(0.0), max_lattice: limit.min(1 << 20) };
        let m = MaxRewardMdp::new(&stochastic_trap(), &params);
        if !(gamma > 0.0 && gamma < 1.0 && params.reward_shift.is_finite()) {
            prop_assert!(m.is_err());
        }
    }

    /// Policies, operators, solvers and evaluation on hostile shapes/values.
    #[test]
    fn operators_and_policies(
        s in index(), y in index(), a in index(), fill in value(),
        rows in index(), cols in index(), horizon in index(), tol in value(),
    ) {
        let m = trap();
        let (ns, ny, na) = (m.n_states(), m.n_y(), m.n_actions());
        let v = Array2::from_elem((rows.min(9), cols.min(9)), fill);
        let ok_shape = v.dim() == (ns, ny);
        let r = m.bellman_optimal(v.view());
        if !ok_shape || !fill.is_finite() { prop_assert!(r.is_err()); }
        let r = m.q_from_v(v.view());
        if !ok_shape || !fill.is_finite() { prop_assert!(r.is_err()); }
        if let Ok(q) = r { prop_assert!(q.iter().all(|x| x.is_finite())); }
        let q = Array3::from_elem((rows.min(9), cols.min(9), na), fill);
        let r = m.greedy_policy(&q);
        if q.dim() != (ns, ny, na) || !fill.is_finite() { prop_assert!(r.is_err()); }
        let r = gottipati_operator(&m, Array2::from_elem((rows.min(9), na), fill).view());
        if rows.min(9) != ns || !fill.is_finite() { prop_assert!(r.is_err()); }

        let policy = AugmentedPolicy::new(s.min(9), y.min(9), vec![a; s.min(9) * y.min(9)], vec![a; s.min(9)]);
        prop_assert!(AugmentedPolicy::new(usize::MAX, 2, vec![], vec![]).is_err());
        prop_assert!(AugmentedPolicy::markov(&[0, 1], usize::MAX).is_err());
        if let Ok(p) = &policy {
            prop_assert!(p.action(p.n_states(), 0).is_err());
            let fits = p.n_states() == ns && p.n_y() == ny && a < na;
            let e = m.evaluate(p, &ViParams::default());
            if !fits { prop_assert!(e.is_err()); }
            let target = vec![true; rows.min(9)];
            let r = m.reach_probability(p, &target, s, horizon.min(50));
            if !fits || rows.min(9) != ns || s >= ns { prop_assert!(r.is_err()); }
            if let Ok(pr) = r { prop_assert!((0.0..=1.0).contains(&pr)); }
        }
        prop_assert!(m.reachable(s).is_err() == (s >= ns));
        prop_assert!(m.export_index(s, y).is_err() == (s >= ns || y >= ny));
        let params = ViParams { tol, max_iter: horizon.min(10_000) };
        let bad_params = !(tol > 0.0 && tol.is_finite()) || params.max_iter == 0;
        for r in [m.value_iteration(&params).map(|_| ()), m.solve(&params).map(|_| ()), gottipati_value_iteration(&m, &params).map(|_| ())] {
            if bad_params { prop_assert!(r.is_err()); }
        }
    }

    /// Learning tables and errors: shapes must match the MDP.
    #[test]
    fn learning_tables(rows in index(), cols in index(), fill in value()) {
        let m = trap();
        let table = QTable { q: Array2::from_elem((rows.min(40), cols.min(5)), fill), visits: Array2::zeros((rows.min(40), cols.min(5))) };
        let want = (m.n_states() * (m.n_y() + 1), m.n_actions());
        let r = greedy_from_table(&m, &table);
        if table.q.dim() != want { prop_assert!(r.is_err()); }
        let exact = m.solve(&ViParams::default()).unwrap();
        let mask = Array2::from_elem((m.n_states(), m.n_y()), true);
        let r = q_error(&m, &table, &exact, &mask);
        if table.q.dim() != want { prop_assert!(r.is_err()); }
    }

    /// The framework-free targets: lengths, flags, γ, λ and values.
    #[test]
    fn targets(
        rewards in prop::collection::vec(value(), 0..6),
        flags in prop::collection::vec(any::<bool>(), 0..6),
        y0 in value(), boot in prop::option::of(value()), gamma in value(), lambda in value(),
    ) {
        let finite = all_finite(&rewards) && y0.is_finite();
        // The bootstrap is read only when the segment does not terminate.
        let boot_ok = flags.last().copied().unwrap_or(true) || boot.is_some_and(f64::is_finite);
        let good_gamma = gamma > 0.0 && gamma < 1.0;
        let r = max_discounted_return(&rewards, gamma);
        if !good_gamma || rewards.is_empty() || !all_finite(&rewards) { prop_assert!(r.is_err()); }
        let r = rollout_ys(y0, &rewards, gamma);
        if !good_gamma || !finite { prop_assert!(r.is_err()); }
        if let Ok(ys) = r { prop_assert!(all_finite(&ys)); }
        let n = rewards.len();
        let r = td3_max_targets(&rewards, &rewards, &flags, &rewards, &rewards, gamma);
        if !good_gamma || flags.len() != n || !all_finite(&rewards) { prop_assert!(r.is_err()); }
        if let Ok(t) = r { prop_assert!(all_finite(&t)); }
        let r = max_mc_returns(&rewards, &flags, y0, boot, gamma);
        if !good_gamma || flags.len() != n || n == 0 || !finite || !boot_ok { prop_assert!(r.is_err()); }
        if let Ok(t) = r { prop_assert!(all_finite(&t)); }
        let r = max_gae(&rewards, &flags, &rewards, y0, boot, gamma, lambda);
        if !good_gamma || flags.len() != n || n == 0 || !finite || !boot_ok || !(0.0..=1.0).contains(&lambda) { prop_assert!(r.is_err()); }
    }

    /// Grid worlds: sizes, maps, parameters and renderings.
    #[test]
    fn grids(h in index(), w in index(), slip in value(), beta in value(), freq in index(), scale in value(), policy in prop::collection::vec(index(), 0..12)) {
        for reward in [GridReward::Sparse, GridReward::Dsp { beta, wp_freq: freq }, GridReward::DenseL2 { scale }] {
            let bad = !(0.0..=1.0).contains(&slip)
                || matches!(reward, GridReward::Dsp { beta, wp_freq } if !(beta > 0.0 && beta < 1.0) || wp_freq == 0)
                || matches!(reward, GridReward::DenseL2 { scale } if !(scale > 0.0 && scale.is_finite()));
            // Open grids with huge sides must be refused before allocating.
            let g = GridWorld::open(h.min(1 << 40), w, reward, slip);
            if bad || h.checked_mul(w).is_none_or(|c| !(2..=1 << 30).contains(&c)) { prop_assert!(g.is_err()); }
            if let Ok(g) = GridWorld::from_ascii("S.#\n..G", reward, slip) {
                let r = g.render(Some(&policy));
                let fits = policy.len() == g.n_states() && policy.iter().all(|&a| a < 4);
                prop_assert!(r.is_ok() == fits);
                prop_assert!(g.to_mdp().is_ok());
            }
        }
    }
}
