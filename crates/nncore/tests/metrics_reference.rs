//! nncore::metrics against scikit-learn 1.9.1 (`log_loss`, `brier_score_loss`,
//! `roc_auc_score`, `average_precision_score`, `roc_curve`) and a NumPy ECE /
//! AURC, to 1e-12. The constants below are printed by
//! `scripts/compare/nncore_metrics_reference.py` (run in a venv with
//! scikit-learn 1.9.1 and NumPy 2.4.6); the inputs are built the same way on
//! both sides. Covered: ties in confidence and in scores, a zero probability on
//! the true class (clipped), confidences on bin edges, empty bins, one class.

use ndarray::{Array1, Array2, array};
use nncore::Error;
use nncore::metrics::{self, ECE_BINS};

// scikit-learn 1.9.1, NumPy 2.4.6
const ACC_A: f64 = 0.5;
const NLL_A: f64 = 4.265338624185328;
const BRIER_A: f64 = 0.5393399999999999;
const ECE15_A: f64 = 0.204;
// ECE15_A bin counts: [0, 0, 0, 0, 0, 2, 0, 1, 4, 0, 1, 0, 0, 1, 1]
const ECE1_A: f64 = 0.124;
const ECE4_A: f64 = 0.14400000000000002;
const AURC_A: f64 = 0.21801587301587305;
const AURC_OPT_A: f64 = 0.17718253968253966;
const AUROC_MIS_A: f64 = 0.92;
const AUPR_MIS_A: f64 = 0.8857142857142857;
const ACC_C: f64 = 0.25;
const NLL_C: f64 = 1.5654067635090063;
const BRIER_C: f64 = 0.8169395787784443;
const ECE15_C: f64 = 0.15790016786755914;
// ECE15_C bin counts: [0, 0, 0, 27, 27, 82, 110, 54, 0, 0, 0, 0, 0, 0, 0]
const ECE1_C: f64 = 0.15623350120089252;
const ECE4_C: f64 = 0.15790016786755917;
const AURC_C: f64 = 0.7605027579700709;
const AURC_OPT_C: f64 = 0.404672937563386;
const AUROC_MIS_C: f64 = 0.48583703703703707;
const AUPR_MIS_C: f64 = 0.7438740784410541;
const AUROC_B: f64 = 0.8673050615595076;
const AUPR_B: f64 = 0.7682242861651644;
const FPR95_B: f64 = 0.5;
const AURC_B: f64 = 0.44604581032558716;
const AURC_OPT_B: f64 = 0.3623134825427441;
const AUPR_ALL_POSITIVE: f64 = 1.0;
// roc_auc_score with one class: nan (UndefinedMetricWarning); nncore: Error::Undefined

const TOL: f64 = 1e-12;

fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= TOL,
        "{what}: got {got:e}, reference {want:e}, difference {:e}",
        (got - want).abs()
    );
}

fn case_a() -> (Array2<f64>, Vec<usize>) {
    let p = array![
        [0.7, 0.2, 0.1],
        [0.1, 0.6, 0.3],
        [0.2, 0.2, 0.6],
        [0.5, 0.5, 0.0],
        [0.34, 0.33, 0.33],
        [0.0, 1.0, 0.0],
        [0.6, 0.3, 0.1],
        [0.25, 0.15, 0.6],
        [0.4, 0.4, 0.2],
        [0.9, 0.05, 0.05],
    ];
    (p, vec![0, 2, 2, 2, 1, 1, 0, 1, 1, 0])
}

fn case_c() -> (Array2<f64>, Vec<usize>) {
    let w = Array2::from_shape_fn((300, 4), |(i, k)| {
        ((7 * i + 13 * k + i * k) % 11 + 1) as f64
    });
    let mut p = w.clone();
    for mut row in p.rows_mut() {
        let s: f64 = row.sum();
        row.mapv_inplace(|v| v / s);
    }
    (p, (0..300).map(|i| (5 * i + 3) % 4).collect())
}

fn case_b() -> (Array1<f64>, Vec<bool>) {
    let positive: Vec<bool> = (0..120usize).map(|i| (i * i + 3) % 7 < 3).collect();
    let s = Array1::from_shape_fn(120, |i| {
        ((37 * i) % 101 % 20 + 10 * usize::from(positive[i])) as f64 / 30.0
    });
    (s, positive)
}

fn correctness(p: &Array2<f64>, y: &[usize]) -> (Array1<f64>, Vec<bool>) {
    let conf = p.map_axis(ndarray::Axis(1), |r| r.fold(0.0_f64, |a, &b| a.max(b)));
    let correct = p
        .rows()
        .into_iter()
        .zip(y)
        .map(|(r, &l)| {
            let arg = r.iter().enumerate().fold(
                (0, -1.0),
                |(bi, bv), (i, &v)| {
                    if v > bv { (i, v) } else { (bi, bv) }
                },
            );
            arg.0 == l
        })
        .collect();
    (conf, correct)
}

