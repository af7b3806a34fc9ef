//! Property tests 1–6 of the spec, with the spec's numbers.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rule_following::format::Format;
use rule_following::rule::{interpret_compact, trace, verify_compact};
use rule_following::split::{HalfSides, Split, Square};
use rule_following::task::{Answer, Task, from_base, to_base};
use std::collections::HashSet;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(seed),
        ..ProptestConfig::with_cases(cases)
    }
}

/// Property 1: the grid sizes 10⁴, 12 769 (p = 113) and 5050 (chicken & rabbit).
#[test]
fn grid_sizes_are_10000_12769_and_5050() {
    assert_eq!(Task::PAPER_ADDITION.grid().unwrap().len(), 10_000);
    assert_eq!(Task::PAPER_MOD_ADDITION.grid().unwrap().len(), 12_769);
    assert_eq!(Task::PAPER_BASE_ADDITION.grid().unwrap().len(), 10_000);
    assert_eq!(Task::PAPER_LINEAR_REGRESSION.grid().unwrap().len(), 10_000);
    assert_eq!(Task::PAPER_CHICKEN_RABBIT.grid().unwrap().len(), 5050);
}

/// Property 1: random 70/30 splits give 7000/3000, 8938/3831 and 3535/1515.
#[test]
fn random_split_counts_are_7000_3000_8938_3831_3535_1515() {
    let split = Split::Random { train_ratio: 0.7 };
    for (task, counts) in [
        (Task::PAPER_ADDITION, (7000, 3000)),
        (Task::PAPER_BASE_ADDITION, (7000, 3000)),
        (Task::PAPER_LINEAR_REGRESSION, (7000, 3000)),
        (Task::PAPER_MOD_ADDITION, (8938, 3831)),
        (Task::PAPER_CHICKEN_RABBIT, (3535, 1515)),
    ] {
        let s = split.apply(&task, &mut rng(42)).unwrap();
        assert_eq!((s.train.len(), s.test.len()), counts, "{:?}", task.name());
    }
}

/// Property 1: one hole of half-side 10 holds 441 test samples (9559 train),
/// half-side 8 holds 289; the three official addition holes hold 1411.
#[test]
fn hole_counts_are_441_289_and_1411() {
    let t = Task::PAPER_ADDITION;
    let s = Split::one_hole(50, 50, 10).apply(&t, &mut rng(0)).unwrap();
    assert_eq!((s.train.len(), s.test.len()), (9559, 441));
    let s = Split::one_hole(50, 50, 8).apply(&t, &mut rng(0)).unwrap();
    assert_eq!(s.test.len(), 289);
    let holes = vec![
        Square::new(53, 33, 10),
        Square::new(73, 78, 10),
        Square::new(13, 31, 11),
    ];
    assert_eq!(
        Split::Holes(holes)
            .apply(&t, &mut rng(0))
            .unwrap()
            .test
            .len(),
        1411
    );
}

fn check_partition(task: &Task, split: &Split, seed: u64) -> Vec<Square> {
    let s = split.apply(task, &mut rng(seed)).unwrap();
    let grid: HashSet<u64> = task.grid().unwrap().iter().map(|x| x.id).collect();
    let train: HashSet<u64> = s.train.iter().map(|x| x.id).collect();
    let test: HashSet<u64> = s.test.iter().map(|x| x.id).collect();
    assert_eq!(train.len(), s.train.len(), "no repeated training sample");
    assert_eq!(test.len(), s.test.len(), "no repeated test sample");
    assert!(train.is_disjoint(&test), "train ∩ test = ∅");
    let union: HashSet<u64> = train.union(&test).copied().collect();
    assert_eq!(union, grid, "train ∪ test = grid");
    let expect: i64 = s.squares.iter().map(Square::area).sum();
    if !s.squares.is_empty() {
        assert_eq!(
            s.test.len() as i64,
            expect,
            "holes are disjoint and inside: Σ(2h+1)²"
        );
    }
    s.squares
}

