//! Per-step fairness audit without RL: three donut schedules over T = 12
//! steps for N = 3 people (all present), replayed through the monitors of
//! four fairness specifications (anytime / periodic / bounded / long-term).
//!
//! `cargo run --release --example fair_memory_audit` (instant). What to
//! check: round robin is fair under every schedule; "two-then-one" (0, 0, 1,
//! 1, 2, 2, …) fails anytime egalitarian fairness at t = 2 but passes the
//! periodic check every 6 steps, the bounded one (egalitarian unfairness
//! Σ|uᵢ − ū| ≤ 3 at every t) and the long-term one; giving everything to
//! person 0 fails all of them (anytime first, at t = 2).

use fair_memory::{FairnessSpec, Schedule, Status, Welfare, audit};
use ndarray::Array2;

fn schedule(name: &str, t: usize) -> usize {
    match name {
        "round robin" => t % 3,
        "two-then-one" => (t / 2) % 3,
        _ => 0,
    }
}

fn main() -> Result<(), fair_memory::Error> {
    let (n, horizon) = (3, 12);
    let specs = [
        (
            "anytime  egalitarian ≥ −1.34",
            Welfare::Egalitarian,
            -1.34,
            Schedule::Anytime,
        ),
        (
            "periodic egalitarian ≥ 0, k=6",
            Welfare::Egalitarian,
            0.0,
            Schedule::Periodic { period: 6 },
        ),
        (
            "bounded  egalitarian gap ≤ 3",
            Welfare::Egalitarian,
            0.0,
            Schedule::Bounded { bound: 3.0 },
        ),
        (
            "long-term Rawlsian ≥ 4, T=12",
            Welfare::Rawlsian,
            4.0,
            Schedule::LongTerm { horizon: 12 },
        ),
    ];
    for policy in ["round robin", "two-then-one", "all to person 0"] {
        let inc = Array2::from_shape_fn((horizon, n), |(t, i)| {
            f64::from(u8::from(schedule(policy, t) == i))
        });
        println!("{policy}:");
        for (label, welfare, theta, sched) in specs {
            let spec = FairnessSpec {
                welfare,
                threshold: theta,
                schedule: sched,
            };
            let verdicts = audit(spec, inc.view())?;
            let trace: String = verdicts
                .iter()
                .map(|v| match (v.assessed, v.holds) {
                    (false, _) => '.',
                    (true, true) => '+',
                    (true, false) => 'x',
                })
                .collect();
            let last = verdicts.last().map(|v| v.status).unwrap_or(Status::Pending);
            println!("  {label:32} {trace}  → {last:?}");
        }
    }
    Ok(())
}