#[allow(clippy::too_many_arguments)]
fn check_case(
    (p, y): (Array2<f64>, Vec<usize>),
    tag: &str,
    acc: f64,
    nll: f64,
    brier: f64,
    ece15: f64,
    ece1: f64,
    ece4: f64,
    aurc: (f64, f64),
    mis: (f64, f64),
    counts: &[usize],
) {
    let v = p.view();
    close(
        metrics::accuracy(v, &y).unwrap(),
        acc,
        &format!("accuracy {tag}"),
    );
    close(
        metrics::nll(v, &y).unwrap(),
        nll,
        &format!("log_loss {tag}"),
    );
    close(
        metrics::brier(v, &y).unwrap(),
        brier,
        &format!("brier {tag}"),
    );
    let cal = metrics::ece(v, &y, ECE_BINS).unwrap();
    close(cal.ece, ece15, &format!("ECE15 {tag}"));
    let got: Vec<usize> = cal.bins.iter().map(|b| b.count).collect();
    assert_eq!(got, counts, "ECE15 bin counts {tag}");
    for b in &cal.bins {
        assert_eq!(b.count == 0, b.accuracy.is_none(), "empty bin {tag}");
    }
    close(
        metrics::ece(v, &y, 1).unwrap().ece,
        ece1,
        &format!("ECE1 {tag}"),
    );
    close(
        metrics::ece(v, &y, 4).unwrap().ece,
        ece4,
        &format!("ECE4 {tag}"),
    );
    let (conf, correct) = correctness(&p, &y);
    let a = metrics::aurc(conf.view(), &correct).unwrap();
    close(a.aurc, aurc.0, &format!("AURC {tag}"));
    close(a.optimal, aurc.1, &format!("AURC* {tag}"));
    close(a.e_aurc, aurc.0 - aurc.1, &format!("E-AURC {tag}"));
    let score = conf.mapv(|c| 1.0 - c);
    let errors: Vec<bool> = correct.iter().map(|c| !c).collect();
    close(
        metrics::auroc(score.view(), &errors).unwrap(),
        mis.0,
        &format!("AUROC {tag}"),
    );
    close(
        metrics::aupr(score.view(), &errors).unwrap(),
        mis.1,
        &format!("AUPR {tag}"),
    );
}

#[test]
fn case_a_matches_sklearn_and_numpy() {
    check_case(
        case_a(),
        "A",
        ACC_A,
        NLL_A,
        BRIER_A,
        ECE15_A,
        ECE1_A,
        ECE4_A,
        (AURC_A, AURC_OPT_A),
        (AUROC_MIS_A, AUPR_MIS_A),
        &[0, 0, 0, 0, 0, 2, 0, 1, 4, 0, 1, 0, 0, 1, 1],
    );
}

#[test]
fn case_c_matches_sklearn_and_numpy() {
    check_case(
        case_c(),
        "C",
        ACC_C,
        NLL_C,
        BRIER_C,
        ECE15_C,
        ECE1_C,
        ECE4_C,
        (AURC_C, AURC_OPT_C),
        (AUROC_MIS_C, AUPR_MIS_C),
        &[0, 0, 0, 27, 27, 82, 110, 54, 0, 0, 0, 0, 0, 0, 0],
    );
}

#[test]
fn ranking_with_ties_matches_sklearn() {
    let (s, pos) = case_b();
    close(
        metrics::auroc(s.view(), &pos).unwrap(),
        AUROC_B,
        "roc_auc_score B",
    );
    close(
        metrics::aupr(s.view(), &pos).unwrap(),
        AUPR_B,
        "average_precision_score B",
    );
    close(
        metrics::fpr_at_95_tpr(s.view(), &pos).unwrap(),
        FPR95_B,
        "roc_curve FPR@95 B",
    );
    let a = metrics::aurc(s.view(), &pos).unwrap();
    close(a.aurc, AURC_B, "AURC B");
    close(a.optimal, AURC_OPT_B, "AURC* B");
}

