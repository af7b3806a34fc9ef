//! Property 7 of the spec: the generator reproduces every vendored official
//! test set exactly, record for record in id order, and the writer gives the
//! released bytes back.

use mlcore::data::Dataset;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rule_following::format::Format;
use rule_following::io::{Record, read_json, write_json};
use rule_following::split::{Split, parse_squares};
use rule_following::task::{Answer, Task};

fn data() -> Dataset {
    // The workspace data folder seen from this crate (not via mlcore, whose
    // compiled path may belong to another checkout sharing the target dir).
    Dataset::open(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/rule-following"),
    )
    .expect("vendored data")
}

fn read(file: &str) -> String {
    data().read_to_string(file).expect(file)
}

/// Regenerates a hole test set and compares it with the file, byte for byte
/// through the writer and record for record through the reader.
fn check_holes(task: Task, split: Split, file: &str) -> usize {
    let text = read(file);
    let official = read_json(&text).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let sets = split.apply(&task, &mut rng).unwrap();
    let ours: Vec<Record> = sets.test.iter().map(Record::from_sample).collect();
    assert_eq!(ours.len(), official.len(), "{file}: count");
    for (o, r) in ours.iter().zip(&official) {
        assert_eq!(o, r, "{file}: record {}", r.id);
    }
    assert_eq!(
        write_json(&ours, task.name()).unwrap(),
        text,
        "{file}: bytes"
    );
    for r in &official {
        task.verify(&r.to_sample().unwrap()).unwrap();
    }
    ours.len()
}

#[test]
fn one_hole_test_sets_of_all_five_tasks_are_reproduced_exactly() {
    let cases = [
        (
            Task::PAPER_ADDITION,
            (50, 50),
            "addition/1hole_50_50_10_441_0-100/test.json.gz",
        ),
        (
            Task::PAPER_MOD_ADDITION,
            (56, 56),
            "mod_addition/1hole_56_56_10_441_0-113/test.json.gz",
        ),
        (
            Task::PAPER_BASE_ADDITION,
            (50, 50),
            "base_addition/1hole_50_50_10_441_0-100/test.json.gz",
        ),
        (
            Task::PAPER_LINEAR_REGRESSION,
            (50, 50),
            "linear_regression/1hole_50_50_10_441_0-100/test.json.gz",
        ),
        (
            Task::PAPER_CHICKEN_RABBIT,
            (70, 50),
            "rabbits_and_chickens/1hole_70_50_10_441_0-100/test.json.gz",
        ),
    ];
    for (task, (cx, cy), file) in cases {
        assert_eq!(
            check_holes(task, Split::one_hole(cx, cy, 10), file),
            441,
            "{file}"
        );
    }
}

#[test]
fn the_addition_training_set_of_the_hole_is_the_grid_minus_the_hole() {
    let text = read("addition/1hole_50_50_10_441_0-100/train.json.gz");
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let sets = Split::one_hole(50, 50, 10)
        .apply(&Task::PAPER_ADDITION, &mut rng)
        .unwrap();
    assert_eq!(sets.train.len(), 9559);
    let ours: Vec<Record> = sets.train.iter().map(Record::from_sample).collect();
    assert_eq!(
        write_json(&ours, Task::PAPER_ADDITION.name()).unwrap(),
        text
    );
}

#[test]
fn three_hole_test_sets_are_reproduced_from_their_squares() {
    let cases = [
        (Task::PAPER_ADDITION, "addition/3hole_1411_0-100", 1411),
        (
            Task::PAPER_MOD_ADDITION,
            "mod_addition/3hole_2803_0-113",
            2803,
        ),
        (
            Task::PAPER_CHICKEN_RABBIT,
            "rabbits_and_chickens/3hole_363_0-100",
            363,
        ),
    ];
    for (task, dir, count) in cases {
        let squares = parse_squares(&read(&format!("{dir}/test_squares.txt.gz"))).unwrap();
        assert_eq!(squares.len(), 3);
        let n = check_holes(task, Split::Holes(squares), &format!("{dir}/test.json.gz"));
        assert_eq!(n, count, "{dir}");
    }
}

#[test]
fn scratchpad_test_sets_are_reproduced_with_the_released_line_count() {
    for (task, file) in [
        (
            Task::PAPER_ADDITION,
            "addition/1hole_50_50_10_441_0-100_cot/test.json.gz",
        ),
        (
            Task::PAPER_BASE_ADDITION,
            "base_addition/1hole_50_50_10_441_0-100_cot/test.json.gz",
        ),
    ] {
        let text = read(file);
        let official = read_json(&text).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let sets = Split::one_hole(50, 50, 10).apply(&task, &mut rng).unwrap();
        let fmt = Format::Scratchpad {
            released_line_count: true,
        };
        let mut repeated = 0;
        let ours: Vec<Record> = sets
            .test
            .iter()
            .map(|s| {
                let r = fmt.render(&task, s).unwrap();
                let fixed = Format::Scratchpad {
                    released_line_count: false,
                }
                .render(&task, s)
                .unwrap();
                repeated += usize::from(fixed.target != r.target);
                let mut rec = Record::from_sample(s);
                rec.answers = vec![Answer::Text(r.target)];
                rec.gt = Some(s.answer.to_string());
                rec
            })
            .collect();
        assert_eq!(ours, official, "{file}");
        assert_eq!(
            write_json(&ours, task.name()).unwrap(),
            text,
            "{file}: bytes"
        );
        // The spec: 1 of 441 base-9 records repeats its last line; none in decimal.
        let expect = if task == Task::PAPER_ADDITION { 0 } else { 1 };
        assert_eq!(repeated, expect, "{file}");
    }
}

#[test]
fn the_random_split_is_loaded_as_an_external_split() {
    let official = read_json(&read(
        "addition/random_split_0.7_7000_3000_0-100/test.json.gz",
    ))
    .unwrap();
    let ids: Vec<u64> = official.iter().map(|r| r.id).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let sets = Split::External { test_ids: ids }
        .apply(&Task::PAPER_ADDITION, &mut rng)
        .unwrap();
    assert_eq!((sets.train.len(), sets.test.len()), (7000, 3000));
    let ours: Vec<Record> = sets.test.iter().map(Record::from_sample).collect();
    assert_eq!(ours, official);
}
