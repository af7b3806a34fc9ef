//! `perceptanon`: PerceptAnon (Patwari et al., ICML 2024). No registry
//! ships the paper's human annotations (HA1/HA2 sit on Google Drive), so
//! the quick entry runs the whole pipeline on the vendored public-domain /
//! CC0 photographs (`data/images`): each is anonymised by blur,
//! pixelation, black mask and biharmonic inpainting at 5 strengths, in its
//! subject box and in tiled 64×64 crops, and rated by a **simulated**
//! annotator (`perceptanon::simulate`, a stated rule, not people). MSE,
//! PSNR, SSIM and the learned scores (PerceptAnonLite HA1/HA2 heads on
//! handcrafted features; a 3-layer × 16-channel CNN trained from scratch
//! with both heads, 30 epochs) are correlated with held-out labels on the
//! stratified 'all' split and on leave-one-method-out splits.
//!
//! Declared checks: SSIM and PSNR non-increasing in strength for every
//! base and method (the behaviour scikit-image shows on the same input,
//! `scripts/compare/perceptanon.py`); the learned HA1 score's Spearman ρ
//! at least SSIM's on every split seed (the paper's claim that learned
//! scores track perception better than pixel metrics; on simulated labels
//! this tests the machinery only); the paper's own 0.90/0.84 (10-class
//! HA1, ResNet50) is `incomplete`: it needs the official labels, their
//! JPEG images (no JPEG decoder in the dependency set) and ImageNet
//! weights (not available offline).

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use perceptanon::anonymize::Method;
use perceptanon::experiment::{
    PipelineParams, method_splits, monotonicity_violations, prepare, rate_all, run_split,
};
use perceptanon::model::cnn::CnnParams;
use perceptanon::simulate::{SimulatedAnnotator, build_corpus, vendored_sources};
use perceptanon::split::SplitKind;

/// The reproduction registered as `perceptanon`.
pub struct PerceptAnon;

/// Strengths of every anonymiser (s = 0 is the original).
pub const STRENGTHS: [f64; 5] = [0.2, 0.4, 0.6, 0.8, 1.0];
/// Side of the tiled crops.
pub const TILE: usize = 64;
/// Split seeds of the 'all' comparison at the quick and full budgets.
pub const SEEDS: (u64, u64) = (3, 10);
/// Simulated raters, their bias sd and per-image noise sd.
pub const ANNOTATORS: (usize, f64, f64) = (5, 0.5, 0.7);

const PAPER: &str = "README of the official code (SonyResearch/gdpr_perceptanon): 'all' split, HA1, ResNet50, \
                     10-class, Spearman ρ 0.90 / Kendall τ 0.84";