proptest! {
    #![proptest_config(config(24, 11))]

    /// Properties 1–2: one hole of half-side s anywhere inside the grid has
    /// (2s+1)² test and n² − (2s+1)² training samples, disjoint and covering.
    #[test]
    fn one_hole_counts_and_partition(n in 5u64..60, s in 0i64..4, fx in 0.0f64..1.0, fy in 0.0f64..1.0) {
        let n = n.max(2 * s as u64 + 2);
        let task = Task::Addition { n };
        let span = n as i64 - 2 * s;
        let cx = s + ((span as f64 * fx) as i64).min(span - 1);
        let cy = s + ((span as f64 * fy) as i64).min(span - 1);
        let sets = Split::one_hole(cx, cy, s).apply(&task, &mut rng(0)).unwrap();
        prop_assert_eq!(sets.test.len() as i64, (2 * s + 1).pow(2));
        prop_assert_eq!(sets.train.len() as i64, (n * n) as i64 - (2 * s + 1).pow(2));
        check_partition(&task, &Split::one_hole(cx, cy, s), 0);
    }

    /// Properties 2–3: drawn multi-holes (all five tasks, intended and
    /// released half-sides) lie inside the grid, do not overlap, and the
    /// split is a partition of the grid.
    #[test]
    fn multi_holes_inside_disjoint_and_partition(seed in 0u64..1000, k in 1usize..4, which in 0usize..5, compat in any::<bool>()) {
        let task = [Task::PAPER_ADDITION, Task::PAPER_MOD_ADDITION, Task::PAPER_BASE_ADDITION,
            Task::PAPER_LINEAR_REGRESSION, Task::PAPER_CHICKEN_RABBIT][which];
        let half_range = if which == 4 { (5, 14) } else { (10, 19) };
        let split = Split::MultiHole {
            k,
            half_range,
            max_tries: 100_000,
            half_sides: if compat { HalfSides::ReleasedCompat } else { HalfSides::Intended },
        };
        let squares = check_partition(&task, &split, seed);
        prop_assert_eq!(squares.len(), k);
        for (i, a) in squares.iter().enumerate() {
            prop_assert!(a.inside(&task));
            prop_assert!(a.half >= half_range.0);
            let hi = if compat { half_range.0 + 1 } else { half_range.1 };
            prop_assert!(a.half <= hi);
            for b in &squares[..i] {
                prop_assert!(!a.overlaps(b));
            }
        }
    }

    /// Property 4: every answer equals the recomputed result, all five tasks,
    /// bases 2..=10, moduli and coefficients drawn.
    #[test]
    fn answers_are_recomputed(base in 2u32..=10, n in 1u64..30, p in 2u64..30,
                              alpha in -5i64..5, beta in -5i64..5, gamma in -9i64..9, heads in 1u64..25) {
        for s in (Task::BaseAddition { base, n }).grid().unwrap() {
            let Answer::Text(ans) = &s.answer else { panic!("string answer") };
            prop_assert_eq!(from_base(ans, base).unwrap(), s.a + s.b);
            let (qa, qb) = s.question.trim_end_matches('=').split_once('+').unwrap();
            prop_assert_eq!((from_base(qa, base).unwrap(), from_base(qb, base).unwrap()), (s.a, s.b));
        }
        for s in (Task::Addition { n }).grid().unwrap() {
            prop_assert_eq!(s.answer.clone(), Answer::Text((s.a + s.b).to_string()));
            prop_assert_eq!(s.id, n * s.a + s.b);
        }
        for s in (Task::ModAddition { p }).grid().unwrap() {
            prop_assert_eq!(s.answer.clone(), Answer::Int(((s.a + s.b) % p) as i64));
        }
        for s in (Task::LinearRegression { alpha, beta, gamma, n }).grid().unwrap() {
            let v = alpha * s.a as i64 + beta * s.b as i64 + gamma;
            prop_assert_eq!(s.answer.clone(), Answer::Text(v.to_string()));
        }
        for (i, s) in (Task::ChickenRabbit { max_heads: heads }).grid().unwrap().iter().enumerate() {
            prop_assert_eq!(s.id, i as u64, "running ids");
            let text = s.answer.to_string();
            let nums: Vec<u64> = text.split(|c: char| !c.is_ascii_digit()).filter(|t| !t.is_empty())
                .map(|t| t.parse().unwrap()).collect();
            let (r, c) = (nums[0], nums[1]);
            prop_assert_eq!((4 * r + 2 * c, r + c), (s.a, s.b), "legs and heads");
        }
    }

    /// Property 5: the trace interpreter returns a + b for a, b < 10¹² (and
    /// in every base 2..=10), and the last scratchpad line is the answer.
    #[test]
    fn trace_interpreter_returns_the_sum(a in 0u64..1_000_000_000_000, b in 0u64..1_000_000_000_000, base in 2u32..=10) {
        let da = rule_following::rule::digits(&to_base(a, base).unwrap(), base).unwrap();
        let db = rule_following::rule::digits(&to_base(b, base).unwrap(), base).unwrap();
        let t = trace(&da, &db, base).unwrap();
        prop_assert_eq!(interpret_compact(&t.compact_text(), base).unwrap(), u128::from(a + b));
        prop_assert_eq!(t.answer(), to_base(a + b, base).unwrap());
        let task = Task::BaseAddition { base, n: 1 << 20 };
        let (sa, sb) = (a % (1 << 20), b % (1 << 20));
        let s = task.sample(sa, sb).unwrap();
        for f in [Format::Scratchpad { released_line_count: false }, Format::ScratchpadIcl, Format::CompactRule] {
            let r = f.render(&task, &s).unwrap();
            let last = r.target.rsplit('\n').next().unwrap().trim_start_matches('=');
            prop_assert_eq!(last, to_base(sa + sb, base).unwrap());
        }
        let r = Format::Rfft.render(&task, &s).unwrap();
        let want = format!("The answer is {}.", to_base(sa + sb, base).unwrap());
        prop_assert!(r.target.ends_with(&want));
    }

    /// Property 6: every single-character corruption of a valid compact trace
    /// is flagged at or before the step (line) that holds the corrupted character.
    #[test]
    fn every_single_token_corruption_is_flagged_in_time(a in 0u64..1_000_000, b in 0u64..1_000_000, base in 2u32..=10) {
        let da = rule_following::rule::digits(&to_base(a, base).unwrap(), base).unwrap();
        let db = rule_following::rule::digits(&to_base(b, base).unwrap(), base).unwrap();
        let text = trace(&da, &db, base).unwrap().compact_text();
        prop_assert!(verify_compact(&da, &db, base, &text).unwrap().is_valid());
        let chars: Vec<char> = text.chars().collect();
        let vocab: Vec<char> = "0123456789+=\n".chars().collect();
        for i in 0..chars.len() {
            let step = chars[..i].iter().filter(|&&c| c == '\n').count();
            for &c in &vocab {
                if c == chars[i] { continue; }
                let mut bad = chars.clone();
                bad[i] = c;
                let bad: String = bad.into_iter().collect();
                let v = verify_compact(&da, &db, base, &bad).unwrap();
                let at = v.first_bad_step;
                prop_assert!(at.is_some_and(|s| s <= step), "{:?} at char {} (step {}) flagged at {:?}", bad, i, step, at);
            }
        }
    }
}

