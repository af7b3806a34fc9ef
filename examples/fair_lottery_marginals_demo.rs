//! Broome-fair chances vs what the official code's sampler gives, and what
//! the exact samplers give, on the spec's two cases.
//!
//! `cargo run --release --example fair_lottery_marginals_demo`
//!
//! For c = [3, 2, 1], k = 2 and c = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1], k = 3 it
//! prints the ideal π = min(1, κc), the exact marginals of successive
//! sampling (np.random.choice without replacement: NOT proportional), and
//! the empirical inclusion frequencies of 10⁵ draws of every exact sampler
//! (each within a few 10⁻³ of the ideal; binomial sd ≤ 0.0016).

use fair_lottery::exact::successive_marginals;
use fair_lottery::probs::Selection;
use fair_lottery::sampler::{
    ConditionalPoisson, FixedSizeSampler, Pipage, Sampford, Successive, Systematic,
};
use mlcore::sampling::seeded;

fn freq<S: FixedSizeSampler>(s: &S, draws: usize, seed: u64) -> Vec<f64> {
    let mut rng = seeded(seed);
    let mut hits = vec![0usize; s.n()];
    for _ in 0..draws {
        for i in s.sample(&mut rng) {
            hits[i] += 1;
        }
    }
    hits.iter().map(|&h| h as f64 / draws as f64).collect()
}

fn row(name: &str, v: &[f64]) {
    let cells: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
    println!("| {name:<28} | {} |", cells.join(" | "));
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let draws = 100_000;
    for (claims, k) in [
        (vec![3.0, 2.0, 1.0], 2),
        (vec![0.9, 0.8, 0.5, 0.3, 0.2, 0.1], 3),
    ] {
        println!("\nclaims {claims:?}, k = {k}\n");
        let sel = Selection::proportional(&claims, k)?;
        row("ideal π = min(1, κc)", sel.pi());
        row(
            "successive (exact, official)",
            &successive_marginals(&claims, k)?,
        );
        row(
            "successive (10⁵ draws)",
            &freq(&Successive::new(&claims, k)?, draws, 1),
        );
        row(
            "systematic (10⁵ draws)",
            &freq(&Systematic::new(&sel), draws, 2),
        );
        row("pipage (10⁵ draws)", &freq(&Pipage::new(&sel), draws, 3));
        let cps = ConditionalPoisson::new(&sel)?;
        row("conditional Poisson (exact)", &cps.design_marginals());
        row("conditional Poisson (draws)", &freq(&cps, draws, 4));
        row(
            "Sampford (10⁵ draws)",
            &freq(&Sampford::new(&sel)?, draws, 5),
        );
    }
    Ok(())
}
