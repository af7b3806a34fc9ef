//! A tiny char-level transformer trained from scratch on addition over
//! `[0, 40)²`, once on a random 70/30 split and once with a hole of
//! half-side 5 at (20, 20); prints exact-match accuracy, accuracy by L∞
//! ring around the training data, and the kNN reference on the same split.
//!
//! Run: `cargo run --release --example rule_following_tiny_transformer_hole [-- SEED [STEPS]]`.

use mlcore::sampling::seeded;
use rule_following::eval::accuracy_by;
use rule_following::experiment::GridExperiment;
use rule_following::split::Split;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed: u64 = args.first().map_or(Ok(0), |s| s.parse())?;
    let steps: usize = args.get(1).map_or(Ok(2000), |s| s.parse())?;
    for (name, split) in [
        ("random 70/30", Split::Random { train_ratio: 0.7 }),
        ("hole (20, 20) half-side 5", Split::one_hole(20, 20, 5)),
    ] {
        let mut exp = GridExperiment::quick(split);
        exp.steps = steps;
        let out = exp.run(&mut seeded(seed))?;
        println!(
            "{name}: transformer {}/{} = {:.3} (parse failures {}), kNN {:.3}; {} steps, loss {:.4}, {:.1} s, {:.0} tokens/s",
            out.exact.correct,
            out.exact.total(),
            out.exact.accuracy(),
            out.exact.parse_failures,
            out.knn_exact.accuracy(),
            out.steps,
            out.final_loss,
            out.train_seconds,
            out.tokens_per_second
        );
        for ((d, c, t), (_, kc, _)) in accuracy_by(&out.distances, &out.correct)?
            .into_iter()
            .zip(accuracy_by(&out.distances, &out.knn_correct)?)
        {
            println!("  L∞ ring {d}: transformer {c}/{t}, kNN {kc}/{t}");
        }
    }
    Ok(())
}
