//! P3 (confidence-set validity at level δ), P4 (optimism of the version
//! space), P5 (oracle correctness), and the layered DP against `tabular-mdp`.

use cmdp_eluder::Error;
use cmdp_eluder::agent::{Agent, VersionSpaceAgent, VersionSpaceParams};
use cmdp_eluder::class::{DynamicsClass, RewardClass};
use cmdp_eluder::cmdp::{LayeredSpace, Trajectory, to_finite_mdp};
use cmdp_eluder::instances::xor_instance;
use cmdp_eluder::oracle::{
    Dataset, EnumerationLeastSquares, EnumerationLogLoss, LeastSquaresOracle, LogLossOracle,
    Transition,
};
use cmdp_eluder::planner::{occupancy, plan_layered, policy_value_layered};
use mlcore::sampling::seeded;
use ndarray::{Array2, Array3, Array4, s};
use rand::RngExt;
use tabular_mdp::{evaluate_finite_horizon, finite_horizon};

fn random_policy<R: rand::Rng + ?Sized>(ns: usize, rng: &mut R) -> Vec<usize> {
    (0..ns).map(|_| rng.random_range(0..2)).collect()
}

/// Violations of "truth ∈ confidence set at every t ≤ T" over `seeds` runs of
/// uniformly random policies on the XOR instance (|𝒫| = 8, |ℱ| = 4).
fn violations(seeds: u64, episodes: usize, scale: f64) -> (usize, usize) {
    let inst = xor_instance(10, 8).unwrap();
    let (bf, bp) = cmdp_eluder::agent::confidence_widths(4, 8, 0.05).unwrap();
    let params = VersionSpaceParams {
        delta: 0.05,
        beta_f: Some(scale * bf),
        beta_p: Some(scale * bp),
    };
    let (mut vf, mut vp) = (0, 0);
    for seed in 0..seeds {
        let mut rng = seeded(1000 + seed);
        let mut agent =
            VersionSpaceAgent::new(inst.rewards.clone(), inst.dynamics.clone(), params).unwrap();
        let (mut bad_f, mut bad_p) = (false, false);
        for _ in 0..episodes {
            let c = inst.cmdp.contexts().sample(&mut rng);
            let pi = random_policy(6, &mut rng);
            let traj = inst.cmdp.run_episode(c, &pi, &mut rng).unwrap();
            agent.observe(&traj).unwrap();
            bad_f |= !agent.reward_set().contains(&inst.true_reward);
            bad_p |= !agent.dynamics_set().contains(&inst.true_dynamics);
        }
        vf += usize::from(bad_f);
        vp += usize::from(bad_p);
    }
    (vf, vp)
}

/// P3: over 2000 seeds (T = 200, |𝒫| = 8, δ = 0.05) the fraction of runs in
/// which P* (resp. f*) leaves its confidence set at some t is at most
/// δ + 3·√(δ(1−δ)/2000).
#[test]
fn p3_confidence_sets_contain_truth_with_prob_1_minus_delta() {
    let n = 2000;
    let (vf, vp) = violations(n, 200, 1.0);
    let bound = 0.05 + 3.0 * (0.05 * 0.95 / n as f64).sqrt();
    assert!(vf as f64 / (n as f64) <= bound, "F: {vf}/{n} violations");
    assert!(vp as f64 / (n as f64) <= bound, "P: {vp}/{n} violations");
}

/// The P3 check has teeth: with widths shrunk to 2% of the spec's the truth
/// leaves the sets in far more than δ of the runs.
#[test]
fn p3_shrunk_widths_are_invalid() {
    let (vf, vp) = violations(200, 200, 0.02);
    assert!(
        vf > 20 && vp > 20,
        "violations with tiny widths: F {vf}, P {vp} of 200"
    );
}

/// P4: whenever f* ∈ ℱ_t and P* ∈ 𝒫_t, the version-space value is ≥ V*_c
/// (1e-12), along a whole run of the agent.
#[test]
fn p4_version_space_is_optimistic() {
    let inst = xor_instance(10, 16).unwrap();
    let vstar = inst.cmdp.optimal_values().unwrap();
    for seed in 0..3 {
        let mut rng = seeded(seed);
        let mut agent = VersionSpaceAgent::new(
            inst.rewards.clone(),
            inst.dynamics.clone(),
            VersionSpaceParams::default(),
        )
        .unwrap();
        let mut checked = 0;
        for _ in 0..300 {
            let c = inst.cmdp.contexts().sample(&mut rng);
            let truth_in = agent.reward_set().contains(&inst.true_reward)
                && agent.dynamics_set().contains(&inst.true_dynamics);
            let pi = agent.act(c).unwrap();
            if truth_in {
                checked += 1;
                assert!(agent.last_optimistic_value() >= vstar[c] - 1e-12);
            }
            let traj = inst.cmdp.run_episode(c, &pi, &mut rng).unwrap();
            agent.observe(&traj).unwrap();
        }
        assert!(checked > 250);
    }
}

