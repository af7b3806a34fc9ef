//! `rule-following`: Case-Based or Rule-Based (Hu et al., ICML 2024).
//!
//! Claim: models trained with a square hole left out of the operand grid
//! answer from nearby cases, so an accuracy hole opens where a random split
//! reaches about 100%. Small-scale reproduction (issue 23): addition on
//! `[0, 40)²`, a char-level transformer (`d = 64`, 2 layers, 4 heads) trained
//! from scratch for about 2,000 AdamW steps, once on a random 70/30 split and
//! once with the hole of half-side 5 at (20, 20), and the 1-NN on `(a, b)` as
//! the pure case-based reference on the same splits. Also decided: the
//! generator reproduces every vendored official test set byte for byte.
//!
//! Budgets: the transformer needs ≈ 25 ms of CPU per step here (≈ 50 CPU-s
//! per model, 172 s wall under a loaded machine), so its checks, which ask
//! for 10 seeds of two models, are decided at `--budget full` only; quick
//! trains one seed of each for 250 steps and reports its figures with the
//! checks `incomplete`. The kNN and the data checks are decided at both.
//!
//! The distance check is stated as `ρ(L∞ distance, accuracy) < 0`: issue 23
//! writes "ρ of accuracy vs L∞ ring > 0" for the same claim (accuracy falls
//! with distance), which is a negative rank correlation between distance and
//! accuracy. Findings at this scale: the 1-NN gets about 0.005 on random
//! splits (no grid neighbour at distance 1 has the same sum), and the
//! transformer trained from scratch fills the hole (121/121 at 2,000 steps,
//! seed 0, accuracy not falling with distance): the paper's hole, shown for
//! pre-trained GPT-2 and larger models, does not open here.

use crate::runner::{
    BoxError, Budget, Check, Context, Figure, Outcome, Plot, Relation, Reproduction, Series,
};
use mlcore::sampling::seeded;
use mlcore::stats::{bootstrap_interval, wilson_interval};
use ndarray::Array1;
use rule_following::eval::accuracy_by;
use rule_following::experiment::{GridExperiment, GridOutcome};
use rule_following::format::Format;
use rule_following::io::{Record, read_json, write_json};
use rule_following::knn::Knn;
use rule_following::split::{Split, parse_squares};
use rule_following::task::{Answer, Task};

/// The reproduction registered as `rule-following`.
pub struct RuleFollowing;

/// The random-split accuracy the claim needs (issue 23; the paper reports
/// "about 100%" on random splits).
pub const RANDOM_ACCURACY: f64 = 0.90;
/// Seeds of the transformer runs at `--budget full` (issue 23: ≥ 10).
pub const SEEDS_FULL: u64 = 10;
/// Seeds of the kNN random splits (cheap: both budgets).
pub const SEEDS_KNN: u64 = 10;
/// Transformer steps at quick (figures only) and full (decided).
pub const STEPS: (usize, usize) = (250, 2000);
/// The hole: centre (20, 20), half-side 5 on `[0, 40)²` (issue 23).
pub const HOLE: (i64, i64, i64) = (20, 20, 5);

