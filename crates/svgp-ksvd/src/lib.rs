//! # svgp-ksvd — KEP-SVGP
//!
//! Yingyi Chen, Qinghua Tao, Francesco Tonin, Johan A. K. Suykens.
//! *Self-Attention through Kernel-Eigen Pair Sparse Variational Gaussian
//! Processes.* ICML 2024, arXiv 2402.01476.
//!
//! WIP.

#![deny(missing_docs)]

pub mod attention;
mod error;
pub mod evaluate;
pub mod experiment;
pub mod ksvd;
pub mod model;
pub mod shift;
pub mod svgp;

pub use error::{Error, Result};
