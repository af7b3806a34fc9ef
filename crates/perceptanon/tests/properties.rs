//! Property tests of the spec: rank-correlation identities and invariances,
//! Knight's τ against brute force, SSIM/PSNR identities, split invariants
//! and label transforms.

use ndarray::{Array1, Array3};
use perceptanon::corr::{
    KendallVariant, average_ranks, kendall, kendall_brute_force, pearson, spearman,
};
use perceptanon::image::Image;
use perceptanon::iqa::{SsimParams, psnr, ssim};
use perceptanon::labels::{LabelScale, Target};
use perceptanon::split::{SampleMeta, SplitKind, make_split, stratified, stratum};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;

fn config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(seed),
        ..ProptestConfig::with_cases(cases)
    }
}

/// Pairs with ties (values on a small integer grid) and n in 3..=200.
fn tied_pairs() -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (3usize..=200).prop_flat_map(|n| {
        (
            prop::collection::vec(0u8..7, n).prop_map(|v| v.into_iter().map(f64::from).collect()),
            prop::collection::vec(0u8..7, n).prop_map(|v| v.into_iter().map(f64::from).collect()),
        )
    })
}

fn not_constant(v: &[f64]) -> bool {
    v.iter().any(|&a| a != v[0])
}

proptest! {
    #![proptest_config(config(200, 0x5eed_0001))]

    /// Spearman ρ equals Pearson r on the average ranks (spec property).
    #[test]
    fn spearman_is_pearson_on_average_ranks((x, y) in tied_pairs()) {
        prop_assume!(not_constant(&x) && not_constant(&y));
        let (x, y) = (Array1::from(x), Array1::from(y));
        let rs = spearman(x.view(), y.view()).unwrap().value;
        let rx = Array1::from(average_ranks(x.view()).unwrap());
        let ry = Array1::from(average_ranks(y.view()).unwrap());
        let rp = pearson(rx.view(), ry.view()).unwrap().value;
        prop_assert!((rs - rp).abs() <= 1e-14);
    }

    /// ρ_S and τ-b are invariant under strictly increasing maps and lie in [−1, 1].
    #[test]
    fn rank_correlations_invariant_under_increasing_maps((x, y) in tied_pairs()) {
        prop_assume!(not_constant(&x) && not_constant(&y));
        let fx: Vec<f64> = x.iter().map(|v| (0.7 * v).exp() - 3.0).collect();
        let fy: Vec<f64> = y.iter().map(|v| v * v * v + 2.0 * v).collect();
        let (x, y, fx, fy) = (Array1::from(x), Array1::from(y), Array1::from(fx), Array1::from(fy));
        let s = spearman(x.view(), y.view()).unwrap().value;
        let sf = spearman(fx.view(), fy.view()).unwrap().value;
        let t = kendall(x.view(), y.view(), KendallVariant::B).unwrap().value;
        let tf = kendall(fx.view(), fy.view(), KendallVariant::B).unwrap().value;
        prop_assert!((s - sf).abs() <= 1e-12);
        prop_assert!((t - tf).abs() <= 1e-12);
        for v in [s, t] {
            prop_assert!((-1.0..=1.0).contains(&v));
        }
    }

    /// Knight's O(n log n) τ (a, b, c) equals the O(n²) pair count.
    #[test]
    fn knight_equals_brute_force((x, y) in tied_pairs()) {
        prop_assume!(not_constant(&x) && not_constant(&y));
        let (x, y) = (Array1::from(x), Array1::from(y));
        for v in [KendallVariant::A, KendallVariant::B, KendallVariant::C] {
            let fast = kendall(x.view(), y.view(), v).unwrap().value;
            let slow = kendall_brute_force(x.view(), y.view(), v).unwrap();
            prop_assert!((fast - slow).abs() <= 1e-12, "{v:?}: {fast} vs {slow}");
        }
    }
}

fn image_strategy() -> impl Strategy<Value = (Image, Image)> {
    (
        11usize..24,
        11usize..24,
        prop::sample::select(vec![1usize, 3]),
    )
        .prop_flat_map(|(h, w, c)| {
            (
                prop::collection::vec(0.0f64..1.0, h * w * c),
                prop::collection::vec(0.0f64..1.0, h * w * c),
            )
                .prop_map(move |(a, b)| {
                    (
                        Image::new(Array3::from_shape_vec((h, w, c), a).unwrap()).unwrap(),
                        Image::new(Array3::from_shape_vec((h, w, c), b).unwrap()).unwrap(),
                    )
                })
        })
}

proptest! {
    #![proptest_config(config(64, 0x5eed_0002))]

    /// SSIM(x, x) = 1, SSIM is symmetric and ≤ 1; PSNR(x, x) = +∞.
    #[test]
    fn ssim_identity_symmetry_bound((a, b) in image_strategy()) {
        for p in [SsimParams::standard(), SsimParams::perceptanon_compat(), SsimParams::skimage_default()] {
            prop_assert!((ssim(&a, &a, &p).unwrap() - 1.0).abs() <= 1e-12);
            let ab = ssim(&a, &b, &p).unwrap();
            let ba = ssim(&b, &a, &p).unwrap();
            prop_assert!((ab - ba).abs() <= 1e-12);
            prop_assert!(ab <= 1.0 + 1e-12);
        }
        prop_assert_eq!(psnr(&a, &a, 1.0).unwrap(), f64::INFINITY);
    }
}

