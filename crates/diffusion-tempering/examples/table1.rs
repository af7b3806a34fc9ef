//! One row of Table 1 at the official protocol (the full runner budget's
//! setting): tempering vs L2 vs learned κ² over the same starts.
//!
//! `cargo run --release -p diffusion-tempering --example table1 -- <row> [starts] [seed] [dt] [learned]`
//!
//! `row`: pendulum, lv2, lv4, hh1, hh2, hh3, hh2c4, hh2c6.

use diffusion_tempering::Schedule;
use diffusion_tempering::table1::{Estimators, Parallelism, System, run_row};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let system = match args.get(1).map(String::as_str).unwrap_or("pendulum") {
        "pendulum" => System::Pendulum,
        "lv2" => System::LotkaVolterra2,
        "lv4" => System::LotkaVolterra4,
        "hh1" => System::HodgkinHuxley(1),
        "hh2" => System::HodgkinHuxley(2),
        "hh3" => System::HodgkinHuxley(3),
        "hh2c4" => System::TwoCompartment(4),
        "hh2c6" => System::TwoCompartment(6),
        other => return Err(format!("unknown row {other}").into()),
    };
    let starts: usize = args.get(2).map_or(Ok(4), |s| s.parse())?;
    let seed: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let dt: f64 = args.get(4).map_or(Ok(0.01), |s| s.parse())?;
    let learned = args.get(5).is_some_and(|s| s == "learned");
    let est = Estimators::official(Schedule::default(), learned);
    let t = Instant::now();
    let r = run_row(system, &est, dt, starts, seed, Parallelism::Rayon, &|| {})?;
    println!(
        "{}: {starts} starts, dt {dt}, {:.0} s\n converged: tempering {}, L2 {}, learned κ² {}\n mean iterations {:?}\n median rel. RMSE {:?}\n paper {:?}",
        system.name(),
        t.elapsed().as_secs_f64(),
        r.successes[0],
        r.successes[1],
        if learned {
            r.successes[2].to_string()
        } else {
            "-".into()
        },
        r.iters,
        r.rmse,
        system.paper()
    );
    Ok(())
}
