//! The spec's reference run: 300×300, rank 5, ratings 1 + 4·sigmoid(1.5 g) with
//! noise 0.1, 8 % of the entries sampled with power-law popularity. Trains
//! L = 2 and L = 3 (unweighted and weighted), then FRMC warm-started from L = 3,
//! and prints test RMSEs, per-epoch progress of one run, and FRMC's learned link
//! next to the true one.
//!
//! Run: `cargo run --release --example matrix_completion_synthetic_frmc`

use matrix_completion::link::ScalarLink;
use matrix_completion::metrics::evaluate;
use matrix_completion::synthetic::{Sampling, TrueLink, count_for_fraction, low_rank, sample};
use matrix_completion::train::{
    EarlyStopping, LinkConfig, TrainConfig, Weighting, fit_from, fit_with,
};
use mlcore::sampling::seeded;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = seeded(2024);
    let g = low_rank(300, 300, 5, &mut rng)?;
    let obs = sample(
        &g,
        TrueLink::RATINGS,
        Sampling::PowerLaw { alpha: 1.0 },
        count_for_fraction(300, 300, 0.08)?,
        0.1,
        &mut rng,
    )?;
    let (rest, test) = obs.split(0.2, &mut rng)?;
    let (train, valid) = rest.split(0.1, &mut rng)?;
    println!(
        "{} training, {} validation, {} test ratings; test std {:.3}",
        train.len(),
        valid.len(),
        test.len(),
        test.std()
    );
    let clip = Some((1.0, 5.0));
    let mut l3 = None;
    println!("\nmodel              λ      epochs  test RMSE  test MAE");
    for (name, depth, weighting, lambda) in [
        ("L = 2", 2, Weighting::None, 1e-4),
        ("L = 2 weighted", 2, Weighting::Smoothed { zeta: 0.5 }, 3e-5),
        ("L = 3", 3, Weighting::None, 1e-4),
        ("L = 3 weighted", 3, Weighting::Smoothed { zeta: 0.5 }, 1e-4),
    ] {
        let cfg = TrainConfig {
            depth,
            weighting,
            lambda,
            epochs: 1500,
            clip,
            early_stopping: Some(EarlyStopping {
                patience: 100,
                min_delta: 0.0,
            }),
            ..TrainConfig::default()
        };
        let verbose = name == "L = 3";
        let f = fit_with(
            &train,
            Some(&valid),
            &cfg,
            None,
            &mut seeded(1),
            &mut |s, _| {
                if verbose && s.epoch % 200 == 0 {
                    println!(
                        "    [L = 3] epoch {:4}: objective {:.5}, train RMSE {:.4}, valid RMSE {:.4}",
                        s.epoch,
                        s.objective,
                        s.train_rmse,
                        s.valid_rmse.unwrap_or(f64::NAN)
                    );
                }
            },
        )?;
        let (rmse, mae) = evaluate(&f.model, &test, clip)?;
        println!(
            "{name:16} {lambda:8.0e} {:6}   {rmse:.4}     {mae:.4}",
            f.history.len()
        );
        if name == "L = 3" {
            l3 = Some((f.model, cfg));
        }
    }
    let (base, cfg) = l3.ok_or("L = 3 missing")?;
    let init = base.clone().with_link(LinkConfig::FRMC_DEFAULT.build()?);
    let f = fit_from(
        init,
        &train,
        Some(&valid),
        &TrainConfig { epochs: 600, ..cfg },
        &mut seeded(2),
    )?;
    let (rmse, mae) = evaluate(&f.model, &test, clip)?;
    println!(
        "FRMC (L = 3)     {:8.0e} {:6}   {rmse:.4}     {mae:.4}",
        cfg.lambda,
        f.history.len()
    );
    println!(
        "\nFRMC's learned link (Lipschitz {:.3}, cap 3), at latent quantiles:",
        f.model.link().lipschitz()
    );
    let z = f.model.latent()?;
    let mut zs: Vec<f64> = z.iter().copied().collect();
    zs.sort_by(f64::total_cmp);
    println!("  quantile   z        b + f(z)   (linear: b + z)");
    for q in [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99] {
        let zq = zs[((zs.len() - 1) as f64 * q) as usize];
        let b = f.model.offset();
        println!(
            "  {q:5.2}   {zq:7.3}   {:7.3}    {:7.3}",
            b + f.model.link().value(zq),
            b + zq
        );
    }
    println!(
        "\nThe truth is a sigmoid (ratings saturate at 1 and 5): a learned link that flattens at the ends"
    );
    println!(
        "is what FRMC is for. Whether it beats the linear L = 3 model depends on the data; the spec's"
    );
    println!("untuned NumPy run found it did not (0.43–0.47 vs 0.34).");
    Ok(())
}
