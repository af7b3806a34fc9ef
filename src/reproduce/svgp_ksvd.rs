//! `svgp-ksvd`: KEP-SVGP (Chen et al., ICML 2024). The paper's claim: the
//! kernel-eigen-pair SVGP attention gives better-calibrated, uncertainty-aware
//! transformers at accuracy on par with softmax attention.
//!
//! Experiment (issue 24): the vendored digits (2×2 patches → 16 tokens +
//! CLS), a ViT of depth 2, width 64, 4 heads; the last block's attention is
//! softmax, KEP-SVGP Sum or KEP-SVGP Concat (`s = 8`, `rank_multi = 2`,
//! `η_ksvd` 1 / 10, `η_kl = 1` as the official code), with the same split,
//! seed, initial draws, epochs and metric code; test-time logits averaged
//! over 10 sampled passes. Shift: 5 severities of rotation (15°·k) and
//! Gaussian noise (σ = 0.1·k of the range); OOD: 8×8 crops of the CC0
//! textures brick, grass, gravel (`data/textures`).
//!
//! Declared checks (KEP-SVGP Sum, the code's default, vs softmax):
//! * ECE lower, paired over seeds, one-sided Wilcoxon p < 0.05 (source: the
//!   paper's calibration tables on CIFAR/IMDB, direction only);
//! * NLL likewise;
//! * the accuracy difference's 95 % bootstrap interval inside ±1 point
//!   (source: the paper, "accuracy on par");
//! * mean OOD AUROC difference ≥ 0 (source: the paper's OOD tables);
//! * and, decided at every budget, spec property 1 (duality residual
//!   ≤ 1e-9‖K‖_F, |J| ≤ 1e-9·TrΛ) on the trained layer's own kernel.
//!
//! The seed-paired checks need ≥ 10 seeds: only `--budget full` (10 seeds,
//! 30 epochs) decides them; the quick budget (1 seed, 30 epochs) reports
//! them `incomplete` with the measured values.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use mlcore::stats::{Alternative, bootstrap_interval, wilcoxon_signed_rank};
use ndarray::{Array1, Array2};
use svgp_ksvd::experiment::{DigitsConfig, VariantResult, run_seed};

/// The reproduction registered as `svgp-ksvd`.
pub struct SvgpKsvd;

/// Seeds at the quick and full budgets.
pub const SEEDS: (u64, u64) = (1, 10);
/// Epochs at the quick and full budgets (the issue: about 30 at both).
pub const EPOCHS: (usize, usize) = (30, 30);
/// Seeds the paired checks need.
pub const MIN_SEEDS: usize = 10;

fn textures(ctx: &Context) -> Result<Vec<Array2<f64>>, BoxError> {
    let ds = ctx.dataset("textures")?;
    let mut out = Vec::new();
    for file in ["brick.png", "grass.png", "gravel.png"] {
        let bytes = ds.read(file)?;
        let img = perceptanon::io::decode_image(&bytes, file)?.to_grey();
        let v = img.view();
        out.push(Array2::from_shape_fn(
            (v.shape()[0], v.shape()[1]),
            |(i, j)| v[[i, j, 0]],
        ));
    }
    Ok(out)
}

