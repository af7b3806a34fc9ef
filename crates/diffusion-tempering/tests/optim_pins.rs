//! Regression pins of the crate's optimisers: [`BoxMethod::Barrier`] (the
//! step-by-step port of Optim.jl's `Fminbox(LBFGS(BackTracking()))` behind
//! the recorded Lotka–Volterra results, 16/20 tempering vs 4/20 L2) and
//! [`BoxMethod::Logistic`] (the crate default behind the runner's figures).
//!
//! Every number below was recorded on the pre-move code (commit c326e1a,
//! where `optimize.rs` and `fminbox.rs` of this crate still held both
//! optimisers, before they moved to `mlcore::optim`). They pin final θ,
//! loss, iterations, loss evaluations and gradient evaluations of plain
//! minimisations and of whole fits at fixed seeds, and are compared **bit
//! for bit**: the move must not change one floating-point operation. The
//! `#[ignore]`d `print_pins` prints the observed values in this file's
//! format, for re-recording after a deliberate change.

mod common;

use common::{FailsAbove, Quadratic, Rosenbrock, pendulum_losses};
use diffusion_tempering::models::{LotkaVolterra, Pendulum};
use diffusion_tempering::rk::L2Form;
use diffusion_tempering::{
    Bounds, BoxMethod, EarlyStop, FilterConfig, FitReport, Grid, L2Fit, LbfgsConfig,
    LearnedDiffusionFit, Schedule, StageTol, Synthetic, TemperedFit, minimize,
};
use mlcore::sampling::seeded;

/// One recorded run: final θ, loss, iterations, loss and gradient evaluations.
#[derive(Debug, Clone, PartialEq)]
struct Pin {
    name: String,
    params: Vec<f64>,
    loss: f64,
    iters: u64,
    evals: u64,
    grad_evals: u64,
}

fn pin(name: &str, params: &[f64], loss: f64, iters: u64, evals: u64, grad_evals: u64) -> Pin {
    Pin {
        name: name.to_string(),
        params: params.to_vec(),
        loss,
        iters,
        evals,
        grad_evals,
    }
}

fn from_report(name: &str, r: &FitReport) -> Pin {
    pin(name, &r.params, r.loss, r.iters, r.evals, r.grad_evals)
}

/// Plain minimisations with the `Fminbox` port.
fn barrier_runs() -> Vec<Pin> {
    let mut out = Vec::new();
    let cfg = LbfgsConfig::fminbox(1e-12);
    assert_eq!(cfg.box_method, BoxMethod::Barrier);
    let b = Bounds::new(vec![-2.0, -1.0], vec![2.0, 3.0]).unwrap();
    for init in [[-1.5, 2.5], [1.9, -0.9], [0.0, 0.0]] {
        let f = minimize(&Rosenbrock, &b, &init, &cfg).unwrap();
        let name = format!("barrier rosenbrock from {init:?}");
        out.push(pin(
            &name,
            &f.params,
            f.loss,
            f.iters,
            f.evals,
            f.grad_evals,
        ));
    }
    // Two of three coordinates of the minimum lie outside the box.
    let q = Quadratic {
        c: vec![0.5, -2.0, 3.5],
        w: vec![1.0, 10.0, 0.3],
    };
    let b3 = Bounds::new(vec![-1.0; 3], vec![2.0; 3]).unwrap();
    let f = minimize(&q, &b3, &[0.2, 1.5, -0.5], &cfg).unwrap();
    out.push(pin(
        "barrier projected quadratic",
        &f.params,
        f.loss,
        f.iters,
        f.evals,
        f.grad_evals,
    ));
    let b1 = Bounds::new(vec![0.0], vec![1.0]).unwrap();
    let q1 = Quadratic {
        c: vec![0.3],
        w: vec![1.0],
    };
    for s in [0.0, 1.0] {
        let f = minimize(&q1, &b1, &[s], &cfg).unwrap();
        let name = format!("barrier start on bound {s}");
        out.push(pin(
            &name,
            &f.params,
            f.loss,
            f.iters,
            f.evals,
            f.grad_evals,
        ));
    }
    let f = minimize(&FailsAbove, &b1, &[0.01], &cfg).unwrap();
    out.push(pin(
        "barrier failing loss",
        &f.params,
        f.loss,
        f.iters,
        f.evals,
        f.grad_evals,
    ));
    // Early stop, two outer rounds only.
    let short = LbfgsConfig {
        early_stop: Some(EarlyStop::default()),
        rounds: 2,
        ..LbfgsConfig::fminbox(1e-3)
    };
    let f = minimize(&Rosenbrock, &b, &[-1.5, 2.5], &short).unwrap();
    out.push(pin(
        "barrier early stop, 2 rounds",
        &f.params,
        f.loss,
        f.iters,
        f.evals,
        f.grad_evals,
    ));
    out
}

