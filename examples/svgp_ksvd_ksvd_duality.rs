//! KSVD duality on a random asymmetric kernel: prints the singular values,
//! the residuals ‖KH_r − H_eΛ‖_F and ‖KᵀH_e − H_rΛ‖_F, and the primal J at
//! the SVD solution (≈ 0). `cargo run --release --example svgp_ksvd_ksvd_duality`
use ndarray::Array2;
use rand::RngExt;
use svgp_ksvd::ksvd::{KernelSvd, primal_objective};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = mlcore::sampling::seeded(0);
    let (n, p, s) = (32, 12, 6);
    let phi_q = Array2::from_shape_fn((n, p), |_| rng.random_range(-1.0..1.0));
    let phi_k = Array2::from_shape_fn((n, p), |_| rng.random_range(-1.0..1.0));
    let ksvd = KernelSvd::from_features(phi_q.view(), phi_k.view(), s)?;
    let k = phi_q.dot(&phi_k.t());
    let lam = Array2::from_diag(&ksvd.lambda);
    let fro = |a: Array2<f64>| a.iter().map(|v| v * v).sum::<f64>().sqrt();
    println!("singular values λ: {:.4}", ksvd.lambda);
    println!("‖K‖_F = {:.4}", fro(k.clone()));
    println!(
        "‖KH_r − H_eΛ‖_F = {:.3e}",
        fro(k.dot(&ksvd.h_r) - ksvd.h_e.dot(&lam))
    );
    println!(
        "‖KᵀH_e − H_rΛ‖_F = {:.3e}",
        fro(k.t().dot(&ksvd.h_e) - ksvd.h_r.dot(&lam))
    );
    let (we, wr) = ksvd.primal_weights(phi_q.view(), phi_k.view())?;
    let j = primal_objective(
        we.view(),
        wr.view(),
        ksvd.lambda.view(),
        phi_q.view(),
        phi_k.view(),
    )?;
    println!(
        "J at the KSVD solution = {j:.3e} (Tr Λ = {:.4})",
        ksvd.lambda.sum()
    );
    Ok(())
}
