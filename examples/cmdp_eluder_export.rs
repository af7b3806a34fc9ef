//! Writes layered CMDPs and their V*_c (computed by this crate through
//! `tabular-mdp`) as JSON, for the side-by-side check against
//! mdptoolbox-hiive in `scripts/compare/cmdp_eluder.py`.
//!
//! `cargo run --release --example cmdp_eluder_export -- out.json`
//!
//! Instances: the spec's XOR instance (10 contexts) and three random
//! layered CMDPs (layers [1, 3, 4, 2], A = 3, 4 contexts, seeded). Per
//! context: P as A × S × S (row s' of the last layer empty), R as S × A,
//! and V*_c(s₀).

use cmdp_eluder::cmdp::{ContextDist, LayeredSpace, TabularCmdp};
use cmdp_eluder::instances::xor_instance;
use mlcore::sampling::seeded;
use ndarray::{Array3, Array4};
use rand::RngExt;
use std::fmt::Write as _;

fn random_cmdp(seed: u64) -> Result<TabularCmdp, cmdp_eluder::Error> {
    let space = LayeredSpace::new(&[1, 3, 4, 2])?;
    let (nc, ns, na) = (4, space.n_states(), 3);
    let mut rng = seeded(seed);
    let mut p = Array4::<f64>::zeros((nc, ns, na, ns));
    for c in 0..nc {
        for s in 0..ns {
            let h = space.layer_of(s)?;
            if h + 1 == space.horizon() {
                continue;
            }
            for a in 0..na {
                let w: Vec<f64> = space
                    .layer_range(h + 1)?
                    .map(|_| rng.random::<f64>() + 0.05)
                    .collect();
                let z: f64 = w.iter().sum();
                for (s2, wi) in space.layer_range(h + 1)?.zip(&w) {
                    p[[c, s, a, s2]] = wi / z;
                }
            }
        }
    }
    let r = Array3::from_shape_fn((nc, ns, na), |_| rng.random::<f64>());
    TabularCmdp::new(space, na, ContextDist::uniform(nc)?, r, p)
}

fn json(name: &str, m: &TabularCmdp) -> Result<String, cmdp_eluder::Error> {
    let v = m.optimal_values()?;
    let (nc, ns, na) = m.reward().dim();
    let mut out = format!(
        "{{\"name\": \"{name}\", \"horizon\": {}, \"n_states\": {ns}, \"n_actions\": {na}, \"contexts\": [",
        m.space().horizon()
    );
    for c in 0..nc {
        let p: Vec<String> = (0..na)
            .map(|a| {
                let rows: Vec<String> = (0..ns)
                    .map(|s| {
                        let row: Vec<String> = (0..ns)
                            .map(|s2| format!("{:?}", m.dynamics()[[c, s, a, s2]]))
                            .collect();
                        format!("[{}]", row.join(", "))
                    })
                    .collect();
                format!("[{}]", rows.join(", "))
            })
            .collect();
        let r: Vec<String> = (0..ns)
            .map(|s| {
                let row: Vec<String> = (0..na)
                    .map(|a| format!("{:?}", m.reward()[[c, s, a]]))
                    .collect();
                format!("[{}]", row.join(", "))
            })
            .collect();
        let _ = write!(
            out,
            "{}{{\"P\": [{}], \"R\": [{}], \"vstar\": {:?}}}",
            if c > 0 { ", " } else { "" },
            p.join(", "),
            r.join(", "),
            v[c]
        );
    }
    out.push_str("]}");
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "cmdp_eluder_export.json".into());
    let mut items = vec![json("xor", &xor_instance(10, 8)?.cmdp)?];
    for seed in 0..3 {
        items.push(json(&format!("random{seed}"), &random_cmdp(seed)?)?);
    }
    std::fs::write(
        &path,
        format!("{{\"instances\": [{}]}}\n", items.join(", ")),
    )?;
    println!("wrote {} instances to {path}", items.len());
    Ok(())
}
