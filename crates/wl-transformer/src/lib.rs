//! wl-transformer (docs below)
#![deny(missing_docs)]

pub mod error;
pub mod graph;
pub mod io;
pub mod named;
pub mod tokens;
pub mod wl;

pub use error::{Error, Result};
pub use graph::Graph;
pub mod model;
pub mod pe;
