//! Box-constrained L-BFGS, the tempering schedule, and the three
//! estimators: diffusion tempering, Fenrir with learned diffusion, and the
//! L2 loss on an RK solution.
//!
//! The optimiser itself is [`mlcore::optim`] (argmin's L-BFGS on a logistic
//! box map, or the port of Optim.jl's `Fminbox`); this module keeps the
//! crate's box ([`Bounds`]), loss trait ([`Objective`]) and settings
//! ([`LbfgsConfig`]) and hands them over.

mod bounds;
mod config;
mod fits;
mod objective;

pub use bounds::{Bounds, NUDGE};
pub use config::{LbfgsConfig, ROUND_REL_TOL, ROUNDS};
pub use fits::{
    FitReport, L2Fit, LearnedDiffusionFit, Schedule, StageReport, TemperedFit, fit_many,
};
pub use mlcore::optim::{BoxMethod, EarlyStop, LocalFit, StageTol};
pub use objective::{FenrirAt, FenrirLearnedKappa, Objective, minimize};