/// The released chicken & rabbit half-sides: the three official holes
/// (half-side 5) hold 363 samples; the feasibility cap keeps drawn squares
/// inside `heads ≤ legs/2 ≤ 2·heads`.
#[test]
fn chicken_rabbit_holes_stay_feasible() {
    let task = Task::PAPER_CHICKEN_RABBIT;
    let holes = vec![
        Square::new(130, 82, 5),
        Square::new(88, 56, 5),
        Square::new(107, 89, 5),
    ];
    assert_eq!(
        Split::Holes(holes)
            .apply(&task, &mut rng(0))
            .unwrap()
            .test
            .len(),
        363
    );
    assert!(
        !Square::new(60, 50, 12).inside(&task),
        "crosses legs/2 = heads"
    );
}

/// The 59 + 13 trace of the paper's RFFT example.
#[test]
fn the_59_plus_13_trace() {
    let t = trace(&[5, 9], &[1, 3], 10).unwrap();
    assert_eq!(t.steps.len(), 2);
    assert_eq!((t.steps[0].total, t.steps[0].carry_out), (12, 1));
    assert_eq!((t.steps[1].total, t.steps[1].carry_out), (7, 0));
    assert_eq!(t.answer(), "72");
    let task = Task::PAPER_ADDITION;
    let r = Format::Rfft
        .render(&task, &task.sample(59, 13).unwrap())
        .unwrap();
    assert!(
        r.prompt
            .starts_with("Follow the code step by step to answer the question: 59+13=")
    );
    assert!(r.prompt.contains("num1=[5, 9]"));
    assert!(r.target.contains("total=digit1+digit2+carry=9+3+0=12"));
    assert!(r.target.contains("carry=12//10=1"));
    assert!(r.target.ends_with("The answer is 72."));
}

/// Scratchpad lines for 40 + 40 as in the official files, and 99 + 1 with its final carry.
#[test]
fn scratchpad_known_values() {
    let task = Task::PAPER_ADDITION;
    let f = Format::Scratchpad {
        released_line_count: false,
    };
    let r = f.render(&task, &task.sample(40, 40).unwrap()).unwrap();
    assert_eq!(r.target, "40+40,,C:0\n4+4,0,C:0\n+,80,C:0\n80");
    let r = f.render(&task, &task.sample(99, 1).unwrap()).unwrap();
    assert_eq!(r.target, "99+1,,C:0\n9+,0,C:1\n+,00,C:1\n+,100,C:0\n100");
    // The base-9 record the released files repeat: 44 + 44 (a = b = 40).
    let base = Task::PAPER_BASE_ADDITION;
    let s = base.sample(40, 40).unwrap();
    let fixed = f.render(&base, &s).unwrap().target;
    assert_eq!(fixed, "44+44,,C:0\n4+4,8,C:0\n+,88,C:0\n88");
    let compat = Format::Scratchpad {
        released_line_count: true,
    }
    .render(&base, &s)
    .unwrap()
    .target;
    assert_eq!(compat, "44+44,,C:0\n4+4,8,C:0\n+,88,C:0\n+,88,C:0\n88");
}
