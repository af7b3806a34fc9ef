//! Writes what `scripts/compare/rule_following.py` compares against its
//! plain-Python peer: (1) addition samples with their fine-tuning
//! scratchpads on `[0, n)²` (n = 317: 100,489 records) in the official JSON
//! layout, with the generation time; (2) a random 70/30 split of `[0, 40)²`
//! and the 1-NN predictions on it, for scikit-learn's `KNeighborsClassifier`.
//!
//! Run: `cargo run --release --example rule_following_export -- DIR [N]`.

use mlcore::sampling::seeded;
use rule_following::format::Format;
use rule_following::io::{Record, write_json};
use rule_following::knn::Knn;
use rule_following::split::Split;
use rule_following::task::{Answer, Task};
use serde_json::json;
use std::time::Instant;

fn generate(n: u64) -> rule_following::Result<String> {
    let task = Task::Addition { n };
    let f = Format::Scratchpad {
        released_line_count: false,
    };
    let records = task
        .grid()?
        .iter()
        .map(|s| {
            let mut r = Record::from_sample(s);
            r.answers = vec![Answer::Text(f.render(&task, s)?.target)];
            r.gt = Some(s.answer.to_string());
            Ok(r)
        })
        .collect::<rule_following::Result<Vec<_>>>()?;
    write_json(&records, task.name())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::PathBuf::from(args.first().ok_or("usage: DIR [N]")?);
    let n: u64 = args.get(1).map_or(Ok(317), |s| s.parse())?;
    std::fs::create_dir_all(&dir)?;
    let mut best = f64::INFINITY;
    let mut text = String::new();
    for _ in 0..5 {
        let t = Instant::now();
        text = generate(n)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::fs::write(dir.join("generated.json"), &text)?;
    let task = Task::Addition { n: 40 };
    let sets = Split::Random { train_ratio: 0.7 }.apply(&task, &mut seeded(0))?;
    let knn = Knn::fit(&task, &sets.train, 1)?;
    let pred = knn.predict_samples(&task, &sets.test);
    let meta = json!({
        "n": n,
        "records": n * n,
        "generate_seconds_best_of_5": best,
        "knn": {
            "train": sets.train.iter().map(|s| [s.a, s.b]).collect::<Vec<_>>(),
            "train_labels": sets.train.iter().map(|s| s.answer.to_string()).collect::<Vec<_>>(),
            "test": sets.test.iter().map(|s| [s.a, s.b]).collect::<Vec<_>>(),
            "pred": pred,
        }
    });
    std::fs::write(dir.join("meta.json"), serde_json::to_string(&meta)?)?;
    println!(
        "{} records in {best:.3} s (best of 5); wrote {}",
        n * n,
        dir.display()
    );
    Ok(())
}
