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
/// [`Error::InvalidParameter`] for `classes < 2` or a concentration outside
/// (0, 1e12]; [`Error::Core`] (`TooLarge`) when the n × K
/// matrix would overflow or exceed the allocation cap.
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
    // Above 1e12 the rows are 1/K to ~1e-6 and c·ln Gamma(c + 1) overflows
    // near f64::MAX (NaN rows, found by a hostile-input run).
    if !(concentration > 0.0 && concentration <= 1e12) {
        return Err(Error::InvalidParameter {
            name: "concentration",
            value: concentration,
            expected: "in (0, 1e12]",
        });
    }
    mlcore::check::alloc_len(&[n, classes], 8, "probability matrix")?;
    // Gamma(c) = Gamma(c + 1)·U^{1/c} (Marsaglia & Tsang's boost for c < 1),
    // sampled in logs: for tiny c every Gamma(c) draw underflows to 0 in
    // linear scale, but ln G = ln Gamma(c + 1) + ln(U)/c stays finite, and the
    // normalisation is a softmax of the logs. The logs are kept multiplied
    // by c (w = c·ln Gamma(c + 1) + ln U, finite) and divided by c only after
    // the row's maximum is subtracted: at c = 5e-324 every ln G is −∞ and
    // their difference was NaN (found by a hostile-input run); now the row
    // is one-hot at the largest w, the c → 0 limit.
    let gamma = Gamma::new(concentration + 1.0, 1.0).map_err(|_| Error::InvalidParameter {
        name: "concentration",
        value: concentration,
        expected: "> 0 and finite",
    })?;
    let mut probs = Array2::zeros((n, classes));
    let mut labels = Vec::with_capacity(n);
    for mut row in probs.rows_mut() {
        row.iter_mut().for_each(|v| {
            let g: f64 = gamma.sample(rng);
            let u = 1.0 - rand::RngExt::random::<f64>(rng); // (0, 1]
            *v = concentration * g.ln() + u.ln();
        });
        let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        row.mapv_inplace(|v| ((v - top) / concentration).exp());
        let s = row.sum();
        row.mapv_inplace(|v| v / s);
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
