//! One seed of the digits experiment with a given number of epochs
//! (synthetic stripes stand in for the textures here; the runner uses
//! `data/textures`).
use svgp_ksvd::experiment::{DigitsConfig, run_seed};
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let epochs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    let ds = mlcore::data::Dataset::open(mlcore::data::workspace_data_dir().join("digits"))?;
    let digits = nncore::readers::digits(&ds)?;
    let tex: Vec<ndarray::Array2<f64>> = (0..3)
        .map(|k| {
            ndarray::Array2::from_shape_fn((64, 64), |(i, j)| {
                ((i * 7 + j * 13 + k) % 17) as f64 / 16.0
            })
        })
        .collect();
    let cfg = DigitsConfig {
        epochs,
        ..Default::default()
    };
    for r in run_seed(&digits, &tex, &cfg, 0)? {
        println!(
            "{:10} acc {:.3} nll {:.3} ece {:.3} brier {:.3} ood {:.3} var {:?} loss {:.3} {:.1}s rot5 acc {:.3} noise5 acc {:.3}",
            r.name,
            r.clean.accuracy,
            r.clean.nll,
            r.clean.ece,
            r.clean.brier,
            r.ood.auroc,
            r.variance,
            r.train_loss,
            r.seconds,
            r.rotation[4].accuracy,
            r.noise[4].accuracy
        );
    }
    Ok(())
}