/// Plain minimisations with the logistic box map (the crate default).
fn logistic_runs() -> Vec<Pin> {
    let mut out = Vec::new();
    let b = Bounds::new(vec![-2.0, -1.0], vec![2.0, 3.0]).unwrap();
    for (label, cfg) in [
        ("default", LbfgsConfig::default()),
        ("rounds", LbfgsConfig::default().with_rounds()),
    ] {
        for init in [[-1.5, 2.5], [1.9, -0.9], [0.0, 0.0]] {
            let f = minimize(&Rosenbrock, &b, &init, &cfg).unwrap();
            let name = format!("logistic {label} rosenbrock from {init:?}");
            out.push(pin(
                &name,
                &f.params,
                f.loss,
                f.iters,
                f.evals,
                f.grad_evals,
            ));
        }
    }
    let q = Quadratic {
        c: vec![0.5, -0.7, 1.5],
        w: vec![1.0, 10.0, 0.3],
    };
    let b3 = Bounds::new(vec![-1.0; 3], vec![2.0; 3]).unwrap();
    let loose = LbfgsConfig {
        tol: StageTol { abs: 0.1, rel: 0.1 },
        early_stop: Some(EarlyStop::default()),
        patience: 2,
        max_step: 0.5,
        ..LbfgsConfig::default()
    };
    let f = minimize(&q, &b3, &[0.2, 1.5, -0.5], &loose).unwrap();
    out.push(pin(
        "logistic loose quadratic",
        &f.params,
        f.loss,
        f.iters,
        f.evals,
        f.grad_evals,
    ));
    let b1 = Bounds::new(vec![0.0], vec![1.0]).unwrap();
    let f = minimize(&FailsAbove, &b1, &[0.01], &LbfgsConfig::default()).unwrap();
    out.push(pin(
        "logistic failing loss",
        &f.params,
        f.loss,
        f.iters,
        f.evals,
        f.grad_evals,
    ));
    out
}

/// Whole fits on the pendulum (Fenrir tempering, L2, learned diffusion).
fn pendulum_fits() -> Vec<Pin> {
    let (lik, l2) = pendulum_losses(3);
    let b = Pendulum::bounds();
    let schedule = Schedule::geometric(1e8, 1.0, 9).unwrap();
    let mut out = Vec::new();
    for (name, fit) in [
        ("pendulum tempering official", TemperedFit::official()),
        (
            "pendulum tempering plus official",
            TemperedFit::plus_official(),
        ),
        ("pendulum tempering default", TemperedFit::default()),
        ("pendulum tempering plus", TemperedFit::plus()),
    ] {
        let fit = TemperedFit {
            schedule: schedule.clone(),
            ..fit
        };
        out.push(from_report(name, &fit.run(&lik, &b, &[8.0]).unwrap()));
    }
    let r = L2Fit::official().run(&l2, &b, &[3.3]).unwrap();
    out.push(from_report("pendulum L2 official", &r));
    let r = L2Fit::default().run(&l2, &b, &[5.0]).unwrap();
    out.push(from_report("pendulum L2 default", &r));
    let r = LearnedDiffusionFit::default()
        .run(&lik, &b, &[8.0])
        .unwrap();
    out.push(from_report("pendulum learned diffusion", &r));
    out
}

