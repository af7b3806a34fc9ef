//! `deep-fusion`: Deep Fusion (Mazzawi et al., ICML 2024). The paper's
//! claim is qualitative (fusion trains faster than training the wide network
//! from scratch, without loss); issue 25 makes it measurable on FLOPs.
//!
//! Declared checks:
//! * the exactness of fusion on the spec's 3→4→2 tanh case
//!   (`|F − ½(f + g)| ≤ 1e-15`, spec) and on a 5-hidden-layer GELU pair
//!   (`≤ 1e-12·(1 + |f| + |g|)`, spec property 1);
//! * the per-layer learning-rate rule: SGD on the averaged self-fused network
//!   tracks the small network for 100 steps to 1e-10 (spec property 4 with
//!   issue 25's correction);
//! * backward-error analysis: GD's one-step error against the modified flow
//!   shrinks by a factor in [6, 10] when h halves (spec property 5);
//! * the headline: on the vendored digits and on the teacher–student
//!   regression, the total FLOPs fusion needs to reach the scratch model's
//!   final test loss divided by the scratch model's FLOPs, median over
//!   seeds with a bootstrap interval that must lie below 1 (issue 25;
//!   source: the paper, "fusion trains faster than from scratch"). A seed
//!   whose fused network never reaches the scratch loss is censored at a
//!   ratio of [`CENSORED_RATIO`] (above 1; the median's decision does not
//!   depend on the value). Decided only with ≥ 10 seeds: the quick budget
//!   runs fewer and reports `incomplete`.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use candle_core::{DType, Device, Tensor};
use deep_fusion::bea::{Objective, gd_step_errors};
use deep_fusion::experiment::{
    Schedule, Task, digits_task, fusion_vs_scratch, teacher_student_task,
};
use deep_fusion::train::{BlockMlp, Execution, LayerRates, Loss, Trainer, lr_after_fusion};
use deep_fusion::{Activation, FuseOptions, Mlp, exactness_certificate, fuse, self_fuse};
use mlcore::sampling::seeded;
use mlcore::stats::bootstrap_interval;
use ndarray::{Array1, Array2};
use nncore::optim::OptimizerKind;
use rand::RngExt;

/// The reproduction registered as `deep-fusion`.
pub struct DeepFusion;

/// Seeds of the FLOPs comparison per task at the quick and full budgets.
pub const SEEDS: (u64, u64) = (2, 10);
/// Seeds the headline check needs (issue 25: "paired over ≥ 10 seeds").
pub const MIN_SEEDS: usize = 10;
/// The ratio counted for a seed whose fusion never reached the scratch loss.
pub const CENSORED_RATIO: f64 = 10.0;
/// Bootstrap resamples of the median ratio's 95% interval.
pub const RESAMPLES: usize = 4000;

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

fn exactness(seed: u64) -> Result<(f64, f64), BoxError> {
    let mut rng = seeded(seed);
    let f = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng)?;
    let g = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng)?;
    let fused = fuse(&f, &g, &FuseOptions::default(), &mut rng)?;
    let x = Array2::from_shape_vec((1, 3), vec![0.1, -0.2, 0.3])?;
    let small = exactness_certificate(&fused, &[&f, &g], x.view())?.max_abs;
    let f = Mlp::random(
        &[7, 64, 13, 64, 5, 64, 3],
        Activation::Gelu,
        DType::F64,
        &mut rng,
    )?;
    let g = Mlp::random(
        &[7, 9, 64, 1, 64, 30, 3],
        Activation::Gelu,
        DType::F64,
        &mut rng,
    )?;
    let fused = fuse(&f, &g, &FuseOptions::default(), &mut rng)?;
    let probe = Array2::from_shape_fn((64, 7), |_| rng.random_range(-3.0..3.0));
    let deep = exactness_certificate(&fused, &[&f, &g], probe.view())?.max_rel;
    Ok((small, deep))
}

