//! The variational identity behind the paper: for Z with singular values σ,
//! min over Z = A₁⋯A_L of (1/L)Σ‖A_l‖_F² equals Σσ^{2/L} = ‖Z‖_{S_{2/L}}^{2/L},
//! reached by the balanced factorisation; random re-factorisations of the same
//! Z never go below it. Also the weighted analogue and the effective rank.
//!
//! Run: `cargo run --release --example matrix_completion_schatten_identity`

use matrix_completion::schatten::{
    balanced_factors, effective_rank, product, schatten_pow, variational_value,
    weighted_balanced_factors, weighted_variational_value,
};
use matrix_completion::synthetic::low_rank;
use mlcore::linalg::pinv;
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2};
use rand::RngExt;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = seeded(42);
    let (m, n, r) = (40, 30, 4);
    let z = low_rank(m, n, r, &mut rng)?;
    println!(
        "Z: {m}×{n}, rank {r}; singular values {:.3?}",
        &mlcore::linalg::svd(z.view())?.s.to_vec()[..r]
    );
    println!("\n L | Σσ^(2/L)     | balanced (1/L)Σ‖A_l‖² | min over 500 random re-factorisations");
    for l in [2usize, 3, 4] {
        let target = schatten_pow(z.view(), 2.0 / l as f64)?;
        let f = balanced_factors(z.view(), l)?;
        let err = (&product(&f)? - &z)
            .iter()
            .fold(0.0f64, |a, d| a.max(d.abs()));
        let balanced = variational_value(&f)?;
        let mut best = f64::INFINITY;
        for _ in 0..500 {
            let mut g = f.clone();
            for t in 0..l - 1 {
                let k = g[t].ncols();
                let q: Array2<f64> =
                    standard_normal((k, k), &mut rng) * 0.5 + Array2::<f64>::eye(k);
                let qi = pinv(q.view())?;
                g[t] = g[t].dot(&q);
                g[t + 1] = qi.dot(&g[t + 1]);
            }
            best = best.min(variational_value(&g)?);
        }
        println!(
            " {l} | {target:12.6} | {balanced:12.6} (|A₁⋯A_L − Z| ≤ {err:.1e}) | {best:12.6} (≥ target: {})",
            best >= target * (1.0 - 1e-9)
        );
    }
    // Weighted analogue with random positive D_r, D_c.
    let dr: Array1<f64> = (0..m).map(|_| rng.random_range(0.2..3.0)).collect();
    let dc: Array1<f64> = (0..n).map(|_| rng.random_range(0.2..3.0)).collect();
    let w = Array2::from_shape_fn((m, n), |(i, j)| dr[i].sqrt() * z[[i, j]] * dc[j].sqrt());
    println!("\nweighted: ‖D_r^½ Z D_c^½‖_(S_2/L)^(2/L) vs the weighted balanced value");
    for l in [2usize, 3, 4] {
        let t = schatten_pow(w.view(), 2.0 / l as f64)?;
        let f = weighted_balanced_factors(z.view(), dr.view(), dc.view(), l)?;
        println!(
            " L = {l}: {t:.6} vs {:.6}",
            weighted_variational_value(&f, dr.view(), dc.view())?
        );
    }
    println!(
        "\neffective rank r_eff(Z, p) = (‖Z‖_Sp^p / ‖Z‖_F^p)^(2/(2−p)) (≤ rank {r}; = r when isotropic):"
    );
    for p in [0.5, 2.0 / 3.0, 1.0] {
        println!(" p = {p:.3}: {:.4}", effective_rank(z.view(), p)?);
    }
    Ok(())
}
