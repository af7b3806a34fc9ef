//! Box-constrained quasi-Newton minimisation: one L-BFGS for every crate.
//!
//! Minimises `f(x)` over a box `lower ≤ x ≤ upper` ([`Bounds`]) for an
//! [`Objective`] that returns values and gradients on `f64` slices. The box
//! is handled in one of two ways ([`BoxMethod`]):
//!
//! * [`BoxMethod::Logistic`] (default): `x = lower + (upper − lower)·σ(u)`,
//!   and argmin's L-BFGS runs unconstrained on `u ∈ ℝᵈ` with a backtracking
//!   Armijo search (steps capped at [`Lbfgs::max_step`]) or argmin's
//!   More–Thuente search ([`LineSearch`]). A point on the boundary is
//!   approached, never reached; callers that need it exactly snap onto the
//!   bound afterwards ([`Bounds::snap`]). Restart rounds
//!   ([`Lbfgs::rounds`]) rerun L-BFGS with a fresh memory from where the last
//!   run stopped.
//! * [`BoxMethod::Barrier`]: a step-by-step port of Optim.jl's
//!   `Fminbox(LBFGS(linesearch = BackTracking()))`, for code that reproduces
//!   Optim.jl results (module [`barrier`]): a log barrier on `x` rescaled to
//!   `[0, 1]ᵈ` whose weight shrinks by [`barrier::MU_FACTOR`] per outer
//!   round, L-BFGS preconditioned by the barrier's Hessian, cubic
//!   backtracking from the unit step.
//!
//! Entry points: [`minimize`] (one start), [`minimize_multistart`] (several
//! starts, e.g. [`Bounds::seeded_starts`] drawn with
//! [`crate::sampling::seeded`]) and [`best`]; [`minimize_logit`] runs the
//! logistic method from a point in the unconstrained coordinates with a
//! given first step (warm starts, as a tempering schedule does, with
//! [`warm_step`]).
//!
//! **Failures.** A bad box, start or setting is a typed [`Error`](crate::Error) before
//! anything is evaluated ([`Bounds::new`], [`Bounds::check`],
//! [`Lbfgs::check`]). The objective's own error type is
//! [`Objective::Error`] (any type that an [`Error`](crate::Error) converts into): an error
//! at the start of [`minimize`] is returned; anywhere else, an error or a
//! non-finite value counts as a failed point — `+∞` for the barrier method,
//! [`Logistic::fail_value`] for the logistic one — so the line search backs
//! off, and a non-finite gradient is replaced by zeros (see [`Pullback`]).
//! A start whose gradient fails ends the barrier method at once.
//!
//! ```
//! use mlcore::optim::{Bounds, FnObjective, Lbfgs, minimize};
//!
//! // Rosenbrock in a box that excludes its minimum (1, 1): the constrained
//! // minimum lies on the bound b = 0.5.
//! let f = FnObjective(|x: &[f64]| {
//!     let (a, b) = (x[0], x[1]);
//!     let v = (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2);
//!     let g = vec![-2.0 * (1.0 - a) - 400.0 * a * (b - a * a), 200.0 * (b - a * a)];
//!     (v, g)
//! });
//! let bounds = Bounds::new(vec![-2.0, -1.0], vec![2.0, 0.5])?;
//! let fit = minimize(&f, &bounds, &[-1.5, 0.0], &Lbfgs::fminbox(1e-12))?;
//! assert!((fit.params[1] - 0.5).abs() < 1e-6 && (fit.params[0] - 0.7086).abs() < 1e-3);
//! # Ok::<(), mlcore::Error>(())
//! ```

pub mod barrier;
mod bounds;
mod config;
mod entry;
mod logistic;
mod objective;

pub use bounds::Bounds;
pub use config::{BoxMethod, EarlyStop, Lbfgs, LineSearch, Logistic, Pullback, StageTol};
pub use entry::{best, minimize, minimize_multistart};
pub use logistic::{minimize_logit, warm_step};
pub use objective::{FnObjective, LocalFit, Objective};