/// Spec property 1 on a kernel built from the digits-sized layer shape:
/// returns (max duality residual / ‖K‖_F, |J| / TrΛ) over 20 random cases
/// with N = 17, p = 16, s = 8.
fn duality(seed: u64) -> Result<(f64, f64), BoxError> {
    use rand::RngExt;
    let mut rng = mlcore::sampling::seeded(seed);
    let (mut worst_res, mut worst_j) = (0.0f64, 0.0f64);
    for _ in 0..20 {
        let pq = Array2::from_shape_fn((17, 16), |_| rng.random_range(-1.0..1.0));
        let pk = Array2::from_shape_fn((17, 16), |_| rng.random_range(-1.0..1.0));
        let ksvd = svgp_ksvd::ksvd::KernelSvd::from_features(pq.view(), pk.view(), 8)?;
        let k = pq.dot(&pk.t());
        let kf = k.iter().map(|v| v * v).sum::<f64>().sqrt();
        let lam = Array2::from_diag(&ksvd.lambda);
        let r1 = (k.dot(&ksvd.h_r) - ksvd.h_e.dot(&lam))
            .iter()
            .map(|v| v * v)
            .sum::<f64>()
            .sqrt();
        let r2 = (k.t().dot(&ksvd.h_e) - ksvd.h_r.dot(&lam))
            .iter()
            .map(|v| v * v)
            .sum::<f64>()
            .sqrt();
        worst_res = worst_res.max(r1.max(r2) / kf);
        let (we, wr) = ksvd.primal_weights(pq.view(), pk.view())?;
        let j = svgp_ksvd::ksvd::primal_objective(
            we.view(),
            wr.view(),
            ksvd.lambda.view(),
            pq.view(),
            pk.view(),
        )?;
        worst_j = worst_j.max(j.abs() / ksvd.lambda.sum());
    }
    Ok((worst_res, worst_j))
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn sd(v: &[f64]) -> f64 {
    let m = mean(v);
    if v.len() < 2 {
        return 0.0;
    }
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}

impl Reproduction for SvgpKsvd {
    fn id(&self) -> &'static str {
        "svgp-ksvd"
    }

    fn paper(&self) -> &'static str {
        "Self-Attention through Kernel-Eigen Pair Sparse Variational Gaussian Processes (Chen et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "KEP-SVGP attention (KSVD of the asymmetric attention kernel + a pair of SVGPs with diagonal prior) is better calibrated than softmax attention (lower ECE and NLL, better OOD detection) at the same accuracy"
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let (seeds, epochs) = match ctx.budget() {
            Budget::Quick => (SEEDS.0, EPOCHS.0),
            Budget::Full => (SEEDS.1, EPOCHS.1),
        };
        ctx.set_steps(seeds + 1);
        let digits = nncore::readers::digits(&ctx.dataset("digits")?)?;
        let tex = textures(ctx)?;
        let config = DigitsConfig {
            epochs,
            ..DigitsConfig::default()
        };
        let mut runs: Vec<Vec<VariantResult>> = Vec::new();
        for s in 0..seeds {
            ctx.set_message(format!("seed {s}"));
            runs.push(run_seed(
                &digits,
                &tex,
                &config,
                ctx.seed() ^ (0x5e_ed00 + s),
            )?);
            ctx.step();
        }
        let (res, jrel) = duality(ctx.seed())?;
        ctx.step();
        let pick = |v: usize, f: &dyn Fn(&VariantResult) -> f64| -> Vec<f64> {
            runs.iter().map(|r| f(&r[v])).collect()
        };
        let n = runs.len();
        let few = n < MIN_SEEDS;
        let why = format!("{n} seed(s) < {MIN_SEEDS}: only --budget full decides the paired claim");
        let mut checks = Vec::new();
        for (metric, f) in [
            (
                "ECE (15 bins)",
                &(|r: &VariantResult| r.clean.ece) as &dyn Fn(&VariantResult) -> f64,
            ),
            ("NLL", &|r: &VariantResult| r.clean.nll),
        ] {
            let (kep, soft) = (pick(1, f), pick(0, f));
            let p = if n >= 2 {
                wilcoxon_signed_rank(
                    Array1::from(kep.clone()).view(),
                    Array1::from(soft.clone()).view(),
                    Alternative::Less,
                )
                .map(|w| w.p_value)
                .unwrap_or(1.0)
            } else {
                1.0
            };
            checks.push(
                Check::new(
                    format!("{metric}: KEP-SVGP (Sum) < softmax, paired one-sided Wilcoxon p-value (KEP mean {:.4}, softmax mean {:.4})", mean(&kep), mean(&soft)),
                    p,
                    Relation::PValueBelow,
                    0.05,
                    "paper, calibration tables on CIFAR/IMDB (direction only); issue 24",
                )
                .with_seeds(n)
                .undecided_if(few, why.clone()),
            );
        }
        let acc_diff: Vec<f64> = runs
            .iter()
            .map(|r| r[1].clean.accuracy - r[0].clean.accuracy)
            .collect();
        let md = mean(&acc_diff);
        let (lo, hi) = if n >= 2 {
            let iv = bootstrap_interval(
                Array1::from(acc_diff.clone()).view(),
                mean,
                4000,
                0.95,
                ctx.seed(),
            )?;
            (iv.lo, iv.hi)
        } else {
            (md, md)
        };
        for (rel, t, what) in [
            (Relation::IntervalAbove, -0.01, "above −1 point"),
            (Relation::IntervalBelow, 0.01, "below +1 point"),
        ] {
            checks.push(
                Check::new(
                    format!("accuracy KEP-SVGP (Sum) − softmax, 95% bootstrap interval {what}"),
                    md,
                    rel,
                    t,
                    "paper, accuracy on par with softmax; issue 24 (±1 point)",
                )
                .with_interval(lo, hi)
                .with_seeds(n)
                .undecided_if(few, why.clone()),
            );
        }
        let ood_diff: Vec<f64> = runs
            .iter()
            .map(|r| r[1].ood.auroc - r[0].ood.auroc)
            .collect();
        checks.push(
            Check::new(
                "OOD AUROC (textures) KEP-SVGP (Sum) − softmax, mean over seeds",
                mean(&ood_diff),
                Relation::AtLeast,
                0.0,
                "paper, OOD detection tables",
            )
            .with_seeds(n)
            .undecided_if(few, why.clone()),
        );
        checks.push(Check::new(
            "dual KSVD: max ‖KH_r − H_eΛ‖_F/‖K‖_F (and transpose), N = 17, p = 16, s = 8, 20 cases",
            res,
            Relation::AtMost,
            1e-9,
            "spec property 1",
        ));
        checks.push(Check::new(
            "primal J at the KSVD solution: max |J|/TrΛ",
            jrel,
            Relation::AtMost,
            1e-9,
            "spec property 1 (J = 0 at stationarity)",
        ));

        let mut figures = Vec::new();
        for (v, name) in svgp_ksvd::experiment::VARIANTS.iter().enumerate() {
            for (metric, f) in [
                (
                    "accuracy",
                    &(|r: &VariantResult| r.clean.accuracy) as &dyn Fn(&VariantResult) -> f64,
                ),
                ("NLL", &|r: &VariantResult| r.clean.nll),
                ("ECE", &|r: &VariantResult| r.clean.ece),
                ("Brier", &|r: &VariantResult| r.clean.brier),
                ("AURC", &|r: &VariantResult| r.clean.aurc),
                ("E-AURC", &|r: &VariantResult| r.clean.e_aurc),
                ("OOD AUROC", &|r: &VariantResult| r.ood.auroc),
                ("OOD AUPR", &|r: &VariantResult| r.ood.aupr),
                ("OOD FPR95", &|r: &VariantResult| r.ood.fpr95),
                ("rotation 75° accuracy", &|r: &VariantResult| {
                    r.rotation[4].accuracy
                }),
                ("rotation 75° ECE", &|r: &VariantResult| r.rotation[4].ece),
                ("noise σ=0.5 accuracy", &|r: &VariantResult| {
                    r.noise[4].accuracy
                }),
                ("noise σ=0.5 ECE", &|r: &VariantResult| r.noise[4].ece),
                ("mean SVGP variance, clean test", &|r: &VariantResult| {
                    r.variance.0
                }),
                ("mean SVGP variance, OOD crops", &|r: &VariantResult| {
                    r.variance.1
                }),
                ("training seconds", &|r: &VariantResult| r.seconds),
            ] {
                let vals = pick(v, f);
                figures.push(Figure::new(
                    format!("{name}: {metric} (mean over {n} seeds)"),
                    mean(&vals),
                ));
                if n >= 2 {
                    figures.push(Figure::new(format!("{name}: {metric} (sd)"), sd(&vals)));
                }
            }
        }
        let mut plots = Vec::new();
        plots.push(Plot {
            title: "svgp-ksvd: reliability diagram on clean digits (first seed)".into(),
            x_label: "mean confidence of the bin".into(),
            y_label: "accuracy of the bin".into(),
            series: svgp_ksvd::experiment::VARIANTS
                .iter()
                .enumerate()
                .map(|(v, name)| {
                    Series::line(
                        *name,
                        runs[0][v]
                            .clean
                            .reliability
                            .iter()
                            .map(|&(c, a, _)| (c, a))
                            .collect(),
                    )
                })
                .chain(std::iter::once(Series::line(
                    "perfect calibration",
                    vec![(0.0, 0.0), (1.0, 1.0)],
                )))
                .collect(),
            log_x: false,
            log_y: false,
        });
        for (shift, label) in [
            (0usize, "rotation (15°·k)"),
            (1, "Gaussian noise (σ = 0.1·k of range)"),
        ] {
            plots.push(Plot {
                title: format!("svgp-ksvd: ECE vs severity, {label} (mean over seeds)"),
                x_label: "severity k".into(),
                y_label: "ECE (15 bins)".into(),
                series: svgp_ksvd::experiment::VARIANTS
                    .iter()
                    .enumerate()
                    .map(|(v, name)| {
                        let pts = (0..5)
                            .map(|k| {
                                let vals = pick(v, &|r: &VariantResult| {
                                    if shift == 0 {
                                        r.rotation[k].ece
                                    } else {
                                        r.noise[k].ece
                                    }
                                });
                                ((k + 1) as f64, mean(&vals))
                            })
                            .collect();
                        Series::line(*name, pts)
                    })
                    .collect(),
                log_x: false,
                log_y: false,
            });
        }
        let notes = vec![
            format!("{n} seed(s), {epochs} epochs, batch 64, AdamW 1e-3 (nncore), no dropout; 10 sampled passes averaged at test time; 20% test split (360 digits), 300 OOD crops."),
            "η_kl = 1 with the KL of all heads undivided, as the official code: on this small problem the KL (≈1e4 at initialisation) dominates the loss for the first epochs; `KepConfig::eta_kl` exposes the scaling.".into(),
            "J in the penalty uses the primal weights W_e = X̃ᵀW̃_e in all three terms and is divided by N (the code takes the trace of the learned W̃ only).".into(),
            "The three variants of a seed train on their own threads (candle single-threaded inside each, `CANDLE_NUM_THREADS=1` by default in the runner); \"training seconds\" is each variant's thread CPU time.".into(),
        ];
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
