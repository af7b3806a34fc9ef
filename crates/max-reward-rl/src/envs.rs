//! Environments: the stochastic trap (the paper's argument against the
//! Gottipati operator, as a 4-state MDP) and grid worlds with sparse, dense
//! and discrete-shortest-path (waypoint) rewards, optionally slippery.

use crate::error::{Error, Result};
use std::collections::VecDeque;
use tabular_mdp::{FiniteMdp, Outcome};

/// The discount of the stochastic trap's worked example.
pub const TRAP_GAMMA: f64 = 0.9;

/// The stochastic trap (spec's worked example, γ = [`TRAP_GAMMA`] = 0.9).
///
/// States 0 = s0, 1 = s1, 2 = s2, 3 = end (absorbing). In s0, action 0 (A)
/// pays 0.5 and moves to s1, whose actions (both the same) pay 1 with
/// probability ½ (else 0) and end the episode; action 1 (B) pays 0 and moves
/// to s2, whose actions pay 0.75 and end the episode.
///
/// Max-reward values from (s0, y = 0): A = γ·v(s1, 0.5/γ) =
/// 0.9·(½·max(0.5/0.9, 1) + ½·0.5/0.9) = **0.700**, B = 0.9·0.75 = **0.675**:
/// take A. Gottipati's operator gives A = max(0.5, 0.9·(½·1 + ½·0)) = 0.5
/// and picks B.
pub fn stochastic_trap() -> FiniteMdp {
    let s1 = vec![
        Outcome::terminal(3, 0.5, 1.0),
        Outcome::terminal(3, 0.5, 0.0),
    ];
    let s2 = vec![Outcome::terminal(3, 1.0, 0.75)];
    let end = vec![Outcome::terminal(3, 1.0, 0.0)];
    FiniteMdp::new(vec![
        vec![
            vec![Outcome::new(1, 1.0, 0.5)],
            vec![Outcome::new(2, 1.0, 0.0)],
        ],
        vec![s1.clone(), s1],
        vec![s2.clone(), s2],
        vec![end.clone(), end],
    ])
    .unwrap_or_else(|_| unreachable!("the trap MDP is valid"))
}

/// Rewards of a [`GridWorld`] (paid on arriving in a cell, every step; the
/// goal pays 1 and ends the episode).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GridReward {
    /// 1 at the goal, 0 elsewhere.
    Sparse,
    /// exp(−‖c − g‖₂ / scale) in cell c (Euclidean distance to the goal
    /// cell, in cells): the paper's dense-l2 shaping on a grid (reconstructed).
    DenseL2 {
        /// Length scale, > 0.
        scale: f64,
    },
    /// Discrete shortest path: β^{d+1} in cells whose BFS distance d to the
    /// goal is a positive multiple of `wp_freq` (waypoints), 1 at the goal,
    /// 0 elsewhere (official code: β = 0.9, wp_freq ∈ {1, 3}).
    Dsp {
        /// β ∈ (0, 1).
        beta: f64,
        /// Waypoint spacing, ≥ 1.
        wp_freq: usize,
    },
}

/// The four moves, in action order.
pub const MOVES: [(isize, isize); 4] = [(-1, 0), (0, 1), (1, 0), (0, -1)];
/// Names of the actions (up, right, down, left).
pub const MOVE_NAMES: [&str; 4] = ["up", "right", "down", "left"];

/// A grid world: free cells are states; actions up/right/down/left; a move
/// into a wall or off the grid stays put; with probability `slip_prob` the
/// action is replaced by a uniformly random one (of the four, possibly the
/// same), as in the paper's slippery maze. Entering the goal pays 1 and ends
/// the episode; entering any other cell (including staying in place after
/// bumping into a wall) pays that cell's reward. Deviation: the paper's maze
/// is a continuing task with 1000-step episodes; with a terminal goal,
/// parking on a waypoint is the sum-reward *optimal* behaviour, so the
/// sum-vs-max contrast is a property of the optimal policies themselves.
#[derive(Debug, Clone, PartialEq)]
pub struct GridWorld {
    height: usize,
    width: usize,
    free: Vec<bool>,
    start: usize,
    goal: usize,
    reward: GridReward,
    slip_prob: f64,
    continuing: bool,
    cell_to_state: Vec<Option<usize>>,
    state_to_cell: Vec<usize>,
}

