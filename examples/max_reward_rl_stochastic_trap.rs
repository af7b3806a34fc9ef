//! The stochastic trap: why the max-reward Bellman operator needs y.
//!
//! γ = 0.9. From s0, action A pays 0.5 and moves to s1, whose action pays 1
//! with probability ½ (else 0) and ends the episode; action B pays 0 and
//! moves to s2, which pays 0.75 and ends. The max-reward objective
//! E[max_t γ^t r_t] is 0.700 for A and 0.675 for B; the operator of
//! Gottipati et al. (max and expectation swapped) values A at 0.5 and picks
//! B. Prints the exact values of both operators, the lattice value
//! v(s1, 0.5/0.9) = 0.7778, a Monte-Carlo check of each first action, and
//! the cross-check through the exported standard MDP.
//!
//! Run: `cargo run --release --example max_reward_rl_stochastic_trap`

use max_reward_rl::envs::{TRAP_GAMMA, stochastic_trap};
use max_reward_rl::gottipati::gottipati_value_iteration;
use max_reward_rl::targets::max_discounted_return;
use max_reward_rl::{MaxRewardMdp, MaxRewardParams};
use mlcore::sampling::seeded;
use tabular_mdp::{ViParams, value_iteration};

fn main() -> Result<(), max_reward_rl::Error> {
    let mdp = stochastic_trap();
    let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(TRAP_GAMMA))?;
    let sol = m.solve(&ViParams::default())?;
    let g = gottipati_value_iteration(&m, &ViParams::default())?;

    // Monte Carlo: 200 000 episodes per first action, E[max_t γ^t r_t].
    let mut rng = seeded(7);
    let n = 200_000;
    let mut mc = [0.0; 2];
    for (first, slot) in mc.iter_mut().enumerate() {
        let mut total = 0.0;
        for _ in 0..n {
            let mut rewards = Vec::with_capacity(2);
            let (mut s, mut a) = (0, first);
            loop {
                let o = mdp.sample(s, a, &mut rng);
                rewards.push(o.reward);
                if o.terminal {
                    break;
                }
                s = o.next;
                a = 0;
            }
            total += max_discounted_return(&rewards, TRAP_GAMMA)?;
        }
        *slot = total / n as f64;
    }

    println!("stochastic trap, γ = {TRAP_GAMMA}");
    println!("action   max-reward q*(s0, y=0, a)   Monte Carlo (n = {n})   Gottipati Q(s0, a)");
    for (a, name) in ["A", "B"].iter().enumerate() {
        println!(
            "  {name}      {:.3}                       {:.4}                  {:.3}",
            sol.q[[0, 0, a]],
            mc[a],
            g.q[[0, a]]
        );
    }
    let pick = |a: usize| ["A", "B"][a];
    println!(
        "picks: max-reward operator -> {} (correct), Gottipati operator -> {} (wrong)",
        pick(sol.policy.action(0, 0)?),
        pick(g.policy[0])
    );
    let y1 = m
        .lattice()
        .values()
        .iter()
        .position(|&y| (y - 0.5 / TRAP_GAMMA).abs() < 1e-12)
        .unwrap_or(0);
    println!(
        "via y: v(s1, 0.5/0.9) = {:.4}, v(s0, 0) = 0.9 · {:.4} = {:.3}",
        sol.v[[1, y1]],
        sol.v[[1, y1]],
        sol.v[[0, 0]]
    );
    println!(
        "y-lattice: {:?}",
        m.lattice()
            .values()
            .iter()
            .map(|y| (y * 1e4).round() / 1e4)
            .collect::<Vec<_>>()
    );

    let (std_mdp, gamma) = m.export_standard_mdp()?;
    let vs = value_iteration(
        &std_mdp,
        gamma,
        &ViParams {
            tol: 1e-13,
            max_iter: 1_000_000,
        },
    )?;
    let worst = (0..m.n_states())
        .flat_map(|s| (0..m.n_y()).map(move |y| (s, y)))
        .map(|(s, y)| (vs.v[(s * m.n_y()) + y] - sol.v[[s, y]]).abs())
        .fold(0.0, f64::max);
    println!(
        "export: standard MDP with {} states; ordinary value iteration agrees to {worst:.1e}",
        std_mdp.n_states()
    );
    Ok(())
}