/// Every vendored one-hole, three-hole and scratchpad test set, regenerated.
/// Returns (files reproduced byte for byte, files).
fn fixtures(ctx: &Context) -> Result<(usize, usize), BoxError> {
    let ds = ctx.dataset("rule-following")?;
    let holes = [
        (
            Task::PAPER_ADDITION,
            "addition/1hole_50_50_10_441_0-100",
            Some((50, 50)),
            None,
        ),
        (
            Task::PAPER_ADDITION,
            "addition/1hole_50_50_10_441_0-100_cot",
            Some((50, 50)),
            Some(10),
        ),
        (
            Task::PAPER_MOD_ADDITION,
            "mod_addition/1hole_56_56_10_441_0-113",
            Some((56, 56)),
            None,
        ),
        (
            Task::PAPER_BASE_ADDITION,
            "base_addition/1hole_50_50_10_441_0-100",
            Some((50, 50)),
            None,
        ),
        (
            Task::PAPER_BASE_ADDITION,
            "base_addition/1hole_50_50_10_441_0-100_cot",
            Some((50, 50)),
            Some(9),
        ),
        (
            Task::PAPER_LINEAR_REGRESSION,
            "linear_regression/1hole_50_50_10_441_0-100",
            Some((50, 50)),
            None,
        ),
        (
            Task::PAPER_CHICKEN_RABBIT,
            "rabbits_and_chickens/1hole_70_50_10_441_0-100",
            Some((70, 50)),
            None,
        ),
        (
            Task::PAPER_ADDITION,
            "addition/3hole_1411_0-100",
            None,
            None,
        ),
        (
            Task::PAPER_MOD_ADDITION,
            "mod_addition/3hole_2803_0-113",
            None,
            None,
        ),
        (
            Task::PAPER_CHICKEN_RABBIT,
            "rabbits_and_chickens/3hole_363_0-100",
            None,
            None,
        ),
    ];
    let mut ok = 0;
    for (task, dir, centre, cot) in holes {
        let split = match centre {
            Some((x, y)) => Split::one_hole(x, y, 10),
            None => Split::Holes(parse_squares(
                &ds.read_to_string(&format!("{dir}/test_squares.txt.gz"))?,
            )?),
        };
        let sets = split.apply(&task, &mut seeded(0))?;
        let records = sets
            .test
            .iter()
            .map(|s| {
                let mut r = Record::from_sample(s);
                if cot.is_some() {
                    let f = Format::Scratchpad {
                        released_line_count: true,
                    };
                    r.answers = vec![Answer::Text(f.render(&task, s)?.target)];
                    r.gt = Some(s.answer.to_string());
                }
                Ok(r)
            })
            .collect::<rule_following::Result<Vec<_>>>()?;
        let official = ds.read_to_string(&format!("{dir}/test.json.gz"))?;
        ok += usize::from(write_json(&records, task.name())? == official);
    }
    // The training set of the addition hole: the grid minus the hole.
    let sets = Split::one_hole(50, 50, 10).apply(&Task::PAPER_ADDITION, &mut seeded(0))?;
    let train: Vec<Record> = sets.train.iter().map(Record::from_sample).collect();
    let official = ds.read_to_string("addition/1hole_50_50_10_441_0-100/train.json.gz")?;
    ok += usize::from(write_json(&train, Task::PAPER_ADDITION.name())? == official);
    // The random split cannot be regenerated (PyTorch's generator): loaded as external.
    let official =
        read_json(&ds.read_to_string("addition/random_split_0.7_7000_3000_0-100/test.json.gz")?)?;
    let ids = official.iter().map(|r| r.id).collect();
    let sets = Split::External { test_ids: ids }.apply(&Task::PAPER_ADDITION, &mut seeded(0))?;
    let ours: Vec<Record> = sets.test.iter().map(Record::from_sample).collect();
    ok += usize::from(ours == official && sets.train.len() == 7000);
    Ok((ok, holes.len() + 2))
}

fn accuracy(o: &GridOutcome, knn: bool) -> f64 {
    if knn {
        o.knn_exact.accuracy()
    } else {
        o.exact.accuracy()
    }
}

/// Pooled accuracy by L∞ ring over runs: (ring, correct, total).
fn rings(runs: &[GridOutcome], knn: bool) -> Result<Vec<(u64, usize, usize)>, BoxError> {
    let (mut d, mut c) = (Vec::new(), Vec::new());
    for o in runs {
        d.extend_from_slice(&o.distances);
        c.extend_from_slice(if knn { &o.knn_correct } else { &o.correct });
    }
    Ok(accuracy_by(&d, &c)?)
}

struct Decided {
    checks: Vec<Check>,
    figures: Vec<Figure>,
    series: Series,
}

