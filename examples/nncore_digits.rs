//! A 64→64→10 MLP trained with nncore on the vendored digits: the runner's
//! `nncore` experiment, printed epoch by epoch, with the test metrics and the
//! 15-bin reliability table.
//!
//! Run: `cargo run --release --example nncore_digits [-- EPOCHS] [--export FILE]`
//! (default 30 epochs). `--export FILE` writes a JSON file with the split,
//! the initial weights, the first epoch's batch order, the hyper-parameters,
//! the first epoch's per-step losses and the time per step, which
//! `scripts/compare/nncore.py` reads to run the same training in PyTorch.

use candle_core::Device;
use icml24_runner::reproduce::nncore::{
    BATCH, EPOCHS, INIT_SEED, LR, ORDER_SEED, SIZES, SPLIT_SEED, TEST_FRACTION, WEIGHT_DECAY,
    digits, probabilities, train,
};
use mlcore::data::{Dataset, workspace_data_dir};
use mlcore::sampling::seeded;
use nncore::data::shuffled_indices;
use nncore::metrics;
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let export = args
        .iter()
        .position(|a| a == "--export")
        .map(|i| args.get(i + 1).cloned().ok_or("--export needs a file"))
        .transpose()?;
    let epochs: usize = match args.first() {
        Some(a) if a != "--export" => a.parse()?,
        _ => EPOCHS.0,
    };
    let device = Device::Cpu;
    let data = digits(&Dataset::open(workspace_data_dir().join("digits"))?)?;
    println!(
        "digits: {} train, {} test (split seed {SPLIT_SEED}), MLP {SIZES:?}, AdamW lr {LR}, batch {BATCH}",
        data.train.len(),
        data.test.len()
    );

    let run = train(&data, epochs, &device)?;
    println!("epoch  train loss  grad norm");
    for e in &run.history.epochs {
        println!(
            "{:5}  {:10.5}  {:9.4}",
            e.epoch + 1,
            e.train_loss,
            e.grad_norm
        );
    }
    let steps = run.history.step_losses.len();
    let per_step = run.seconds / steps as f64;
    let probs = probabilities(&run.mlp, &data.test, &device)?;
    let y = data.test.y();
    println!(
        "test: accuracy {:.4}, NLL {:.4}, Brier {:.4}; {steps} steps, {:.3} ms per step",
        metrics::accuracy(probs.view(), y)?,
        metrics::nll(probs.view(), y)?,
        metrics::brier(probs.view(), y)?,
        1e3 * per_step
    );
    let cal = metrics::ece(probs.view(), y, metrics::ECE_BINS)?;
    println!("ECE (15 bins) = {:.4}", cal.ece);
    println!("bin             count  confidence  accuracy");
    for b in cal.bins.iter().filter(|b| b.count > 0) {
        println!(
            "({:.3}, {:.3}]  {:5}  {:10.4}  {:8.4}",
            b.lower,
            b.upper,
            b.count,
            b.confidence.unwrap_or(f64::NAN),
            b.accuracy.unwrap_or(f64::NAN)
        );
    }

    if let Some(path) = export {
        let first = train(&data, 1, &device)?;
        let (mlp, _) = icml24_runner::reproduce::nncore::initial_mlp(&device)?;
        let layers: Vec<_> = mlp
            .layers()
            .iter()
            .map(|(w, b)| -> candle_core::Result<_> {
                Ok(json!({ "weight": w.to_vec2::<f32>()?, "bias": b.to_vec1::<f32>()? }))
            })
            .collect::<candle_core::Result<_>>()?;
        let order = shuffled_indices(data.train.len(), &mut seeded(ORDER_SEED));
        let doc = json!({
            "seeds": { "split": SPLIT_SEED, "init": INIT_SEED, "order": ORDER_SEED },
            "test_fraction": TEST_FRACTION,
            "pixel_scale": 1.0 / 16.0,
            "train_indices": data.split.train,
            "test_indices": data.split.test,
            "sizes": SIZES,
            "layers": layers,
            "epoch1_order": order,
            "batch_size": BATCH,
            "adamw": { "lr": LR, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": WEIGHT_DECAY },
            "epochs": epochs,
            "rust_epoch1_losses": first.history.step_losses,
            "rust_seconds_per_step": per_step,
            "rust_steps": steps,
            "rust_test_accuracy": metrics::accuracy(probs.view(), y)?,
        });
        std::fs::write(&path, serde_json::to_string(&doc)?)?;
        println!("wrote {path}");
    }
    Ok(())
}
