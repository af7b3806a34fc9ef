//! Lotka–Volterra (α, β) at the official settings: prey observed with
//! σ² = 0.1 every 0.01 on [0, 20], IWP(3) EK1 at dt = 0.01, schedule
//! 10²⁰ → 1 in 21 stages, Optim.jl's `Fminbox(LBFGS(BackTracking()))`
//! (`TemperedFit::official`), against the L2 baseline with the same
//! optimiser on the mean squared error.
//!
//! `cargo run --release -p diffusion-tempering --example lv_official -- [starts] [seed] [skip] [l2]`
//!
//! Runs starts `skip + 1 ..= skip + starts` of the sequence drawn from the
//! prior after the data (seed `seed`), so batches can be run separately.
//! 5–8 CPU-minutes per tempering start (rayon runs starts in
//! parallel); with the fourth argument `l2` only the (fast) L2 baseline
//! runs.

use diffusion_tempering::models::LotkaVolterra;
use diffusion_tempering::rk::L2Form;
use diffusion_tempering::{FilterConfig, Grid, L2Fit, Synthetic, TemperedFit, fit_many, metrics};
use mlcore::sampling::seeded;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let starts: usize = args.get(1).map_or(Ok(8), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let skip: usize = args.get(3).map_or(Ok(0), |s| s.parse())?;
    let l2_only = args.get(4).is_some_and(|s| s == "l2");
    let model = LotkaVolterra::two_param();
    let truth = [1.5, 1.0];
    let bounds = model.bounds();
    let mut rng = seeded(seed);
    let Synthetic { lik, l2 } = Synthetic::new(
        model,
        &truth,
        Grid::uniform(0.0, 20.0, 0.01)?,
        &[0],
        0.1,
        FilterConfig::default(),
        &mut rng,
    )?;
    let l2 = l2.with_form(L2Form::MeanSquared);
    let inits = bounds.sample(skip + starts, &mut rng).split_off(skip);
    let t = Instant::now();
    let temp = if l2_only {
        Vec::new()
    } else {
        fit_many(&inits, |x| {
            let r = TemperedFit::official().run(&lik, &bounds, x);
            eprintln!("tempering from {x:.3?} done");
            r
        })
    };
    let t_temp = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let rk = fit_many(&inits, |x| L2Fit::official().run(&l2, &bounds, x));
    let t_rk = t.elapsed().as_secs_f64();
    let (mut c_temp, mut c_rk) = (0, 0);
    println!("start            | tempering θ̂ (rmse, iters)        | L2 θ̂ (rmse, iters)");
    for (i, x) in inits.iter().enumerate() {
        let show = |r: &diffusion_tempering::Result<diffusion_tempering::FitReport>,
                    c: &mut i32| match r {
            Ok(f) => {
                let e = metrics::rel_param_rmse(&f.params, &truth).unwrap_or(f64::NAN);
                if e < 0.05 {
                    *c += 1;
                }
                format!(
                    "({:.3}, {:.3}) {:.3} {:4} [{} values, {} gradients]",
                    f.params[0], f.params[1], e, f.iters, f.evals, f.grad_evals
                )
            }
            Err(e) => format!("error {e}"),
        };
        let a = temp
            .get(i)
            .map_or("-".to_string(), |r| show(r, &mut c_temp));
        let b = show(&rk[i], &mut c_rk);
        println!("({:.3}, {:.3}) | {a} | {b}", x[0], x[1]);
    }
    println!(
        "converged: tempering {c_temp}/{starts} ({t_temp:.0} s), L2 {c_rk}/{starts} ({t_rk:.0} s)"
    );
    Ok(())
}
