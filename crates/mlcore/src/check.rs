//! Input validation shared by every crate of the workspace.
//!
//! Each check returns the typed [`Error`] naming the argument, so that entry
//! points validate once, up front, and never panic on user input.
//!
//! Sizes chosen by a caller (a shape, a number of draws, a horizon) go
//! through [`alloc_len`] and [`try_filled`] before anything is allocated: an
//! element count whose product overflows `usize`, a request above
//! [`MAX_ALLOC_BYTES`], or one the allocator refuses is an
//! [`Error::TooLarge`], never a capacity-overflow panic or an out-of-memory
//! abort.

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
    require(value > lo && value < hi, name, value, expected)
}

/// Fails with [`Error::InvalidParameter`] unless `value` is finite and `value > 0`.
pub fn positive(value: f64, name: &'static str) -> Result<()> {
    open_interval(value, 0.0, f64::INFINITY, name, "a finite value > 0")
}

/// Fails with [`Error::InvalidParameter`] unless `lo ≤ value ≤ hi` (a NaN always fails).
pub fn closed_interval(
    value: f64,
    lo: f64,
    hi: f64,
    name: &'static str,
    expected: &'static str,
) -> Result<()> {
    require(value >= lo && value <= hi, name, value, expected)
}

/// Fails with [`Error::InvalidParameter`] (naming `name`, with `value` and
/// the valid range `expected` in words) unless `condition` holds: the
/// general form of the range checks below, for conditions they do not cover
/// (`n ≥ 2`, `a, b ≥ 1`, a mean within 5 sd of `[0, 1]`).
pub fn require(
    condition: bool,
    name: &'static str,
    value: f64,
    expected: &'static str,
) -> Result<()> {
    if condition {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            expected,
        })
    }
}

/// Fails with [`Error::InvalidParameter`] unless `lo < value ≤ hi` (a NaN
/// always fails): a discount `γ ∈ (0, 1]`, a step size `α ∈ (0, 1]`.
pub fn left_open_interval(
    value: f64,
    lo: f64,
    hi: f64,
    name: &'static str,
    expected: &'static str,
) -> Result<()> {
    require(value > lo && value <= hi, name, value, expected)
}

/// Fails with [`Error::InvalidParameter`] unless `value` is finite and
/// `value ≥ 0` (a rate, a noise level, a penalty that may be zero).
pub fn non_negative(value: f64, name: &'static str) -> Result<()> {
    require(
        value >= 0.0 && value.is_finite(),
        name,
        value,
        "a finite value >= 0",
    )
}

/// Fails with [`Error::InvalidParameter`] unless the scalar `value` is finite.
pub fn finite_scalar(value: f64, name: &'static str) -> Result<()> {
    require(value.is_finite(), name, value, "a finite value")
}

/// Fails with [`Error::InvalidParameter`] (the value as `f64`) unless the
/// count `value ≥ min`: an iteration cap, a number of samples or restarts.
pub fn at_least(
    value: usize,
    min: usize,
    name: &'static str,
    expected: &'static str,
) -> Result<()> {
    require(value >= min, name, value as f64, expected)
}

/// Fails with [`Error::NonFinite`] at the first NaN or infinite entry of a
/// slice ([`finite`] for data that is not an `ndarray`).
pub fn finite_values(v: &[f64], what: &'static str) -> Result<()> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// Tolerance of [`probability_vector`] on `|Σ pᵢ − 1|`.
pub const PROBABILITY_SUM_TOL: f64 = 1e-9;

/// Fails unless `p` is a probability vector: non-empty ([`Error::Empty`]),
/// finite ([`Error::NonFinite`]), every entry in `[0, 1]` and the sum within
/// [`PROBABILITY_SUM_TOL`] of one ([`Error::InvalidParameter`] with the
/// offending entry or the sum as its value).
pub fn probability_vector<S: Data<Elem = f64>, D: Dimension>(
    p: &ArrayBase<S, D>,
    what: &'static str,
) -> Result<()> {
    data(p, what)?;
    if let Some(&bad) = p.iter().find(|&&v| !(0.0..=1.0).contains(&v)) {
        return Err(Error::InvalidParameter {
            name: what,
            value: bad,
            expected: "every probability in [0, 1]",
        });
    }
    let sum: f64 = p.iter().sum();
    if (sum - 1.0).abs() > PROBABILITY_SUM_TOL {
        return Err(Error::InvalidParameter {
            name: what,
            value: sum,
            expected: "probabilities summing to 1 (within 1e-9)",
        });
    }
    Ok(())
}

/// The most memory (in bytes) one `mlcore` call allocates for an output
/// whose size the caller chooses: 16 GiB. Larger requests are an
/// [`Error::TooLarge`] (a deliberate cap: above it an allocation would on most
/// machines abort the process or thrash rather than fail).
pub const MAX_ALLOC_BYTES: usize = 1 << 34;

/// The element count `Π dims` of an array of `elem_bytes`-byte elements,
/// checked before allocating.
///
/// # Errors
/// [`Error::TooLarge`] naming `what` when the product overflows `usize` or
/// the array would exceed [`MAX_ALLOC_BYTES`], and when the product of the
/// *non-zero* dimensions does (ndarray refuses such a shape even when a zero
/// dimension makes the array empty).
pub fn alloc_len(dims: &[usize], elem_bytes: usize, what: &'static str) -> Result<usize> {
    let shape = dims
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" × ");
    let nonzero = dims
        .iter()
        .filter(|&&d| d > 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if nonzero.is_none_or(|n| {
        n.checked_mul(elem_bytes.max(1))
            .is_none_or(|b| b > MAX_ALLOC_BYTES)
    }) {
        return Err(Error::TooLarge {
            what,
            size: format!(
                "{shape} elements (the non-zero dimensions alone exceed the cap of {MAX_ALLOC_BYTES} bytes)"
            ),
        });
    }
    let len = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Error::TooLarge {
            what,
            size: format!("{shape} elements (the count overflows usize)"),
        })?;
    match len.checked_mul(elem_bytes) {
        Some(bytes) if bytes <= MAX_ALLOC_BYTES => Ok(len),
        bytes => Err(Error::TooLarge {
            what,
            size: format!(
                "{shape} = {len} elements of {elem_bytes} bytes ({}), above the cap of {MAX_ALLOC_BYTES} bytes",
                bytes.map_or_else(
                    || "more than usize::MAX bytes".to_string(),
                    |b| format!("{b} bytes")
                )
            ),
        }),
    }
}

/// A vector of `len` copies of `value`, allocated fallibly: checks `len`
/// against [`MAX_ALLOC_BYTES`] and returns [`Error::TooLarge`] when the
/// allocator refuses, instead of aborting.
///
/// # Errors
/// [`Error::TooLarge`] naming `what`.
pub fn try_filled<T: Clone>(len: usize, value: T, what: &'static str) -> Result<Vec<T>> {
    alloc_len(&[len], std::mem::size_of::<T>().max(1), what)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|e| Error::TooLarge {
        what,
        size: format!("{len} elements: the allocation failed ({e})"),
    })?;
    v.resize(len, value);
    Ok(v)
}
