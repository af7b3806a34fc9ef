//! Observation sets: sorting, duplicates, split, marginals, MovieLens parsing,
//! synthetic generators.

use matrix_completion::data::{
    Duplicates, Observations, parse_movielens_udata, read_movielens_udata,
};
use matrix_completion::synthetic::{Sampling, TrueLink, low_rank, sample};
use mlcore::sampling::seeded;

#[test]
fn triplets_are_sorted_and_duplicates_averaged_on_request() {
    let t = vec![(1, 2, 4.0), (0, 1, 1.0), (1, 2, 2.0), (0, 0, 5.0)];
    let o = Observations::from_triplets(2, 3, t.clone(), Duplicates::Average).unwrap();
    assert_eq!(o.len(), 3);
    let v: Vec<_> = o.iter().collect();
    assert_eq!(v, vec![(0, 0, 5.0), (0, 1, 1.0), (1, 2, 3.0)]);
    assert!((o.density() - 0.5).abs() < 1e-15);
    assert!((o.mean() - 3.0).abs() < 1e-15);
}

#[test]
fn split_partitions_the_entries() {
    let t: Vec<_> = (0..10)
        .flat_map(|i| (0..10).map(move |j| (i, j, (i * 10 + j) as f64)))
        .collect();
    let o = Observations::from_triplets(10, 10, t, Duplicates::Reject).unwrap();
    let (a, b) = o.split(0.25, &mut seeded(1)).unwrap();
    assert_eq!((a.len(), b.len()), (75, 25));
    let mut all: Vec<_> = a.iter().chain(b.iter()).collect();
    all.sort_by(|x, y| x.2.total_cmp(&y.2));
    assert_eq!(all, o.iter().collect::<Vec<_>>());
    let (c, _) = o.split(0.25, &mut seeded(1)).unwrap();
    assert_eq!(a, c);
}

#[test]
fn marginals_sum_to_one_and_smoothing_interpolates() {
    let o = Observations::from_triplets(
        3,
        2,
        vec![(0, 0, 1.0), (0, 1, 1.0), (2, 1, 1.0)],
        Duplicates::Reject,
    )
    .unwrap();
    let mg = o.marginals();
    assert_eq!(mg.row, vec![2.0 / 3.0, 0.0, 1.0 / 3.0]);
    assert_eq!(mg.col, vec![1.0 / 3.0, 2.0 / 3.0]);
    let s = mg.smoothed(1.0).unwrap();
    assert!(s.row.iter().all(|p| (p - 1.0 / 3.0).abs() < 1e-15));
    let h = mg.smoothed(0.5).unwrap();
    assert!((h.row.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    assert!((h.row[1] - 0.5 / 3.0).abs() < 1e-15);
}

#[test]
fn movielens_udata_parses_one_based_ids() {
    let text = "1\t1\t5\t881250949\n\n3\t2\t3\t891717742\n2\t4\t1.5\t1\n";
    let o = parse_movielens_udata(text, Duplicates::Reject).unwrap();
    assert_eq!((o.rows(), o.cols(), o.len()), (3, 4, 3));
    assert_eq!(
        o.iter().collect::<Vec<_>>(),
        vec![(0, 0, 5.0), (1, 3, 1.5), (2, 1, 3.0)]
    );
    let dir = std::env::temp_dir().join(format!("mc-udata-{}", std::process::id()));
    std::fs::write(&dir, text).unwrap();
    assert_eq!(read_movielens_udata(&dir, Duplicates::Reject).unwrap(), o);
    let _ = std::fs::remove_file(&dir);
}

#[test]
fn synthetic_power_law_concentrates_on_popular_rows() {
    let mut rng = seeded(3);
    let g = low_rank(100, 80, 3, &mut rng).unwrap();
    assert!(
        (g.std(0.0) - 1.0).abs() < 0.15,
        "entries have unit variance"
    );
    let u = sample(
        &g,
        TrueLink::Identity,
        Sampling::Uniform,
        800,
        0.0,
        &mut rng,
    )
    .unwrap();
    let p = sample(
        &g,
        TrueLink::RATINGS,
        Sampling::PowerLaw { alpha: 1.0 },
        800,
        0.1,
        &mut rng,
    )
    .unwrap();
    let top = |o: &Observations| o.marginals().row.iter().cloned().fold(0.0, f64::max);
    assert!(
        top(&p) > 3.0 * top(&u),
        "power-law {} vs uniform {}",
        top(&p),
        top(&u)
    );
    assert!(u.iter().all(|(i, j, y)| y == g[[i, j]]));
    assert!(p.values().iter().all(|&y| (0.0..6.0).contains(&y)));
}