impl GridWorld {
    /// Parses a map: `#` wall, `.` free, `S` start, `G` goal; one line per row.
    ///
    /// # Errors
    /// [`Error::InvalidGrid`] for ragged or empty maps, unknown characters,
    /// not exactly one `S` and one `G`; [`Error::InvalidParameter`] for
    /// `slip_prob ∉ [0, 1]`, β ∉ (0, 1), `wp_freq = 0`, a scale ≤ 0.
    pub fn from_ascii(map: &str, reward: GridReward, slip_prob: f64) -> Result<Self> {
        let rows: Vec<&str> = map
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let height = rows.len();
        let width = rows.first().map_or(0, |r| r.chars().count());
        if height == 0 || width == 0 {
            return Err(Error::InvalidGrid {
                reason: "empty map".into(),
            });
        }
        let mut free = Vec::with_capacity(height * width);
        let (mut start, mut goal) = (Vec::new(), Vec::new());
        for (i, row) in rows.iter().enumerate() {
            if row.chars().count() != width {
                return Err(Error::InvalidGrid {
                    reason: format!(
                        "row {i} has {} cells, row 0 has {width}",
                        row.chars().count()
                    ),
                });
            }
            for (j, ch) in row.chars().enumerate() {
                match ch {
                    '#' => free.push(false),
                    '.' => free.push(true),
                    'S' => {
                        start.push(i * width + j);
                        free.push(true);
                    }
                    'G' => {
                        goal.push(i * width + j);
                        free.push(true);
                    }
                    other => {
                        return Err(Error::InvalidGrid {
                            reason: format!("unknown character {other:?} at row {i}, column {j}"),
                        });
                    }
                }
            }
        }
        if start.len() != 1 || goal.len() != 1 {
            return Err(Error::InvalidGrid {
                reason: format!(
                    "need exactly one S and one G, found {} and {}",
                    start.len(),
                    goal.len()
                ),
            });
        }
        Self::build(height, width, free, start[0], goal[0], reward, slip_prob)
    }

    /// An open `height × width` grid (no walls), start top-left, goal bottom-right.
    ///
    /// # Errors
    /// As [`GridWorld::from_ascii`]; [`Error::InvalidGrid`] for a 1 × 1 grid;
    /// [`Error::Core`] (`TooLarge`) when `height × width` overflows or the
    /// cell tables would exceed the allocation cap.
    pub fn open(height: usize, width: usize, reward: GridReward, slip_prob: f64) -> Result<Self> {
        // The cell table and the per-cell state index: 16 bytes a cell.
        let cells = mlcore::check::alloc_len(&[height, width], 16, "grid cells")?;
        if cells < 2 {
            return Err(Error::InvalidGrid {
                reason: "an open grid needs at least two cells".into(),
            });
        }
        Self::build(
            height,
            width,
            vec![true; cells],
            0,
            cells - 1,
            reward,
            slip_prob,
        )
    }

    fn build(
        height: usize,
        width: usize,
        free: Vec<bool>,
        start: usize,
        goal: usize,
        reward: GridReward,
        slip_prob: f64,
    ) -> Result<Self> {
        if !(0.0..=1.0).contains(&slip_prob) {
            return Err(Error::InvalidParameter {
                name: "slip_prob",
                value: slip_prob,
                expected: "in [0, 1]",
            });
        }
        match reward {
            GridReward::Dsp { beta, wp_freq } => {
                if !(beta > 0.0 && beta < 1.0) {
                    return Err(Error::InvalidParameter {
                        name: "beta",
                        value: beta,
                        expected: "in (0, 1)",
                    });
                }
                if wp_freq == 0 {
                    return Err(Error::InvalidParameter {
                        name: "wp_freq",
                        value: 0.0,
                        expected: "at least 1",
                    });
                }
            }
            GridReward::DenseL2 { scale } if !(scale > 0.0 && scale.is_finite()) => {
                return Err(Error::InvalidParameter {
                    name: "scale",
                    value: scale,
                    expected: "a finite value > 0",
                });
            }
            _ => {}
        }
        let mut cell_to_state = vec![None; height * width];
        let mut state_to_cell = Vec::new();
        for (c, &f) in free.iter().enumerate() {
            if f {
                cell_to_state[c] = Some(state_to_cell.len());
                state_to_cell.push(c);
            }
        }
        let start = cell_to_state[start].unwrap_or(0);
        let goal = cell_to_state[goal].unwrap_or(0);
        Ok(GridWorld {
            height,
            width,
            free,
            start,
            goal,
            reward,
            slip_prob,
            continuing: false,
            cell_to_state,
            state_to_cell,
        })
    }

