//! # partial-equivariance
#![deny(missing_docs)]

pub mod basis;
pub mod decompose;
pub mod diagnostics;
pub mod error;
pub mod field;
pub mod fit;
pub mod fourier;
pub mod group;

pub use error::{Error, Result};