fn metas(scores: &[f64]) -> Vec<SampleMeta> {
    let ds = ["coco", "voc", "lfw", "celeba"];
    let ms = ["mask", "inpaint", "blurpix"];
    scores
        .iter()
        .enumerate()
        .map(|(i, &score)| SampleMeta {
            score,
            dataset: ds[i % 4].to_string(),
            method: ms[(i / 4) % 3].to_string(),
        })
        .collect()
}

proptest! {
    #![proptest_config(config(100, 0x5eed_0003))]

    /// Splits are disjoint and cover everything; within every stratum each
    /// part is within one item of its 60/20/20 share.
    #[test]
    fn stratified_split_disjoint_covering_balanced(
        scores in prop::collection::vec(1.0f64..=10.0, 1..300),
        seed in any::<u64>(),
    ) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let all: Vec<usize> = (0..scores.len()).collect();
        let s = stratified(&scores, &all, [0.6, 0.2, 0.2], &mut rng).unwrap();
        let mut seen: Vec<usize> = s.train.iter().chain(&s.val).chain(&s.test).copied().collect();
        seen.sort_unstable();
        prop_assert_eq!(&seen, &all);
        let mut strata: std::collections::BTreeMap<usize, [usize; 4]> = Default::default();
        for (part, idx) in [&s.train, &s.val, &s.test].iter().enumerate() {
            for &i in *idx {
                let e = strata.entry(stratum(scores[i])).or_default();
                e[part] += 1;
                e[3] += 1;
            }
        }
        for (_, [tr, va, te, n]) in strata {
            let n = n as f64;
            prop_assert!((tr as f64 - 0.6 * n).abs() <= 1.0);
            prop_assert!((va as f64 - 0.2 * n).abs() <= 1.0);
            prop_assert!((te as f64 - 0.2 * n).abs() <= 1.0);
        }
    }

    /// Leave-one-out splits put exactly the held-out group in test.
    #[test]
    fn leave_one_out_splits_hold_out_the_group(
        scores in prop::collection::vec(1.0f64..=10.0, 12..200),
        seed in any::<u64>(),
    ) {
        let m = metas(&scores);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for (kind, test_pred) in [
            (SplitKind::LeaveOneDatasetOut("lfw".into()), Box::new(|s: &SampleMeta| s.dataset == "lfw") as Box<dyn Fn(&SampleMeta) -> bool>),
            (SplitKind::LeaveOneMethodOut("mask".into()), Box::new(|s: &SampleMeta| s.method == "mask")),
        ] {
            let s = make_split(&m, &kind, &mut rng).unwrap();
            let mut seen: Vec<usize> = s.train.iter().chain(&s.val).chain(&s.test).copied().collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..m.len()).collect::<Vec<_>>());
            prop_assert!(s.test.iter().all(|&i| test_pred(&m[i])));
            prop_assert!(s.train.iter().chain(&s.val).all(|&i| !test_pred(&m[i])));
        }
        let s = make_split(&m, &SplitKind::Task(vec!["coco".into(), "voc".into()]), &mut rng).unwrap();
        prop_assert!(s.train.iter().chain(&s.val).chain(&s.test).all(|&i| m[i].dataset == "coco" || m[i].dataset == "voc"));
    }

    /// Every label scale maps every score in [1, 10] to a valid target with
    /// the official bin edges.
    #[test]
    fn label_transforms_valid_on_scale(s in 1.0f64..=10.0) {
        for scale in LabelScale::ALL {
            match scale.transform(s).unwrap() {
                Target::Regression(t) => {
                    prop_assert!((0.0..=1.0).contains(&t));
                    prop_assert!((t - (s - 1.0) / 9.0).abs() < 1e-15);
                }
                Target::Class(c) => {
                    prop_assert!(c < scale.outputs());
                    let expected = match scale {
                        LabelScale::Ten => s.round_ties_even() as usize - 1,
                        LabelScale::Five => [3.0, 5.0, 7.0, 9.0].iter().filter(|&&e| s >= e).count(),
                        LabelScale::Three => [5.0, 8.0].iter().filter(|&&e| s >= e).count(),
                        LabelScale::Binary => usize::from(s <= 5.0),
                        LabelScale::Mean => unreachable!(),
                    };
                    prop_assert_eq!(c, expected);
                }
            }
        }
    }
}

/// Bin edges at the boundaries, exactly (the code's `<` comparisons).
#[test]
fn label_bin_edges() {
    use LabelScale::*;
    let class = |scale: LabelScale, s: f64| match scale.transform(s).unwrap() {
        Target::Class(c) => c,
        Target::Regression(_) => unreachable!(),
    };
    assert_eq!(class(Five, 2.999), 0);
    assert_eq!(class(Five, 3.0), 1);
    assert_eq!(class(Five, 9.0), 4);
    assert_eq!(class(Three, 4.99), 0);
    assert_eq!(class(Three, 5.0), 1);
    assert_eq!(class(Three, 8.0), 2);
    assert_eq!(class(Binary, 5.0), 1);
    assert_eq!(class(Binary, 5.01), 0);
    assert_eq!(class(Ten, 1.0), 0);
    assert_eq!(class(Ten, 2.5), 1); // half to even, like Python's round
    assert_eq!(class(Ten, 3.5), 3);
    assert_eq!(class(Ten, 10.0), 9);
    assert_eq!(stratum(4.4), 4);
    assert_eq!(stratum(1.0), 4);
    assert_eq!(stratum(6.6), 7);
}