fn lr_rule(seed: u64) -> Result<f64, BoxError> {
    let mut rng = seeded(seed);
    let sgd = OptimizerKind::Sgd {
        momentum: 0.0,
        weight_decay: 0.0,
        nesterov: false,
    };
    let small = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng)?;
    let opts = FuseOptions {
        freeze_cross: true,
        ..Default::default()
    };
    let fused = self_fuse(&small, &opts, &mut rng)?;
    let rates = lr_after_fusion(&fused.weights, &sgd, 0.1)?;
    let mut ts = Trainer::new(
        BlockMlp::from_mlp(&small)?,
        sgd,
        &LayerRates::uniform(1, 0.1),
        Execution::Auto,
    )?;
    let mut tf = Trainer::new(BlockMlp::from_fused(&fused)?, sgd, &rates, Execution::Auto)?;
    for _ in 0..100 {
        let x: Vec<f64> = (0..8 * 3).map(|_| rng.random_range(-1.0..1.0)).collect();
        let y: Vec<f64> = (0..8 * 2).map(|_| rng.random_range(-1.0..1.0)).collect();
        let x = Tensor::from_vec(x, (8, 3), &Device::Cpu)?;
        let y = Tensor::from_vec(y, (8, 2), &Device::Cpu)?;
        ts.step(&x, &y, Loss::Mse)?;
        tf.step(&x, &y, Loss::Mse)?;
    }
    let want = self_fuse(&ts.net().to_mlp()?, &opts, &mut rng)?
        .mlp
        .to_arrays()?;
    let got = tf.net().to_mlp()?.to_arrays()?;
    let mut worst = 0.0f64;
    for ((wa, ba), (wb, bb)) in want.iter().zip(&got) {
        for (a, b) in wa.iter().zip(wb).chain(ba.iter().zip(bb)) {
            worst = worst.max((a - b).abs());
        }
    }
    Ok(worst)
}

fn bea_ratio(seed: u64) -> Result<f64, BoxError> {
    let mut rng = seeded(seed);
    let net = Mlp::random(&[3, 6, 2], Activation::Tanh, DType::F64, &mut rng)?;
    let x = Array2::from_shape_fn((16, 3), |_| rng.random_range(-1.0..1.0));
    let y = Array2::from_shape_fn((16, 2), |_| rng.random_range(-1.0..1.0));
    let o = Objective::new(&net, x.view(), y.view())?;
    let th = o.theta()?;
    let (e1, _) = gd_step_errors(&o, &th, 0.2, 64, 1e-4)?;
    let (e2, _) = gd_step_errors(&o, &th, 0.1, 64, 1e-4)?;
    Ok(e1 / e2)
}

struct TaskResult {
    ratios: Vec<f64>,
    reached: usize,
    fusion_curve: Vec<(f64, f64)>,
    scratch_curve: Vec<(f64, f64)>,
}

fn compare(ctx: &Context, name: &str, seeds: u64) -> Result<TaskResult, BoxError> {
    let mut out = TaskResult {
        ratios: Vec::new(),
        reached: 0,
        fusion_curve: Vec::new(),
        scratch_curve: Vec::new(),
    };
    for s in 0..seeds {
        let mut rng =
            seeded(ctx.seed() ^ (0xdf00 + s) ^ if name == "digits" { 0 } else { 1 << 40 });
        let (task, schedule): (Task, Schedule) = if name == "digits" {
            (
                digits_task(&ctx.dataset("digits")?, 0.2, &mut rng)?,
                Schedule::default(),
            )
        } else {
            let t = teacher_student_task(16, 64, 4000, 1000, 0.05, &mut rng)?;
            (
                t,
                Schedule {
                    activation: Activation::Tanh,
                    ..Schedule::default()
                },
            )
        };
        let c = fusion_vs_scratch(&task, &schedule, &mut rng)?;
        match c.fusion_flops_to_reach {
            Some(f) => {
                out.reached += 1;
                out.ratios.push(f / c.scratch_flops);
            }
            None => out.ratios.push(CENSORED_RATIO),
        }
        if s == 0 {
            out.fusion_curve = c.fusion;
            out.scratch_curve = c.scratch;
        }
        ctx.step();
    }
    Ok(out)
}

