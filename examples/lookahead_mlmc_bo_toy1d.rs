//! Ten BO steps of two-step 1+2-EI (MLMC, ε = 0.1) on the 1-D toy
//! `f(x) = e^{−(x−2)²} + e^{−(x−6)²/10} + 1/(x²+1)` on [−10, 10] (maximum
//! 1.4019 at x = 2.00087), against one-step EI from the same initial design;
//! then the wall time of one MLMC argmax at ε = 0.1 against the official
//! code's MC baseline (N = M = ε⁻² = 100) on the final GP.
//!
//! `cargo run --release --example lookahead_mlmc_bo_toy1d`

use lookahead_mlmc::bo::{Acquisition, BoConfig, run_bo};
use lookahead_mlmc::gp::{FitConfig, fit_map};
use lookahead_mlmc::lookahead::{
    InnerValue, MlmcLookahead, SaaConfig, maximize_two_step, mlmc_two_step_argmax,
};
use lookahead_mlmc::optim::{Bounds, LbfgsConfig};
use lookahead_mlmc::testfns::TestFunction;
use mlcore::sampling::seeded;
use ndarray::{Array1, Array2};
use std::time::Instant;

fn main() -> Result<(), lookahead_mlmc::Error> {
    let f = TestFunction::toy1d();
    let saa = SaaConfig {
        raw_samples: 32,
        restarts: 3,
        inner_raw_samples: 16,
        inner_restarts: 2,
        lbfgs: LbfgsConfig {
            max_iters: 20,
            ..LbfgsConfig::default()
        },
        ..SaaConfig::default()
    };
    let spec = MlmcLookahead {
        saa,
        ..MlmcLookahead::default()
    };
    let base = BoConfig {
        n_init: 2,
        iterations: 10,
        ..BoConfig::default()
    };
    let t = Instant::now();
    let ei = run_bo(&f, &base, &mut seeded(7))?;
    let t_ei = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let two = run_bo(
        &f,
        &BoConfig {
            acquisition: Acquisition::TwoStepMlmc { eps: 0.1, spec },
            ..base.clone()
        },
        &mut seeded(7),
    )?;
    let t_two = t.elapsed().as_secs_f64();
    println!("optimum f* = {:.4} at x = 2.00087", f.optimum);
    println!("iteration  best (EI)  best (2-step MLMC)");
    for (k, (a, b)) in ei.best.iter().zip(&two.best).enumerate() {
        println!("{k:>9}  {a:>9.4}  {b:>9.4}");
    }
    println!("wall time: EI {t_ei:.2} s, two-step MLMC {t_two:.2} s");

    // One acquisition maximisation on the final design: MLMC at ε = 0.1 vs MC N = M = 100.
    let n = two.y.len();
    let u: Vec<f64> = two.x.iter().map(|x| (x[0] + 10.0) / 20.0).collect();
    let mean = two.y.iter().sum::<f64>() / n as f64;
    let sd = (two.y.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let gp = fit_map(
        Array2::from_shape_vec((n, 1), u).expect("n × 1").view(),
        Array1::from_iter(two.y.iter().map(|y| (y - mean) / sd)).view(),
        &FitConfig::default(),
    )?;
    let unit = Bounds::unit(1)?;
    let t = Instant::now();
    let m = mlmc_two_step_argmax(&gp, &unit, 0.1, &spec, &mut seeded(1))?;
    let t_m = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mc = maximize_two_step(
        &gp,
        &unit,
        100,
        100,
        InnerValue::QEi { q: 2 },
        &saa,
        &mut seeded(1),
    )?;
    let t_mc = t.elapsed().as_secs_f64();
    println!(
        "one argmax on the final GP: MLMC (ε = 0.1, N = {:?}) x = {:.4} in {t_m:.2} s; \
         MC (N = M = 100) x = {:.4} in {t_mc:.2} s; MC / MLMC time = {:.1}",
        m.allocation.n,
        -10.0 + 20.0 * m.x[0],
        -10.0 + 20.0 * mc.x[0],
        t_mc / t_m
    );
    Ok(())
}
