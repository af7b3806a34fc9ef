//! The κ₂(V) table of the spec: median (and max) over draws of the
//! Vandermonde condition number for real, ring and roots-of-unity spectra,
//! at N = L and N = 8L, L ∈ {16, 32, 64}.
//!
//! What to check: real spectra reach 1e9 … 1e19 (f64 saturation near 1e17–1e20),
//! the π/10 ring is as bad as real, the 2π ring at N = 8L stays below ~25, and
//! roots of unity give exactly 0.95^−(L−1) (2.16, 4.90, 25.3).
//!
//! Run: `cargo run --release --example ssm_universality_cond_table [-- DRAWS SEED]` (defaults 20 and 0).

use mlcore::sampling::seeded;
use ssm_universality::experiments::cond_draws;
use ssm_universality::spectrum::Spectrum;
use std::f64::consts::{PI, TAU};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let draws: usize = args.get(1).map_or(Ok(20), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(0), |s| s.parse())?;
    let mut rng = seeded(seed);
    let spectra = [
        ("real U[0,1]", Spectrum::RealUniform { lo: 0.0, hi: 1.0 }),
        ("real U[-1,1]", Spectrum::RealUniform { lo: -1.0, hi: 1.0 }),
        (
            "ring [0.9,0.999] 2π",
            Spectrum::LruRing {
                r_min: 0.9,
                r_max: 0.999,
                max_phase: TAU,
            },
        ),
        (
            "ring [0.9,0.999] π/10",
            Spectrum::LruRing {
                r_min: 0.9,
                r_max: 0.999,
                max_phase: PI / 10.0,
            },
        ),
        (
            "ring [0.9,1] 2π",
            Spectrum::LruRing {
                r_min: 0.9,
                r_max: 1.0,
                max_phase: TAU,
            },
        ),
        ("roots r = 0.95", Spectrum::RootsOfUnity { r: 0.95 }),
    ];
    println!("median / max κ₂ over {draws} draws");
    println!(
        "{:<24} {:>4} {:>22} {:>22}",
        "spectrum", "L", "N = L", "N = 8L"
    );
    for (name, s) in &spectra {
        for l in [16usize, 32, 64] {
            let mut a = cond_draws(s, l, l, draws, &mut rng)?;
            let mut b = cond_draws(s, 8 * l, l, draws, &mut rng)?;
            a.sort_by(f64::total_cmp);
            b.sort_by(f64::total_cmp);
            println!(
                "{name:<24} {l:>4} {:>10.3e} / {:>9.3e} {:>10.3e} / {:>9.3e}",
                a[a.len() / 2],
                a[a.len() - 1],
                b[b.len() / 2],
                b[b.len() - 1]
            );
        }
    }
    Ok(())
}
