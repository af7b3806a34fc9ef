//! Train/test splits of a task's grid (§3.1 of the paper): random,
//! leave-square-out with one or several holes, row and column strips, and
//! splits read from files.
//!
//! Holes are closed squares `[cx − h, cx + h] × [cy − h, cy + h]` in grid
//! coordinates ([`Task::coords`]: `(a, b)`, or `(legs/2, heads)` for chicken &
//! rabbit); a sample is a test sample when its coordinates fall in a hole.
//! Test and training sets keep the official id order (the official files are
//! written in that order), except the random split, which keeps the drawn
//! order as `torch.utils.data.random_split` does.

use crate::error::{Error, Result};
use crate::task::{Sample, Task};
use rand::{Rng, RngExt};
use std::collections::HashMap;

/// A closed square hole `[cx − h, cx + h] × [cy − h, cy + h]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Square {
    /// Centre `(cx, cy)` in grid coordinates.
    pub center: (i64, i64),
    /// Half-side `h ≥ 0`.
    pub half: i64,
}

impl Square {
    /// A square with centre `(cx, cy)` and half-side `half`.
    pub fn new(cx: i64, cy: i64, half: i64) -> Self {
        Square {
            center: (cx, cy),
            half,
        }
    }

    /// Whether `(x, y)` lies in the closed square. O(1).
    pub fn contains(&self, x: i64, y: i64) -> bool {
        self.half >= 0
            && x.abs_diff(self.center.0) <= self.half as u64
            && y.abs_diff(self.center.1) <= self.half as u64
    }

    /// Whether two closed squares share a grid point. O(1).
    pub fn overlaps(&self, other: &Square) -> bool {
        let reach = i128::from(self.half) + i128::from(other.half);
        i128::from(self.center.0.abs_diff(other.center.0)) <= reach
            && i128::from(self.center.1.abs_diff(other.center.1)) <= reach
    }

    /// Number of grid points `(2h + 1)²` (0 for `h < 0`, saturating at `i64::MAX`).
    pub fn area(&self) -> i64 {
        if self.half < 0 {
            return 0;
        }
        let side = self.half.saturating_mul(2).saturating_add(1);
        side.saturating_mul(side)
    }

    /// Whether every point of the square is a sample of `task` (the task's
    /// region is convex, so checking the four corners suffices). O(1).
    pub fn inside(&self, task: &Task) -> bool {
        let (cx, cy, h) = (self.center.0, self.center.1, self.half);
        h >= 0
            && [
                (cx - h, cy - h),
                (cx - h, cy + h),
                (cx + h, cy - h),
                (cx + h, cy + h),
            ]
            .iter()
            .all(|&(x, y)| task.contains(x, y))
    }
}

/// Checks holes: each inside the task's grid, no two overlapping. O(k²).
///
/// # Errors
/// [`Error::HoleOutOfRange`], [`Error::OverlappingHoles`], [`Error::Empty`] for no hole.
pub fn check_holes(task: &Task, holes: &[Square]) -> Result<()> {
    task.check()?;
    if holes.is_empty() {
        return Err(Error::Empty("holes"));
    }
    for (i, s) in holes.iter().enumerate() {
        if !s.inside(task) {
            return Err(Error::HoleOutOfRange {
                center: s.center,
                half: s.half,
            });
        }
        if let Some(j) = holes[..i].iter().position(|t| t.overlaps(s)) {
            return Err(Error::OverlappingHoles {
                first: j,
                second: i,
            });
        }
    }
    Ok(())
}

/// How [`Split::MultiHole`] draws half-sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HalfSides {
    /// Uniform on `[lo, hi]` (capped by the feasibility cap for chicken &
    /// rabbit): the intended behaviour.
    Intended,
    /// The released chicken & rabbit files: the official generator reads its
    /// upper bound from the *second* element of the range, so half-sides are
    /// uniform on `[lo, lo + 1]` (5 or 6 for the paper's `[5, 14]`).
    ReleasedCompat,
}

