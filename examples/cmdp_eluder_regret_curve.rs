//! Regret curves on the spec's XOR-context CMDP: R_T at T = 250 … 4000 for
//! E-UC³RL (default C = 1 and C = 0.01), the exact version-space agent and the
//! greedy plug-in baseline (mean of 5 seeds), next to the paper's √T shape.
//!
//! `cargo run --release --example cmdp_eluder_regret_curve`
//!
//! What to check: greedy grows linearly (≈ 0.2 per episode: it never tries
//! the risky action that pays +0.4 on odd contexts); the version space stops
//! paying regret after a few dozen episodes; E-UC³RL pays for exploration in
//! whole doubling epochs, so its curve is a staircase, and at C = 1 it is
//! still in burn-in at T = 4000 (see the runner entry `cmdp-eluder` for the
//! long run where its exponent drops below 0.5).

use cmdp_eluder::agent::{
    Agent, EUc3rl, EUc3rlParams, GreedyPlugIn, VersionSpaceAgent, VersionSpaceParams,
};
use cmdp_eluder::instances::xor_instance;
use cmdp_eluder::oracle::{EnumerationLeastSquares, EnumerationLogLoss};
use cmdp_eluder::regret::{growth_exponent, run_regret};
use mlcore::sampling::seeded;

/// Builds a fresh agent.
type Maker<'a> = Box<dyn Fn() -> Box<dyn Agent> + 'a>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let inst = xor_instance(10, 8)?;
    let vstar = inst.cmdp.optimal_values()?;
    println!("XOR instance: |C| = 10, H = 3, S = 6, A = 2, |F| = 4, |P| = 8");
    println!("V*_c = {:?}", vstar.to_vec());
    let ts = [250, 500, 1000, 2000, 4000];
    let seeds = 5;
    let space = inst.cmdp.space().clone();
    let oracles = || {
        (
            EnumerationLeastSquares::new(inst.rewards.clone()),
            EnumerationLogLoss::new(inst.dynamics.clone()),
        )
    };
    let makers: Vec<(&str, Maker<'_>)> = vec![
        (
            "E-UC3RL C=1",
            Box::new(|| {
                let (f, p) = oracles();
                Box::new(
                    EUc3rl::new(space.clone(), 10, 2, f, p, EUc3rlParams::default())
                        .expect("valid"),
                ) as Box<dyn Agent>
            }),
        ),
        (
            "E-UC3RL C=0.01",
            Box::new(|| {
                let (f, p) = oracles();
                let params = EUc3rlParams {
                    beta_scale: 0.01,
                    ..EUc3rlParams::default()
                };
                Box::new(EUc3rl::new(space.clone(), 10, 2, f, p, params).expect("valid"))
                    as Box<dyn Agent>
            }),
        ),
        (
            "version space",
            Box::new(|| {
                Box::new(
                    VersionSpaceAgent::new(
                        inst.rewards.clone(),
                        inst.dynamics.clone(),
                        VersionSpaceParams::default(),
                    )
                    .expect("valid"),
                ) as Box<dyn Agent>
            }),
        ),
        (
            "greedy",
            Box::new(|| {
                let (f, p) = oracles();
                Box::new(GreedyPlugIn::new(space.clone(), 10, 2, f, p).expect("valid"))
                    as Box<dyn Agent>
            }),
        ),
    ];
    print!("{:<16}", "T");
    for t in ts {
        print!("{t:>10}");
    }
    println!("{:>10}", "exponent");
    for (name, make) in &makers {
        let mut mean = [0.0; 5];
        for seed in 0..seeds {
            let mut agent = make();
            let trace = run_regret(&inst.cmdp, agent.as_mut(), 4000, &mut seeded(seed))?;
            for (m, &t) in mean.iter_mut().zip(&ts) {
                *m += trace.at(t) / seeds as f64;
            }
        }
        let pts: Vec<(f64, f64)> = ts.iter().zip(&mean).map(|(&t, &r)| (t as f64, r)).collect();
        print!("{name:<16}");
        for m in mean {
            print!("{m:>10.1}");
        }
        println!("{:>10.2}", growth_exponent(&pts));
    }
    Ok(())
}
