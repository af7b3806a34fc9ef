//! Bad input: every public entry point returns its typed error, never
//! panics; a seeded proptest throws hostile values at all of them.

use ndarray::{Array1, Array2, Array3, array};
use perceptanon::Error;
use perceptanon::anonymize::{
    Method, anonymize, gaussian_blur, inpaint_biharmonic, mask_binary, mask_box, pixelate,
};
use perceptanon::corr::{
    Coefficient, KendallVariant, average_ranks, bootstrap_ci, kendall, kendall_counts, pearson,
    spearman,
};
use perceptanon::eval::correlation_report;
use perceptanon::features::{FeatureExtractor, Handcrafted, Standardizer, pair_features};
use perceptanon::image::{Image, Region};
use perceptanon::io::{decode_image, parse_annotations, read_image};
use perceptanon::iqa::{SsimParams, mse, psnr, ssim};
use perceptanon::labels::{LabelScale, ScaleDirection, class_weights};
use perceptanon::model::cnn::{CnnParams, CnnScorer};
use perceptanon::model::lite::PerceptAnonLite;
use perceptanon::model::{Setting, TrainParams};
use perceptanon::simulate::{SimulatedAnnotator, Source, build_corpus};
use perceptanon::split::{SampleMeta, SplitKind, make_split, stratified};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;

fn rng() -> rand_chacha::ChaCha8Rng {
    rand_chacha::ChaCha8Rng::seed_from_u64(7)
}

fn grey(h: usize, w: usize) -> Image {
    Image::grey(Array2::from_shape_fn((h, w), |(i, j)| {
        ((i * 7 + j * 3) % 11) as f64 / 10.0
    }))
    .unwrap()
}

#[test]
fn correlations_reject_bad_input() {
    let x = array![1.0, 2.0, 3.0];
    let short = array![1.0, 2.0];
    assert!(matches!(
        pearson(x.view(), short.view()),
        Err(Error::SizeMismatch { .. })
    ));
    let e = Array1::<f64>::zeros(0);
    assert!(matches!(
        spearman(e.view(), e.view()),
        Err(Error::EmptyInput { .. })
    ));
    let nan = array![1.0, f64::NAN, 3.0];
    assert!(matches!(
        kendall(x.view(), nan.view(), KendallVariant::B),
        Err(Error::NonFinite {
            what: "y",
            index: 1
        })
    ));
    let c = array![2.0, 2.0, 2.0];
    assert!(matches!(
        pearson(x.view(), c.view()),
        Err(Error::ConstantInput { what: "y" })
    ));
    assert!(matches!(
        spearman(c.view(), x.view()),
        Err(Error::ConstantInput { what: "x" })
    ));
    assert!(matches!(
        kendall(x.view(), c.view(), KendallVariant::C),
        Err(Error::ConstantInput { .. })
    ));
    assert!(matches!(
        kendall_counts(e.view(), e.view()),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        average_ranks(e.view()),
        Err(Error::EmptyInput { .. })
    ));
    let mut r = rng();
    assert!(matches!(
        bootstrap_ci(x.view(), x.view(), Coefficient::Pearson, 10, 1.0, &mut r),
        Err(Error::InvalidParameter {
            name: "confidence",
            ..
        })
    ));
    assert!(matches!(
        bootstrap_ci(x.view(), x.view(), Coefficient::Spearman, 0, 0.9, &mut r),
        Err(Error::InvalidParameter {
            name: "resamples",
            ..
        })
    ));
    // Values whose textbook sums overflow still get their correlation
    // (scaled first): [1e308, −1e308, 0] against [1, 2, 3] is the same as
    // [1, −1, 0] against it, r = Σ(−1, 0, 0)/√(2·2) = −0.5 by hand.
    let huge = array![1e308, -1e308, 0.0];
    assert!((pearson(huge.view(), x.view()).unwrap().value + 0.5).abs() < 1e-15);
    assert!(matches!(
        correlation_report(&[], &[1.0]),
        Err(Error::EmptyInput { .. })
    ));
}

