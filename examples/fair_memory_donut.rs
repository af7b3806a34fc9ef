//! FairQCM vs Q-learning with the full memory on the Donut (N = 3, T = 12,
//! the official tabular setting): exact optimum by DP, then the median over
//! seeds of the episodes until the greedy policy is (and stays) optimal, and
//! the time per episode. Deterministic Donut by default (p = 1); pass
//! `--presence 0.8` for the stochastic one and `--seeds K` / `--episodes E`.
//!
//! `cargo run --release --example fair_memory_donut [-- --seeds 5]`
//! (about 20 s). The numbers to check: the DP optimum equals the round-robin
//! return, and FairQCM's median is several times smaller than Full's.

use fair_memory::{CounterfactualSet, Donut, DonutConfig, FairQcm, MemoryKind, QcmParams, dp};
use mlcore::sampling::seeded;
use std::time::Instant;

fn arg(name: &str, default: f64) -> f64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = arg("--presence", 1.0);
    let seeds = arg("--seeds", 5.0) as u64;
    let episodes = arg("--episodes", 6000.0) as usize;
    let every = 25;
    let env = Donut::new(DonutConfig {
        presence: vec![p; 3],
        horizon: 12,
        ..DonutConfig::default()
    })?;
    let gamma = 0.99;
    let exact = dp::optimal(&env, gamma)?;
    println!(
        "Donut N=3 T=12 p={p}: {} reachable augmented states, V* = {:.6}",
        exact.n_states(),
        exact.value
    );
    if p == 1.0 {
        let (mut u, mut ret, mut disc) = ([0u32; 3], 0.0, 1.0);
        for t in 0..12 {
            u[t % 3] += 1;
            ret += disc * u.iter().map(|&c| (f64::from(c) + 1.0001).ln()).sum::<f64>();
            disc *= gamma;
        }
        println!(
            "round-robin return     = {ret:.6} (|Δ| = {:.1e})",
            (ret - exact.value).abs()
        );
    }
    for (label, cf) in [
        (
            "FairQCM window w=2",
            CounterfactualSet::Window {
                offset: 0,
                width: 2,
            },
        ),
        ("FairQCM all        ", CounterfactualSet::All),
        ("Full, no CF        ", CounterfactualSet::None),
    ] {
        let mut hits = Vec::new();
        let mut secs = 0.0;
        for seed in 0..seeds {
            let params = QcmParams {
                episodes,
                counterfactuals: cf,
                memory: MemoryKind::Full,
                ..QcmParams::default()
            };
            let mut l = FairQcm::new(&env, params)?;
            let mut rng = seeded(seed);
            let mut first = None;
            for e in 1..=episodes {
                let t0 = Instant::now();
                l.run_episode(&mut rng);
                secs += t0.elapsed().as_secs_f64();
                if e % every == 0 {
                    let ok = dp::greedy_value(&l, &env, gamma)? >= exact.value - 1e-9;
                    first = if ok { first.or(Some(e)) } else { None };
                }
            }
            hits.push(first.unwrap_or(usize::MAX));
        }
        hits.sort_unstable();
        let med = hits[hits.len() / 2];
        let never = hits.iter().filter(|&&h| h == usize::MAX).count();
        println!(
            "{label}: median episodes to optimal {} ({never}/{seeds} never), {:.2} µs/episode",
            if med == usize::MAX {
                format!("> {episodes}")
            } else {
                med.to_string()
            },
            1e6 * secs / (seeds as usize * episodes) as f64
        );
    }
    Ok(())
}
