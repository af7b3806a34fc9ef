//! The closed-form nested toy `P = E_X[(E[Y|X])⁺]`, `X ~ N(0,1)`, `Y|X ~ N(X,1)`
//! (exact `P = 1/√(2π)`): per-level mean and variance of `ΔP_ℓ`, fitted
//! α/β/γ for antithetic and standard coupling, and MLMC vs tuned nested-MC
//! cost (inner samples) for ε ∈ {0.02, 0.01, 0.005}, with the errors.
//!
//! `cargo run --release --example lookahead_mlmc_toy_nested`

use lookahead_mlmc::mlmc::{
    AdaptiveConfig, Coupling, MlmcConfig, NestedRule, estimate_adaptive, nested_mc, nested_plan,
    rates,
};
use lookahead_mlmc::toy::NestedToy;
use mlcore::sampling::seeded;

fn main() -> Result<(), lookahead_mlmc::Error> {
    let mut rng = seeded(42);
    let exact = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    let mut fitted = None;
    for coupling in [Coupling::Antithetic, Coupling::Standard] {
        let mut toy = NestedToy { coupling };
        let r = rates(&mut toy, 3, 10, 50_000, &mut rng)?;
        println!("{coupling:?} coupling (50 000 outer samples per level)");
        println!("  level  mean ΔP_ℓ     Var ΔP_ℓ     cost/sample");
        for s in &r.levels {
            println!(
                "  {:>5}  {:>+11.3e}  {:>11.3e}  {:>8}",
                s.level, s.mean, s.var, s.cost
            );
        }
        println!(
            "  fitted α = {:.3}, β = {:.3}, γ = {:.3}  (theory: α = 1, β = {}, γ = 1)\n",
            r.alpha,
            r.beta,
            r.gamma,
            if coupling == Coupling::Antithetic {
                "1.5"
            } else {
                "1"
            }
        );
        if coupling == Coupling::Antithetic {
            fitted = Some(r);
        }
    }
    let r = fitted.expect("antithetic ran");
    let cfg = MlmcConfig::default();
    let nested_cfg = MlmcConfig {
        c_bias: r.c_bias / (2f64.powf(r.alpha) - 1.0),
        alpha: r.alpha,
        ..cfg
    };
    let v = r.levels.last().map(|s| s.var_fine).unwrap_or(1.0);
    let mut toy = NestedToy {
        coupling: Coupling::Antithetic,
    };
    println!("     ε   MLMC cost   |err|/ε   nested cost (L, N)         |err|/ε   nested/MLMC");
    for eps in [0.02, 0.01, 0.005] {
        let m = estimate_adaptive(&mut toy, eps, &cfg, &AdaptiveConfig::default(), &mut rng)?;
        let (l, n) = nested_plan(eps, v, &nested_cfg, NestedRule::Tuned)?;
        let nm = nested_mc(&mut toy, l, n, &mut rng)?;
        println!(
            "{eps:>6}  {:>10.3e}  {:>8.2}  {:>10.3e} ({l}, {n:>7})  {:>8.2}  {:>10.1}",
            m.cost,
            (m.value - exact).abs() / eps,
            nm.cost,
            (nm.value - exact).abs() / eps,
            nm.cost / m.cost
        );
    }
    println!("\nMLMC cost grows like ε⁻², nested MC like ε⁻³: the ratio doubles per halving of ε.");
    Ok(())
}
