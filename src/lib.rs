//! # icml24-runner
//!
//! The reproduction runner of the icml24 workspace (`cargo run --release`
//! at the repository root): one [`reproduce`] module per paper crate, each
//! returning declared checks, and the [`runner`] that evaluates them, keeps
//! going after a failure or a panic, and writes `report.md`, `report.json`
//! and SVG plots.
//!
//! This package is not published. The libraries are the crates under
//! `crates/` (and the `icml24` facade that re-exports them); none of them
//! depends on this package's plotting, progress-bar or JSON code.
#![deny(missing_docs)]

pub mod reproduce;
pub mod runner;
