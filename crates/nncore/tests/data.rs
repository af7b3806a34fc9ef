//! Data: the vendored digits (sizes and class counts from data/digits/SOURCE.md,
//! counted there with awk), an altered file, shuffling, batches, splits and text.

use mlcore::data::{Dataset, workspace_data_dir};
use nncore::Error;
use nncore::data::{LastBatch, batches, shuffled_indices, train_test_split};
use nncore::readers::{self, CharCorpus, DIGITS_FILE};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn digits_has_the_documented_shape_and_class_counts() {
    let d = readers::digits(&Dataset::open(workspace_data_dir().join("digits")).unwrap()).unwrap();
    assert_eq!((d.len(), d.features(), d.classes()), (1797, 64, 10));
    let mut counts = [0usize; 10];
    d.y().iter().for_each(|&y| counts[y] += 1);
    assert_eq!(counts, [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]);
    assert!(
        d.x()
            .iter()
            .all(|&v| (0.0..=16.0).contains(&v) && v.fract() == 0.0)
    );
    // The first row of the file (sklearn's load_digits().data[0], target 0).
    let first: Vec<f32> = d.x().row(0).iter().copied().collect();
    assert_eq!(&first[..8], &[0.0, 0.0, 5.0, 13.0, 9.0, 1.0, 0.0, 0.0]);
    assert_eq!(d.y()[0], 0);
}

#[test]
fn an_altered_digits_file_names_the_file_and_its_hash() {
    let dir = std::env::temp_dir().join(format!("nncore-digits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = workspace_data_dir().join("digits");
    std::fs::copy(src.join("SHA256SUMS"), dir.join("SHA256SUMS")).unwrap();
    let mut bytes = std::fs::read(src.join(DIGITS_FILE)).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(dir.join(DIGITS_FILE), &bytes).unwrap();
    let err = readers::digits(&Dataset::open(&dir).unwrap()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Core(mlcore::Error::Data { .. })));
    assert!(msg.contains(DIGITS_FILE), "{msg}");
    assert!(
        msg.contains("09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"),
        "{msg}"
    );
    std::fs::remove_file(dir.join(DIGITS_FILE)).unwrap();
    let missing = readers::digits(&Dataset::open(&dir).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("09f66e6d") && missing.contains(DIGITS_FILE),
        "{missing}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shuffles_are_seeded_permutations() {
    let a = shuffled_indices(1000, &mut ChaCha8Rng::seed_from_u64(5));
    let b = shuffled_indices(1000, &mut ChaCha8Rng::seed_from_u64(5));
    let c = shuffled_indices(1000, &mut ChaCha8Rng::seed_from_u64(6));
    assert_eq!(a, b);
    assert_ne!(a, c);
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
    assert!(shuffled_indices(0, &mut ChaCha8Rng::seed_from_u64(5)).is_empty());
}

/// Fisher–Yates is uniform: over 6000 shuffles of 3 items each of the 6
/// orders appears 1000 times in expectation; a count outside [850, 1150] has
/// probability < 1e-6 per order (binomial sd ≈ 28.9, 5.2 sd).
#[test]
fn fisher_yates_is_uniform_on_three_items() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut counts = std::collections::HashMap::new();
    for _ in 0..6000 {
        *counts.entry(shuffled_indices(3, &mut rng)).or_insert(0) += 1;
    }
    assert_eq!(counts.len(), 6);
    assert!(
        counts.values().all(|&c| (850..=1150).contains(&c)),
        "{counts:?}"
    );
}

#[test]
fn batches_follow_the_last_batch_policy() {
    let order: Vec<usize> = (0..10).collect();
    let keep = batches(&order, 4, LastBatch::Keep).unwrap();
    assert_eq!(keep.iter().map(|b| b.len()).collect::<Vec<_>>(), [4, 4, 2]);
    let drop = batches(&order, 4, LastBatch::Drop).unwrap();
    assert_eq!(drop.iter().map(|b| b.len()).collect::<Vec<_>>(), [4, 4]);
    assert!(batches(&order, 11, LastBatch::Drop).unwrap().is_empty());
    assert!(matches!(
        batches(&order, 0, LastBatch::Keep),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        batches(&[], 2, LastBatch::Keep),
        Err(Error::Empty { .. })
    ));
}

#[test]
fn splits_round_the_test_size_up_and_partition() {
    let s = train_test_split(1797, 0.2, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
    assert_eq!((s.train.len(), s.test.len()), (1437, 360)); // ⌈359.4⌉ = 360
    let mut all: Vec<usize> = s.train.iter().chain(&s.test).copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..1797).collect::<Vec<_>>());
    for bad in [0.0, 1.0, f64::NAN, -0.1] {
        assert!(train_test_split(10, bad, &mut ChaCha8Rng::seed_from_u64(0)).is_err());
    }
    assert!(train_test_split(1, 0.5, &mut ChaCha8Rng::seed_from_u64(0)).is_err());
}

#[test]
fn char_corpus_round_trips_and_reads_gzipped_text() {
    let c = CharCorpus::from_text("to be, or not to bé").unwrap();
    assert_eq!(c.vocab[..4], ['t', 'o', ' ', 'b']);
    assert_eq!(c.decode(&c.ids).unwrap(), "to be, or not to bé");
    assert!(matches!(
        c.decode(&[99]),
        Err(Error::LabelOutOfRange { .. })
    ));
    assert!(CharCorpus::from_text("").is_err());
    // A gzipped text file of a data set (the vendored CSV is text too).
    let ds = Dataset::open(workspace_data_dir().join("digits")).unwrap();
    let corpus = CharCorpus::read(&ds, DIGITS_FILE).unwrap();
    assert_eq!(
        corpus.ids.len(),
        ds.read_to_string(DIGITS_FILE).unwrap().chars().count()
    );
    let mut v = corpus.vocab.clone();
    v.sort_unstable();
    assert_eq!(v.iter().collect::<String>(), "\n,0123456789");
}
