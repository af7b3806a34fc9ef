//! The instrumented work counter: the cost that MLMC and nested MC are
//! charged is the work the code actually did, counted where it is done.
//!
//! Every primitive of the crate increments one per-thread counter:
//!
//! - **inner samples**: one per base-sample row of an MC q-EI evaluation
//!   (`M` per evaluation; a q-EI value inside an L-BFGS line search counts
//!   like any other), one per inner draw of the closed-form toy;
//! - **GP solves**: one per triangular solve with a GP's Cholesky factor
//!   (a posterior at a point, each point of a joint posterior, a fantasy's
//!   bordering, a fit's factorisation);
//! - **inner optimisations**: one per inner maximisation of a look-ahead
//!   stage (a multi-start L-BFGS call for one fantasy and block);
//! - **restarts** and **L-BFGS iterations**: every multi-start L-BFGS run of
//!   the crate (outer and inner), each start and each iteration.
//!
//! The scalar cost [`Work::units`] is `inner samples + GP solves`: the two
//! operations every evaluation of every objective is made of (restarts and
//! iterations are counted too, but their work *is* the evaluations they
//! run, so adding them would count it twice). [`measure`] returns the work
//! of a closure. The level samplers of [`crate::lookahead`] report
//! `units` of exactly the work of their call as [`crate::mlmc::LevelSamples::cost`],
//! so [`crate::mlmc::estimate`], [`crate::mlmc::estimate_adaptive`] and
//! [`crate::mlmc::nested_mc`] are charged by the same counter.
//!
//! The counter is thread-local: concurrent work on other threads is not
//! mixed in, and work spawned onto other threads is not seen.

use std::cell::Cell;
use std::ops::{Add, Sub};

/// Work done, by kind (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Work {
    /// MC inner-sample terms evaluated (q-EI rows, toy inner draws).
    pub inner_samples: u64,
    /// Triangular solves with a GP's Cholesky factor.
    pub gp_solves: u64,
    /// Inner maximisations of look-ahead stages.
    pub inner_optimisations: u64,
    /// Multi-start L-BFGS starts.
    pub restarts: u64,
    /// L-BFGS iterations.
    pub lbfgs_iterations: u64,
}

impl Work {
    /// The scalar cost `inner_samples + gp_solves` (as `f64`). O(1).
    pub fn units(&self) -> f64 {
        self.inner_samples as f64 + self.gp_solves as f64
    }
}

impl Add for Work {
    type Output = Work;
    fn add(self, o: Work) -> Work {
        Work {
            inner_samples: self.inner_samples.saturating_add(o.inner_samples),
            gp_solves: self.gp_solves.saturating_add(o.gp_solves),
            inner_optimisations: self
                .inner_optimisations
                .saturating_add(o.inner_optimisations),
            restarts: self.restarts.saturating_add(o.restarts),
            lbfgs_iterations: self.lbfgs_iterations.saturating_add(o.lbfgs_iterations),
        }
    }
}

impl Sub for Work {
    type Output = Work;
    fn sub(self, o: Work) -> Work {
        Work {
            inner_samples: self.inner_samples.saturating_sub(o.inner_samples),
            gp_solves: self.gp_solves.saturating_sub(o.gp_solves),
            inner_optimisations: self
                .inner_optimisations
                .saturating_sub(o.inner_optimisations),
            restarts: self.restarts.saturating_sub(o.restarts),
            lbfgs_iterations: self.lbfgs_iterations.saturating_sub(o.lbfgs_iterations),
        }
    }
}

thread_local! {
    static COUNTER: Cell<Work> = const { Cell::new(Work {
        inner_samples: 0,
        gp_solves: 0,
        inner_optimisations: 0,
        restarts: 0,
        lbfgs_iterations: 0,
    }) };
}

/// The work this thread has done so far (a monotone snapshot).
pub fn total() -> Work {
    COUNTER.with(Cell::get)
}

/// Runs `f` and returns its result with the work it did on this thread. O(1) overhead.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Work) {
    let before = total();
    let out = f();
    (out, total() - before)
}

fn bump(f: impl FnOnce(&mut Work)) {
    COUNTER.with(|c| {
        let mut w = c.get();
        f(&mut w);
        c.set(w);
    });
}

pub(crate) fn inner_samples(k: usize) {
    bump(|w| w.inner_samples = w.inner_samples.saturating_add(k as u64));
}

pub(crate) fn gp_solve() {
    bump(|w| w.gp_solves = w.gp_solves.saturating_add(1));
}

pub(crate) fn inner_optimisation() {
    bump(|w| w.inner_optimisations = w.inner_optimisations.saturating_add(1));
}

pub(crate) fn restart(iterations: u64) {
    bump(|w| {
        w.restarts = w.restarts.saturating_add(1);
        w.lbfgs_iterations = w.lbfgs_iterations.saturating_add(iterations);
    });
}
