//! A box-constrained L-BFGS that follows Optim.jl's
//! `Fminbox(LBFGS(linesearch = BackTracking()))` step by step — the
//! optimiser the official scripts run, because OptimizationOptimJL wraps an
//! unconstrained method in `Fminbox` whenever bounds are given.
//!
//! Select it with [`BoxMethod::Barrier`](crate::BoxMethod::Barrier) (as
//! [`LbfgsConfig::fminbox`](crate::LbfgsConfig::fminbox) and
//! [`TemperedFit::official`](crate::TemperedFit::official) do). The port
//! itself lives in [`mlcore::optim::barrier`], where it moved unchanged
//! (the crate's recorded results are pinned bit for bit in
//! `tests/optim_pins.rs`); its module docs describe the outer barrier loop
//! and the preconditioned inner L-BFGS with cubic backtracking.

pub use mlcore::optim::barrier::{BUMP, MU_FACTOR};
