//! Random-weight separations: `‖f(G₁) − f(G₂)‖_∞` of the (2,1)-GT+SPE,
//! (3,1)-GT+SPE and the Edge Transformer on the paper's pairs (f64).
use candle_core::DType;
use nncore::params::ParamSet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use wl_transformer::model::{
    EdgeTransformer, EtConfig, GtConfig, PeKind, TupleGraphTransformer, max_abs_diff,
};
use wl_transformer::named::table_pairs;

fn main() -> wl_transformer::Result<()> {
    let seeds = 3u64;
    for (name, g1, g2) in table_pairs() {
        print!("{name:28}");
        for (label, order) in [("(2,1)+SPE", 2usize), ("(3,1)+SPE", 3)] {
            if order == 3 && g1.n() > 20 {
                print!(" {label}=skip");
                continue;
            }
            let mut worst = (f64::INFINITY, 0.0f64);
            for seed in 0..seeds {
                let cfg = GtConfig {
                    order,
                    pe: PeKind::Spe,
                    num_vecs: None,
                    layers: 2,
                    dim: 16,
                    heads: 2,
                    pe_dim: 16,
                    ..GtConfig::small()
                };
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut p = ParamSet::new();
                let m = TupleGraphTransformer::new(&cfg, &mut p, DType::F64, &mut rng)?;
                let t = std::time::Instant::now();
                let d = max_abs_diff(&m.forward(&g1)?, &m.forward(&g2)?)?;
                let _ = t;
                worst = (worst.0.min(d), worst.1.max(d));
            }
            print!(" {label}=[{:.1e},{:.1e}]", worst.0, worst.1);
        }
        let mut worst = (f64::INFINITY, 0.0f64);
        for seed in 0..seeds {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut p = ParamSet::new();
            let m = EdgeTransformer::new(
                &EtConfig {
                    layers: 5,
                    dim: 16,
                    heads: 2,
                    ..EtConfig::small()
                },
                &mut p,
                DType::F64,
                &mut rng,
            )?;
            let d = max_abs_diff(&m.forward(&g1)?, &m.forward(&g2)?)?;
            worst = (worst.0.min(d), worst.1.max(d));
        }
        println!(" ET=[{:.1e},{:.1e}]", worst.0, worst.1);
    }
    Ok(())
}
