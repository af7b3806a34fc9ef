//! The continuing maze (issue 34, item 1): DSP waypoint rewards on a
//! slippery maze whose goal is absorbing and pays 1 on every step spent
//! there, as in the paper's PointMaze runs. Here the *discounted sum-reward*
//! optimum already reaches the goal (checked exactly below, as a
//! precondition), so if sum-reward Q-learning fails to get there, that is a
//! failure of learning, the paper's point, and not of its objective.

use super::{HORIZON, Learned};
use crate::runner::{BoxError, Check, Context, Figure, Plot, Relation, Series, median};
use max_reward_rl::envs::{GridReward, GridWorld};
use max_reward_rl::qlearning::{greedy_from_table, max_q_learning, sum_q_learning};
use max_reward_rl::{AugmentedPolicy, MaxRewardMdp, MaxRewardParams};
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, fisher_exact, wilson_interval};
use tabular_mdp::{QLearningParams, ViParams, greedy_policy, value_iteration};

/// The maze: `S` start, `G` goal, `#` wall. The shortest path (14 moves)
/// runs down the left corridor, along row 5 and back left along the bottom;
/// the upper right is a loop and (7, 7) a dead end, both with waypoints.
pub const MAZE: &str = "
#########
#S..#...#
#.#.#.#.#
#.#...#.#
#.#####.#
#.......#
#####.#.#
#G....#.#
#########
";

/// The one discount of both agents in the maze (the official sum-TD3's
/// γ = 0.99; large enough that the sum-optimal policy goes to the goal).
pub const MAZE_GAMMA: f64 = 0.99;
/// Slip probability in the maze.
pub const MAZE_SLIP: f64 = 0.1;
/// Environment steps per learning run in the maze.
pub const MAZE_STEPS: usize = 1_000_000;
/// Points on the learning curve.
const EVALS: usize = 5;

/// What the maze section adds to the outcome.
pub(super) struct MazeResult {
    pub checks: Vec<Check>,
    pub figures: Vec<Figure>,
    pub plot: Plot,
    pub notes: Vec<String>,
}