/// The three declared checks of one model (transformer or kNN).
fn three_checks(
    who: &str,
    random: &[GridOutcome],
    hole: &[GridOutcome],
    knn: bool,
    undecided: Option<&str>,
) -> Result<Decided, BoxError> {
    let (c, n) = random.iter().fold((0usize, 0usize), |(c, n), o| {
        let m = if knn { o.knn_exact } else { o.exact };
        (c + m.correct, n + m.total())
    });
    let w = wilson_interval(c as u64, n as u64, 0.95)?;
    let acc_r = c as f64 / n as f64;
    let mut checks = vec![
        Check::new(
            format!("{who}: random-split accuracy (pooled, Wilson 95%)"),
            acc_r,
            Relation::IntervalAbove,
            RANDOM_ACCURACY,
            "paper abstract and §4: about 100% on random splits; issue 23: ≥ 0.90",
        )
        .with_interval(w.lo, w.hi)
        .with_seeds(random.len()),
    ];
    let diffs: Vec<f64> = random
        .iter()
        .zip(hole.iter().cycle())
        .map(|(r, h)| accuracy(r, knn) - accuracy(h, knn))
        .collect();
    let mean = diffs.iter().sum::<f64>() / diffs.len() as f64;
    let bi = bootstrap_interval(
        Array1::from(diffs.clone()).view(),
        |x| x.iter().sum::<f64>() / x.len() as f64,
        2000,
        0.95,
        23,
    )?;
    checks.push(
        Check::new(
            format!("{who}: random-split minus hole accuracy (mean over seeds, bootstrap 95%)"),
            mean,
            Relation::IntervalAbove,
            0.0,
            "paper §4: leave-square-out opens an accuracy hole in every task",
        )
        .with_interval(bi.lo, bi.hi)
        .with_seeds(diffs.len()),
    );
    let ring = rings(hole, knn)?;
    let xs: Vec<f64> = ring.iter().map(|r| r.0 as f64).collect();
    let ys: Vec<f64> = ring.iter().map(|r| r.1 as f64 / r.2 as f64).collect();
    let rho = mlcore::stats::spearman(
        Array1::from(xs.clone()).view(),
        Array1::from(ys.clone()).view(),
    );
    let mut rho_check = Check::new(
        format!("{who}: Spearman ρ(L∞ distance to the training set, hole accuracy)"),
        *rho.as_ref().unwrap_or(&f64::NAN),
        Relation::Below,
        0.0,
        "spec, small-scale target: accuracy falls with the distance to the nearest training point",
    )
    .with_seeds(hole.len());
    if rho.is_err() {
        rho_check = rho_check.undecided(format!(
            "ρ is undefined: the hole accuracy is the same ({:.3}) on every ring",
            ys.first().copied().unwrap_or(f64::NAN)
        ));
    }
    checks.push(rho_check);
    if let Some(reason) = undecided {
        checks = checks.into_iter().map(|c| c.undecided(reason)).collect();
    }
    let mut figures = vec![
        Figure::new(format!("{who}: random-split accuracy"), acc_r).with_target("≥ 0.90"),
        Figure::new(
            format!("{who}: hole accuracy"),
            hole.iter().map(|o| accuracy(o, knn)).sum::<f64>() / hole.len() as f64,
        ),
    ];
    for r in &ring {
        figures.push(Figure::new(
            format!("{who}: hole accuracy at L∞ ring {}", r.0),
            r.1 as f64 / r.2 as f64,
        ));
    }
    Ok(Decided {
        checks,
        figures,
        series: Series::line(who.to_string(), xs.into_iter().zip(ys).collect()),
    })
}