fn random_data(nc: usize, space: &LayeredSpace, n: usize, seed: u64) -> Dataset {
    let mut rng = seeded(seed);
    let ns = space.n_states();
    let mut d = Dataset::new(nc, ns, 2).unwrap();
    for _ in 0..n {
        let s = rng.random_range(0..ns);
        let h = space.layer_of(s).unwrap();
        let next = (h + 1 < space.horizon()).then(|| {
            let r = space.layer_range(h + 1).unwrap();
            rng.random_range(r)
        });
        d.push(Transition {
            context: rng.random_range(0..nc),
            state: s,
            action: rng.random_range(0..2),
            reward: f64::from(u8::from(rng.random::<f64>() < 0.4)),
            next,
        })
        .unwrap();
    }
    d
}

/// P5: the enumeration oracles return the brute-force argmin over the raw
/// transitions, ties by lowest index (duplicated models exercise the ties).
#[test]
fn p5_enumeration_oracles_match_brute_force() {
    let inst = xor_instance(4, 16).unwrap();
    let space = inst.dynamics.space().clone();
    // Reward class with a duplicate of every model (index k and k + 4 equal).
    let mut fs: Vec<Array3<f64>> = inst.rewards.models().to_vec();
    fs.extend(inst.rewards.models().iter().cloned());
    let rewards = RewardClass::from_tables(fs.clone()).unwrap();
    let mut ps: Vec<Array4<f64>> = inst.dynamics.models().to_vec();
    ps.insert(0, ps[7].clone());
    let dynamics = DynamicsClass::from_tables(space.clone(), 2, ps.clone()).unwrap();
    let mut lso = EnumerationLeastSquares::new(rewards);
    let mut llo = EnumerationLogLoss::new(dynamics);
    for (seed, n) in [(1, 0), (2, 1), (3, 10), (4, 200), (5, 3000)] {
        let data = random_data(4, &space, n, seed);
        let brute_sq: Vec<f64> = fs
            .iter()
            .map(|f| {
                data.transitions()
                    .iter()
                    .map(|t| (f[[t.context, t.state, t.action]] - t.reward).powi(2))
                    .sum()
            })
            .collect();
        let brute_log: Vec<f64> = ps
            .iter()
            .map(|p| {
                data.transitions()
                    .iter()
                    .filter_map(|t| t.next.map(|s2| -p[[t.context, t.state, t.action, s2]].ln()))
                    .sum()
            })
            .collect();
        let argmin = |v: &[f64]| {
            let m = v.iter().cloned().fold(f64::INFINITY, f64::min);
            v.iter()
                .position(|&x| x <= m + 1e-9 * (1.0 + m.abs()))
                .unwrap()
        };
        let fit_f = lso.fit(&data).unwrap();
        let fit_p = llo.fit(&data).unwrap();
        assert_eq!(fit_f.index, Some(argmin(&brute_sq)), "n = {n}");
        assert_eq!(fit_p.index, Some(argmin(&brute_log)), "n = {n}");
        // Index 8 is a duplicate of index 0: ties go to the lowest index.
        assert_ne!(fit_p.index, Some(8));
        assert!(fit_f.index.unwrap() < 4);
        assert_eq!(
            &fit_f.table,
            lso.class().model(fit_f.index.unwrap()).unwrap()
        );
        for (k, l) in lso.losses(&data).unwrap().iter().enumerate() {
            assert!((l - brute_sq[k]).abs() <= 1e-9 * (1.0 + brute_sq[k]));
        }
    }
    // No data: every loss is 0, the first model wins.
    let empty = Dataset::new(4, 6, 2).unwrap();
    assert_eq!(lso.fit(&empty).unwrap().index, Some(0));
    assert_eq!(llo.fit(&empty).unwrap().index, Some(0));
}

