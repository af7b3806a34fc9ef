//! Lending (official defaults: credits [4, 4, 7, 7], groups [0, 0, 1, 1],
//! presence 0.8, T = 12): two hand-written policies simulated over 2000
//! episodes, with the anytime demographic-parity monitor |L₀ − L₁| ≤ 1 and
//! the official reward.
//!
//! `cargo run --release --example fair_memory_lending` (about a second).
//! What to check: "max credit" lends to the better-scored group 1 and
//! violates parity in almost every episode while repaying more; "parity
//! first" keeps |L₀ − L₁| ≤ 1 whenever a present applicant allows it.

use fair_memory::{
    FairEnv, FairnessSpec, Lending, LendingConfig, Monitor, Schedule, Status, Welfare,
};
use mlcore::sampling::seeded;

fn main() -> Result<(), fair_memory::Error> {
    let env = Lending::new(LendingConfig::default())?;
    let t_max = env.horizon();
    let spec = FairnessSpec {
        welfare: Welfare::DemographicParity,
        threshold: -1.0,
        schedule: Schedule::Anytime,
    };
    for policy in ["max credit", "parity first"] {
        let mut rng = seeded(11);
        let (mut fair, mut ret, mut success, mut gap) = (0, 0.0, 0.0, 0.0);
        let episodes = 2000;
        for _ in 0..episodes {
            let mut s = env.sample_initial(&mut rng);
            let mut loans = [0u32; 2];
            let mut mon = Monitor::new(spec, 2)?;
            for _ in 0..t_max {
                let (mask, credits, _, _) = env.decode(s);
                let present: Vec<usize> = (0..4).filter(|&i| mask >> i & 1 == 1).collect();
                let score = |i: usize| {
                    let g = env.config().groups[i];
                    match policy {
                        "max credit" => credits[i] as i64,
                        // Prefer the group with fewer loans, then credit.
                        _ => 100 * i64::from(loans[g] <= loans[1 - g]) + credits[i] as i64,
                    }
                };
                let a = present
                    .iter()
                    .copied()
                    .max_by_key(|&i| score(i))
                    .unwrap_or(0);
                let o = env.sample(s, a, &mut rng);
                let mut inc = [0.0; 2];
                if let Some(g) = o.gain {
                    loans[g] += 1;
                    inc[g] = 1.0;
                }
                ret += env.reward(s, a, &o, &loans);
                mon.observe(&inc)?;
                let end = env.terminal(o.next, &loans);
                s = o.next;
                if end {
                    break;
                }
            }
            let (_, _, succ, _) = env.decode(s);
            success += succ as f64 - t_max as f64;
            gap += f64::from(loans[0].abs_diff(loans[1]));
            if mon.status() == Status::Fair {
                fair += 1;
            }
        }
        let e = f64::from(episodes);
        println!(
            "{policy:12}: anytime-parity fair in {:5.1}% of episodes, final |L0 − L1| {:.2}, \
             net repayments {:+.2}, official return {:.1}",
            100.0 * f64::from(fair) / e,
            gap / e,
            success / e,
            ret / e
        );
    }
    Ok(())
}
