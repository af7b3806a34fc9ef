//! Exact p = 2 distortion of strong coresets (Lewis weights + residual
//! sensitivities) on heavy-tailed data, by coreset size and number of
//! responses m, next to uniform sampling of the same expected size.
//!
//! Prints the median and 90th percentile of ε = max(hi − 1, 1 − lo), the
//! exact range of F_S(X)/F(X) over all X, for m ∈ {1, 8, 32} (the runner's `MS`): the coreset
//! columns should shrink with k and agree across m, the uniform ones stay large
//! because uniform draws miss the few heavy rows.
//!
//! Run: `cargo run --release --example coreset_distortion [-- REPEATS SEED]`
//! (defaults 10 and 0).

use coreset::lewis::{LewisOptions, lewis_weights};
use coreset::verify::exact_distortion_p2;
use icml24_runner::reproduce::coreset::{
    D, MS, N, SIZES, builder, heavy_tailed_design, responses, uniform_sample,
};
use mlcore::sampling::seeded;

fn quantiles(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let repeats: usize = args.get(1).map_or(Ok(10), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(0), |s| s.parse())?;
    let mut rng = seeded(seed);
    let a = heavy_tailed_design(N, D, &mut rng);
    let lw = lewis_weights(a.view(), 2.0, &LewisOptions::default())?;
    println!("n = {N}, d = {D}, p = 2, {repeats} draws per cell; ε median / 90th percentile");
    println!(
        "{:>5} {:>6} {:>8} {:>18} {:>18}",
        "m", "k", "|S| avg", "coreset ε", "uniform ε"
    );
    for &m in &MS {
        let b = responses(&a, m, &mut rng);
        for &k in &SIZES {
            let (mut strong, mut unif, mut size) = (Vec::new(), Vec::new(), 0usize);
            for _ in 0..repeats {
                let c = builder(k).build_with_lewis(&lw, a.view(), b.view(), &mut rng)?;
                size += c.len();
                strong.push(exact_distortion_p2(a.view(), b.view(), &c)?.epsilon());
                let u = uniform_sample(N, k, &mut rng)?;
                unif.push(exact_distortion_p2(a.view(), b.view(), &u)?.epsilon());
            }
            let (s50, s90) = quantiles(strong);
            let (u50, u90) = quantiles(unif);
            println!(
                "{m:>5} {k:>6} {:>8.0} {:>8.3} / {:>7.3} {:>8.3} / {:>7.3}",
                size as f64 / repeats as f64,
                s50,
                s90,
                u50,
                u90
            );
        }
    }
    Ok(())
}
