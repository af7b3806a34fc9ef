//! A synthetic, perfectly calibrated classifier for experiments and tests:
//! `π ~ Dirichlet(c·1_K)`, `y ~ Categorical(π)`. Small `c` gives a mix of
//! easy (peaked) and hard (flat) inputs, which is what adaptive sets exploit.

use crate::error::{Error, Result};
use ndarray::Array2;
use rand::Rng;
use rand::distr::Distribution;
use rand_distr::Gamma;

/// `n` rows of probabilities over `classes` labels and a label drawn from each row. O(nK).
///
/// # Errors
/// [`Error::InvalidParameter`] for `classes < 2` or a non-positive concentration.
pub fn dirichlet_classifier<R: Rng + ?Sized>(
    n: usize,
    classes: usize,
    concentration: f64,
    rng: &mut R,
) -> Result<(Array2<f64>, Vec<usize>)> {
    if classes < 2 {
        return Err(Error::InvalidParameter {
            name: "classes",
            value: classes as f64,
            expected: ">= 2",
        });
    }
    let gamma = Gamma::new(concentration, 1.0).map_err(|_| Error::InvalidParameter {
        name: "concentration",
        value: concentration,
        expected: "> 0 and finite",
    })?;
    let mut probs = Array2::zeros((n, classes));
    let mut labels = Vec::with_capacity(n);
    for mut row in probs.rows_mut() {
        // A row of all-zero gammas (possible in floating point for tiny c) is redrawn.
        loop {
            row.iter_mut().for_each(|v| *v = gamma.sample(rng));
            let s = row.sum();
            if s > 0.0 {
                row.mapv_inplace(|v| v / s);
                break;
            }
        }
        let u: f64 = rand::RngExt::random(rng);
        let mut acc = 0.0;
        let y = row.iter().position(|&p| {
            acc += p;
            u < acc
        });
        labels.push(y.unwrap_or(classes - 1));
    }
    Ok((probs, labels))
}
