//! Waypoint (DSP) rewards on a slippery grid: the sum-reward optimal policy
//! parks on waypoints, the max-reward optimal policy goes to the goal.
//!
//! 8×8 open grid, start top-left, goal bottom-right (pays 1 and ends the
//! episode), waypoints β^{d+1} (β = 0.9) in cells at BFS distance d ≡ 0
//! (mod 3) from the goal, slip probability 0.2. Sum-reward: γ = 0.99;
//! max-reward: γ = 0.95 (it must exceed β for the goal to beat the
//! waypoints). Prints the map, both greedy policies, their exact goal-reach
//! probabilities within 100 steps, their values under both objectives, a
//! Monte-Carlo check, and the same for tabular max-Q-learning vs Q-learning
//! (10⁶ steps, seed 0).
//!
//! Run: `cargo run --release --example max_reward_rl_dsp_gridworld`

use max_reward_rl::envs::{GridReward, GridWorld};
use max_reward_rl::qlearning::{greedy_from_table, max_q_learning, sum_q_learning};
use max_reward_rl::{AugmentedPolicy, MaxRewardMdp, MaxRewardParams};
use mlcore::sampling::seeded;
use rand::Rng;
use tabular_mdp::{QLearningParams, ViParams, greedy_policy, policy_evaluation, value_iteration};

const HORIZON: usize = 100;

/// Monte-Carlo goal-reach rate and mean steps to the goal (when reached).
fn rollouts<R: Rng>(
    m: &MaxRewardMdp,
    g: &GridWorld,
    pol: &AugmentedPolicy,
    n: usize,
    rng: &mut R,
) -> Result<(f64, f64), max_reward_rl::Error> {
    let lat = m.lattice();
    let (mut hits, mut steps) = (0usize, 0usize);
    for _ in 0..n {
        let (mut s, mut y) = (g.start(), 0usize);
        for t in 0..HORIZON {
            let o = m.mdp().sample(s, pol.action(s, y)?, rng);
            if o.next == g.goal() {
                hits += 1;
                steps += t + 1;
                break;
            }
            y = match lat.reward_index(o.reward) {
                Some(ri) => lat.next(y, ri)?,
                None => lat.saturated(),
            };
            s = o.next;
        }
    }
    Ok((hits as f64 / n as f64, steps as f64 / hits.max(1) as f64))
}

fn main() -> Result<(), max_reward_rl::Error> {
    let g = GridWorld::open(
        8,
        8,
        GridReward::Dsp {
            beta: 0.9,
            wp_freq: 3,
        },
        0.2,
    )?;
    let mdp = g.to_mdp()?;
    let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(0.95))?;
    let goal = g.goal_mask();
    println!(
        "8×8 slippery DSP grid (S start, G goal, * waypoint), slip 0.2, β = 0.9, waypoints every 3 steps:"
    );
    print!("{}", g.render(None)?);
    println!(
        "{} states, y-lattice |Y| = {} (γ = 0.95), {} augmented states\n",
        g.n_states(),
        m.n_y(),
        m.n_augmented()
    );

    let sum = value_iteration(&mdp, 0.99, &ViParams::default())?;
    let max = m.solve(&ViParams::default())?;
    let sum_pol = AugmentedPolicy::markov(&sum.policy, m.n_y())?;
    println!("sum-reward optimal policy (γ = 0.99):");
    print!("{}", g.render(Some(&sum.policy))?);
    let y0: Vec<usize> = (0..g.n_states())
        .map(|s| max.policy.action(s, 0))
        .collect::<Result<_, _>>()?;
    println!("max-reward optimal policy at y = 0 (γ = 0.95):");
    print!("{}", g.render(Some(&y0))?);

    let mut rng = seeded(11);
    let tight = ViParams::default();
    println!(
        "\npolicy            P(goal within {HORIZON} steps)  Monte Carlo (steps)   max-reward value  sum-reward value"
    );
    for (name, pol, markov) in [
        ("sum-optimal", &sum_pol, Some(&sum.policy)),
        ("max-optimal", &max.policy, None),
    ] {
        let reach = m.reach_probability(pol, &goal, g.start(), HORIZON)?;
        let (mc, st) = rollouts(&m, &g, pol, 20_000, &mut rng)?;
        let vmax = m.evaluate(pol, &tight)?[[g.start(), 0]];
        let vsum = match markov {
            Some(p) => format!(
                "{:.3}",
                policy_evaluation(&mdp, 0.99, p, &tight)?[g.start()]
            ),
            None => "(y-dependent)".into(),
        };
        println!(
            "{name:<17} {reach:.4}                  {mc:.4} ({st:.1})        {vmax:.4}            {vsum}"
        );
    }

    let params = QLearningParams {
        steps: 1_000_000,
        max_episode_len: HORIZON,
        ..Default::default()
    };
    let tm = max_q_learning(&m, g.start(), &params, &mut seeded(0), |_, _| {})?;
    let ts = sum_q_learning(&m, 0.99, g.start(), &params, &mut seeded(0), |_, _| {})?;
    let pm = greedy_from_table(&m, &tm)?;
    let ps = AugmentedPolicy::markov(&greedy_policy(ts.q.view()), m.n_y())?;
    println!("\nlearned (10⁶ steps, ε = 0.2, α = 1/n^0.6, seed 0):");
    for (name, pol) in [("Q-learning", &ps), ("max-Q-learning", &pm)] {
        let reach = m.reach_probability(pol, &goal, g.start(), HORIZON)?;
        let (mc, st) = rollouts(&m, &g, pol, 20_000, &mut rng)?;
        println!("{name:<17} P(goal) = {reach:.4}, Monte Carlo {mc:.4} ({st:.1} steps)");
    }
    Ok(())
}
