//! Net2WiderNet (Chen, Goodfellow & Shlens, ICLR 2016), the
//! function-preserving growth baseline: each hidden layer of width `w` is
//! widened to `w' ≥ w` by appending copies of randomly chosen units; a unit
//! copied `m` times has its outgoing weights divided by `m` in every copy,
//! so the wider network computes the same function (any activation).

use crate::error::{Error, Result};
use crate::mlp::Mlp;
use ndarray::{Array1, Array2};
use rand::{Rng, RngExt};

/// Widens every hidden layer of `net` to `widths[l]` (`widths.len()` =
/// hidden layers, `widths[l] ≥` the current width). New unit `j ≥ w` copies
/// a uniformly drawn original unit. O(#params of the wider network).
///
/// # Errors
/// [`Error::Shape`] for a wrong number of widths; [`Error::InvalidParameter`]
/// for a width below the current one; [`Error::TooLarge`].
pub fn net2wider<R: Rng + ?Sized>(net: &Mlp, widths: &[usize], rng: &mut R) -> Result<Mlp> {
    let hidden = net.depth() - 1;
    if widths.len() != hidden {
        return Err(Error::Shape {
            what: "new hidden widths",
            expected: vec![hidden],
            got: vec![widths.len()],
        });
    }
    let mut layers = net.to_arrays()?;
    for (l, &target) in widths.iter().enumerate() {
        let w = layers[l].0.nrows();
        if target < w {
            return Err(Error::InvalidParameter {
                name: "new width",
                value: target as f64,
                expected: "at least the current width",
            });
        }
        crate::mlp::alloc_check(
            target,
            layers[l].0.ncols().max(layers[l + 1].0.nrows()),
            "widened layer",
        )?;
        let map: Vec<usize> = (0..target)
            .map(|j| if j < w { j } else { rng.random_range(0..w) })
            .collect();
        let mut count = vec![0usize; w];
        for &m in &map {
            count[m] += 1;
        }
        let (win, bin) = &layers[l];
        let new_in = Array2::from_shape_fn((target, win.ncols()), |(j, c)| win[[map[j], c]]);
        let new_b = Array1::from_shape_fn(target, |j| bin[map[j]]);
        let wout = &layers[l + 1].0;
        let new_out = Array2::from_shape_fn((wout.nrows(), target), |(r, j)| {
            wout[[r, map[j]]] / count[map[j]] as f64
        });
        layers[l] = (new_in, new_b);
        layers[l + 1].0 = new_out;
    }
    Mlp::from_arrays(&layers, net.activation(), net.dtype())
}