#[test]
fn one_class() {
    let s = array![0.1, 0.2, 0.2, 0.5, 0.9];
    close(
        metrics::aupr(s.view(), &[true; 5]).unwrap(),
        AUPR_ALL_POSITIVE,
        "AP all positive",
    );
    // scikit-learn returns NaN with a warning; nncore returns a typed error.
    for f in [metrics::auroc, metrics::fpr_at_95_tpr] {
        assert!(matches!(
            f(s.view(), &[false; 5]),
            Err(Error::Undefined { .. })
        ));
        assert!(matches!(
            f(s.view(), &[true; 5]),
            Err(Error::Undefined { .. })
        ));
    }
    assert!(matches!(
        metrics::aupr(s.view(), &[false; 5]),
        Err(Error::Undefined { .. })
    ));
    // One class among the labels is fine for the probability metrics.
    let p = array![[0.8, 0.2], [0.6, 0.4], [0.3, 0.7]];
    let y = [0, 0, 0];
    close(
        metrics::accuracy(p.view(), &y).unwrap(),
        2.0 / 3.0,
        "accuracy one class",
    );
    // Closed form: (|0.8 − 1| + |0.6 − 1|) / 3 + |0.7 − 0| / 3 with 15 bins; 0.6 and 0.7 fall in
    // different bins (0.5333, 0.6] and (0.6667, 0.7333].
    let cal = metrics::ece(p.view(), &y, 15).unwrap();
    close(cal.ece, (0.2 + 0.4 + 0.7) / 3.0, "ECE one class");
}

/// AURC's tie rule is the expectation over uniformly random orders of each
/// tie group: checked by enumerating every order of the ties (brute force).
#[test]
fn aurc_ties_equal_the_mean_over_all_tie_orders() {
    let conf = array![0.9, 0.7, 0.7, 0.7, 0.5, 0.5, 0.2];
    let correct = [true, false, true, false, true, false, true];
    let plain = |order: &[usize]| -> f64 {
        let mut errs = 0.0;
        let mut sum = 0.0;
        for (k, &i) in order.iter().enumerate() {
            errs += f64::from(u8::from(!correct[i]));
            sum += errs / (k + 1) as f64;
        }
        sum / order.len() as f64
    };
    let perms3 = [
        [1, 2, 3],
        [1, 3, 2],
        [2, 1, 3],
        [2, 3, 1],
        [3, 1, 2],
        [3, 2, 1],
    ];
    let perms2 = [[4, 5], [5, 4]];
    let mut total = 0.0;
    for a in perms3 {
        for b in perms2 {
            let order = [0, a[0], a[1], a[2], b[0], b[1], 6];
            total += plain(&order);
        }
    }
    let brute = total / 12.0;
    close(
        metrics::aurc(conf.view(), &correct).unwrap().aurc,
        brute,
        "AURC vs brute force",
    );
}

/// Perplexity and bits per character are exp(NLL) and NLL/ln 2 of the same
/// clipped NLL: for a uniform prediction over K symbols they are K and log₂ K.
#[test]
fn perplexity_and_bpc_of_a_uniform_model() {
    let p = Array2::from_elem((5, 8), 0.125);
    let y = [0, 3, 7, 1, 2];
    close(
        metrics::perplexity(p.view(), &y).unwrap(),
        8.0,
        "perplexity",
    );
    close(
        metrics::bits_per_character(p.view(), &y).unwrap(),
        3.0,
        "bpc",
    );
}

/// Bad input: each violation is its typed error (row sums within 1e-6 of one pass).
#[test]
fn bad_probabilities_are_typed_errors() {
    let y = [0, 1];
    let ok = array![[0.5, 0.5 + 5e-7], [0.25, 0.75]];
    assert!(metrics::nll(ok.view(), &y).is_ok());
    let off = array![[0.5, 0.5 + 2e-6], [0.25, 0.75]];
    assert!(matches!(
        metrics::nll(off.view(), &y),
        Err(Error::NotAProbability { row: 0, .. })
    ));
    let neg = array![[0.5, 0.5], [-0.25, 1.25]];
    assert!(matches!(
        metrics::brier(neg.view(), &y),
        Err(Error::NotAProbability { row: 1, .. })
    ));
    let nan = array![[0.5, f64::NAN], [0.25, 0.75]];
    assert!(matches!(
        metrics::accuracy(nan.view(), &y),
        Err(Error::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        metrics::accuracy(ok.view(), &[0]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        metrics::accuracy(ok.view(), &[0, 2]),
        Err(Error::LabelOutOfRange {
            index: 1,
            label: 2,
            classes: 2
        })
    ));
    assert!(matches!(
        metrics::ece(ok.view(), &y, 0),
        Err(Error::InvalidParameter { name: "bins", .. })
    ));
    let empty = Array2::<f64>::zeros((0, 3));
    assert!(matches!(
        metrics::nll(empty.view(), &[]),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        metrics::auroc(array![0.1, f64::INFINITY].view(), &[true, false]),
        Err(Error::NonFinite { index: 1, .. })
    ));
}
