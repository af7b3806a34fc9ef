//! Counts, per WL variant, the non-isomorphic pairs of the vendored graph
//! atlas (1,253 graphs, ≤ 7 nodes) that the variant leaves undistinguished.
use std::time::Instant;
use wl_transformer::wl::{Variant, undistinguished_pairs};

fn main() -> wl_transformer::Result<()> {
    let atlas = wl_transformer::io::vendored_atlas()?;
    for v in [
        Variant::OneWl,
        Variant::Delta { k: 2 },
        Variant::DeltaLocal { k: 2 },
        Variant::Local { k: 2, s: 1 },
        Variant::Folklore { k: 2 },
        Variant::Local { k: 3, s: 1 },
    ] {
        let t = Instant::now();
        let c = undistinguished_pairs(&atlas, v)?.len();
        println!(
            "{:10} {c:4} pairs  {:.2} s",
            v.name(),
            t.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
