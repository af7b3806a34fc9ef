//! Prints the paper's table of graph pairs: for each pair and WL variant,
//! `T@i` (first round whose colour histograms differ) or `F`.
use std::time::Instant;
use wl_transformer::named::table_pairs;
use wl_transformer::wl::{Variant, refine_pair};

fn main() -> wl_transformer::Result<()> {
    let variants = [
        Variant::OneWl,
        Variant::Oblivious { k: 2 },
        Variant::Delta { k: 2 },
        Variant::DeltaLocal { k: 2 },
        Variant::Local { k: 2, s: 1 },
        Variant::Folklore { k: 2 },
        Variant::Local { k: 3, s: 1 },
        Variant::Oblivious { k: 3 },
        Variant::Delta { k: 3 },
        Variant::Folklore { k: 3 },
    ];
    for (name, g1, g2) in table_pairs() {
        print!("{name:28}");
        for v in variants {
            let t = Instant::now();
            let o = refine_pair(&g1, &g2, v, None)?;
            let cell = match o.iteration {
                Some(i) => format!("T@{i}"),
                None => "F".into(),
            };
            print!(" {}={cell}({:.2}s)", v.name(), t.elapsed().as_secs_f64());
        }
        println!();
    }
    Ok(())
}
