//! The registered paper reproductions, one module per paper crate.
//!
//! To add one: write `src/reproduce/<crate>.rs` with a unit struct that
//! implements [`Reproduction`](crate::runner::Reproduction), declare the
//! module here, and push it in [`registry`] (keep the list sorted by id).

use crate::runner::Reproduction;

/// Every registered reproduction, sorted by crate name.
pub fn registry() -> Vec<Box<dyn Reproduction>> {
    Vec::new()
}
