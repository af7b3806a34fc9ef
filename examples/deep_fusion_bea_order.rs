//! Backward-error analysis: one GD step against the gradient flows of the
//! modified loss L + (h/4)‖∇L‖² (error O(h³): ratio ≈ 8 under halving) and of
//! the plain loss (O(h²): ratio ≈ 4), and the ordering residual
//! (θ₁₂ − θ₂₁) − h²[∇L₁, ∇L₂] (O(h³)), on a 3→6→2 tanh MLP.
//!
//! `cargo run --release --example deep_fusion_bea_order`

use candle_core::DType;
use deep_fusion::bea::{Objective, gd_step_errors, lie_bracket, ordering_difference};
use deep_fusion::{Activation, Mlp};
use mlcore::sampling::seeded;
use ndarray::Array2;
use rand::RngExt;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = seeded(2);
    let mut objective = || -> Result<Objective, Box<dyn std::error::Error>> {
        let net = Mlp::random(&[3, 6, 2], Activation::Tanh, DType::F64, &mut rng)?;
        let x = Array2::from_shape_fn((16, 3), |_| rng.random_range(-1.0..1.0));
        let y = Array2::from_shape_fn((16, 2), |_| rng.random_range(-1.0..1.0));
        Ok(Objective::new(&net, x.view(), y.view())?)
    };
    let (o1, o2) = (objective()?, objective()?);
    let th = o1.theta()?;
    let br = lie_bracket(&o1, &o2, &th, 1e-5)?;
    let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>().sqrt();
    println!(
        "{:>8} {:>12} {:>8} {:>12} {:>8} {:>12} {:>8}",
        "h", "e_modified", "ratio", "e_plain", "ratio", "ordering", "ratio"
    );
    let mut prev: Option<(f64, f64, f64)> = None;
    for k in 0..5 {
        let h = 0.4 / 2f64.powi(k);
        let (em, ep) = gd_step_errors(&o1, &th, h, 64, 1e-4)?;
        let d = ordering_difference(&o1, &o2, &th, h)?;
        let r = norm(
            &d.iter()
                .zip(&br)
                .map(|(a, b)| a - h * h * b)
                .collect::<Vec<_>>(),
        );
        let ratio = |a: f64, b: Option<f64>| b.map_or("".to_string(), |b| format!("{:.2}", b / a));
        println!(
            "{h:>8.4} {em:>12.3e} {:>8} {ep:>12.3e} {:>8} {r:>12.3e} {:>8}",
            ratio(em, prev.map(|p| p.0)),
            ratio(ep, prev.map(|p| p.1)),
            ratio(r, prev.map(|p| p.2))
        );
        prev = Some((em, ep, r));
    }
    Ok(())
}