/// Lotka–Volterra (α, β) on a coarse grid, starts drawn from the prior after
/// the data as in the example `lv_official`.
fn lotka_volterra_fits() -> Vec<Pin> {
    let model = LotkaVolterra::two_param();
    let bounds = model.bounds();
    let mut rng = seeded(1);
    let Synthetic { lik, l2 } = Synthetic::new(
        model,
        &[1.5, 1.0],
        Grid::uniform(0.0, 5.0, 0.05).unwrap(),
        &[0],
        0.1,
        FilterConfig::default(),
        &mut rng,
    )
    .unwrap();
    let l2 = l2.with_form(L2Form::MeanSquared);
    let inits = bounds.sample(2, &mut rng);
    let fit = TemperedFit {
        schedule: Schedule::geometric(1e8, 1.0, 5).unwrap(),
        ..TemperedFit::official()
    };
    let mut out = Vec::new();
    for (i, x) in inits.iter().enumerate() {
        let r = fit.run(&lik, &bounds, x).unwrap();
        out.push(from_report(&format!("lv tempering official start {i}"), &r));
        let r = L2Fit::official().run(&l2, &bounds, x).unwrap();
        out.push(from_report(&format!("lv L2 official start {i}"), &r));
    }
    out
}

fn lit(v: f64) -> String {
    if v.is_nan() {
        "f64::NAN".into()
    } else if v == f64::INFINITY {
        "f64::INFINITY".into()
    } else {
        format!("{v:?}")
    }
}

fn show(p: &Pin) -> String {
    let params: Vec<String> = p.params.iter().map(|&v| lit(v)).collect();
    format!(
        "        pin({:?}, &[{}], {}, {}, {}, {}),",
        p.name,
        params.join(", "),
        lit(p.loss),
        p.iters,
        p.evals,
        p.grad_evals
    )
}

#[test]
#[ignore = "prints the observed pins for re-recording"]
fn print_pins() {
    let groups: [fn() -> Vec<Pin>; 4] = [
        barrier_runs,
        logistic_runs,
        pendulum_fits,
        lotka_volterra_fits,
    ];
    for g in groups {
        let t = std::time::Instant::now();
        for p in g() {
            println!("{}", show(&p));
        }
        eprintln!("{:.1} s", t.elapsed().as_secs_f64());
    }
}

/// Recorded on commit c326e1a (pre-move code).
#[rustfmt::skip]
fn expected_barrier() -> Vec<Pin> {
    vec![
        pin("barrier rosenbrock from [-1.5, 2.5]", &[0.9999999999857812, 0.9999999999715625], 2.0217565250539665e-22, 57, 84, 58),
        pin("barrier rosenbrock from [1.9, -0.9]", &[0.9999999999296132, 0.9999999998592282], 4.954302984686224e-21, 52, 72, 53),
        pin("barrier rosenbrock from [0.0, 0.0]", &[0.9999999997142717, 0.9999999994285511], 8.164068453867903e-20, 30, 44, 31),
        pin("barrier projected quadratic", &[0.49999999582656085, -1.0, 1.9999999999999996], 10.675, 70, 84, 71),
        pin("barrier start on bound 0", &[0.30000000000546856], 2.990525829600127e-23, 5, 7, 6),
        pin("barrier start on bound 1", &[0.3000000000130114], 1.6929718757106071e-22, 5, 7, 6),
        pin("barrier failing loss", &[0.4500000017600631], 3.097822099326306e-18, 4, 6, 5),
        pin("barrier early stop, 2 rounds", &[0.5630200693260519, 0.28743372588720617], 0.2783182429378877, 27, 39, 28),
    ]
}