    /// The same grid as a *continuing* task, as in the paper's PointMaze
    /// runs: the goal is absorbing and pays 1 on every step spent there (every
    /// action stays), and no state ends the episode (episodes are cut at a
    /// horizon by the learner). Under the discounted sum of rewards, reaching
    /// the goal is then worth γ^d/(1 − γ) against at most β^{k+1}/(1 − γ) for
    /// parking on a waypoint, so for γ close to 1 the sum-optimal policy goes
    /// to the goal: a failure of sum-reward *learning* to get there is a
    /// failure of learning, not of the objective.
    pub fn continuing(mut self) -> Self {
        self.continuing = true;
        self
    }

    /// Whether the goal is absorbing and paying (see [`GridWorld::continuing`]).
    pub fn is_continuing(&self) -> bool {
        self.continuing
    }

    /// Number of states (free cells).
    pub fn n_states(&self) -> usize {
        self.state_to_cell.len()
    }

    /// The start state.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The goal state.
    pub fn goal(&self) -> usize {
        self.goal
    }

    /// (row, column) of a state.
    pub fn cell(&self, state: usize) -> (usize, usize) {
        let c = self.state_to_cell[state];
        (c / self.width, c % self.width)
    }

    /// The state at (row, column), if free.
    pub fn state_at(&self, row: usize, col: usize) -> Option<usize> {
        if row < self.height && col < self.width {
            self.cell_to_state[row * self.width + col]
        } else {
            None
        }
    }

    /// Grid height and width.
    pub fn dims(&self) -> (usize, usize) {
        (self.height, self.width)
    }

    /// The state reached from `state` by move `a` (walls and edges: stay).
    pub fn move_from(&self, state: usize, a: usize) -> usize {
        let (r, c) = self.cell(state);
        let (dr, dc) = MOVES[a % 4];
        let (nr, nc) = (r as isize + dr, c as isize + dc);
        if nr < 0 || nc < 0 {
            return state;
        }
        self.state_at(nr as usize, nc as usize).unwrap_or(state)
    }

    /// BFS distance (in moves) of every state to the goal (`usize::MAX` if unreachable).
    pub fn distances(&self) -> Vec<usize> {
        let mut d = vec![usize::MAX; self.n_states()];
        d[self.goal] = 0;
        let mut queue = VecDeque::from([self.goal]);
        while let Some(s) = queue.pop_front() {
            for a in 0..4 {
                let n = self.move_from(s, a);
                if d[n] == usize::MAX {
                    d[n] = d[s] + 1;
                    queue.push_back(n);
                }
            }
        }
        d
    }

    /// The reward paid on arriving in each state.
    pub fn state_rewards(&self) -> Vec<f64> {
        let d = self.distances();
        let (gr, gc) = self.cell(self.goal);
        (0..self.n_states())
            .map(|s| {
                if s == self.goal {
                    return 1.0;
                }
                match self.reward {
                    GridReward::Sparse => 0.0,
                    GridReward::DenseL2 { scale } => {
                        let (r, c) = self.cell(s);
                        let dist = ((r as f64 - gr as f64).powi(2)
                            + (c as f64 - gc as f64).powi(2))
                        .sqrt();
                        (-dist / scale).exp()
                    }
                    GridReward::Dsp { beta, wp_freq } => {
                        if d[s] != usize::MAX && d[s].is_multiple_of(wp_freq) {
                            beta.powi(d[s] as i32 + 1)
                        } else {
                            0.0
                        }
                    }
                }
            })
            .collect()
    }

