//! Ollivier–Ricci curvature (or Ricci flow) of a graph read from an edge
//! list, for the side-by-side script `scripts/compare/ricci_causal.py`.
//!
//! ```sh
//! cargo run --release -p ricci-causal --example curvature_csv -- IN OUT [--alpha A] [--repeats R] [--flow ITERS] [--threads]
//! ```
//! `IN`: one edge per line, `u v [w]` (whitespace separated, any labels).
//! `OUT`: `u v value` per edge in input order: κ, or with `--flow` the final
//! weights after `ITERS` flow iterations (GRC defaults otherwise). Prints one
//! JSON line with the CPU times (`median_s`, `min_s`: this process's CPU
//! clock, `CLOCK_PROCESS_CPUTIME_ID`, so other jobs on a loaded machine do not
//! count) and the wall times (`wall_median_s`) of `R` runs (distances
//! included), on one thread (a rayon pool of one, so the distance table is
//! serial too) unless `--threads`.

use ricci_causal::curvature::{OllivierConfig, ollivier};
use ricci_causal::flow::RicciFlow;
use ricci_causal::graph::WeightedGraph;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args[i + 1].clone())
    };
    let (input, output) = (&args[0], &args[1]);
    let alpha: f64 = get("--alpha").map_or(Ok(0.5), |s| s.parse())?;
    let repeats: usize = get("--repeats").map_or(Ok(5), |s| s.parse())?;
    let flow: Option<usize> = get("--flow").map(|s| s.parse()).transpose()?;
    let parallel = args.iter().any(|a| a == "--threads");
    let text = std::fs::read_to_string(input)?;
    let mut edges = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let w = if f.len() > 2 { f[2].parse()? } else { 1.0 };
        edges.push((f[0].to_string(), f[1].to_string(), w));
    }
    let g = WeightedGraph::from_edges(edges)?;
    let cfg = OllivierConfig {
        alpha,
        parallel,
        ..Default::default()
    };
    // Serial means one thread for everything, the distance table included
    // (it is built on rayon's pool): a pool of one thread unless --threads.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(if parallel { 0 } else { 1 })
        .build()?;
    let mut times = Vec::new();
    let mut walls = Vec::new();
    let mut values = Vec::new();
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        let c = cpu_now();
        values = pool.install(|| -> Result<Vec<f64>, ricci_causal::Error> {
            Ok(match flow {
                None => ollivier(&g, &cfg)?.kappa,
                Some(it) => RicciFlow {
                    iterations: it,
                    curvature: cfg,
                    ..Default::default()
                }
                .run(&g)?
                .graph
                .weights()
                .to_vec(),
            })
        })?;
        times.push(cpu_now() - c);
        walls.push(t.elapsed().as_secs_f64());
    }
    let mut out = String::new();
    for (e, v) in values.iter().enumerate() {
        let (a, b) = g.edge_labels(e)?;
        out.push_str(&format!("{a} {b} {v:.12}\n"));
    }
    std::fs::write(output, out)?;
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    walls.sort_by(f64::total_cmp);
    println!(
        "{{\"nodes\": {}, \"edges\": {}, \"median_s\": {}, \"min_s\": {}, \"wall_median_s\": {}, \"runs\": {}}}",
        g.n_nodes(),
        g.n_edges(),
        sorted[sorted.len() / 2],
        sorted[0],
        walls[walls.len() / 2],
        sorted.len()
    );
    Ok(())
}

/// The CPU clock this example times with, in seconds.
fn cpu_now() -> f64 {
    mlcore::timing::process_cpu_seconds().expect("a CPU clock (Unix)")
}
