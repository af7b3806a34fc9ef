//! Brute-force generalised Eluder dimensions d_E(𝒫, ε) w.r.t. the Hellinger
//! distance (and total variation), for small classes:
//!
//! - the full tabular class (all maps X → {Bern(0.2), Bern(0.8)}): d_E = |X|;
//! - a one-parameter class (the same Bern(θ) at every point): d_E = 1;
//! - a singleton: d_E = 0;
//! - the XOR dynamics class restricted to the layer-0 and layer-1 pairs of
//!   two contexts (8 domain points).
//!
//! `cargo run --release --example cmdp_eluder_eluder_table`

use cmdp_eluder::eluder::{bernoulli_outputs, eluder_dimension};
use cmdp_eluder::instances::xor_instance;
use cmdp_eluder::metric::{hellinger_metric, tv_metric};
use ndarray::Array2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nx = 6;
    let full: Vec<Vec<f64>> = (0..1usize << nx)
        .map(|k| {
            (0..nx)
                .map(|x| if (k >> x) & 1 == 1 { 0.8 } else { 0.2 })
                .collect()
        })
        .collect();
    let one: Vec<Vec<f64>> = [0.2, 0.4, 0.6, 0.8].iter().map(|&t| vec![t; nx]).collect();
    let single = vec![vec![0.5; nx]];
    let inst = xor_instance(2, 8)?;
    let domain: Vec<(usize, usize, usize)> = (0..2)
        .flat_map(|c| [(c, 0, 0), (c, 0, 1), (c, 2, 0), (c, 3, 1)])
        .collect();
    let xor = inst.dynamics.eluder_outputs(&domain)?;
    let classes: Vec<(&str, Vec<Array2<f64>>)> = vec![
        ("full tabular |X|=6", bernoulli_outputs(&full)?),
        ("one-parameter |X|=6", bernoulli_outputs(&one)?),
        ("singleton |X|=6", bernoulli_outputs(&single)?),
        ("XOR dynamics |X|=8", xor),
    ];
    println!(
        "{:<22}{:>8}{:>12}{:>12}",
        "class", "eps", "d_E(H)", "d_E(TV)"
    );
    for (name, class) in &classes {
        for eps in [0.05, 0.2, 0.5] {
            let h = eluder_dimension(class, eps, hellinger_metric)?;
            let t = eluder_dimension(class, eps, tv_metric)?;
            println!("{name:<22}{eps:>8}{:>12}{:>12}", h.dimension, t.dimension);
        }
    }
    Ok(())
}