    /// Whether each state is a DSP waypoint (positive reward, not the goal);
    /// all false for sparse and dense rewards.
    pub fn waypoints(&self) -> Vec<bool> {
        if !matches!(self.reward, GridReward::Dsp { .. }) {
            return vec![false; self.n_states()];
        }
        let r = self.state_rewards();
        (0..self.n_states())
            .map(|s| s != self.goal && r[s] > 0.0)
            .collect()
    }

    /// The target mask of the goal (for [`crate::MaxRewardMdp::reach_probability`]).
    pub fn goal_mask(&self) -> Vec<bool> {
        (0..self.n_states()).map(|s| s == self.goal).collect()
    }

    /// The finite MDP: 4 actions; outcomes of the intended and slipped moves
    /// merged by next state (probability 1 − slip + slip/4 for the intended
    /// move, slip/4 for each other). The goal's own actions loop to itself
    /// with reward 0 and end the episode (it is never left); in a
    /// [`continuing`](GridWorld::continuing) grid they loop with reward 1 and
    /// nothing ends the episode.
    ///
    /// # Errors
    /// None in practice (the construction is valid by design); a validation
    /// error of [`FiniteMdp::new`] otherwise.
    pub fn to_mdp(&self) -> Result<FiniteMdp> {
        let rewards = self.state_rewards();
        let mut table = Vec::with_capacity(self.n_states());
        for s in 0..self.n_states() {
            let mut row = Vec::with_capacity(4);
            for a in 0..4 {
                if s == self.goal {
                    row.push(vec![if self.continuing {
                        Outcome::new(s, 1.0, 1.0)
                    } else {
                        Outcome::terminal(s, 1.0, 0.0)
                    }]);
                    continue;
                }
                let mut list: Vec<Outcome> = Vec::with_capacity(4);
                for b in 0..4 {
                    let p = if a == b {
                        1.0 - self.slip_prob + self.slip_prob / 4.0
                    } else {
                        self.slip_prob / 4.0
                    };
                    if p == 0.0 {
                        continue;
                    }
                    let n = self.move_from(s, b);
                    match list.iter_mut().find(|o| o.next == n) {
                        Some(o) => o.prob += p,
                        None => list.push(Outcome {
                            next: n,
                            prob: p,
                            reward: rewards[n],
                            terminal: n == self.goal && !self.continuing,
                        }),
                    }
                }
                row.push(list);
            }
            table.push(row);
        }
        Ok(FiniteMdp::new(table)?)
    }

    /// A text picture: `#` wall, `G` goal, `S` start, `*` waypoint, `.` other;
    /// with `policy` (one action per state), arrows `^>v<` on non-goal states
    /// instead. O(height·width).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `policy` does not have one entry per
    /// state; [`Error::InvalidParameter`] for an action ≥ 4.
    pub fn render(&self, policy: Option<&[usize]>) -> Result<String> {
        if let Some(p) = policy {
            if p.len() != self.n_states() {
                return Err(Error::ShapeMismatch {
                    what: "policy (one action per state)",
                    expected: format!("{} entries", self.n_states()),
                    got: format!("{} entries", p.len()),
                });
            }
            if let Some(&a) = p.iter().find(|&&a| a >= 4) {
                return Err(Error::InvalidParameter {
                    name: "policy action",
                    value: a as f64,
                    expected: "0 (up), 1 (right), 2 (down) or 3 (left)",
                });
            }
        }
        let wp = self.waypoints();
        let mut out = String::with_capacity(self.height * (self.width + 1));
        for r in 0..self.height {
            for c in 0..self.width {
                let ch = match self.state_at(r, c) {
                    None => '#',
                    Some(s) if s == self.goal => 'G',
                    Some(s) => match policy {
                        Some(p) => ['^', '>', 'v', '<'][p[s]],
                        None if s == self.start => 'S',
                        None if wp[s] => '*',
                        None => '.',
                    },
                };
                out.push(ch);
            }
            out.push('\n');
        }
        Ok(out)
    }
}