impl Reproduction for PerceptAnon {
    fn id(&self) -> &'static str {
        "perceptanon"
    }

    fn paper(&self) -> &'static str {
        "PerceptAnon: Exploring the Human Perception of Image Anonymization Beyond Pseudonymization for GDPR (Patwari et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "A learned anonymity score (HA1: anonymised image only; HA2: the pair) correlates better with human anonymity \
         judgements than MSE/PSNR/SSIM (ρ/τ 0.90/0.84 for 10-class HA1); here the pipeline runs on vendored photographs \
         with a simulated annotator, and the paper's number needs the official labels."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let seeds = match ctx.budget() {
            Budget::Quick => SEEDS.0,
            Budget::Full => SEEDS.1,
        };
        let method_count = method_splits().len() as u64;
        ctx.set_steps(3 + seeds + method_count);
        ctx.set_message("anonymising the vendored photographs");
        let images = ctx.dataset("images")?;
        let sources = vendored_sources(images.dir())?;
        let t0 = std::time::Instant::now();
        let samples = build_corpus(&sources, &STRENGTHS, TILE)?;
        let t_corpus = t0.elapsed().as_secs_f64();
        ctx.step();
        ctx.set_message("simulated annotator and pixel metrics");
        let mut rng = mlcore::sampling::seeded(ctx.seed());
        let annotator =
            SimulatedAnnotator::new(ANNOTATORS.0, ANNOTATORS.1, ANNOTATORS.2, &mut rng)?;
        let labels = rate_all(&samples, &annotator, &mut rng)?;
        let data = prepare(samples, labels)?;
        let (samples, labels, metrics) = (&data.samples, &data.labels, &data.metrics);
        let t_prepare = t0.elapsed().as_secs_f64() - t_corpus;
        ctx.step();
        let mono = monotonicity_violations(samples, metrics, 1e-12);
        let mut checks = vec![Check::new(
            format!(
                "(base, method) groups where SSIM or PSNR increases with strength (of {})",
                mono.groups
            ),
            mono.total() as f64,
            Relation::AtMost,
            0.0,
            "issue 29: SSIM and PSNR non-increasing in strength for every image and method, as scikit-image's \
             structural_similarity / peak_signal_noise_ratio show on the same input (scripts/compare/perceptanon.py)",
        )];
        let mut figures = vec![
            Figure::new("anonymised samples", samples.len() as f64),
            Figure::new("time: anonymising the corpus (s)", t_corpus),
            Figure::new("time: labels, pixel metrics, features (s)", t_prepare),
            Figure::new(
                "largest SSIM increase with strength",
                mono.worst_ssim_increase,
            ),
            Figure::new(
                "largest PSNR increase with strength (dB)",
                mono.worst_psnr_increase,
            ),
        ];
        for (method, count) in &mono.violating_groups {
            figures.push(Figure::new(
                format!("non-monotone groups: {method}"),
                *count as f64,
            ));
        }
        let mut notes = vec![
            "Labels come from a SIMULATED annotator (perceptanon::simulate: 5 raters judging the detail left in the \
             anonymised region, with bias and noise), not from people: the learned-vs-SSIM check tests the machinery, \
             not the paper's human finding."
                .to_string(),
        ];

        // 'all' split over seeds: learned HA1 (PerceptAnonLite) vs SSIM.
        let lite_only = PipelineParams {
            cnn: None,
            ..PipelineParams::default()
        };
        // The CNN (3 layers × 16 channels, 30 epochs, 32 × 32 inputs) trains
        // on seed 0 at the full budget only: on 2 cores it takes minutes,
        // beyond the quick budget, and no check depends on it.
        let with_cnn = PipelineParams {
            cnn: Some(CnnParams {
                size: 32,
                ..CnnParams::default()
            }),
            ..PipelineParams::default()
        };
        let train_cnn = ctx.budget() == Budget::Full;
        let mut diffs = Vec::new();
        let mut first = None;
        for s in 0..seeds {
            ctx.set_message(format!("'all' split, seed {s}"));
            let mut srng = mlcore::sampling::seeded(ctx.seed() ^ (0x5eed + s));
            let params = if s == 0 && train_cnn {
                &with_cnn
            } else {
                &lite_only
            };
            let ts = std::time::Instant::now();
            let report = run_split("all", &SplitKind::All, &data, params, &mut srng)?;
            figures.push(Figure::new(
                format!(
                    "time: 'all' split seed {s}{} (s)",
                    if s == 0 && train_cnn {
                        " with the CNN"
                    } else {
                        ""
                    }
                ),
                ts.elapsed().as_secs_f64(),
            ));
            let ha1 = report.row("Lite HA1").map_or(f64::NAN, |r| r.spearman);
            let ssim = report.row("1-SSIM").map_or(f64::NAN, |r| r.spearman);
            diffs.push(ha1 - ssim);
            if first.is_none() {
                first = Some(report);
            }
            ctx.step();
        }
        let worst_diff = diffs.iter().copied().fold(f64::INFINITY, f64::min);
        checks.push(
            Check::new(
                "ρ(learned HA1, labels) − ρ(1 − SSIM, labels), worst split seed ('all', simulated labels)",
                worst_diff,
                Relation::AtLeast,
                0.0,
                "paper (Sec. 5, README table): learned PerceptAnon scores track perception better than pixel \
                 metrics (MSE/PSNR/SSIM/LPIPS/FID); here on simulated labels",
            )
            .with_seeds(seeds as usize),
        );
        if let Some(report) = &first {
            for r in &report.rows {
                figures.push(Figure::new(
                    format!("'all' seed 0: Spearman ρ of {}", r.metric),
                    r.spearman,
                ));
                figures.push(Figure::new(
                    format!("'all' seed 0: Kendall τ-b of {}", r.metric),
                    r.kendall_b,
                ));
            }
        }
        for (name, kind) in method_splits() {
            ctx.set_message(format!("split {name}"));
            let mut srng = mlcore::sampling::seeded(ctx.seed() ^ 0xa11);
            let report = run_split(&name, &kind, &data, &lite_only, &mut srng)?;
            for metric in ["1-SSIM", "-PSNR", "Lite HA1", "Lite HA2"] {
                if let Some(r) = report.row(metric) {
                    figures.push(Figure::new(
                        format!("{name}: Spearman ρ of {metric}"),
                        r.spearman,
                    ));
                }
            }
            ctx.step();
        }
        checks.push(
            Check::new(
                "10-class HA1 Spearman ρ on the official HA1 labels ('all' split)",
                f64::NAN,
                Relation::AtLeast,
                0.90,
                PAPER,
            )
            .undecided(
                "the official HA1/HA2 annotations are not in any package registry (Google Drive); with them, the \
                 COCO/VOC/CelebA/LFW images are JPEG (no decoder in the dependency set: convert to PNG) and the \
                 ResNet50 ImageNet backbone is not available offline (a user's safetensors backbone plugs in through \
                 perceptanon::features::FeatureExtractor)",
            ),
        );
        notes.push(
            "Leave-one-method-out figures train on two anonymisation families and test on the third (anon-blurpix, \
             anon-mask, anon-inpaint); the CNN (3 conv × 16 channels, 30 epochs, HA1 and HA2 heads, 32 × 32 inputs) runs on \
             the 'all' split's seed 0 at the full budget only (minutes on 2 cores; no check depends on it)."
                .into(),
        );

        let mut plots = Vec::new();
        for (title, pick) in [
            ("SSIM vs strength (mean over bases)", 0usize),
            ("PSNR (dB) vs strength (mean over bases)", 1),
            ("simulated label vs strength (mean over bases)", 2),
        ] {
            let series = Method::ALL
                .iter()
                .map(|&m| {
                    let pts = STRENGTHS
                        .iter()
                        .map(|&s| {
                            let idx: Vec<usize> = (0..samples.len())
                                .filter(|&i| samples[i].method == m && samples[i].strength == s)
                                .collect();
                            let v = idx
                                .iter()
                                .map(|&i| match pick {
                                    0 => metrics[i].ssim,
                                    1 => metrics[i].psnr.min(100.0),
                                    _ => labels[i],
                                })
                                .sum::<f64>()
                                / idx.len().max(1) as f64;
                            (s, v)
                        })
                        .collect();
                    Series::line(m.name(), pts)
                })
                .collect();
            plots.push(Plot {
                title: title.into(),
                x_label: "strength s".into(),
                y_label: title.split(" vs").next().unwrap_or("").into(),
                series,
                log_x: false,
                log_y: false,
            });
        }
        ctx.step();
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
