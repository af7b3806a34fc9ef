//! Soft-impute (the convex L = 2 reference) and the L = 2 deep factorisation
//! reach the same objective ½‖P_Ω(Y − Z)‖² + λ‖Z‖_*.
//!
//! Without arguments: a 40×30 rank-3 matrix, 50 % observed, λ = 1.
//! With arguments `PATH LAMBDA [OUT]`: reads a ratings file in MovieLens
//! `u.data` format (user item rating [timestamp], 1-based ids), runs both, and
//! writes soft-impute's completed matrix to `OUT` (one row per line) —
//! `scripts/compare/matrix_completion.py` uses this to compare with fancyimpute.
//!
//! Run: `cargo run --release --example matrix_completion_soft_impute`

use matrix_completion::data::{Duplicates, Observations, read_movielens_udata};
use matrix_completion::schatten::{SoftImputeOptions, soft_impute, soft_impute_objective};
use matrix_completion::synthetic::{Sampling, TrueLink, low_rank, sample};
use matrix_completion::train::{TrainConfig, fit};
use mlcore::sampling::seeded;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (obs, lambda): (Observations, f64) = if args.len() >= 2 {
        (
            read_movielens_udata(&args[0], Duplicates::Reject)?,
            args[1].parse()?,
        )
    } else {
        let mut rng = seeded(3);
        let g = low_rank(40, 30, 3, &mut rng)?;
        (
            sample(
                &g,
                TrueLink::Identity,
                Sampling::Uniform,
                600,
                0.1,
                &mut rng,
            )?,
            1.0,
        )
    };
    let n = obs.len() as f64;
    println!(
        "{}×{} matrix, {} observed entries, λ = {lambda}",
        obs.rows(),
        obs.cols(),
        obs.len()
    );
    let si = soft_impute(
        &obs,
        lambda,
        &SoftImputeOptions {
            max_iters: 10_000,
            tol: 1e-18,
            max_rank: None,
        },
    )?;
    println!(
        "soft-impute: objective {:.10}, rank {}, {} iterations, converged {}",
        si.objective, si.rank, si.iterations, si.converged
    );
    let epochs = 20_000;
    let cfg = TrainConfig {
        depth: 2,
        width: obs.rows().min(obs.cols()),
        lambda: lambda / (2.0 * n),
        center: false,
        epochs,
        init_scale: 0.5,
        lr_decay: (1e-3f64).powf(1.0 / epochs as f64),
        ..TrainConfig::default()
    };
    let f = fit(&obs, None, &cfg, &mut seeded(1))?;
    let deep = n * f.model.objective(&obs, cfg.lambda, None)?;
    let convex = soft_impute_objective(&obs, f.model.latent()?.view(), lambda)?;
    println!(
        "deep L = 2 (Adam, {epochs} epochs): N·J = {deep:.10}, convex objective of its Z = {convex:.10}"
    );
    println!(
        "relative gap deep vs soft-impute: {:.2e}",
        (deep - si.objective) / si.objective
    );
    if let Some(out) = args.get(2) {
        let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
        for row in si.z.rows() {
            let line: Vec<String> = row.iter().map(|v| format!("{v:.17e}")).collect();
            writeln!(w, "{}", line.join(" "))?;
        }
        println!("completed matrix written to {out}");
    }
    Ok(())
}
