//! Input validation shared by every crate of the workspace.
//!
//! Each check returns the typed [`Error`] naming the argument, so that entry
//! points validate once, up front, and never panic on user input.

use crate::error::{Error, Result};
use ndarray::{ArrayBase, Data, Dimension};

/// Fails with [`Error::NonFinite`] at the first NaN or infinite entry of `a`.
pub fn finite<S: Data<Elem = f64>, D: Dimension>(
    a: &ArrayBase<S, D>,
    what: &'static str,
) -> Result<()> {
    match a.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// Fails with [`Error::Empty`] when `a` has no element.
pub fn non_empty<S: Data, D: Dimension>(a: &ArrayBase<S, D>, what: &'static str) -> Result<()> {
    if a.is_empty() {
        Err(Error::Empty { what })
    } else {
        Ok(())
    }
}

/// Fails with [`Error::Empty`] or [`Error::NonFinite`]: the usual check of a data argument.
pub fn data<S: Data<Elem = f64>, D: Dimension>(
    a: &ArrayBase<S, D>,
    what: &'static str,
) -> Result<()> {
    non_empty(a, what)?;
    finite(a, what)
}

/// Fails with [`Error::ShapeMismatch`] unless `a` is square.
pub fn square<S: Data, D: Dimension>(a: &ArrayBase<S, D>, what: &'static str) -> Result<()> {
    let s = a.shape();
    if s.len() == 2 && s[0] == s[1] {
        Ok(())
    } else {
        Err(Error::ShapeMismatch {
            what,
            expected: "a square matrix".into(),
            got: format!("{s:?}"),
        })
    }
}

/// Fails with [`Error::ShapeMismatch`] unless `len == expected`.
pub fn len(len: usize, expected: usize, what: &'static str) -> Result<()> {
    if len == expected {
        Ok(())
    } else {
        Err(Error::ShapeMismatch {
            what,
            expected: format!("length {expected}"),
            got: format!("length {len}"),
        })
    }
}

/// Fails with [`Error::InvalidParameter`] unless `lo < value < hi` (a NaN always fails).
pub fn open_interval(
    value: f64,
    lo: f64,
    hi: f64,
    name: &'static str,
    expected: &'static str,
) -> Result<()> {
    if value > lo && value < hi {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            expected,
        })
    }
}

/// Fails with [`Error::InvalidParameter`] unless `value` is finite and `value > 0`.
pub fn positive(value: f64, name: &'static str) -> Result<()> {
    open_interval(value, 0.0, f64::INFINITY, name, "a finite value > 0")
}