/// A way to split a task's grid.
#[derive(Debug, Clone, PartialEq)]
pub enum Split {
    /// Random split: `⌊N·ratio⌋` training samples drawn without replacement
    /// (Fisher–Yates), the rest for testing.
    Random {
        /// Training fraction in `(0, 1)`.
        train_ratio: f64,
    },
    /// Given holes (one hole, or the squares of an official `test_squares.txt`).
    Holes(Vec<Square>),
    /// `k` holes drawn by rejection sampling: a centre uniform on the grid, a
    /// half-side uniform on `[lo, hi]`; a draw is kept when the square is
    /// inside the grid and meets no earlier square. For chicken & rabbit the
    /// half-side is capped at `min((x − y)/2, (2y − x)/3)` at the centre
    /// `(x, y) = (legs/2, heads)`, the largest that keeps the square in the
    /// feasible region `y ≤ x ≤ 2y` (a centre whose cap is below `lo` is
    /// rejected).
    MultiHole {
        /// Number of holes `k ≥ 1`.
        k: usize,
        /// Half-side range `[lo, hi]`, `0 ≤ lo ≤ hi`.
        half_range: (i64, i64),
        /// The try limit (draws of a centre and half-side).
        max_tries: usize,
        /// Intended draws or the released files' behaviour.
        half_sides: HalfSides,
    },
    /// Row strips: test samples have `x ∈ rows` and `y ∈ [lo, hi]`.
    Rows {
        /// The rows `x`.
        rows: Vec<i64>,
        /// The closed range of `y`.
        range: (i64, i64),
    },
    /// Column strips: test samples have `y ∈ columns` and `x ∈ [lo, hi]`.
    Columns {
        /// The columns `y`.
        columns: Vec<i64>,
        /// The closed range of `x`.
        range: (i64, i64),
    },
    /// A test set given by ids (from an external file), in the given order.
    External {
        /// The test ids.
        test_ids: Vec<u64>,
    },
}

/// A split grid.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitSets {
    /// The training samples.
    pub train: Vec<Sample>,
    /// The test samples.
    pub test: Vec<Sample>,
    /// The holes used (drawn or given), empty for the other splits.
    pub squares: Vec<Square>,
}

impl Split {
    /// The paper's one hole: centre `(cx, cy)`, half-side `half`.
    pub fn one_hole(cx: i64, cy: i64, half: i64) -> Split {
        Split::Holes(vec![Square::new(cx, cy, half)])
    }

