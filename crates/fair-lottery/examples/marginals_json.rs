//! Prints, as JSON, everything `scripts/compare/fair_lottery.py` compares
//! with the Python peers for one claim vector:
//!
//! `cargo run --release -p fair-lottery --example marginals_json -- K DRAWS SEED c1 c2 …`
//!
//! Keys: `ideal` (Broome-fair π), `successive_exact` (n ≤ 20, else null),
//! `cps_design` (the calibrated CPS design's exact π), `cps_joint` (n × n,
//! n ≤ 2000, else null), and `freq_<sampler>` (empirical inclusion
//! frequencies over DRAWS draws of systematic, pipage, cps, sampford,
//! successive).

use fair_lottery::exact::successive_marginals;
use fair_lottery::probs::Selection;
use fair_lottery::sampler::{
    ConditionalPoisson, FixedSizeSampler, Pipage, Sampford, Successive, Systematic,
};
use mlcore::sampling::seeded;

fn arr(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:.17e}")).collect();
    format!("[{}]", items.join(","))
}

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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        return Err("usage: marginals_json K DRAWS SEED c1 c2 ...".into());
    }
    let k: usize = args[0].parse()?;
    let draws: usize = args[1].parse()?;
    let seed: u64 = args[2].parse()?;
    let claims: Vec<f64> = args[3..]
        .iter()
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let sel = Selection::proportional(&claims, k)?;
    let cps = ConditionalPoisson::new(&sel)?;
    let mut out = vec![format!("\"ideal\":{}", arr(sel.pi()))];
    out.push(format!(
        "\"successive_exact\":{}",
        successive_marginals(&claims, k)
            .map(|v| arr(&v))
            .unwrap_or_else(|_| "null".into())
    ));
    out.push(format!("\"cps_design\":{}", arr(&cps.design_marginals())));
    out.push(format!("\"cps_working\":{}", arr(&cps.working_probs())));
    out.push(format!(
        "\"cps_joint\":{}",
        match cps.joint_inclusion() {
            Ok(j) => format!(
                "[{}]",
                j.rows()
                    .into_iter()
                    .map(|r| arr(&r.to_vec()))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Err(_) => "null".into(),
        }
    ));
    out.push(format!(
        "\"freq_systematic\":{}",
        arr(&freq(&Systematic::new(&sel), draws, seed))
    ));
    out.push(format!(
        "\"freq_pipage\":{}",
        arr(&freq(&Pipage::new(&sel), draws, seed + 1))
    ));
    out.push(format!(
        "\"freq_cps\":{}",
        arr(&freq(&cps, draws, seed + 2))
    ));
    out.push(format!(
        "\"freq_sampford\":{}",
        arr(&freq(&Sampford::new(&sel)?, draws, seed + 3))
    ));
    out.push(format!(
        "\"freq_successive\":{}",
        arr(&freq(&Successive::new(&claims, k)?, draws, seed + 4))
    ));
    println!("{{{}}}", out.join(","));
    Ok(())
}