impl Reproduction for RuleFollowing {
    fn id(&self) -> &'static str {
        "rule-following"
    }

    fn paper(&self) -> &'static str {
        "Case-Based or Rule-Based: How Do Transformers Do the Math? (Hu et al., ICML 2024)"
    }

    fn claim(&self) -> &'static str {
        "Transformers reason from nearby cases: a leave-square-out hole in the training grid opens an accuracy hole, while random splits reach about 100%."
    }

    fn run(&self, ctx: &Context) -> Result<Outcome, BoxError> {
        let full = ctx.budget() == Budget::Full;
        let seeds = if full { SEEDS_FULL } else { 1 };
        let steps = if full { STEPS.1 } else { STEPS.0 };
        ctx.set_steps(2 * seeds + SEEDS_KNN + 1);
        let mut out = Outcome::default();

        ctx.set_message("official test sets");
        let (ok, files) = fixtures(ctx)?;
        out.checks.push(Check::new(
            "official test sets regenerated byte for byte (files)",
            ok as f64,
            Relation::AtLeast,
            files as f64,
            "spec property 7: the generator reproduces every vendored official test set",
        ));
        ctx.step();

        let hole_split = Split::one_hole(HOLE.0, HOLE.1, HOLE.2);
        let (mut random, mut hole) = (Vec::new(), Vec::new());
        for s in 0..seeds {
            ctx.set_message(format!("transformer seed {s}"));
            let mut exp = GridExperiment::quick(Split::Random { train_ratio: 0.7 });
            exp.steps = steps;
            random.push(exp.run(&mut seeded(ctx.seed() ^ (1000 + s)))?);
            ctx.step();
            let mut exp = GridExperiment::quick(hole_split.clone());
            exp.steps = steps;
            hole.push(exp.run(&mut seeded(ctx.seed() ^ (2000 + s)))?);
            ctx.step();
        }
        let reason = format!(
            "needs --budget full: {SEEDS_FULL} seeds × 2 models × {} steps (≈ 50 CPU-s per model on 2 cores); quick trains 1 seed for {} steps",
            STEPS.1, STEPS.0
        );
        let tr = three_checks(
            "transformer",
            &random,
            &hole,
            false,
            (!full).then_some(reason.as_str()),
        )?;

        // kNN: 10 random splits (the hole split is deterministic for a kNN).
        let task = Task::Addition { n: 40 };
        let mut knn_random = Vec::new();
        for s in 0..SEEDS_KNN {
            let sets = Split::Random { train_ratio: 0.7 }
                .apply(&task, &mut seeded(ctx.seed() ^ (3000 + s)))?;
            let knn = Knn::fit(&task, &sets.train, 1)?;
            let (m, ok) = rule_following::eval::exact_match(
                &task,
                &sets.test,
                &knn.predict_samples(&task, &sets.test),
            )?;
            knn_random.push(GridOutcome {
                distances: rule_following::eval::linf_to_train(&task, &sets.train, &sets.test)?,
                knn_exact: m,
                knn_correct: ok,
                ..hole[0].clone()
            });
            ctx.step();
        }
        let kn = three_checks("1-NN", &knn_random, &hole[..1], true, None)?;

        out.checks.extend(tr.checks);
        out.checks.extend(kn.checks);
        out.figures.extend(tr.figures);
        out.figures.extend(kn.figures);
        let t = &random[0];
        out.figures.push(Figure::new(
            "transformer training tokens per second (seed 0, random split)",
            t.tokens_per_second,
        ));
        out.figures.push(Figure::new(
            "transformer final training loss (seed 0, random split)",
            t.final_loss,
        ));
        out.plots.push(Plot {
            title: "rule-following: hole accuracy by L∞ distance to the training set".into(),
            x_label: "L∞ distance to the nearest training point".into(),
            y_label: "exact-match accuracy".into(),
            series: vec![tr.series, kn.series],
            ..Default::default()
        });
        out.notes.push(format!(
            "Addition on [0, 40)²; hole centre ({}, {}), half-side {} (121 test points); transformer d = 64, 2 layers, 4 heads, {steps} AdamW steps (batch 64, η = 3e-3, warm-up + cosine), {seeds} seed(s); 1-NN on (a, b) over {SEEDS_KNN} random splits.",
            HOLE.0, HOLE.1, HOLE.2
        ));
        out.notes.push(
            "The 1-NN's random-split accuracy is a finding, not a bug: on addition no grid neighbour at distance 1 has the same sum, so copying the nearest case fails almost everywhere; issue 23's ≥ 0.90 for the kNN does not hold.".into(),
        );
        out.notes.push(
            "Not run here (issue 23's full budget): the paper's [0, 100)² grid with the (50, 50) half-side-10 hole and the three-hole split, and the 1–5 → 6–12-digit length curve.".into(),
        );
        Ok(out)
    }
}