    /// The holes of the split, drawn with `rng` for [`Split::MultiHole`].
    /// O(max_tries · k) for drawn holes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `k = 0` or a bad half-side range,
    /// [`Error::CannotPlaceHoles`] with `k` and the try limit, and
    /// [`check_holes`]'s errors for given holes.
    pub fn holes<R: Rng + ?Sized>(&self, task: &Task, rng: &mut R) -> Result<Vec<Square>> {
        task.check()?;
        match self {
            Split::Holes(h) => {
                check_holes(task, h)?;
                Ok(h.clone())
            }
            &Split::MultiHole {
                k,
                half_range: (lo, hi),
                max_tries,
                half_sides,
            } => {
                if k == 0 {
                    return Err(Error::InvalidParameter {
                        name: "k",
                        value: "0".into(),
                        expected: "at least one hole",
                    });
                }
                if lo < 0 || hi < lo {
                    return Err(Error::InvalidParameter {
                        name: "half_range",
                        value: format!("[{lo}, {hi}]"),
                        expected: "0 ≤ lo ≤ hi",
                    });
                }
                let hi = match half_sides {
                    HalfSides::Intended => hi,
                    HalfSides::ReleasedCompat => lo.saturating_add(1).min(hi),
                };
                let side = task.side() as i64;
                let ymax = match *task {
                    Task::ChickenRabbit { max_heads } => max_heads as i64,
                    _ => side,
                };
                let mut out: Vec<Square> = Vec::with_capacity(k.min(1024));
                for _ in 0..max_tries {
                    if out.len() == k {
                        break;
                    }
                    let x = rng.random_range(0..side);
                    let y = rng.random_range(0..ymax);
                    let upper = match task {
                        Task::ChickenRabbit { .. } => {
                            let cap = ((x - y).div_euclid(2)).min((2 * y - x).div_euclid(3));
                            if cap < lo {
                                continue;
                            }
                            hi.min(cap)
                        }
                        _ => hi,
                    };
                    let half = rng.random_range(lo..=upper);
                    let s = Square::new(x, y, half);
                    if s.inside(task) && !out.iter().any(|t| t.overlaps(&s)) {
                        out.push(s);
                    }
                }
                if out.len() < k {
                    return Err(Error::CannotPlaceHoles {
                        k,
                        tries: max_tries,
                    });
                }
                Ok(out)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Splits the task's grid. Cost O(N) plus the hole draws (N = grid size).
    ///
    /// # Errors
    /// [`Split::holes`]' errors; [`Error::InvalidParameter`] for a ratio
    /// outside `(0, 1)`, an empty row/column list or range, or an unknown or
    /// repeated external id; [`Error::EmptySplit`] when either set is empty.
    pub fn apply<R: Rng + ?Sized>(&self, task: &Task, rng: &mut R) -> Result<SplitSets> {
        let grid = task.grid()?;
        let squares = self.holes(task, rng)?;
        let (train, test) = match self {
            &Split::Random { train_ratio } => {
                if !(train_ratio > 0.0 && train_ratio < 1.0) {
                    return Err(Error::InvalidParameter {
                        name: "train_ratio",
                        value: train_ratio.to_string(),
                        expected: "in (0, 1)",
                    });
                }
                let n_train = (grid.len() as f64 * train_ratio).floor() as usize;
                let mut order = grid;
                for i in (1..order.len()).rev() {
                    let j = rng.random_range(0..=i);
                    order.swap(i, j);
                }
                let test = order.split_off(n_train.min(order.len()));
                (order, test)
            }
            Split::Holes(_) | Split::MultiHole { .. } => {
                partition(task, grid, |x, y| squares.iter().any(|s| s.contains(x, y)))
            }
            Split::Rows { rows, range } => {
                check_lines(rows, *range)?;
                partition(task, grid, |x, y| {
                    rows.contains(&x) && range.0 <= y && y <= range.1
                })
            }
            Split::Columns { columns, range } => {
                check_lines(columns, *range)?;
                partition(task, grid, |x, y| {
                    columns.contains(&y) && range.0 <= x && x <= range.1
                })
            }
            Split::External { test_ids } => external(grid, test_ids)?,
        };
        if train.is_empty() {
            return Err(Error::EmptySplit { which: "training" });
        }
        if test.is_empty() {
            return Err(Error::EmptySplit { which: "test" });
        }
        Ok(SplitSets {
            train,
            test,
            squares,
        })
    }
}

fn check_lines(lines: &[i64], range: (i64, i64)) -> Result<()> {
    if lines.is_empty() {
        return Err(Error::Empty("row or column list"));
    }
    if range.1 < range.0 {
        return Err(Error::InvalidParameter {
            name: "range",
            value: format!("[{}, {}]", range.0, range.1),
            expected: "lo ≤ hi",
        });
    }
    Ok(())
}

fn partition(
    task: &Task,
    grid: Vec<Sample>,
    is_test: impl Fn(i64, i64) -> bool,
) -> (Vec<Sample>, Vec<Sample>) {
    grid.into_iter().partition(|s| {
        let (x, y) = task.coords(s.a, s.b);
        !is_test(x, y)
    })
}

fn external(grid: Vec<Sample>, test_ids: &[u64]) -> Result<(Vec<Sample>, Vec<Sample>)> {
    let mut pos: HashMap<u64, usize> = HashMap::with_capacity(grid.len());
    for (i, s) in grid.iter().enumerate() {
        pos.insert(s.id, i);
    }
    let mut taken = vec![false; grid.len()];
    let mut test = Vec::with_capacity(test_ids.len().min(grid.len()));
    for &id in test_ids {
        let &i = pos.get(&id).ok_or(Error::InvalidParameter {
            name: "test id",
            value: id.to_string(),
            expected: "an id of the task's grid",
        })?;
        if taken[i] {
            return Err(Error::InvalidParameter {
                name: "test id",
                value: id.to_string(),
                expected: "each id at most once",
            });
        }
        taken[i] = true;
        test.push(grid[i].clone());
    }
    let train = grid
        .into_iter()
        .zip(taken)
        .filter_map(|(s, t)| (!t).then_some(s))
        .collect();
    Ok((train, test))
}

/// Parses an official `test_squares.txt`: `centers:[(x, y), ...]` and
/// `lengths:[h, ...]` (half-sides). O(len).
///
/// # Errors
/// [`Error::Parse`] with the line for a malformed file or differing counts.
pub fn parse_squares(text: &str) -> Result<Vec<Square>> {
    let mut centers: Option<Vec<i64>> = None;
    let mut lengths: Option<Vec<i64>> = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        let bad = |msg: &str| Error::Parse {
            line: i + 1,
            msg: msg.to_string(),
        };
        let numbers = |body: &str| -> Result<Vec<i64>> {
            body.split(|c: char| !(c.is_ascii_digit() || c == '-'))
                .filter(|t| !t.is_empty())
                .map(|t| t.parse::<i64>().map_err(|_| bad("not an integer")))
                .collect()
        };
        if let Some(body) = line.strip_prefix("centers:") {
            centers = Some(numbers(body)?);
        } else if let Some(body) = line.strip_prefix("lengths:") {
            lengths = Some(numbers(body)?);
        } else if !line.is_empty() {
            return Err(bad("expected `centers:[...]` or `lengths:[...]`"));
        }
    }
    let lines = text.lines().count().max(1);
    let (Some(c), Some(l)) = (centers, lengths) else {
        return Err(Error::Parse {
            line: lines,
            msg: "missing `centers:` or `lengths:`".into(),
        });
    };
    if !c.len().is_multiple_of(2) || c.len() / 2 != l.len() || l.is_empty() {
        return Err(Error::Parse {
            line: lines,
            msg: format!("{} centre coordinates for {} half-sides", c.len(), l.len()),
        });
    }
    Ok(c.chunks(2)
        .zip(l)
        .map(|(p, h)| Square::new(p[0], p[1], h))
        .collect())
}
