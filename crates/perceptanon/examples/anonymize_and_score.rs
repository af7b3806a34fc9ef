//! Blur, pixelate, mask and inpaint the vendored photographs at five
//! strengths, rate them with the *simulated* annotator, and print how
//! MSE, PSNR, SSIM and the learned scores correlate with those labels.
//!
//! `cargo run --release -p perceptanon --example anonymize_and_score`

use perceptanon::experiment::{
    PipelineParams, method_splits, monotonicity_violations, prepare, rate_all, run_split,
};
use perceptanon::simulate::{SimulatedAnnotator, build_corpus, vendored_sources};
use perceptanon::split::SplitKind;
use rand::SeedableRng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/images");
    let sources = vendored_sources(&dir)?;
    let strengths = [0.2, 0.4, 0.6, 0.8, 1.0];
    let samples = build_corpus(&sources, &strengths, 64)?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let annotator = SimulatedAnnotator::new(5, 0.5, 0.7, &mut rng)?;
    let labels = rate_all(&samples, &annotator, &mut rng)?;
    let data = prepare(samples, labels)?;
    let (samples, labels, metrics) = (&data.samples, &data.labels, &data.metrics);
    println!(
        "{} anonymised samples from {} photographs",
        samples.len(),
        sources.len()
    );
    println!("\nper method and strength (means over bases): SSIM, PSNR, simulated label");
    println!("| method | strength | SSIM | PSNR (dB) | label |\n|---|---|---|---|---|");
    for m in perceptanon::anonymize::Method::ALL {
        for &s in &strengths {
            let idx: Vec<usize> = (0..samples.len())
                .filter(|&i| samples[i].method == m && samples[i].strength == s)
                .collect();
            let mean = |f: &dyn Fn(usize) -> f64| {
                idx.iter().map(|&i| f(i)).sum::<f64>() / idx.len() as f64
            };
            println!(
                "| {} | {s:.1} | {:.3} | {:.2} | {:.2} |",
                m.name(),
                mean(&|i| metrics[i].ssim),
                mean(&|i| metrics[i].psnr.min(100.0)),
                mean(&|i| labels[i])
            );
        }
    }
    let mono = monotonicity_violations(samples, metrics, 1e-12);
    println!(
        "\n(base, method) groups where SSIM or PSNR increases with strength: {} of {} {:?} \
         (largest increase: SSIM {:.3e}, PSNR {:.3e} dB)",
        mono.total(),
        mono.groups,
        mono.violating_groups,
        mono.worst_ssim_increase,
        mono.worst_psnr_increase
    );
    // The CNN (3 conv × 16 channels, 30 epochs, HA1 and HA2) on 'all' only.
    let with_cnn = PipelineParams::default();
    let lite_only = PipelineParams {
        cnn: None,
        ..with_cnn
    };
    let mut splits = vec![("all".to_string(), SplitKind::All)];
    splits.extend(method_splits());
    for (name, kind) in splits {
        let params = if name == "all" { &with_cnn } else { &lite_only };
        let report = run_split(&name, &kind, &data, params, &mut rng)?;
        println!("\nsplit {name} (held-out labels of the simulated annotator)");
        print!("{}", perceptanon::eval::to_markdown(&report.rows));
    }
    Ok(())
}