/// The log-zero case: a model with P(s'|c,s,a) = 0 on an observed
/// transition is reported (typed error / elimination list), never ∞.
#[test]
fn log_zero_is_reported() {
    let space = LayeredSpace::new(&[1, 2]).unwrap();
    // Model 0 deterministic to state 1, model 1 deterministic to state 2.
    let models: Vec<Array4<f64>> = (0..2)
        .map(|k| {
            Array4::from_shape_fn((1, 3, 1, 3), |(_, s, _, s2)| {
                f64::from(u8::from(s == 0 && s2 == 1 + k))
            })
        })
        .collect();
    let class = DynamicsClass::from_tables(space, 1, models.clone()).unwrap();
    let mut data = Dataset::new(1, 3, 1).unwrap();
    data.push(Transition {
        context: 0,
        state: 0,
        action: 0,
        reward: 0.0,
        next: Some(2),
    })
    .unwrap();
    let err = data.log_loss(&models[0], 0).unwrap_err();
    assert_eq!(
        err,
        Error::LogZero {
            model: 0,
            context: 0,
            state: 0,
            action: 0,
            next: 2
        }
    );
    let mut oracle = EnumerationLogLoss::new(class.clone());
    let fit = oracle.fit(&data).unwrap();
    assert_eq!(fit.index, Some(1));
    assert_eq!(fit.eliminated, vec![err]);
    // Both eliminated: the oracle returns the typed error.
    data.push(Transition {
        context: 0,
        state: 0,
        action: 0,
        reward: 0.0,
        next: Some(1),
    })
    .unwrap();
    assert!(matches!(
        oracle.fit(&data),
        Err(Error::LogZero { model: 0, .. })
    ));
    // The version-space agent records the elimination and reports an
    // unrealizable class when nothing is left.
    let rewards = RewardClass::from_tables(vec![Array3::zeros((1, 3, 1))]).unwrap();
    let mut agent = VersionSpaceAgent::new(rewards, class, VersionSpaceParams::default()).unwrap();
    let step = |next| cmdp_eluder::cmdp::Step {
        state: 0,
        action: 0,
        reward: 0.0,
        next: Some(next),
    };
    agent
        .observe(&Trajectory {
            context: 0,
            steps: vec![step(2)],
        })
        .unwrap();
    assert_eq!(agent.dynamics_set(), vec![1]);
    assert_eq!(agent.eliminated().len(), 1);
    assert!(agent.log_losses()[0].is_infinite());
    let err = agent
        .observe(&Trajectory {
            context: 0,
            steps: vec![step(1)],
        })
        .unwrap_err();
    assert_eq!(err, Error::Unrealizable { what: "dynamics" });
}

/// The crate's dense layered DP, occupancy and policy value agree with
/// `tabular-mdp` (finite_horizon with bonus and cap H − h, exact policy
/// evaluation) on random layered MDPs.
#[test]
fn layered_dp_matches_tabular_mdp() {
    let space = LayeredSpace::new(&[1, 3, 2, 4]).unwrap();
    let ns = space.n_states();
    let mut rng = seeded(9);
    for _ in 0..20 {
        let p = Array4::from_shape_fn((1, ns, 3, ns), |(_, s, _, s2)| {
            let h = space.layer_of(s).unwrap();
            if h + 1 < space.horizon() && space.layer_of(s2).unwrap() == h + 1 {
                rng.random::<f64>() + 0.01
            } else {
                0.0
            }
        });
        let mut p = p;
        for s in 0..ns {
            for a in 0..3 {
                let z: f64 = p.slice(s![0, s, a, ..]).sum();
                if z > 0.0 {
                    p.slice_mut(s![0, s, a, ..]).mapv_inplace(|x| x / z);
                }
            }
        }
        let r = Array3::from_shape_fn((1, ns, 3), |_| rng.random::<f64>());
        let b = Array2::from_shape_fn((ns, 3), |_| 2.0 * rng.random::<f64>());
        let mdp = to_finite_mdp(&space, 3, &r, &p, 0).unwrap();
        let hz = space.horizon();
        for (bonus, cap) in [(false, false), (true, true), (true, false)] {
            let ours = plan_layered(
                &space,
                r.slice(s![0, .., ..]),
                p.slice(s![0, .., .., ..]),
                bonus.then(|| b.view()),
                cap,
            )
            .unwrap();
            let theirs = finite_horizon(
                &mdp,
                hz,
                1.0,
                |_, s, a| if bonus { b[[s, a]] } else { 0.0 },
                |h| if cap { (hz - h) as f64 } else { f64::INFINITY },
            )
            .unwrap();
            for st in 0..ns {
                let h = space.layer_of(st).unwrap();
                assert!((ours.v[st] - theirs.v[[h, st]]).abs() < 1e-12);
                for a in 0..3 {
                    assert!((ours.q[[st, a]] - theirs.q[[h, st, a]]).abs() < 1e-12);
                }
                if !cap {
                    assert_eq!(ours.policy[st], theirs.policy[[h, st]]);
                }
            }
        }
        let pi: Vec<usize> = (0..ns).map(|_| rng.random_range(0..3)).collect();
        let v = evaluate_finite_horizon(&mdp, hz, 1.0, |_, s| pi[s]).unwrap()[[0, 0]];
        let ours = policy_value_layered(
            &space,
            r.slice(s![0, .., ..]),
            p.slice(s![0, .., .., ..]),
            &pi,
        )
        .unwrap();
        assert!((v - ours).abs() < 1e-12);
        let occ = occupancy(&space, p.slice(s![0, .., .., ..]), &pi).unwrap();
        for h in 0..hz {
            let mass: f64 = space
                .layer_range(h)
                .unwrap()
                .map(|s| occ.row(s).sum())
                .sum();
            assert!((mass - 1.0).abs() < 1e-12);
        }
    }
}
