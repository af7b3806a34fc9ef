//! Tabular max-Q-learning on the stochastic trap converges to q*.
//!
//! Prints ‖Q − Q*‖∞ over the reachable augmented states (s, y) every 10 000
//! steps (α = 1/n^0.6, ε = 0.2, seed 0), then the learned and exact
//! q(s0, y = 0, ·) = (0.700, 0.675), and how many of 20 seeds end within
//! 0.02 of Q* after 2·10⁵ steps (property P5 of the spec).
//!
//! Run: `cargo run --release --example max_reward_rl_max_q_learning`

use max_reward_rl::envs::{TRAP_GAMMA, stochastic_trap};
use max_reward_rl::qlearning::{max_q_learning, q_error};
use max_reward_rl::{MaxRewardMdp, MaxRewardParams};
use mlcore::sampling::seeded;
use tabular_mdp::{QLearningParams, ViParams};

fn main() -> Result<(), max_reward_rl::Error> {
    let m = MaxRewardMdp::new(&stochastic_trap(), &MaxRewardParams::with_gamma(TRAP_GAMMA))?;
    let exact = m.solve(&ViParams::default())?;
    let mask = m.reachable(0)?;
    let params = QLearningParams {
        steps: 200_000,
        report_every: 10_000,
        ..Default::default()
    };
    println!("stochastic trap, max-Q-learning (α = 1/n^0.6, ε = 0.2), seed 0");
    println!("   steps   ‖Q − Q*‖∞ (reachable (s, y))");
    let mut errors = Vec::new();
    let table = max_q_learning(&m, 0, &params, &mut seeded(0), |t, table| {
        errors.push((t, q_error(&m, table, &exact, &mask)));
    })?;
    for (t, e) in errors {
        println!("{t:>8}   {:.5}", e?);
    }
    println!(
        "learned q(s0, 0, ·) = ({:.4}, {:.4}); exact = ({:.3}, {:.3})",
        table.q[[0, 0]],
        table.q[[0, 1]],
        exact.q[[0, 0, 0]],
        exact.q[[0, 0, 1]]
    );
    let mut good = 0;
    for seed in 0..20 {
        let t = max_q_learning(
            &m,
            0,
            &QLearningParams::default(),
            &mut seeded(seed),
            |_, _| {},
        )?;
        if q_error(&m, &t, &exact, &mask)? <= 0.02 {
            good += 1;
        }
    }
    println!("seeds within 0.02 of Q* after 2·10⁵ steps: {good}/20 (P5 asks ≥ 19)");
    Ok(())
}