/// Runs the maze: exact optima (precondition), then max-Q-learning and
/// Q-learning with the same γ, ε, α schedule, episode length, step budget
/// and seeds; successes compared by Fisher's exact test.
pub(super) fn run_maze(ctx: &Context, seeds: u64) -> Result<MazeResult, BoxError> {
    let g = GridWorld::from_ascii(
        MAZE,
        GridReward::Dsp {
            beta: super::BETA,
            wp_freq: super::WP_FREQ,
        },
        MAZE_SLIP,
    )?
    .continuing();
    let dist = g.distances();
    if dist[g.start()] == usize::MAX {
        return Err("the maze's goal is unreachable from its start".into());
    }
    let mdp = g.to_mdp()?;
    let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(MAZE_GAMMA))?;
    let goal = g.goal_mask();
    let exact = ViParams::default();

    // Precondition: both exact optima reach the goal.
    ctx.set_message("maze: exact optima");
    let sum = value_iteration(&mdp, MAZE_GAMMA, &exact)?;
    let sum_pol = AugmentedPolicy::markov(&sum.policy, m.n_y())?;
    let reach_sum = m.reach_probability(&sum_pol, &goal, g.start(), HORIZON)?;
    let max = m.solve(&exact)?;
    let reach_max = m.reach_probability(&max.policy, &goal, g.start(), HORIZON)?;

    let params = QLearningParams {
        steps: MAZE_STEPS,
        max_episode_len: HORIZON,
        report_every: MAZE_STEPS / EVALS,
        ..Default::default()
    };
    let mut curves = vec![vec![0.0; EVALS]; 2];
    let (mut lmax, mut lsum) = (Learned::new(), Learned::new());
    for i in 0..seeds {
        let s = ctx.seed().wrapping_add(7_000 + i);
        ctx.set_message(format!("maze: max-Q-learning, seed {i}"));
        let (mut k, mut err) = (0, None);
        let tm = max_q_learning(&m, g.start(), &params, &mut seeded(s), |_, table| {
            let r = greedy_from_table(&m, table)
                .and_then(|p| m.reach_probability(&p, &goal, g.start(), HORIZON));
            match r {
                Ok(r) if k < EVALS => curves[0][k] += r / seeds as f64,
                Ok(_) => {}
                Err(e) => err = Some(e),
            }
            k += 1;
        })?;
        if let Some(e) = err.take() {
            return Err(e.into());
        }
        lmax.record(&m, &greedy_from_table(&m, &tm)?, &g, s)?;
        ctx.set_message(format!("maze: Q-learning, seed {i}"));
        let mut k = 0;
        let tq = sum_q_learning(
            &m,
            MAZE_GAMMA,
            g.start(),
            &params,
            &mut seeded(s),
            |_, table| {
                let r = AugmentedPolicy::markov(&greedy_policy(table.q.view()), m.n_y())
                    .and_then(|p| m.reach_probability(&p, &goal, g.start(), HORIZON));
                match r {
                    Ok(r) if k < EVALS => curves[1][k] += r / seeds as f64,
                    Ok(_) => {}
                    Err(e) => err = Some(e),
                }
                k += 1;
            },
        )?;
        if let Some(e) = err {
            return Err(e.into());
        }
        let p = AugmentedPolicy::markov(&greedy_policy(tq.q.view()), m.n_y())?;
        lsum.record(&m, &p, &g, s)?;
        ctx.step();
    }

    let n = seeds;
    let (smax, ssum) = (lmax.successes(), lsum.successes());
    let p_fisher = fisher_exact([[smax, n - smax], [ssum, n - ssum]], Alternative::Greater)?;
    let precondition = reach_sum < 0.5 || reach_max < 0.5;
    let checks = vec![
        Check::new(
            format!(
                "maze: successes max-Q {smax}/{n} vs Q-learning {ssum}/{n} (exact P(goal ≤ {HORIZON} steps) ≥ ½), \
                 one-sided Fisher exact p"
            ),
            p_fisher,
            Relation::PValueBelow,
            0.05,
            "paper §5 (slippery maze curves): with DSP waypoint rewards sum-reward learning gets stuck although the \
             discounted optimum reaches the goal, max-reward learning does not; level 0.05",
        )
        .with_seeds(n as usize)
        .undecided_if(
            precondition,
            format!(
                "an exact optimum does not reach the goal (sum {reach_sum:.3}, max {reach_max:.3}): the maze does not \
                 test learning"
            ),
        ),
    ];
    let mut figures = vec![
        Figure::new(
            format!("maze: exact P(goal ≤ {HORIZON} steps), sum-optimal policy (γ = {MAZE_GAMMA})"),
            reach_sum,
        ),
        Figure::new(
            format!("maze: exact P(goal ≤ {HORIZON} steps), max-optimal policy (γ = {MAZE_GAMMA})"),
            reach_max,
        ),
    ];
    for (name, l, succ) in [("max-Q-learning", &lmax, smax), ("Q-learning", &lsum, ssum)] {
        let w = wilson_interval(succ, n, 0.95)?;
        figures.push(Figure::new(
            format!(
                "maze: {name} success rate ({n} seeds; Wilson 95%: [{:.3}, {:.3}])",
                w.lo, w.hi
            ),
            succ as f64 / n as f64,
        ));
        figures.push(Figure::new(
            format!("maze: {name} exact P(goal ≤ {HORIZON} steps), median over seeds"),
            median(&l.reach),
        ));
        figures.push(Figure::new(
            format!(
                "maze: {name} mean steps to goal ({} of {} evaluation episodes reached it)",
                l.steps.len(),
                n as usize * super::EVAL_EPISODES
            ),
            l.mean_steps(),
        ));
    }
    let xs: Vec<f64> = (1..=EVALS)
        .map(|k| (k * (MAZE_STEPS / EVALS)) as f64)
        .collect();
    let plot = Plot {
        title: format!(
            "Continuing slippery maze: goal-reach probability of the greedy policy (exact, ≤ {HORIZON} steps), \
             mean of {seeds} seeds"
        ),
        x_label: "environment steps".into(),
        y_label: "P(goal)".into(),
        series: vec![
            Series::line(
                format!("max-Q-learning (γ = {MAZE_GAMMA})"),
                xs.iter().copied().zip(curves[0].iter().copied()).collect(),
            ),
            Series::line(
                format!("Q-learning (γ = {MAZE_GAMMA})"),
                xs.iter().copied().zip(curves[1].iter().copied()).collect(),
            ),
        ],
        log_x: false,
        log_y: false,
    };
    let notes = vec![format!(
        "Maze (the decided learning claim): the 9×9 map in `src/reproduce/max_reward_rl/maze.rs`, {} free cells, \
         shortest path {} moves; DSP rewards β^(d+1), β = {}, every {} BFS steps from the goal, paid on every \
         arrival; the goal is absorbing and pays 1 per step (continuing task, as the paper's PointMaze); slip {MAZE_SLIP}. \
         |Y| = {} lattice points, {} augmented states. Both agents: γ = {MAZE_GAMMA}, ε = 0.2, α = 1/n^0.6, episodes \
         of {HORIZON} steps from the start, {MAZE_STEPS} steps per run, the same {n} seeds. Precondition, exact: the \
         sum-optimal policy reaches the goal within {HORIZON} steps with probability {reach_sum:.3}, the max-optimal \
         one with {reach_max:.3}.",
        g.n_states(),
        dist[g.start()],
        super::BETA,
        super::WP_FREQ,
        m.n_y(),
        m.n_augmented()
    )];
    Ok(MazeResult {
        checks,
        figures,
        plot,
        notes,
    })
}