impl Reproduction for DeepFusion {
    fn id(&self) -> &'static str {
        "deep-fusion"
    }

    fn paper(&self) -> &'static str {
        "Mazzawi et al., Deep Fusion: Efficient Network Training via Pre-trained Initializations (ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "Fusing two small trained networks into a wide one is exact, and training after fusion reaches the wide network's from-scratch test loss with fewer total FLOPs"
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let seeds = match ctx.budget() {
            Budget::Quick => SEEDS.0,
            Budget::Full => SEEDS.1,
        };
        ctx.set_steps(2 * seeds + 1);
        let mut checks = Vec::new();
        let mut figures = Vec::new();
        let mut plots = Vec::new();
        let mut notes = Vec::new();

        let (small, deep) = exactness(ctx.seed())?;
        checks.push(Check::new(
            "fusion of the 3→4→2 tanh pair at x = (0.1, −0.2, 0.3): max |F − ½(f + g)|",
            small,
            Relation::AtMost,
            1e-15,
            "spec, concrete test case",
        ));
        checks.push(Check::new(
            "fusion of two 6-layer GELU MLPs of different widths: max |F − ½(f+g)|/(1 + |f| + |g|)",
            deep,
            Relation::AtMost,
            1e-12,
            "spec, property test 1",
        ));
        let lr = lr_rule(ctx.seed())?;
        checks.push(Check::new("SGD with the per-layer rule on the averaged self-fusion: max weight deviation from self_fuse(small) after 100 steps", lr, Relation::AtMost, 1e-10, "spec property test 4, rule corrected in issue 25"));
        let r = bea_ratio(ctx.seed())?;
        checks.push(Check::new(
            "GD one-step error against the modified flow L + (h/4)‖∇L‖²: e(0.2)/e(0.1)",
            r,
            Relation::AtLeast,
            6.0,
            "spec, property test 5 (ratio in [6, 10])",
        ));
        checks.push(Check::new(
            "GD one-step error against the modified flow: e(0.2)/e(0.1) upper end",
            r,
            Relation::AtMost,
            10.0,
            "spec, property test 5 (ratio in [6, 10])",
        ));
        ctx.step();

        for name in ["digits", "teacher-student"] {
            let res = compare(ctx, name, seeds)?;
            let med = median(&res.ratios);
            let ci = bootstrap_interval(
                Array1::from(res.ratios.clone()).view(),
                median,
                RESAMPLES,
                0.95,
                ctx.seed() ^ 0xb007,
            )?;
            let check = Check::new(
                format!("{name}: FLOPs for fusion to reach the scratch model's final test loss / scratch FLOPs (median over seeds; censored at {CENSORED_RATIO} when never reached)"),
                med,
                Relation::IntervalBelow,
                1.0,
                "paper (fusion trains faster than from scratch), made measurable by issue 25",
            )
            .with_interval(ci.lo, ci.hi)
            .with_seeds(res.ratios.len())
            .undecided_if(res.ratios.len() < MIN_SEEDS, format!("{} seeds at this budget; issue 25 asks for ≥ {MIN_SEEDS} (run --budget full)", res.ratios.len()));
            checks.push(check);
            figures.push(Figure::new(
                format!("{name}: seeds where fusion reached the scratch loss"),
                res.reached as f64,
            ));
            figures.push(Figure::new(
                format!("{name}: seeds"),
                res.ratios.len() as f64,
            ));
            plots.push(Plot {
                title: format!(
                    "deep-fusion {name}: test loss vs cumulative training FLOPs (first seed)"
                ),
                x_label: "FLOPs (small networks counted)".into(),
                y_label: "test loss".into(),
                series: vec![
                    Series::line("fusion (after two width-32 nets)", res.fusion_curve),
                    Series::line("width 64 from scratch", res.scratch_curve),
                ],
                log_x: false,
                log_y: true,
            });
        }
        notes.push("Reconstructed operator (no official code): row-stacked input layer, block-diagonal hidden layers with zero cross blocks that train freely after fusion, output weights halved; per-layer AdamW rates after fusion from lr_after_fusion. FLOPs count matrix products only, 3× the forward for a training step.".into());
        notes.push("The Shakespeare char-level transformer comparison of the full budget is not run: data/shakespeare is not vendored in this workspace; transformer fusion exactness is covered by the crate's tests.".into());
        Ok(Outcome {
            checks,
            figures,
            plots,
            notes,
        })
    }
}
