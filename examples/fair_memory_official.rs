//! The runner's `fair-memory` headline setting (official tabular Donut:
//! N = 3, p = 0.8, T = 12, α = 0.1, γ = 0.99, official ε schedule) for the
//! side-by-side comparison with the official code
//! (`scripts/compare/fair_memory.py`): per method and seed, the episodes
//! until the greedy policy's expected NSW sum stays within 1% of the DP
//! optimum, and the final greedy value, as JSON on stdout.
//!
//! `cargo run --release --example fair_memory_official -- --seeds 20 --episodes 4000 --eval-every 100`
//! (about a minute). `--time none|window --episodes E --seed S` only trains
//! FairQCM (window) or the Full memory for E episodes (for CPU timing by
//! `/usr/bin/time`).

use fair_memory::{CounterfactualSet, FairQcm, MemoryKind, QcmParams, dp};
use icml24_runner::reproduce::fair_memory::{HORIZON, PEOPLE, PRESENCE, donut, methods, one_run};
use mlcore::sampling::seeded;
use serde_json::json;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn num(name: &str, default: usize) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
    Ok(match arg(name) {
        Some(v) => v.parse()?,
        None => default,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let env = donut(PRESENCE, PEOPLE, HORIZON)?;
    let episodes = num("--episodes", 4000)?;
    if let Some(which) = arg("--time") {
        let counterfactuals = match which.as_str() {
            "window" => CounterfactualSet::Window {
                offset: 0,
                width: 2,
            },
            "none" => CounterfactualSet::None,
            other => return Err(format!("--time none|window, not {other}").into()),
        };
        let params = QcmParams {
            episodes,
            memory: MemoryKind::Full,
            counterfactuals,
            ..QcmParams::default()
        };
        let mut learner = FairQcm::new(&env, params)?;
        learner.train_all(&mut seeded(num("--seed", 7)? as u64));
        println!("{}", learner.table().q.sum());
        return Ok(());
    }
    let seeds = num("--seeds", 20)?;
    let every = num("--eval-every", 100)?;
    let optimum = dp::optimal(&env, 1.0)?.value;
    let mut out = serde_json::Map::new();
    for method in methods().iter().filter(|m| m.memory != MemoryKind::None) {
        let (mut first, mut last) = (Vec::new(), Vec::new());
        for seed in 0..seeds {
            let run = one_run(&env, method, episodes, every, optimum, seed as u64)?;
            first.push(run.first);
            last.push(run.nsw.last().copied().unwrap_or(f64::NAN));
        }
        out.insert(
            method.label.into(),
            json!({"episodes_to_1pct": first, "final_value": last}),
        );
    }
    println!(
        "{}",
        json!({"optimum": optimum, "seeds": seeds, "episodes": episodes, "eval_every": every, "methods": out})
    );
    Ok(())
}