/// Recorded on commit c326e1a (pre-move code).
#[rustfmt::skip]
fn expected_logistic() -> Vec<Pin> {
    vec![
        pin("logistic default rosenbrock from [-1.5, 2.5]", &[-1.5108877770274063, 2.3075274484685733], 6.365791770588737, 6, 58, 7),
        pin("logistic default rosenbrock from [1.9, -0.9]", &[1.7472683691970805, -0.8719624634268273], 1541.04964651716, 2, 54, 3),
        pin("logistic default rosenbrock from [0.0, 0.0]", &[1.0000003750261763, 1.0000006943413862], 4.510173779324705e-13, 20, 25, 21),
        pin("logistic rounds rosenbrock from [-1.5, 2.5]", &[1.0000000016288242, 1.000000003277441], 2.6922429799343376e-18, 45, 357, 53),
        pin("logistic rounds rosenbrock from [1.9, -0.9]", &[0.9999999893573079, 0.9999999786296871], 1.139881851204974e-16, 33, 344, 43),
        pin("logistic rounds rosenbrock from [0.0, 0.0]", &[1.0000003516640992, 1.0000007060774592], 1.244234141494611e-13, 29, 214, 39),
        pin("logistic loose quadratic", &[0.20848729964948487, 1.2562544149219832, -0.49429604673613725], 39.54745803009137, 3, 104, 4),
        pin("logistic failing loss", &[0.02672363098939523], 0.17916288456280166, 2, 54, 3),
    ]
}

/// Recorded on commit c326e1a (pre-move code).
#[rustfmt::skip]
fn expected_pendulum() -> Vec<Pin> {
    vec![
        pin("pendulum tempering official", &[3.0127352174070023], 26.517388546770036, 63, 2281, 70),
        pin("pendulum tempering plus official", &[3.012735213069013], 26.517388546770018, 28, 2144, 35),
        pin("pendulum tempering default", &[3.012735210795502], 26.517388546770057, 26, 446, 49),
        pin("pendulum tempering plus", &[3.012735209962368], 26.517388546770036, 12, 209, 21),
        pin("pendulum L2 official", &[3.0127352021822604], 0.09898048005883846, 9, 14, 10),
        pin("pendulum L2 default", &[3.0127352150941262], 0.09898048005883846, 7, 37, 9),
        pin("pendulum learned diffusion", &[3.012735764086451], 26.517388962563786, 12, 187, 17),
    ]
}

/// Recorded on commit c326e1a (pre-move code).
#[rustfmt::skip]
fn expected_lotka_volterra() -> Vec<Pin> {
    vec![
        pin("lv tempering official start 0", &[1.5145849965166351, 1.0890691216732373], 33.26190049914112, 64, 5356, 64),
        pin("lv L2 official start 0", &[1.5145953809291448, 1.0891054413445125], 0.11233421064745963, 31, 108, 32),
        pin("lv tempering official start 1", &[1.5145849938395277, 1.089069109094679], 33.26190049914111, 56, 5231, 56),
        pin("lv L2 official start 1", &[4.359711099519906, 4.78744891742118], 7.903165124872636, 17, 35, 18),
    ]
}

/// Bitwise comparison (so that −0 ≠ +0 and NaN = NaN).
fn same(a: &Pin, b: &Pin) -> bool {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    a.name == b.name
        && bits(&a.params) == bits(&b.params)
        && a.loss.to_bits() == b.loss.to_bits()
        && (a.iters, a.evals, a.grad_evals) == (b.iters, b.evals, b.grad_evals)
}

fn check(observed: Vec<Pin>, expected: Vec<Pin>) {
    assert_eq!(observed.len(), expected.len());
    let bad: Vec<String> = observed
        .iter()
        .zip(&expected)
        .filter(|(o, e)| !same(o, e))
        .map(|(o, e)| format!("observed {}\nexpected {}", show(o), show(e)))
        .collect();
    assert!(bad.is_empty(), "pins moved:\n{}", bad.join("\n"));
}

#[test]
fn barrier_pins_hold() {
    check(barrier_runs(), expected_barrier());
}

#[test]
fn logistic_pins_hold() {
    check(logistic_runs(), expected_logistic());
}

#[test]
fn pendulum_fit_pins_hold() {
    check(pendulum_fits(), expected_pendulum());
}

#[test]
fn lotka_volterra_fit_pins_hold() {
    check(lotka_volterra_fits(), expected_lotka_volterra());
}
