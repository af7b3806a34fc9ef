//! Gaussian-process regression with `mlcore`, end to end: a jittered
//! Cholesky of the kernel matrix, triangular solves for the posterior, the
//! log marginal likelihood through `logdet`, and split-conformal intervals
//! whose held-out coverage you can check against the 90 % target.
//!
//! Run: `cargo run --release --example mlcore_gp_regression`

use mlcore::linalg::{self, Jitter, Triangle};
use mlcore::sampling::{seeded, standard_normal};
use mlcore::stats;
use ndarray::{Array1, Array2};
use rand::RngExt;

/// Squared-exponential kernel `k(x, y) = exp(−(x − y)² / (2ℓ²))`.
fn kernel(a: &Array1<f64>, b: &Array1<f64>, ell: f64) -> Array2<f64> {
    Array2::from_shape_fn((a.len(), b.len()), |(i, j)| {
        (-(a[i] - b[j]).powi(2) / (2.0 * ell * ell)).exp()
    })
}

fn main() -> Result<(), mlcore::Error> {
    let mut rng = seeded(7);
    let (noise, ell) = (0.1, 0.7);
    let draw = |n: usize, rng: &mut mlcore::sampling::WorkspaceRng| {
        let x: Array1<f64> = (0..n).map(|_| rng.random_range(-3.0..3.0)).collect();
        let y = x.mapv(f64::sin) + standard_normal(n, rng) * noise;
        (x, y)
    };
    let (x, y) = draw(200, &mut rng);

    // Posterior mean m(x*) = K*ᵀ (K + σ²I)⁻¹ y via L Lᵀ = K + σ²I.
    let k = kernel(&x, &x, ell) + Array2::<f64>::eye(x.len()) * noise * noise;
    let chol = linalg::cholesky_jittered(k.view(), Jitter::default())?;
    let v = linalg::solve_triangular(chol.l.view(), y.view(), Triangle::Lower)?;
    let alpha = linalg::solve_triangular(chol.l.t(), v.view(), Triangle::Upper)?;
    let log_ml = -0.5 * y.dot(&alpha)
        - 0.5 * linalg::logdet_spd(k.view())?
        - 0.5 * x.len() as f64 * (2.0 * std::f64::consts::PI).ln();
    println!(
        "n = {}, jitter added = {:e}, log marginal likelihood = {log_ml:.3}",
        x.len(),
        chol.jitter
    );

    let predict = |xs: &Array1<f64>| kernel(xs, &x, ell).dot(&alpha);
    let grid = Array1::linspace(-2.5, 2.5, 6);
    println!("\n     x    sin(x)   posterior mean");
    for (xi, mi) in grid.iter().zip(predict(&grid).iter()) {
        println!("{xi:6.2}  {:8.4}  {mi:8.4}", xi.sin());
    }

    // Split conformal: calibrate |y − m(x)| on fresh data, check coverage on more.
    let (xc, yc) = draw(500, &mut rng);
    let scores = (&yc - &predict(&xc)).mapv(f64::abs);
    let q = stats::conformal_quantile(scores.view(), 0.1)?;
    let (xt, yt) = draw(5000, &mut rng);
    let covered = (&yt - &predict(&xt))
        .iter()
        .filter(|r| r.abs() <= q)
        .count();
    println!(
        "\nconformal half-width at α = 0.1: {q:.4} (noise σ = {noise}); held-out coverage {:.3} (target ≥ 0.9)",
        covered as f64 / xt.len() as f64
    );
    Ok(())
}
