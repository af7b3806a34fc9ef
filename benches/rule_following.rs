//! rule-following: (1) generation of addition samples with their fine-tuning
//! scratchpads in the official JSON layout, on grids of 10⁴, 4·10⁴ and
//! ≈10⁵ samples (compared with a plain-Python generator by
//! `scripts/compare/rule_following.py`); (2) one epoch of the tiny
//! transformer (d = 64, 2 layers, 4 heads, batch 64) on 256, 512 and 1024
//! direct-format additions (tokens per second; run with RAYON_NUM_THREADS=1).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mlcore::sampling::seeded;
use nncore::train::TrainConfig;
use rule_following::format::{Format, Rendered};
use rule_following::io::{Record, write_json};
use rule_following::task::{Answer, Task};
use rule_following::transformer::{TinyTransformer, TransformerConfig};

fn generate(n: u64) -> String {
    let task = Task::Addition { n };
    let f = Format::Scratchpad {
        released_line_count: false,
    };
    let records: Vec<Record> = task
        .grid()
        .unwrap()
        .iter()
        .map(|s| {
            let mut r = Record::from_sample(s);
            r.answers = vec![Answer::Text(f.render(&task, s).unwrap().target)];
            r.gt = Some(s.answer.to_string());
            r
        })
        .collect();
    write_json(&records, task.name()).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("rule_following_generate");
    g.sample_size(10);
    for n in [100u64, 200, 317] {
        g.bench_function(BenchmarkId::from_parameter(n * n), |b| {
            b.iter(|| generate(n))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("rule_following_transformer_epoch");
    g.sample_size(10);
    let task = Task::Addition { n: 40 };
    let grid = task.grid().unwrap();
    for size in [256usize, 512, 1024] {
        let data: Vec<Rendered> = grid
            .iter()
            .step_by(grid.len() / size)
            .take(size)
            .map(|s| Format::Direct.render(&task, s).unwrap())
            .collect();
        let mut rng = seeded(0);
        let mut model = TinyTransformer::new(TransformerConfig::default(), &mut rng).unwrap();
        let config = TrainConfig {
            epochs: 1,
            batch_size: 64,
            progress: false,
            ..Default::default()
        };
        g.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| model.train(&data, &config, &mut rng).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
