//! The paper's control, on a synthetic calibrated classifier: top-3 sets vs
//! conformal sets calibrated to the same coverage (α = 1 − ĉ₃).
//!
//! Prints ĉ₃, the matched α, the coverage and mean size of top-3, RAPS (the
//! trial's score and settings), APS and LAC sets, and the size histogram.
//!
//! Run: `cargo run --release --example conformal_sets_equal_coverage [-- CONCENTRATION CLASSES]`
//! (defaults 0.3 and 10; a smaller concentration makes easy inputs more common).

use conformal_sets::calibrate::{QuantileRule, SplitConformal};
use conformal_sets::matching::{alpha_matching_top_k, top_k_coverage, top_k_sets};
use conformal_sets::metrics::{coverage, mean_size};
use conformal_sets::score::{ConformityScore, Lac, PredictionSet, Raps, aps};
use conformal_sets::synthetic::dirichlet_classifier;
use mlcore::sampling::seeded;

fn histogram(sets: &[PredictionSet], classes: usize) -> String {
    let mut h = vec![0usize; classes + 1];
    sets.iter().for_each(|s| h[s.len()] += 1);
    h.iter()
        .map(|c| format!("{:5.1}", 100.0 * *c as f64 / sets.len() as f64))
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> Result<(), conformal_sets::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let concentration: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(0.3);
    let classes: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let mut rng = seeded(2024);
    let (pc, yc) = dirichlet_classifier(2000, classes, concentration, &mut rng)?;
    let (pt, yt) = dirichlet_classifier(20_000, classes, concentration, &mut rng)?;

    let c3 = top_k_coverage(pc.view(), &yc, 3)?;
    let alpha = alpha_matching_top_k(pc.view(), &yc, 3)?;
    println!("π ~ Dirichlet({concentration}·1_{classes}); n_cal = 2000, n_test = 20000");
    println!("calibration top-3 coverage ĉ₃ = {c3:.4}  →  matched α = {alpha:.4}\n");
    println!(
        "{:<8} {:>9} {:>10}   % of sets of size 0 1 2 … {classes}",
        "sets", "coverage", "mean size"
    );

    let top3 = top_k_sets(pt.view(), 3)?;
    let report = |name: &str, sets: &[PredictionSet]| -> Result<(), conformal_sets::Error> {
        println!(
            "{name:<8} {:>9.4} {:>10.3}   {}",
            coverage(sets, &yt)?,
            mean_size(sets)?,
            histogram(sets, classes)
        );
        Ok(())
    };
    report("top-3", &top3)?;
    report(
        "RAPS",
        &run(Raps::default(), alpha, &pc, &yc, &pt, &mut rng)?,
    )?;
    report(
        "APS",
        &run(aps(true, false), alpha, &pc, &yc, &pt, &mut rng)?,
    )?;
    report("LAC", &run(Lac, alpha, &pc, &yc, &pt, &mut rng)?)?;
    Ok(())
}

fn run<S: ConformityScore + Clone>(
    score: S,
    alpha: f64,
    pc: &ndarray::Array2<f64>,
    yc: &[usize],
    pt: &ndarray::Array2<f64>,
    rng: &mut mlcore::sampling::WorkspaceRng,
) -> Result<Vec<PredictionSet>, conformal_sets::Error> {
    SplitConformal::new(score, alpha, QuantileRule::FiniteSample)?
        .calibrate(pc.view(), yc, rng)?
        .predict(pt.view(), rng)
        .map(|s| s.to_sets())
}
