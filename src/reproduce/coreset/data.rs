//! The data of the `coreset` reproduction: the spec's two settings.
//!
//! - **Heavy-tailed** (the spec's p = 2 sizing data and property 5):
//!   `n = 5000`, `d = 4`, t₃ entries, 3 rows of `A` scaled by 30 and 3 other
//!   rows of `B` shifted by 50.
//! - **Gaussian with outliers** (the spec's p = 3 sizing data and property 6):
//!   `n = 20 000`, `d = 5`, Gaussian `A` and noise, 10 rows of `B` shifted by
//!   ±1000 (property 6 has no outliers).

use coreset::coreset::{Budget as Rows, Coreset, CoresetBuilder, Sampling};
use mlcore::sampling::standard_normal;
use ndarray::Array2;
use rand::Rng;

/// Rows of the heavy-tailed data.
pub const N: usize = 5000;
/// Columns of `A` in the heavy-tailed data.
pub const D: usize = 4;
/// Numbers of responses compared (issue 32: m ∈ {1, 8, 32}, as the spec's sizing data).
pub const MS: [usize; 3] = [1, 8, 32];
/// Expected coreset sizes `k = k_A + k_B` (split evenly) at p = 2: the
/// spec's sizing data (100, 400, 1600) and property 5 (1600), with 800 between.
pub const SIZES: [f64; 4] = [100.0, 400.0, 800.0, 1600.0];
/// Rows of `A` scaled up, and rows of `B` given a large residual.
const OUTLIERS: usize = 3;

/// Rows of the Gaussian data (the spec's p = 3 sizing data and property 6).
pub const N_GAUSS: usize = 20_000;
/// Columns of `A` in the Gaussian data.
pub const D_GAUSS: usize = 5;
/// Outlier rows of `B` in the Gaussian data (the spec's p = 3 sizing data).
pub const OUTLIERS_GAUSS: usize = 10;

/// Student-t entries with `nu` degrees of freedom.
fn student_t<R: Rng + ?Sized>(shape: (usize, usize), nu: usize, rng: &mut R) -> Array2<f64> {
    let z: Array2<f64> = standard_normal(shape, rng);
    let mut chi = Array2::<f64>::zeros(shape);
    for _ in 0..nu {
        let g: Array2<f64> = standard_normal(shape, rng);
        chi += &g.mapv(|v| v * v);
    }
    ndarray::Zip::from(&z)
        .and(&chi)
        .map_collect(|&z, &c| z / (c / nu as f64).sqrt())
}

/// The heavy-tailed design `A` (`n × d`): t₃ entries with the first few rows
/// scaled by 30.
pub fn heavy_tailed_design<R: Rng + ?Sized>(n: usize, d: usize, rng: &mut R) -> Array2<f64> {
    let mut a = student_t((n, d), 3, rng);
    for i in 0..OUTLIERS.min(n) {
        a.row_mut(i).mapv_inplace(|v| v * 30.0);
    }
    a
}

/// Responses `B = A X* + E` (`n × m`): `X*` Gaussian, `E` t₃ noise, and a few
/// rows (other than the scaled rows of `A`) shifted by 50 in every column.
pub fn responses<R: Rng + ?Sized>(a: &Array2<f64>, m: usize, rng: &mut R) -> Array2<f64> {
    let x: Array2<f64> = standard_normal((a.ncols(), m), rng);
    let mut b = a.dot(&x) + student_t((a.nrows(), m), 3, rng);
    let n = a.nrows();
    for i in (n / 2..n).step_by(n / (2 * OUTLIERS).max(1)).take(OUTLIERS) {
        b.row_mut(i).mapv_inplace(|v| v + 50.0);
    }
    b
}

/// Gaussian `A` (`n × d`).
pub fn gaussian_design<R: Rng + ?Sized>(n: usize, d: usize, rng: &mut R) -> Array2<f64> {
    standard_normal((n, d), rng)
}

/// `B = A X* + E` (`n × m`), `X*` and `E` Gaussian, and `outliers` rows
/// (spread over the data) shifted by ±1000 in every column.
pub fn gaussian_responses<R: Rng + ?Sized>(
    a: &Array2<f64>,
    m: usize,
    outliers: usize,
    rng: &mut R,
) -> Array2<f64> {
    let x: Array2<f64> = standard_normal((a.ncols(), m), rng);
    let e: Array2<f64> = standard_normal((a.nrows(), m), rng);
    let mut b = a.dot(&x) + e;
    let n = a.nrows();
    for k in 0..outliers.min(n) {
        let i = (k * 7919 + 13) % n;
        let shift = if k % 2 == 0 { 1000.0 } else { -1000.0 };
        b.row_mut(i).mapv_inplace(|v| v + shift);
    }
    b
}

/// Uniform sampling with the same expected size `k` ([`Coreset::uniform`]), p = 2.
pub fn uniform_sample<R: Rng + ?Sized>(
    n: usize,
    k: f64,
    rng: &mut R,
) -> Result<Coreset, coreset::Error> {
    Coreset::uniform(n, 2.0, k, rng)
}

/// A strong coreset builder at p = 2 with `k_A = k_B = k/2` (residuals from
/// the full least-squares solve), heavy rows kept and the rest drawn with
/// replacement ([`Sampling::FixedSize`], the runner's scheme for every p).
pub fn builder(k: f64) -> CoresetBuilder {
    CoresetBuilder::new(2.0)
        .budget(Rows::Rows {
            k_a: k / 2.0,
            k_b: k / 2.0,
        })
        .sampling(Sampling::FixedSize)
}
