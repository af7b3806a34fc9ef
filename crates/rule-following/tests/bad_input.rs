//! Bad input: every public entry point returns its typed error, never panics.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rule_following::Error;
use rule_following::eval::{accuracy_by, exact_match, linf_to_train};
use rule_following::format::{Format, Rendered};
use rule_following::io::{read_json, write_json};
use rule_following::knn::Knn;
use rule_following::rule::{digits, interpret_compact, trace, verify_compact};
use rule_following::split::{HalfSides, Split, Square, check_holes, parse_squares};
use rule_following::task::{Task, TaskName, from_base, to_base};
use rule_following::transformer::{TinyTransformer, TransformerConfig};

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(0)
}

#[test]
fn invalid_base_and_modulus() {
    for base in [0, 1, 11, 16] {
        assert!(matches!(to_base(5, base), Err(Error::InvalidBase(b)) if b == base));
        assert!(matches!(
            (Task::BaseAddition { base, n: 10 }).grid(),
            Err(Error::InvalidBase(_))
        ));
        assert!(matches!(
            trace(&[1], &[1], base),
            Err(Error::InvalidBase(_))
        ));
    }
    for p in [0, 1] {
        assert!(
            matches!((Task::ModAddition { p }).grid(), Err(Error::InvalidModulus(q)) if q == p)
        );
    }
    assert!(matches!(
        (Task::Addition { n: 0 }).grid(),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        (Task::Addition { n: u64::MAX }).check(),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn operands_outside_the_grid() {
    let t = Task::PAPER_ADDITION;
    assert!(matches!(t.sample(100, 0), Err(Error::OutOfGrid { .. })));
    assert!(matches!(t.sample_at(-1, 0), Err(Error::OutOfGrid { .. })));
    let c = Task::PAPER_CHICKEN_RABBIT;
    assert!(
        matches!(c.sample(11, 4), Err(Error::OutOfGrid { .. })),
        "odd legs"
    );
    assert!(
        matches!(c.sample(18, 4), Err(Error::OutOfGrid { .. })),
        "legs > 4·heads"
    );
    assert!(
        matches!(c.sample(4, 4), Err(Error::OutOfGrid { .. })),
        "legs < 2·heads"
    );
}

#[test]
fn holes_out_of_range_overlapping_or_unplaceable() {
    let t = Task::PAPER_ADDITION;
    let e = Split::one_hole(95, 50, 10).apply(&t, &mut rng());
    assert!(matches!(
        e,
        Err(Error::HoleOutOfRange {
            center: (95, 50),
            half: 10
        })
    ));
    assert!(matches!(
        Split::one_hole(50, 50, -1).apply(&t, &mut rng()),
        Err(Error::HoleOutOfRange { .. })
    ));
    let overlapping = vec![Square::new(30, 30, 5), Square::new(40, 40, 5)];
    assert!(matches!(
        check_holes(&t, &overlapping),
        Err(Error::OverlappingHoles {
            first: 0,
            second: 1
        })
    ));
    assert!(matches!(check_holes(&t, &[]), Err(Error::Empty(_))));
    let split = Split::MultiHole {
        k: 30,
        half_range: (10, 19),
        max_tries: 500,
        half_sides: HalfSides::Intended,
    };
    assert!(matches!(
        split.apply(&t, &mut rng()),
        Err(Error::CannotPlaceHoles { k: 30, tries: 500 })
    ));
    let split = Split::MultiHole {
        k: 0,
        half_range: (1, 2),
        max_tries: 5,
        half_sides: HalfSides::Intended,
    };
    assert!(matches!(
        split.apply(&t, &mut rng()),
        Err(Error::InvalidParameter { .. })
    ));
    let split = Split::MultiHole {
        k: 1,
        half_range: (3, 2),
        max_tries: 5,
        half_sides: HalfSides::Intended,
    };
    assert!(matches!(
        split.apply(&t, &mut rng()),
        Err(Error::InvalidParameter { .. })
    ));
    // A hole crossing the chicken & rabbit feasible region.
    let c = Task::PAPER_CHICKEN_RABBIT;
    assert!(matches!(
        Split::one_hole(50, 50, 5).apply(&c, &mut rng()),
        Err(Error::HoleOutOfRange { .. })
    ));
}

#[test]
fn empty_splits() {
    let t = Task::Addition { n: 3 };
    assert!(matches!(
        Split::one_hole(1, 1, 1).apply(&t, &mut rng()),
        Err(Error::EmptySplit { which: "training" })
    ));
    let tiny = Task::Addition { n: 1 };
    assert!(matches!(
        Split::Random { train_ratio: 0.5 }.apply(&tiny, &mut rng()),
        Err(Error::EmptySplit { .. })
    ));
    for r in [0.0, 1.0, -0.5, f64::NAN, f64::INFINITY] {
        let e = Split::Random { train_ratio: r }.apply(&Task::PAPER_ADDITION, &mut rng());
        assert!(matches!(e, Err(Error::InvalidParameter { .. })), "{r}");
    }
    let e = Split::External { test_ids: vec![] }.apply(&t, &mut rng());
    assert!(matches!(e, Err(Error::EmptySplit { which: "test" })));
    let e = Split::External {
        test_ids: vec![1, 1],
    }
    .apply(&t, &mut rng());
    assert!(matches!(e, Err(Error::InvalidParameter { .. })));
    let e = Split::External { test_ids: vec![99] }.apply(&t, &mut rng());
    assert!(matches!(e, Err(Error::InvalidParameter { .. })));
    let e = Split::Rows {
        rows: vec![],
        range: (0, 1),
    }
    .apply(&t, &mut rng());
    assert!(matches!(e, Err(Error::Empty(_))));
    let e = Split::Columns {
        columns: vec![1],
        range: (2, 1),
    }
    .apply(&t, &mut rng());
    assert!(matches!(e, Err(Error::InvalidParameter { .. })));
}

#[test]
fn malformed_json_names_the_line() {
    let e = read_json(
        "[\n{\"id\": 1,\n \"question\": \"1+1=\", \"answers\": [\"2\"]},\n{\"id\": 2, \"question\": 5, \"answers\": [\"3\"]}\n]",
    );
    assert!(matches!(e, Err(Error::Parse { line: 4, .. })), "{e:?}");
    assert!(matches!(
        read_json("[\n{\"id\": 1,\n oops}]"),
        Err(Error::Parse { line: 3, .. })
    ));
    assert!(matches!(read_json("{}"), Err(Error::Parse { .. })));
    assert!(matches!(read_json("[]"), Err(Error::Empty(_))));
    assert!(matches!(
        read_json("[{\"id\": 1, \"question\": \"q\", \"answers\": [1.5]}]"),
        Err(Error::Parse { .. })
    ));
    assert!(matches!(
        read_json("[{\"id\": -1, \"question\": \"q\", \"answers\": [\"1\"]}]"),
        Err(Error::Parse { .. })
    ));
    assert!(matches!(
        write_json(&[], TaskName::Addition),
        Err(Error::Empty(_))
    ));
    let r = read_json("[{\"id\": 1, \"question\": \"q\", \"answers\": [\"1\"]}]").unwrap();
    assert!(
        matches!(r[0].to_sample(), Err(Error::Parse { .. })),
        "no operands"
    );
    assert!(matches!(
        parse_squares("centers:[(1, 2)]\nlengths:[1, 2]"),
        Err(Error::Parse { line: 2, .. })
    ));
    assert!(matches!(
        parse_squares("hello"),
        Err(Error::Parse { line: 1, .. })
    ));
}

#[test]
fn an_answer_that_does_not_match_its_question() {
    let t = Task::PAPER_ADDITION;
    let mut s = t.sample(3, 4).unwrap();
    s.answer = rule_following::task::Answer::Text("8".into());
    assert!(matches!(
        t.verify(&s),
        Err(Error::AnswerMismatch { id: 304, .. })
    ));
    assert!(matches!(
        Format::Direct.render(&t, &s),
        Err(Error::AnswerMismatch { .. })
    ));
}

#[test]
fn prompts_empty_or_over_budget_and_unknown_names() {
    let r = Rendered {
        prompt: String::new(),
        target: "1".into(),
    };
    assert!(matches!(
        r.fit(10),
        Err(Error::PromptBudget { len: 0, budget: 10 })
    ));
    let r = Rendered {
        prompt: "12+34=".into(),
        target: "46".into(),
    };
    assert!(matches!(
        r.fit(5),
        Err(Error::PromptBudget { len: 6, budget: 5 })
    ));
    let f = r.fit(7).unwrap();
    assert_eq!(
        (f.text.as_str(), f.truncated),
        ("12+34=4", 1),
        "truncation is reported"
    );
    assert!(matches!(
        "chickens_and_rabbit".parse::<TaskName>(),
        Err(Error::UnknownTask(_))
    ));
    assert_eq!(
        "chickens_and_rabbits".parse::<TaskName>().unwrap(),
        TaskName::RabbitsAndChickens
    );
    let model = TinyTransformer::new(
        TransformerConfig {
            max_len: 8,
            ..Default::default()
        },
        &mut rng(),
    )
    .unwrap();
    assert!(matches!(
        model.generate(&["".into()]),
        Err(Error::PromptBudget { .. })
    ));
    assert!(matches!(
        model.generate(&["12345678+9=".into()]),
        Err(Error::PromptBudget { .. })
    ));
    assert!(matches!(
        model.generate(&["a+b=".into()]),
        Err(Error::UnknownToken('a'))
    ));
    let bad = TransformerConfig {
        d_model: 30,
        heads: 4,
        ..Default::default()
    };
    assert!(matches!(
        TinyTransformer::new(bad, &mut rng()),
        Err(Error::InvalidParameter { .. })
    ));
    let t = Task::PAPER_MOD_ADDITION;
    assert!(matches!(
        Format::CompactRule.render(&t, &t.sample(1, 2).unwrap()),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn evaluation_and_knn_inputs() {
    let t = Task::Addition { n: 4 };
    let g = t.grid().unwrap();
    assert!(matches!(exact_match(&t, &[], &[]), Err(Error::Empty(_))));
    assert!(matches!(
        exact_match(&t, &g, &[]),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(linf_to_train(&t, &[], &g), Err(Error::Empty(_))));
    assert!(matches!(accuracy_by::<i64>(&[], &[]), Err(Error::Empty(_))));
    assert!(matches!(
        accuracy_by(&[1], &[]),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Knn::fit(&t, &g, 0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Knn::fit(&t, &g, 17),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(Knn::fit(&t, &[], 1), Err(Error::Empty(_))));
    let outputs: Vec<String> = g.iter().map(|_| "no number".to_string()).collect();
    let (m, _) = exact_match(&t, &g, &outputs).unwrap();
    assert_eq!(
        (m.parse_failures, m.correct, m.wrong),
        (16, 0, 0),
        "parse failures counted apart"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(7), ..ProptestConfig::with_cases(64) })]

    /// Hostile text never panics the readers, the verifier or the interpreter.
    #[test]
    fn hostile_text_never_panics(text in ".{0,120}", base in 0u32..14) {
        let _ = read_json(&text);
        let _ = parse_squares(&text);
        let _ = text.parse::<TaskName>();
        let _ = from_base(&text, base);
        let _ = digits(&text, base);
        let _ = interpret_compact(&text, base);
        let _ = verify_compact(&[1, 2], &[3], base, &text);
        let r = Rendered { prompt: text.clone(), target: text.clone() };
        let _ = r.fit(base as usize * 10);
    }

    /// Hostile parameters never panic the generators and splits.
    #[test]
    fn hostile_parameters_never_panic(n in 0u64..64, p in 0u64..40, base in 0u32..14,
                                      cx in -20i64..80, cy in -20i64..80, h in -3i64..30,
                                      k in 0usize..6, lo in -2i64..12, hi in -2i64..12,
                                      ratio in -1.0f64..2.0, a in 0u64..200, b in 0u64..200) {
        for task in [Task::Addition { n }, Task::ModAddition { p }, Task::BaseAddition { base, n },
                     Task::LinearRegression { alpha: i64::MAX, beta: 2, gamma: 3, n },
                     Task::ChickenRabbit { max_heads: n }] {
            let _ = task.sample(a, b);
            let _ = task.sample_at(cx, cy);
            let _ = Split::one_hole(cx, cy, h).apply(&task, &mut rng());
            let _ = Split::MultiHole { k, half_range: (lo, hi), max_tries: 200, half_sides: HalfSides::ReleasedCompat }
                .apply(&task, &mut rng());
            let _ = Split::Random { train_ratio: ratio }.apply(&task, &mut rng());
            let _ = Split::Rows { rows: vec![cx], range: (lo, hi) }.apply(&task, &mut rng());
            if let Ok(s) = task.sample(a, b) {
                for f in [Format::Direct, Format::Rfft, Format::CompactRule, Format::ScratchpadIcl,
                          Format::Scratchpad { released_line_count: true }] {
                    let _ = f.render(&task, &s);
                }
            }
        }
        let _ = trace(&[a as u8 % 16], &[b as u8 % 16], base);
    }
}