#[test]
fn images_and_metrics_reject_bad_input() {
    assert!(matches!(
        Image::new(Array3::zeros((0, 3, 1))),
        Err(Error::EmptyInput { .. })
    ));
    let mut a = Array3::zeros((4, 4, 1));
    a[[1, 2, 0]] = f64::INFINITY;
    assert!(matches!(
        Image::new(a),
        Err(Error::NonFinite { index: 6, .. })
    ));
    let (a, b) = (grey(16, 16), grey(16, 17));
    assert!(matches!(mse(&a, &b), Err(Error::SizeMismatch { .. })));
    assert!(matches!(
        psnr(&a, &a, 0.0),
        Err(Error::InvalidParameter {
            name: "data_range",
            ..
        })
    ));
    let even = SsimParams {
        win: 8,
        ..SsimParams::standard()
    };
    assert!(matches!(
        ssim(&a, &a, &even),
        Err(Error::BadWindow { win: 8, .. })
    ));
    let big = SsimParams {
        win: 17,
        ..SsimParams::standard()
    };
    assert!(matches!(
        ssim(&a, &a, &big),
        Err(Error::BadWindow { win: 17, .. })
    ));
    let k = SsimParams {
        k1: 0.0,
        ..SsimParams::standard()
    };
    assert!(matches!(
        ssim(&a, &a, &k),
        Err(Error::InvalidParameter { name: "k1", .. })
    ));
    let s = SsimParams {
        sigma: Some(f64::NAN),
        ..SsimParams::standard()
    };
    assert!(matches!(
        ssim(&a, &a, &s),
        Err(Error::InvalidParameter { name: "sigma", .. })
    ));
    let outside = Region {
        top: 10,
        left: 10,
        height: 7,
        width: 2,
    };
    assert!(matches!(a.crop(outside), Err(Error::RegionOutside { .. })));
    let overflow = Region {
        top: usize::MAX,
        left: 0,
        height: 2,
        width: 2,
    };
    assert!(matches!(a.crop(overflow), Err(Error::RegionOutside { .. })));
    assert!(matches!(
        a.downsample(0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        a.resize(0, 3),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        a.resize(usize::MAX, usize::MAX),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        pair_features(&a, &b),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        pair_features(&grey(2, 2), &grey(2, 2)),
        Err(Error::BadWindow { .. })
    ));
    assert!(Handcrafted.embed(&grey(1, 1)).is_ok());
}

#[test]
fn anonymisers_reject_bad_input() {
    let a = grey(20, 20);
    let r = Region {
        top: 2,
        left: 2,
        height: 10,
        width: 10,
    };
    let out = Region {
        top: 15,
        left: 15,
        height: 10,
        width: 2,
    };
    assert!(matches!(
        gaussian_blur(&a, r, 0.0),
        Err(Error::StrengthOutOfRange { .. })
    ));
    assert!(matches!(
        gaussian_blur(&a, r, 1e9),
        Err(Error::StrengthOutOfRange { .. })
    ));
    assert!(matches!(
        gaussian_blur(&a, out, 1.0),
        Err(Error::RegionOutside { .. })
    ));
    assert!(matches!(
        pixelate(&a, r, 0),
        Err(Error::StrengthOutOfRange { .. })
    ));
    assert!(matches!(
        pixelate(&a, r, 11),
        Err(Error::StrengthOutOfRange { .. })
    ));
    assert!(matches!(
        mask_box(&a, r, f64::NAN),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        mask_box(&a, out, 0.0),
        Err(Error::RegionOutside { .. })
    ));
    let m = Array2::from_elem((3, 3), true);
    assert!(matches!(
        mask_binary(&a, m.view(), 0.0),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        inpaint_biharmonic(&a, m.view()),
        Err(Error::SizeMismatch { .. })
    ));
    let all = Array2::from_elem((20, 20), true);
    assert!(matches!(
        inpaint_biharmonic(&a, all.view()),
        Err(Error::EmptyInput { .. })
    ));
    for bad in [-0.1, 1.5, f64::NAN] {
        assert!(matches!(
            anonymize(&a, r, Method::Blur, bad),
            Err(Error::StrengthOutOfRange { .. })
        ));
    }
    // Inpainting the whole image through a full-image region is refused.
    assert!(matches!(
        anonymize(&a, Region::full(&a), Method::Inpaint, 1.0),
        Err(Error::EmptyInput { .. })
    ));
}

#[test]
fn labels_splits_and_readers_reject_bad_input() {
    assert!(matches!(
        LabelScale::Ten.transform(0.5),
        Err(Error::ScoreOutOfRange { .. })
    ));
    assert!(matches!(
        LabelScale::Mean.transform(f64::NAN),
        Err(Error::ScoreOutOfRange { .. })
    ));
    assert!(matches!(
        ScaleDirection::HigherIsLessAnonymous.anonymity(11.0),
        Err(Error::ScoreOutOfRange { .. })
    ));
    assert!(matches!(
        LabelScale::Five.score_of(&[0.5; 3]),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        class_weights(&[0, 3], 2),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        class_weights(&[], 2),
        Err(Error::EmptyInput { .. })
    ));
    let mut r = rng();
    assert!(matches!(
        stratified(&[5.0], &[0], [0.5, 0.5, 0.5], &mut r),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        stratified(&[5.0], &[3], [0.6, 0.2, 0.2], &mut r),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        stratified(&[0.0], &[0], [0.6, 0.2, 0.2], &mut r),
        Err(Error::ScoreOutOfRange { index: 0, .. })
    ));
    let meta = vec![SampleMeta {
        score: 5.0,
        dataset: "coco".into(),
        method: "mask".into(),
    }];
    assert!(matches!(
        make_split(&meta, &SplitKind::LeaveOneDatasetOut("lfw".into()), &mut r),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        make_split(&meta, &SplitKind::LeaveOneMethodOut("mask".into()), &mut r),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        decode_image(b"\xff\xd8\xff\xe0rest", "x.jpg"),
        Err(Error::Decode { .. })
    ));
    assert!(matches!(
        decode_image(b"P6\n4 4\n255\nabc", "t.ppm"),
        Err(Error::Decode { .. })
    ));
    assert!(matches!(
        decode_image(b"P5\n99999999999 4\n255\n", "t.pgm"),
        Err(Error::Decode { .. }) | Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        decode_image(b"garbage", "g"),
        Err(Error::Decode { .. })
    ));
    assert!(matches!(
        decode_image(b"\x89PNG\r\n\x1a\nbroken", "b.png"),
        Err(Error::Decode { .. })
    ));
    match read_image("/nonexistent/dir/face.png") {
        Err(Error::MissingFile { path, .. }) => assert!(path.contains("face.png")),
        other => panic!("expected MissingFile, got {other:?}"),
    }
    let header =
        "original_image_path,anonymized_image_path,source_dataset,scope,method,a1,a2,score_mean\n";
    let bad_score = format!("{header}o.png,a.png,coco,person,mask,3,4,11\n");
    assert!(matches!(
        parse_annotations(&bad_score, "HA1.csv"),
        Err(Error::Csv { line: 2, .. })
    ));
    let bad_width = format!("{header}o.png,a.png,coco,person,mask,3,4,3.5\no.png,a.png,coco\n");
    assert!(matches!(
        parse_annotations(&bad_width, "HA1.csv"),
        Err(Error::Csv { line: 3, .. })
    ));
    let bad_num = format!("{header}o.png,a.png,coco,person,mask,x,4,3.5\n");
    assert!(matches!(
        parse_annotations(&bad_num, "HA1.csv"),
        Err(Error::Csv { line: 2, .. })
    ));
    assert!(matches!(
        parse_annotations("a,b\n1,2\n", "HA2.csv"),
        Err(Error::Csv { line: 1, .. })
    ));
    assert!(matches!(
        parse_annotations(header, "HA2.csv"),
        Err(Error::EmptyInput { .. })
    ));
    let quoted = format!("{header}\"o,1.png\",a.png,coco,person,mask,3,,3.0\n");
    let rows = parse_annotations(&quoted, "HA1.csv").unwrap();
    assert_eq!(rows[0].original.to_str(), Some("o,1.png"));
    assert_eq!(rows[0].annotator_scores, vec![3.0]);
}

#[test]
fn models_and_simulation_reject_bad_input() {
    let mut r = rng();
    let rows = vec![vec![0.0, 1.0], vec![1.0, 0.0]];
    let p = TrainParams::default();
    assert!(matches!(
        PerceptAnonLite::fit(&rows, &[5.0], Setting::Ha1, &p, &mut r),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        PerceptAnonLite::fit(&rows, &[5.0, 12.0], Setting::Ha1, &p, &mut r),
        Err(Error::ScoreOutOfRange { .. })
    ));
    assert!(matches!(
        PerceptAnonLite::fit(&[], &[], Setting::Ha1, &p, &mut r),
        Err(Error::EmptyInput { .. })
    ));
    let ragged = vec![vec![0.0, 1.0], vec![1.0]];
    assert!(matches!(
        PerceptAnonLite::fit(&ragged, &[5.0, 6.0], Setting::Ha2, &p, &mut r),
        Err(Error::SizeMismatch { .. })
    ));
    let bad = TrainParams {
        learning_rate: -1.0,
        ..p
    };
    assert!(matches!(
        PerceptAnonLite::fit(&rows, &[5.0, 6.0], Setting::Ha1, &bad, &mut r),
        Err(Error::InvalidParameter { .. })
    ));
    let model = PerceptAnonLite::fit(
        &rows,
        &[2.0, 9.0],
        Setting::Ha1,
        &TrainParams { epochs: 2, ..p },
        &mut r,
    )
    .unwrap();
    assert!(matches!(
        model.predict(&[vec![1.0]]),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        model.predict(&[vec![f64::NAN, 1.0]]),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        Standardizer::fit(&[]),
        Err(Error::EmptyInput { .. })
    ));
    let img = grey(16, 16);
    let cp = CnnParams {
        layers: 0,
        ..CnnParams::default()
    };
    assert!(matches!(
        CnnScorer::fit(
            std::slice::from_ref(&img),
            std::slice::from_ref(&img),
            &[5.0],
            Setting::Ha1,
            &cp,
            &mut r
        ),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        CnnScorer::fit(
            std::slice::from_ref(&img),
            std::slice::from_ref(&img),
            &[5.0, 6.0],
            Setting::Ha1,
            &CnnParams::default(),
            &mut r
        ),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        SimulatedAnnotator::new(0, 0.5, 0.5, &mut r),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        SimulatedAnnotator::new(3, f64::NAN, 0.5, &mut r),
        Err(Error::InvalidParameter { .. })
    ));
    let ann = SimulatedAnnotator::new(3, 0.5, 0.5, &mut r).unwrap();
    assert!(matches!(
        ann.latent(&img, &grey(16, 15), Region::full(&img)),
        Err(Error::SizeMismatch { .. })
    ));
    let src = Source {
        name: "g".into(),
        image: img.clone(),
        subject: Region {
            top: 10,
            left: 10,
            height: 10,
            width: 10,
        },
    };
    assert!(matches!(
        build_corpus(std::slice::from_ref(&src), &[0.5], 16),
        Err(Error::RegionOutside { .. })
    ));
    assert!(matches!(
        build_corpus(&[], &[0.5], 16),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        build_corpus(&[src], &[0.5], 4),
        Err(Error::InvalidParameter { .. })
    ));
}

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(0.0),
        Just(f64::MIN_POSITIVE),
        -1e6f64..1e6,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: RngSeed::Fixed(0x0bad_0001),
        ..ProptestConfig::with_cases(256)
    })]

    /// Hostile values never panic in the correlation and label entry points.
    #[test]
    fn hostile_correlations_and_labels(
        x in prop::collection::vec(hostile_f64(), 0..20),
        y in prop::collection::vec(hostile_f64(), 0..20),
        s in hostile_f64(),
    ) {
        let (xa, ya) = (Array1::from(x.clone()), Array1::from(y.clone()));
        let _ = pearson(xa.view(), ya.view());
        let _ = spearman(xa.view(), ya.view());
        for v in [KendallVariant::A, KendallVariant::B, KendallVariant::C] {
            if let Ok(c) = kendall(xa.view(), ya.view(), v) {
                prop_assert!((-1.0..=1.0).contains(&c.value));
            }
        }
        let mut r = rng();
        let _ = bootstrap_ci(xa.view(), ya.view(), Coefficient::Kendall(KendallVariant::B), 5, 0.9, &mut r);
        let _ = average_ranks(xa.view());
        for scale in LabelScale::ALL {
            let _ = scale.transform(s);
            let _ = scale.score_of(&x);
        }
        let _ = stratified(&x, &[0, 1, 2], [0.6, 0.2, 0.2], &mut r);
        if let Ok(rows) = correlation_report(&[("m", &x)], &y) {
            prop_assert!(rows[0].spearman.is_finite());
        }
    }

    /// Hostile shapes, values, regions and strengths never panic in the
    /// image entry points.
    #[test]
    fn hostile_images(
        h in 1usize..14, w in 1usize..14, c in 1usize..4,
        v in hostile_f64(),
        top in 0usize..16, left in 0usize..16, rh in 0usize..16, rw in 0usize..16,
        strength in hostile_f64(),
        win in 0usize..16,
        block in 0usize..20,
    ) {
        let data = Array3::from_shape_fn((h, w, c), |(i, j, k)| ((i * 3 + j * 5 + k) % 7) as f64 / 6.0);
        let a = Image::new(data.clone()).unwrap();
        let mut d2 = data;
        d2[[0, 0, 0]] = v;
        let b = Image::new(d2);
        let region = Region { top, left, height: rh, width: rw };
        if let Ok(b) = &b {
            let _ = mse(&a, b);
            let _ = psnr(&a, b, 1.0);
            let _ = ssim(&a, b, &SsimParams { win, ..SsimParams::standard() });
            let _ = pair_features(&a, b);
        }
        let _ = gaussian_blur(&a, region, strength);
        let _ = pixelate(&a, region, block);
        let _ = mask_box(&a, region, v);
        for m in Method::ALL {
            if let Ok(out) = anonymize(&a, region, m, strength) {
                prop_assert!(out.view().iter().all(|x| x.is_finite()));
            }
        }
        let mask = Array2::from_shape_fn((h, w), |(i, j)| region.contains(i, j));
        let _ = inpaint_biharmonic(&a, mask.view());
        let _ = a.crop(region);
        let _ = a.resize(rh, rw);
        let _ = a.downsample(block);
        let _ = Handcrafted.embed(&a);
    }

    /// Arbitrary bytes never panic the decoders and CSV parser.
    #[test]
    fn hostile_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64), text in "\\PC{0,200}") {
        let _ = decode_image(&bytes, "x");
        let mut pnm = b"P6\n2 2\n255\n".to_vec();
        pnm.extend(&bytes);
        let _ = decode_image(&pnm, "x.ppm");
        let _ = parse_annotations(&text, "x.csv");
        let csv = format!("original_image_path,anonymized_image_path,source_dataset,scope,method,score_mean\n{text}");
        let _ = parse_annotations(&csv, "x.csv");
    }
}
