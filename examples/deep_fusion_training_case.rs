//! The PyTorch side-by-side case of issue 25: a ReLU MLP `64 → w → w → 10`
//! (float32) trained with AdamW (η = 1e-3, β = (0.9, 0.999), ε = 1e-8,
//! λ = 0.01) on fixed batches of 64 rows of the vendored digits (pixels
//! / 16), through deep-fusion's [`Trainer`] (nncore's optimiser, one group per
//! parameter tensor: elementwise the same as one AdamW over all of them).
//!
//! For each width it prints the time per step (median of the timed steps,
//! one thread: run with `RAYON_NUM_THREADS=1`) and, with `--export FILE`, writes
//! for every width the initial weights, the batches (row indices into
//! `data/digits/digits.csv.gz`) and the per-step losses as JSON for `scripts/compare/deep_fusion.py`, which trains the same
//! network from the same weights on the same batches in PyTorch and compares
//! the losses step by step (issue 25: 1e-5 in f32) and the time per step.
//!
//! `RAYON_NUM_THREADS=1 cargo run --release --example deep_fusion_training_case -- [--export FILE] [--steps N]`

use candle_core::{DType, Device, Tensor};
use deep_fusion::{Activation, BlockMlp, Execution, LayerRates, Loss, Mlp, Trainer};
use mlcore::sampling::seeded;
use nncore::optim::OptimizerKind;
use rand::seq::SliceRandom;
use std::time::Instant;

const BATCH: usize = 64;
const WIDTHS: [usize; 3] = [32, 128, 512];

struct Case {
    init: Vec<(ndarray::Array2<f64>, ndarray::Array1<f64>)>,
    batches: Vec<Vec<usize>>,
    losses: Vec<f64>,
    step_seconds: Vec<f64>,
}

fn run(
    width: usize,
    x: &ndarray::Array2<f32>,
    y: &[usize],
    steps: usize,
) -> Result<Case, Box<dyn std::error::Error>> {
    let mut rng = seeded(2500 + width as u64);
    let net = Mlp::random(
        &[64, width, width, 10],
        Activation::Relu,
        DType::F32,
        &mut rng,
    )?;
    let init = net.to_arrays()?;
    let kind = OptimizerKind::AdamW {
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weight_decay: 0.01,
    };
    let mut trainer = Trainer::new(
        BlockMlp::from_mlp(&net)?,
        kind,
        &LayerRates::uniform(1, 1e-3),
        Execution::Auto,
    )?;
    let mut order: Vec<usize> = (0..y.len()).collect();
    let mut batches = Vec::with_capacity(steps);
    let mut losses = Vec::with_capacity(steps);
    let mut step_seconds = Vec::with_capacity(steps);
    let mut pos = y.len();
    for _ in 0..steps {
        if pos + BATCH > y.len() {
            order.shuffle(&mut rng);
            pos = 0;
        }
        let rows = &order[pos..pos + BATCH];
        pos += BATCH;
        let xb: Vec<f32> = rows.iter().flat_map(|&r| x.row(r).to_vec()).collect();
        let yb: Vec<u32> = rows.iter().map(|&r| y[r] as u32).collect();
        let xt = Tensor::from_vec(xb, (BATCH, 64), &Device::Cpu)?;
        let yt = Tensor::from_vec(yb, BATCH, &Device::Cpu)?;
        let t0 = Instant::now();
        losses.push(trainer.step(&xt, &yt, Loss::CrossEntropy)?);
        step_seconds.push(t0.elapsed().as_secs_f64());
        batches.push(rows.to_vec());
    }
    Ok(Case {
        init,
        batches,
        losses,
        step_seconds,
    })
}

fn median_after_warmup(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().skip(v.len() / 10).copied().collect();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn json_case(c: &Case, width: usize) -> String {
    let mat = |a: &ndarray::Array2<f64>| {
        let rows: Vec<String> = a
            .rows()
            .into_iter()
            .map(|r| format!("[{}]", join(r.iter())))
            .collect();
        format!("[{}]", rows.join(","))
    };
    let layers: Vec<String> = c
        .init
        .iter()
        .map(|(w, b)| format!("{{\"w\":{},\"b\":[{}]}}", mat(w), join(b.iter())))
        .collect();
    let batches: Vec<String> = c
        .batches
        .iter()
        .map(|rows| format!("[{}]", join(rows.iter())))
        .collect();
    format!(
        "{{\"width\":{width},\"batch\":{BATCH},\"lr\":1e-3,\"betas\":[0.9,0.999],\"eps\":1e-8,\
         \"weight_decay\":0.01,\"layers\":[{}],\"batches\":[{}],\"losses\":[{}],\
         \"rust_step_seconds_median\":{}}}",
        layers.join(","),
        batches.join(","),
        join(c.losses.iter()),
        median_after_warmup(&c.step_seconds)
    )
}

fn join<T: std::fmt::Display>(it: impl Iterator<Item = T>) -> String {
    it.map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let export = flag("--export");
    let steps: usize = flag("--steps").map_or(Ok(200), |s| s.parse())?;
    if steps < 10 {
        return Err("--steps must be at least 10".into());
    }
    // As the runner does: without it glibc returns candle's freed buffers to
    // the kernel and each step at w = 512 pays page faults (3–4× slower).
    let retained = nncore::alloc::retain_freed_memory();
    let data = mlcore::data::Dataset::open(concat!(env!("CARGO_MANIFEST_DIR"), "/data/digits"))?;
    let digits = nncore::readers::digits(&data)?.scaled(1.0 / 16.0)?;
    let x = digits.x().to_owned();
    let y = digits.y().to_vec();
    println!("allocator thresholds raised: {retained}");
    println!("width, steps, median seconds per step (Rust, candle CPU), first loss, last loss");
    let mut cases = Vec::new();
    for &w in &WIDTHS {
        let case = run(w, &x, &y, steps)?;
        println!(
            "{w}, {steps}, {:.3e}, {:.6}, {:.6}",
            median_after_warmup(&case.step_seconds),
            case.losses[0],
            case.losses[steps - 1]
        );
        cases.push(json_case(&case, w));
    }
    if let Some(path) = export {
        std::fs::write(path, format!("[{}]", cases.join(",")))?;
        println!("wrote {path}");
    }
    Ok(())
}
