//! Evaluation, the kNN reference and the tiny transformer against
//! independent values (closed forms, hand-computed cases).

use nncore::train::TrainConfig;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rule_following::Solver;
use rule_following::eval::{accuracy_by, exact_match, extract_answer, linf_to_train};
use rule_following::format::{Format, Rendered};
use rule_following::knn::Knn;
use rule_following::split::Split;
use rule_following::task::{Task, TaskName};
use rule_following::transformer::{Positions, TinyTransformer, TransformerConfig};

/// In a hole of half-side h the L∞ ring r (1 ≤ r ≤ h + 1) holds
/// (2(h − r) + 3)² − (2(h − r) + 1)² points (the centre ring: 1).
#[test]
fn ring_sizes_of_a_hole_follow_the_closed_form() {
    let task = Task::Addition { n: 40 };
    for h in [1i64, 3, 5] {
        let sets = Split::one_hole(20, 20, h)
            .apply(&task, &mut ChaCha8Rng::seed_from_u64(0))
            .unwrap();
        let d = linf_to_train(&task, &sets.train, &sets.test).unwrap();
        let groups = accuracy_by(&d, &vec![true; d.len()]).unwrap();
        assert_eq!(groups.len() as i64, h + 1);
        for (r, _, count) in groups {
            let r = r as i64;
            let outer = 2 * (h - r) + 3;
            let inner = 2 * (h - r) + 1;
            let want = if r == h + 1 {
                1
            } else {
                outer * outer - inner * inner
            };
            assert_eq!(count as i64, want, "h = {h}, ring {r}");
        }
    }
}

#[test]
fn answers_are_extracted_from_the_last_numbers() {
    assert_eq!(
        extract_answer("40+40,,C:0\n+,80,C:0\n80", TaskName::Addition),
        Some(vec!["80".into()])
    );
    assert_eq!(
        extract_answer("The answer is 007.", TaskName::Addition),
        Some(vec!["7".into()])
    );
    assert_eq!(
        extract_answer(
            "There are 32 rabbits and 19 chickens.",
            TaskName::RabbitsAndChickens
        ),
        Some(vec!["32".into(), "19".into()])
    );
    assert_eq!(
        extract_answer("12 rabbits", TaskName::RabbitsAndChickens),
        None
    );
    assert_eq!(extract_answer("", TaskName::Addition), None);
    let task = Task::PAPER_MOD_ADDITION;
    let s = vec![task.sample(100, 20).unwrap()];
    let (m, _) = exact_match(&task, &s, &["=7".into()]).unwrap();
    assert_eq!(
        (m.correct, m.wrong),
        (1, 0),
        "(100 + 20) mod 113 = 7, an integer answer"
    );
}

/// The 1-NN on a hand-made split: each query's nearest case and its vote.
#[test]
fn knn_votes_like_scikit_learn_on_hand_made_cases() {
    let task = Task::Addition { n: 10 };
    let train = vec![
        task.sample(0, 0).unwrap(),
        task.sample(0, 2).unwrap(),
        task.sample(5, 5).unwrap(),
    ];
    let knn = Knn::fit(&task, &train, 1).unwrap();
    assert_eq!(
        knn.predict(0, 1),
        "0",
        "tie at distance 1: the first training point"
    );
    assert_eq!(knn.predict(4, 4), "10");
    let knn3 = Knn::fit(&task, &train, 3).unwrap();
    assert_eq!(
        knn3.predict(1, 1),
        "0",
        "three labels tie 1–1–1: the smallest in sorted order"
    );
    let train = vec![
        task.sample(3, 4).unwrap(),
        task.sample(4, 3).unwrap(),
        task.sample(9, 9).unwrap(),
    ];
    let knn = Knn::fit(&task, &train, 3).unwrap();
    assert_eq!(knn.predict(0, 0), "7", "majority 2 of 3");
}

/// The ICL scratchpad carries one `# added` line per digit step.
#[test]
fn icl_scratchpad_known_value() {
    let task = Task::PAPER_ADDITION;
    let r = Format::ScratchpadIcl
        .render(&task, &task.sample(59, 13).unwrap())
        .unwrap();
    assert_eq!(
        r.target,
        "59+13,,C:0\n# added 9+3+0=12\n5+1,2,C:1\n# added 5+1+1=7\n+,72,C:0\n72"
    );
    let fit = r.fit(10).unwrap();
    assert_eq!(fit.truncated, r.tokens() - 10);
}

/// Training through nncore lowers the loss, and greedy decoding then
/// reproduces a memorised training set (both position encodings).
#[test]
fn the_tiny_transformer_memorises_a_small_training_set() {
    let task = Task::Addition { n: 10 };
    let samples: Vec<_> = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 9), (0, 5)]
        .iter()
        .map(|&(a, b)| task.sample(a, b).unwrap())
        .collect();
    let data: Vec<Rendered> = samples
        .iter()
        .map(|s| Format::Direct.render(&task, s).unwrap())
        .collect();
    for positions in [Positions::Learned, Positions::Sinusoidal] {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let config = TransformerConfig {
            d_model: 32,
            layers: 1,
            heads: 2,
            d_ff: 64,
            max_len: 12,
            positions,
        };
        let mut model = TinyTransformer::new(config, &mut rng).unwrap();
        let train = TrainConfig {
            epochs: 150,
            batch_size: 6,
            learning_rate: 1e-2,
            progress: false,
            ..Default::default()
        };
        let h = model.train(&data, &train, &mut rng).unwrap();
        assert!(
            h.step_losses[h.step_losses.len() - 1] < 0.1 * h.step_losses[0],
            "{positions:?}: loss falls"
        );
        let prompts: Vec<String> = samples.iter().map(|s| s.question.clone()).collect();
        let out = model.generate(&prompts).unwrap();
        let (m, _) = exact_match(&task, &samples, &out).unwrap();
        assert_eq!(m.correct, samples.len(), "{positions:?}: {out:?}");
        assert_eq!(model.answer("1+2=").unwrap(), "3");
    }
}
