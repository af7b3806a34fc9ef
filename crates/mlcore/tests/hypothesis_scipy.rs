//! mlcore::stats' inference functions against SciPy.
//!
//! The tables below are the output of `scripts/compare/stats_reference.py`
//! (SciPy 1.17.1, statsmodels 0.15.0, numpy 2.4.6), pasted verbatim: each row
//! carries the call that produced it. Tolerances: 1e-10 relative for
//! closed-form and exact quantities; where the reference itself comes from an
//! iterative solver the test says why it is looser.

use mlcore::Error;
use mlcore::stats::{
    self, Alternative, Interval, binomial_test, bootstrap_interval, clopper_pearson_interval,
    fisher_exact, paired_bootstrap_interval, t_interval, wilcoxon_signed_rank, wilson_interval,
};
use ndarray::{Array1, ArrayView1, array};
use proptest::prelude::*;

/// `|got − want| ≤ rel·|want| + abs`.
fn close(got: f64, want: f64, rel: f64, abs: f64) -> bool {
    (got - want).abs() <= rel * want.abs() + abs
}

#[track_caller]
fn assert_close(got: f64, want: f64, rel: f64, abs: f64, what: &str) {
    assert!(
        close(got, want, rel, abs),
        "{what}: got {got:e}, want {want:e} (rel. error {:e})",
        (got - want).abs() / want.abs()
    );
}

/// `xᵢ = frac(0.7548776662466927 i) − ½`, i = 0..n−1: the deterministic
/// sample the reference script also builds (`quasi(n)` there).
fn quasi(n: usize) -> Array1<f64> {
    (0..n)
        .map(|i| (i as f64 * 0.7548776662466927) % 1.0 - 0.5)
        .collect()
}

// scipy 1.17.1, statsmodels 0.15.0, numpy 2.4.6
/// (k, n, c, statsmodels lo, statsmodels hi, scipy lo, scipy hi)
#[rustfmt::skip]
const WILSON: &[(u64, u64, f64, f64, f64, f64, f64)] = &[
    // proportion_confint(0, 10, alpha=1 - 0.95, method="wilson"); binomtest(0, 10).proportion_ci(0.95, method="wilson")
    (0, 10, 0.95, 0.0, 0.2775327998628892, 0.0, 0.27753279986288926),
    // proportion_confint(10, 10, alpha=1 - 0.95, method="wilson"); binomtest(10, 10).proportion_ci(0.95, method="wilson")
    (10, 10, 0.95, 0.7224672001371107, 0.9999999999999999, 0.7224672001371109, 1.0),
    // proportion_confint(1, 10, alpha=1 - 0.95, method="wilson"); binomtest(1, 10).proportion_ci(0.95, method="wilson")
    (1, 10, 0.95, 0.017876213095072896, 0.4041500267952385, 0.017876213095072896, 0.4041500267952385),
    // proportion_confint(7, 20, alpha=1 - 0.95, method="wilson"); binomtest(7, 20).proportion_ci(0.95, method="wilson")
    (7, 20, 0.95, 0.18119182410108206, 0.5671457233147638, 0.1811918241010821, 0.5671457233147637),
    // proportion_confint(3, 15, alpha=1 - 0.9, method="wilson"); binomtest(3, 15).proportion_ci(0.9, method="wilson")
    (3, 15, 0.9, 0.08289830182588709, 0.4087863209401972, 0.08289830182588703, 0.40878632094019707),
    // proportion_confint(50, 100, alpha=1 - 0.99, method="wilson"); binomtest(50, 100).proportion_ci(0.99, method="wilson")
    (50, 100, 0.99, 0.37527962504483986, 0.6247203749551602, 0.37527962504483986, 0.6247203749551602),
    // proportion_confint(0, 1, alpha=1 - 0.5, method="wilson"); binomtest(0, 1).proportion_ci(0.5, method="wilson")
    (0, 1, 0.5, 0.0, 0.3126847440825833, 0.0, 0.3126847440825833),
    // proportion_confint(1, 1, alpha=1 - 0.8, method="wilson"); binomtest(1, 1).proportion_ci(0.8, method="wilson")
    (1, 1, 0.8, 0.3784475032253529, 1.0, 0.3784475032253529, 1.0),
    // proportion_confint(17, 1000, alpha=1 - 0.95, method="wilson"); binomtest(17, 1000).proportion_ci(0.95, method="wilson")
    (17, 1000, 0.95, 0.010640689856816328, 0.027055958840229925, 0.01064068985681633, 0.027055958840229925),
    // proportion_confint(999, 1000, alpha=1 - 0.95, method="wilson"); binomtest(999, 1000).proportion_ci(0.95, method="wilson")
    (999, 1000, 0.95, 0.9943574414020421, 0.9998234536293739, 0.9943574414020421, 0.9998234536293739),
    // proportion_confint(0, 1000, alpha=1 - 0.99, method="wilson"); binomtest(0, 1000).proportion_ci(0.99, method="wilson")
    (0, 1000, 0.99, 0.0, 0.0065911649034068286, 0.0, 0.0065911649034068286),
    // proportion_confint(1, 100000, alpha=1 - 0.95, method="wilson"); binomtest(1, 100000).proportion_ci(0.95, method="wilson")
    (1, 100000, 0.95, 1.7652477303783126e-06, 5.664709659040966e-05, 1.765247730378316e-06, 5.664709659040965e-05),
    // proportion_confint(123456, 1000000, alpha=1 - 0.999, method="wilson"); binomtest(123456, 1000000).proportion_ci(0.999, method="wilson")
    (123456, 1000000, 0.999, 0.12237762384725606, 0.12454253017460801, 0.12237762384725606, 0.12454253017460803),
];
/// (k, n, c, scipy lo, scipy hi, betaincinv lo, betaincinv hi)
#[rustfmt::skip]
const CLOPPER_PEARSON: &[(u64, u64, f64, f64, f64, f64, f64)] = &[
    // binomtest(0, 10).proportion_ci(0.95, method="exact"); betaincinv(0, 11, (1 - 0.95)/2), betaincinv(1, 10, 1 - (1 - 0.95)/2)
    (0, 10, 0.95, 0.0, 0.30849710781876294, 0.0, 0.3084971078187607),
    // binomtest(10, 10).proportion_ci(0.95, method="exact"); betaincinv(10, 1, (1 - 0.95)/2), betaincinv(11, 0, 1 - (1 - 0.95)/2)
    (10, 10, 0.95, 0.6915028921812371, 1.0, 0.6915028921812392, 1.0),
    // binomtest(1, 10).proportion_ci(0.95, method="exact"); betaincinv(1, 10, (1 - 0.95)/2), betaincinv(2, 9, 1 - (1 - 0.95)/2)
    (1, 10, 0.95, 0.0025285785444625728, 0.44501611702819543, 0.0025285785444617865, 0.4450161170281954),
    // binomtest(7, 20).proportion_ci(0.95, method="exact"); betaincinv(7, 14, (1 - 0.95)/2), betaincinv(8, 13, 1 - (1 - 0.95)/2)
    (7, 20, 0.95, 0.1539092047845412, 0.5921885345328283, 0.1539092047845412, 0.5921885345328282),
    // binomtest(3, 15).proportion_ci(0.9, method="exact"); betaincinv(3, 13, (1 - 0.9)/2), betaincinv(4, 12, 1 - (1 - 0.9)/2)
    (3, 15, 0.9, 0.05684686759024679, 0.4397844359815561, 0.056846867590246805, 0.43978443598155603),
    // binomtest(50, 100).proportion_ci(0.99, method="exact"); betaincinv(50, 51, (1 - 0.99)/2), betaincinv(51, 50, 1 - (1 - 0.99)/2)
    (50, 100, 0.99, 0.36886143735890525, 0.6311385626410948, 0.3688614373589241, 0.6311385626410759),
    // binomtest(0, 1).proportion_ci(0.5, method="exact"); betaincinv(0, 2, (1 - 0.5)/2), betaincinv(1, 1, 1 - (1 - 0.5)/2)
    (0, 1, 0.5, 0.0, 0.75, 0.0, 0.75),
    // binomtest(1, 1).proportion_ci(0.8, method="exact"); betaincinv(1, 1, (1 - 0.8)/2), betaincinv(2, 0, 1 - (1 - 0.8)/2)
    (1, 1, 0.8, 0.09999999999999998, 1.0, 0.09999999999999998, 1.0),
    // binomtest(17, 1000).proportion_ci(0.95, method="exact"); betaincinv(17, 984, (1 - 0.95)/2), betaincinv(18, 983, 1 - (1 - 0.95)/2)
    (17, 1000, 0.95, 0.009933512592716536, 0.027079496864807494, 0.009933512592716534, 0.027079496864851366),
    // binomtest(999, 1000).proportion_ci(0.95, method="exact"); betaincinv(999, 2, (1 - 0.95)/2), betaincinv(1000, 1, 1 - (1 - 0.95)/2)
    (999, 1000, 0.95, 0.9944410757201502, 0.9999746825125083, 0.9944410757201734, 0.9999746825125088),
    // binomtest(0, 1000).proportion_ci(0.99, method="exact"); betaincinv(0, 1001, (1 - 0.99)/2), betaincinv(1, 1000, 1 - (1 - 0.99)/2)
    (0, 1000, 0.99, 0.0, 0.005284306039498009, 0.0, 0.005284306039497442),
    // binomtest(1, 100000).proportion_ci(0.95, method="exact"); betaincinv(1, 100000, (1 - 0.95)/2), betaincinv(2, 99999, 1 - (1 - 0.95)/2)
    (1, 100000, 0.95, 2.5317842743932826e-07, 5.571516034432556e-05, 2.531780477933316e-07, 5.571516034774275e-05),
    // binomtest(123456, 1000000).proportion_ci(0.999, method="exact"); betaincinv(123456, 876545, (1 - 0.999)/2), betaincinv(123457, 876544, 1 - (1 - 0.999)/2)
    (123456, 1000000, 0.999, 0.12237589525913865, 0.12454179558467944, 0.12237589525913871, 0.12454179558467954),
];
/// (k, n, p, alternative, scipy p-value)
#[rustfmt::skip]
const BINOMIAL: &[(u64, u64, f64, Alternative, f64)] = &[
    // binomtest(7, 20, 0.5, alternative="two-sided").pvalue
    (7, 20, 0.5, Alternative::TwoSided, 0.26317596435546875),
    // binomtest(7, 20, 0.5, alternative="less").pvalue
    (7, 20, 0.5, Alternative::Less, 0.13158798217773438),
    // binomtest(7, 20, 0.5, alternative="greater").pvalue
    (7, 20, 0.5, Alternative::Greater, 0.9423408508300781),
    // binomtest(3, 10, 0.5, alternative="two-sided").pvalue
    (3, 10, 0.5, Alternative::TwoSided, 0.34375),
    // binomtest(3, 10, 0.5, alternative="less").pvalue
    (3, 10, 0.5, Alternative::Less, 0.171875),
    // binomtest(3, 10, 0.5, alternative="greater").pvalue
    (3, 10, 0.5, Alternative::Greater, 0.9453125),
    // binomtest(3, 15, 0.1, alternative="two-sided").pvalue
    (3, 15, 0.1, Alternative::TwoSided, 0.18406106910639106),
    // binomtest(3, 15, 0.1, alternative="less").pvalue
    (3, 15, 0.1, Alternative::Less, 0.944444369992464),
    // binomtest(3, 15, 0.1, alternative="greater").pvalue
    (3, 15, 0.1, Alternative::Greater, 0.18406106910639106),
    // binomtest(0, 10, 0.3, alternative="two-sided").pvalue
    (0, 10, 0.3, Alternative::TwoSided, 0.0388396033),
    // binomtest(0, 10, 0.3, alternative="less").pvalue
    (0, 10, 0.3, Alternative::Less, 0.028247524900000005),
    // binomtest(0, 10, 0.3, alternative="greater").pvalue
    (0, 10, 0.3, Alternative::Greater, 1.0),
    // binomtest(10, 10, 0.3, alternative="two-sided").pvalue
    (10, 10, 0.3, Alternative::TwoSided, 5.9048999999999975e-06),
    // binomtest(10, 10, 0.3, alternative="less").pvalue
    (10, 10, 0.3, Alternative::Less, 1.0),
    // binomtest(10, 10, 0.3, alternative="greater").pvalue
    (10, 10, 0.3, Alternative::Greater, 5.9048999999999975e-06),
    // binomtest(13, 30, 0.25, alternative="two-sided").pvalue
    (13, 30, 0.25, Alternative::TwoSided, 0.032189511563276346),
    // binomtest(13, 30, 0.25, alternative="less").pvalue
    (13, 30, 0.25, Alternative::Less, 0.9918208079686197),
    // binomtest(13, 30, 0.25, alternative="greater").pvalue
    (13, 30, 0.25, Alternative::Greater, 0.021593640879855477),
    // binomtest(5, 100, 0.001, alternative="two-sided").pvalue
    (5, 100, 0.001, Alternative::TwoSided, 6.956098934022613e-08),
    // binomtest(5, 100, 0.001, alternative="less").pvalue
    (5, 100, 0.001, Alternative::Less, 0.9999999989001895),
    // binomtest(5, 100, 0.001, alternative="greater").pvalue
    (5, 100, 0.001, Alternative::Greater, 6.956098934022613e-08),
    // binomtest(99, 100, 0.999, alternative="two-sided").pvalue
    (99, 100, 0.999, Alternative::TwoSided, 0.09520785288629104),
    // binomtest(99, 100, 0.999, alternative="less").pvalue
    (99, 100, 0.999, Alternative::Less, 0.09520785288629104),
    // binomtest(99, 100, 0.999, alternative="greater").pvalue
    (99, 100, 0.999, Alternative::Greater, 0.9953619316095758),
    // binomtest(100, 100, 0.999, alternative="two-sided").pvalue
    (100, 100, 0.999, Alternative::TwoSided, 1.0),
    // binomtest(100, 100, 0.999, alternative="less").pvalue
    (100, 100, 0.999, Alternative::Less, 1.0),
    // binomtest(100, 100, 0.999, alternative="greater").pvalue
    (100, 100, 0.999, Alternative::Greater, 0.9047921471137089),
    // binomtest(1, 50, 0.0001, alternative="two-sided").pvalue
    (1, 50, 0.0001, Alternative::TwoSided, 0.004987769576991172),
    // binomtest(1, 50, 0.0001, alternative="less").pvalue
    (1, 50, 0.0001, Alternative::Less, 0.9999877891309946),
    // binomtest(1, 50, 0.0001, alternative="greater").pvalue
    (1, 50, 0.0001, Alternative::Greater, 0.004987769576991172),
    // binomtest(0, 50, 0.0001, alternative="two-sided").pvalue
    (0, 50, 0.0001, Alternative::TwoSided, 1.0),
    // binomtest(0, 50, 0.0001, alternative="less").pvalue
    (0, 50, 0.0001, Alternative::Less, 0.9950122304230088),
    // binomtest(0, 50, 0.0001, alternative="greater").pvalue
    (0, 50, 0.0001, Alternative::Greater, 1.0),
    // binomtest(49, 50, 0.9999, alternative="two-sided").pvalue
    (49, 50, 0.9999, Alternative::TwoSided, 0.004987769576990624),
    // binomtest(49, 50, 0.9999, alternative="less").pvalue
    (49, 50, 0.9999, Alternative::Less, 0.004987769576990624),
    // binomtest(49, 50, 0.9999, alternative="greater").pvalue
    (49, 50, 0.9999, Alternative::Greater, 0.9999877891309946),
    // binomtest(500, 1000, 0.45, alternative="two-sided").pvalue
    (500, 1000, 0.45, Alternative::TwoSided, 0.0016399185862836087),
    // binomtest(500, 1000, 0.45, alternative="less").pvalue
    (500, 1000, 0.45, Alternative::Less, 0.9993191913375663),
    // binomtest(500, 1000, 0.45, alternative="greater").pvalue
    (500, 1000, 0.45, Alternative::Greater, 0.0008465492166192642),
    // binomtest(6, 12, 0.5, alternative="two-sided").pvalue
    (6, 12, 0.5, Alternative::TwoSided, 1.0),
    // binomtest(6, 12, 0.5, alternative="less").pvalue
    (6, 12, 0.5, Alternative::Less, 0.61279296875),
    // binomtest(6, 12, 0.5, alternative="greater").pvalue
    (6, 12, 0.5, Alternative::Greater, 0.61279296875),
    // binomtest(2, 7, 0.3333333333333333, alternative="two-sided").pvalue
    (2, 7, 0.3333333333333333, Alternative::TwoSided, 1.0),
    // binomtest(2, 7, 0.3333333333333333, alternative="less").pvalue
    (2, 7, 0.3333333333333333, Alternative::Less, 0.5706447187928669),
    // binomtest(2, 7, 0.3333333333333333, alternative="greater").pvalue
    (2, 7, 0.3333333333333333, Alternative::Greater, 0.736625514403292),
    // binomtest(0, 5, 0.0, alternative="two-sided").pvalue
    (0, 5, 0.0, Alternative::TwoSided, 1.0),
    // binomtest(0, 5, 0.0, alternative="less").pvalue
    (0, 5, 0.0, Alternative::Less, 1.0),
    // binomtest(0, 5, 0.0, alternative="greater").pvalue
    (0, 5, 0.0, Alternative::Greater, 1.0),
    // binomtest(1, 5, 0.0, alternative="two-sided").pvalue
    (1, 5, 0.0, Alternative::TwoSided, 0.0),
    // binomtest(1, 5, 0.0, alternative="less").pvalue
    (1, 5, 0.0, Alternative::Less, 1.0),
    // binomtest(1, 5, 0.0, alternative="greater").pvalue
    (1, 5, 0.0, Alternative::Greater, 0.0),
    // binomtest(5, 5, 1.0, alternative="two-sided").pvalue
    (5, 5, 1.0, Alternative::TwoSided, 1.0),
    // binomtest(5, 5, 1.0, alternative="less").pvalue
    (5, 5, 1.0, Alternative::Less, 1.0),
    // binomtest(5, 5, 1.0, alternative="greater").pvalue
    (5, 5, 1.0, Alternative::Greater, 1.0),
    // binomtest(4, 5, 1.0, alternative="two-sided").pvalue
    (4, 5, 1.0, Alternative::TwoSided, 0.0),
    // binomtest(4, 5, 1.0, alternative="less").pvalue
    (4, 5, 1.0, Alternative::Less, 0.0),
    // binomtest(4, 5, 1.0, alternative="greater").pvalue
    (4, 5, 1.0, Alternative::Greater, 1.0),
    // binomtest(271, 100000, 0.002, alternative="two-sided").pvalue
    (271, 100000, 0.002, Alternative::TwoSided, 1.6988486786978092e-06),
    // binomtest(271, 100000, 0.002, alternative="less").pvalue
    (271, 100000, 0.002, Alternative::Less, 0.9999992403449978),
    // binomtest(271, 100000, 0.002, alternative="greater").pvalue
    (271, 100000, 0.002, Alternative::Greater, 1.04362301512542e-06),
];
/// (table, alternative, scipy p-value)
#[rustfmt::skip]
const FISHER: &[([[u64; 2]; 2], Alternative, f64)] = &[
    // fisher_exact([[8, 2], [1, 5]], alternative="two-sided").pvalue
    ([[8, 2], [1, 5]], Alternative::TwoSided, 0.034965034965034975),
    // fisher_exact([[8, 2], [1, 5]], alternative="less").pvalue
    ([[8, 2], [1, 5]], Alternative::Less, 0.9991258741258742),
    // fisher_exact([[8, 2], [1, 5]], alternative="greater").pvalue
    ([[8, 2], [1, 5]], Alternative::Greater, 0.024475524475524483),
    // fisher_exact([[0, 5], [5, 0]], alternative="two-sided").pvalue
    ([[0, 5], [5, 0]], Alternative::TwoSided, 0.007936507936507938),
    // fisher_exact([[0, 5], [5, 0]], alternative="less").pvalue
    ([[0, 5], [5, 0]], Alternative::Less, 0.003968253968253969),
    // fisher_exact([[0, 5], [5, 0]], alternative="greater").pvalue
    ([[0, 5], [5, 0]], Alternative::Greater, 1.0),
    // fisher_exact([[3, 0], [0, 3]], alternative="two-sided").pvalue
    ([[3, 0], [0, 3]], Alternative::TwoSided, 0.10000000000000002),
    // fisher_exact([[3, 0], [0, 3]], alternative="less").pvalue
    ([[3, 0], [0, 3]], Alternative::Less, 1.0),
    // fisher_exact([[3, 0], [0, 3]], alternative="greater").pvalue
    ([[3, 0], [0, 3]], Alternative::Greater, 0.05000000000000001),
    // fisher_exact([[10, 0], [3, 7]], alternative="two-sided").pvalue
    ([[10, 0], [3, 7]], Alternative::TwoSided, 0.0030959752321981426),
    // fisher_exact([[10, 0], [3, 7]], alternative="less").pvalue
    ([[10, 0], [3, 7]], Alternative::Less, 1.0),
    // fisher_exact([[10, 0], [3, 7]], alternative="greater").pvalue
    ([[10, 0], [3, 7]], Alternative::Greater, 0.001547987616099071),
    // fisher_exact([[1, 9], [11, 3]], alternative="two-sided").pvalue
    ([[1, 9], [11, 3]], Alternative::TwoSided, 0.0027594561852200836),
    // fisher_exact([[1, 9], [11, 3]], alternative="less").pvalue
    ([[1, 9], [11, 3]], Alternative::Less, 0.0013797280926100418),
    // fisher_exact([[1, 9], [11, 3]], alternative="greater").pvalue
    ([[1, 9], [11, 3]], Alternative::Greater, 0.9999663480953022),
    // fisher_exact([[20, 15], [10, 25]], alternative="two-sided").pvalue
    ([[20, 15], [10, 25]], Alternative::TwoSided, 0.028950076987203314),
    // fisher_exact([[20, 15], [10, 25]], alternative="less").pvalue
    ([[20, 15], [10, 25]], Alternative::Less, 0.9962978574354598),
    // fisher_exact([[20, 15], [10, 25]], alternative="greater").pvalue
    ([[20, 15], [10, 25]], Alternative::Greater, 0.014475038493601657),
    // fisher_exact([[0, 0], [5, 5]], alternative="two-sided").pvalue
    ([[0, 0], [5, 5]], Alternative::TwoSided, 1.0),
    // fisher_exact([[0, 0], [5, 5]], alternative="less").pvalue
    ([[0, 0], [5, 5]], Alternative::Less, 1.0),
    // fisher_exact([[0, 0], [5, 5]], alternative="greater").pvalue
    ([[0, 0], [5, 5]], Alternative::Greater, 1.0),
    // fisher_exact([[0, 3], [0, 4]], alternative="two-sided").pvalue
    ([[0, 3], [0, 4]], Alternative::TwoSided, 1.0),
    // fisher_exact([[0, 3], [0, 4]], alternative="less").pvalue
    ([[0, 3], [0, 4]], Alternative::Less, 1.0),
    // fisher_exact([[0, 3], [0, 4]], alternative="greater").pvalue
    ([[0, 3], [0, 4]], Alternative::Greater, 1.0),
    // fisher_exact([[100, 200], [150, 120]], alternative="two-sided").pvalue
    ([[100, 200], [150, 120]], Alternative::TwoSided, 9.654218494855555e-08),
    // fisher_exact([[100, 200], [150, 120]], alternative="less").pvalue
    ([[100, 200], [150, 120]], Alternative::Less, 6.774818945025899e-08),
    // fisher_exact([[100, 200], [150, 120]], alternative="greater").pvalue
    ([[100, 200], [150, 120]], Alternative::Greater, 0.9999999736951672),
    // fisher_exact([[2, 7], [8, 2]], alternative="two-sided").pvalue
    ([[2, 7], [8, 2]], Alternative::TwoSided, 0.02301413756522116),
    // fisher_exact([[2, 7], [8, 2]], alternative="less").pvalue
    ([[2, 7], [8, 2]], Alternative::Less, 0.01852172595206651),
    // fisher_exact([[2, 7], [8, 2]], alternative="greater").pvalue
    ([[2, 7], [8, 2]], Alternative::Greater, 0.9990149169715733),
    // fisher_exact([[5, 5], [5, 5]], alternative="two-sided").pvalue
    ([[5, 5], [5, 5]], Alternative::TwoSided, 1.0),
    // fisher_exact([[5, 5], [5, 5]], alternative="less").pvalue
    ([[5, 5], [5, 5]], Alternative::Less, 0.6718591006516703),
    // fisher_exact([[5, 5], [5, 5]], alternative="greater").pvalue
    ([[5, 5], [5, 5]], Alternative::Greater, 0.6718591006516703),
    // fisher_exact([[3, 1], [1, 3]], alternative="two-sided").pvalue
    ([[3, 1], [1, 3]], Alternative::TwoSided, 0.48571428571428565),
    // fisher_exact([[3, 1], [1, 3]], alternative="less").pvalue
    ([[3, 1], [1, 3]], Alternative::Less, 0.9857142857142858),
    // fisher_exact([[3, 1], [1, 3]], alternative="greater").pvalue
    ([[3, 1], [1, 3]], Alternative::Greater, 0.24285714285714283),
    // fisher_exact([[0, 10], [1, 9]], alternative="two-sided").pvalue
    ([[0, 10], [1, 9]], Alternative::TwoSided, 1.0),
    // fisher_exact([[0, 10], [1, 9]], alternative="less").pvalue
    ([[0, 10], [1, 9]], Alternative::Less, 0.5),
    // fisher_exact([[0, 10], [1, 9]], alternative="greater").pvalue
    ([[0, 10], [1, 9]], Alternative::Greater, 1.0),
    // fisher_exact([[1, 0], [0, 0]], alternative="two-sided").pvalue
    ([[1, 0], [0, 0]], Alternative::TwoSided, 1.0),
    // fisher_exact([[1, 0], [0, 0]], alternative="less").pvalue
    ([[1, 0], [0, 0]], Alternative::Less, 1.0),
    // fisher_exact([[1, 0], [0, 0]], alternative="greater").pvalue
    ([[1, 0], [0, 0]], Alternative::Greater, 1.0),
    // fisher_exact([[1000, 20], [980, 45]], alternative="two-sided").pvalue
    ([[1000, 20], [980, 45]], Alternative::TwoSided, 0.0022440447496523148),
    // fisher_exact([[1000, 20], [980, 45]], alternative="less").pvalue
    ([[1000, 20], [980, 45]], Alternative::Less, 0.9995136957447615),
    // fisher_exact([[1000, 20], [980, 45]], alternative="greater").pvalue
    ([[1000, 20], [980, 45]], Alternative::Greater, 0.0011963118045093249),
];
#[rustfmt::skip]
const WX5: [f64; 5] = [-0.211189, -0.517733, 0.149596, -1.789897, 0.284452];
#[rustfmt::skip]
const WY5: [f64; 5] = [-1.121696, -1.52605, -0.701463, -2.751474, -0.958413];
#[rustfmt::skip]
const WX10: [f64; 10] = [-0.731285, 0.409695, 0.442442, -0.927863, -0.933168, -1.470037, -0.787689, 0.319414, 0.85727, 0.2288];
#[rustfmt::skip]
const WY10: [f64; 10] = [-0.265201, -1.167447, -0.10423, -1.11569, -0.060371, -0.502593, 0.556018, -0.09753, 1.068825, -0.708214];
#[rustfmt::skip]
const WX20: [f64; 20] = [0.755945, 0.225161, 1.696556, -1.962054, 0.874258, -1.023652, -0.868647, -0.018363, -1.510559, -1.194581, -0.505542, -0.322484, -1.903679, -0.873631, -0.145914, -0.131928, -0.662308, -0.004089, -0.513374, 1.173499];
#[rustfmt::skip]
const WY20: [f64; 20] = [-1.309135, -0.440896, -0.989595, 0.354562, -1.471549, 0.376603, -1.695302, -1.866997, -1.04847, -0.407873, -2.021024, -1.004189, -0.50397, -0.535558, 0.375566, 0.284274, -0.167169, 0.413433, 0.439726, -1.609162];
#[rustfmt::skip]
const WX25: [f64; 25] = [2.185262, -0.048927, -0.605942, 0.600149, -0.488577, 0.627157, -1.201399, 0.725358, -1.263874, 0.375733, -0.213225, -0.501483, 0.153073, -0.575308, -0.771943, 0.394906, 1.931207, -0.997757, 1.155167, 1.081558, -1.12008, 0.190235, 0.524039, -0.910856, 1.079218];
#[rustfmt::skip]
const WY25: [f64; 25] = [1.07791, 1.898438, 0.589834, 1.14603, 2.012117, 0.402991, -0.300223, -1.250914, 0.486455, -1.067217, 1.297693, 0.347165, 1.011057, 0.362714, 1.438331, -0.256355, 0.250068, 1.600115, -1.058311, 0.392527, 1.175257, -0.863533, -0.499719, -1.049911, 1.380756];
#[rustfmt::skip]
const WX40: [f64; 40] = [-0.18938, -0.315153, -1.412544, -1.063788, 0.926532, -0.189466, -0.400887, 0.791898, -0.90587, 1.613377, -0.368215, -0.513043, -0.265165, 0.037342, 0.701169, -0.698836, -0.824027, 0.038157, 0.338946, 0.877255, -0.476753, 0.967012, -1.019893, 1.385778, -1.092072, -0.086264, 0.195294, 1.013168, 1.460168, 0.049231, 1.895644, -0.819525, 0.327086, -0.236901, 0.572427, -0.951858, -1.097837, 1.283161, 1.06403, 0.561118];
#[rustfmt::skip]
const WY40: [f64; 40] = [-1.002213, 0.292071, 0.147158, 0.933463, -0.067084, -1.914519, -0.51626, -0.327445, 0.492205, -0.547773, -1.358217, 0.850392, 0.085599, -1.397424, -0.963839, 0.619146, -1.649368, 0.667976, -0.277128, -0.452219, 0.566086, -0.724157, -0.24422, 1.335002, -1.14487, 1.521685, -1.986116, -1.156448, 0.600917, -0.962844, -0.618335, 0.489582, 0.657805, 0.190033, -0.841339, 0.328267, -0.146135, 0.879181, 0.08987, -1.095929];
#[rustfmt::skip]
const WXT: [f64; 12] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0];
#[rustfmt::skip]
const WYT: [f64; 12] = [0.0, 3.0, 3.0, 2.0, 5.5, 4.0, 9.0, 6.0, 9.5, 7.0, 12.5, 10.0];
/// (n, alternative, W+, scipy p-value, exact)
#[rustfmt::skip]
const WILCOXON: &[(usize, Alternative, f64, f64, bool)] = &[
    // wilcoxon(WX5, WY5, alternative="two-sided", method="exact", correction=True).pvalue
    (5, Alternative::TwoSided, 15.0, 0.0625, true),
    // wilcoxon(WX5, WY5, alternative="less", method="exact", correction=True).pvalue
    (5, Alternative::Less, 15.0, 1.0, true),
    // wilcoxon(WX5, WY5, alternative="greater", method="exact", correction=True).pvalue
    (5, Alternative::Greater, 15.0, 0.03125, true),
    // wilcoxon(WX10, WY10, alternative="two-sided", method="exact", correction=True).pvalue
    (10, Alternative::TwoSided, 26.0, 0.921875, true),
    // wilcoxon(WX10, WY10, alternative="less", method="exact", correction=True).pvalue
    (10, Alternative::Less, 26.0, 0.4609375, true),
    // wilcoxon(WX10, WY10, alternative="greater", method="exact", correction=True).pvalue
    (10, Alternative::Greater, 26.0, 0.5771484375, true),
    // wilcoxon(WX20, WY20, alternative="two-sided", method="exact", correction=True).pvalue
    (20, Alternative::TwoSided, 127.0, 0.4304332733154297, true),
    // wilcoxon(WX20, WY20, alternative="less", method="exact", correction=True).pvalue
    (20, Alternative::Less, 127.0, 0.7954511642456055, true),
    // wilcoxon(WX20, WY20, alternative="greater", method="exact", correction=True).pvalue
    (20, Alternative::Greater, 127.0, 0.21521663665771484, true),
    // wilcoxon(WX25, WY25, alternative="two-sided", method="exact", correction=True).pvalue
    (25, Alternative::TwoSided, 124.0, 0.312333345413208, true),
    // wilcoxon(WX25, WY25, alternative="less", method="exact", correction=True).pvalue
    (25, Alternative::Less, 124.0, 0.156166672706604, true),
    // wilcoxon(WX25, WY25, alternative="greater", method="exact", correction=True).pvalue
    (25, Alternative::Greater, 124.0, 0.8501938283443451, true),
    // wilcoxon(WX40, WY40, alternative="two-sided", method="asymptotic", correction=True).pvalue
    (40, Alternative::TwoSided, 521.0, 0.13747407569642023, false),
    // wilcoxon(WX40, WY40, alternative="less", method="asymptotic", correction=True).pvalue
    (40, Alternative::Less, 521.0, 0.9330248650590086, false),
    // wilcoxon(WX40, WY40, alternative="greater", method="asymptotic", correction=True).pvalue
    (40, Alternative::Greater, 521.0, 0.06873703784821011, false),
];
/// (alternative, W+, scipy p-value) for WXT, WYT
#[rustfmt::skip]
const WILCOXON_TIES: &[(Alternative, f64, f64)] = &[
    // wilcoxon(WXT, WYT, alternative="two-sided").pvalue (auto: exact sign-flip permutation test)
    (Alternative::TwoSided, 46.5, 0.251953125),
    // wilcoxon(WXT, WYT, alternative="less").pvalue (auto: exact sign-flip permutation test)
    (Alternative::Less, 46.5, 0.890625),
    // wilcoxon(WXT, WYT, alternative="greater").pvalue (auto: exact sign-flip permutation test)
    (Alternative::Greater, 46.5, 0.1259765625),
];
#[rustfmt::skip]
const T5: [f64; 5] = [1.2, 3.4, 2.2, 5.1, 4.4];
#[rustfmt::skip]
const T2: [f64; 2] = [0.0, 1.0];
#[rustfmt::skip]
const T3: [f64; 3] = [-2.5, 0.25, 1.75];
#[rustfmt::skip]
const T30: [f64; 30] = [10.00369, 10.896237, 9.177586, 7.328224, 8.635988, 7.02506, 10.180431, 14.020646, 8.52338, 8.138575, 11.469526, 11.070661, 10.316243, 7.208596, 9.912245, 12.08591, 5.967356, 8.627153, 4.296332, 6.131387, 4.474795, 9.294727, 6.197661, 10.813793, 10.470253, 9.439207, 2.449721, 8.383921, 9.854497, 10.339927];
/// (data, c, mean, scipy lo, scipy hi)
#[rustfmt::skip]
const T_INTERVALS: &[(&str, f64, f64, f64, f64)] = &[
    // t.interval(0.95, 4, loc=mean(T5), scale=sem(T5))
    ("T5", 0.95, 3.2599999999999993, 1.2897018393633333, 5.230298160636665),
    // t.interval(0.5, 4, loc=mean(T5), scale=sem(T5))
    ("T5", 0.5, 3.2599999999999993, 2.73436594381642, 3.7856340561835786),
    // t.interval(0.9, 1, loc=mean(T2), scale=sem(T2))
    ("T2", 0.9, 0.5, -2.6568757573375223, 3.6568757573375184),
    // t.interval(0.999999, 2, loc=mean(T3), scale=sem(T3))
    ("T3", 0.999999, -0.16666666666666666, -1244.5977769135538, 1244.2644435111406),
    // t.interval(0.99, 29, loc=mean(T30), scale=sem(T30))
    ("T30", 0.99, 8.757790933333334, 7.495288003534105, 10.020293863132563),
    // t.interval(0.8, 29, loc=mean(T30), scale=sem(T30))
    ("T30", 0.8, 8.757790933333334, 8.157117123562845, 9.358464743103823),
    // t.interval(0.95, 10000, loc=mean(quasi(10001)), scale=sem(quasi(10001)))
    ("quasi(10001)", 0.95, -7.992542048892229e-05, -0.005739140882761061, 0.005579290041783216),
    // t.interval(0.95, 20000, loc=mean(quasi(20001)), scale=sem(quasi(20001)))
    ("quasi(20001)", 0.95, -2.3698764470129655e-05, -0.00402483092318009, 0.003977433394239831),
    // t.interval(0.9999, 20000, loc=mean(quasi(20001)), scale=sem(quasi(20001)))
    ("quasi(20001)", 0.9999, -2.3698764470129655e-05, -0.007967197059517173, 0.007919799530576912),
    // t.interval(0.95, 199, loc=mean(quasi(200)), scale=sem(quasi(200)))
    ("quasi(200)", 0.95, -0.0046722084540740845, -0.044998521843786984, 0.03565410493563882),
];

#[test]
fn wilson_matches_statsmodels_and_scipy() {
    for &(k, n, c, sm_lo, sm_hi, sp_lo, sp_hi) in WILSON {
        let ci = wilson_interval(k, n, c).unwrap();
        let what = format!("wilson({k}, {n}, {c})");
        // Closed form (our lower end avoids SciPy's cancellation): agreement
        // to rounding; `abs` only covers SciPy's 0 / 1 ends (statsmodels
        // gives 0.9999999999999999 for k = n).
        assert_close(ci.lo, sp_lo, 1e-10, 1e-300, &what);
        assert_close(ci.hi, sp_hi, 1e-10, 1e-300, &what);
        assert_close(ci.lo, sm_lo, 1e-10, 1e-300, &what);
        assert_close(ci.hi, sm_hi, 1e-10, 1e-300, &what);
        assert!(ci.contains(k as f64 / n as f64));
    }
}

#[test]
fn clopper_pearson_matches_scipy() {
    for &(k, n, c, sp_lo, sp_hi, b_lo, b_hi) in CLOPPER_PEARSON {
        let ci = clopper_pearson_interval(k, n, c).unwrap();
        let what = format!("clopper_pearson({k}, {n}, {c})");
        // Against Boost's betaincinv (accurate to a few ulps): our ends come
        // from a Newton iteration stopped at a relative step of 1e-10, after
        // which the error left is far below this tolerance.
        assert_close(ci.lo, b_lo, 1e-10, 0.0, &what);
        assert_close(ci.hi, b_hi, 1e-10, 0.0, &what);
        // Against binomtest's own numbers: SciPy finds them with brentq at its
        // default xtol = 2e-12 (absolute), so they are only good to about that.
        assert_close(ci.lo, sp_lo, 1e-10, 4e-12, &what);
        assert_close(ci.hi, sp_hi, 1e-10, 4e-12, &what);
        assert!(ci.contains(k as f64 / n as f64));
        if k == 0 {
            assert_eq!(ci.lo, 0.0);
        }
        if k == n {
            assert_eq!(ci.hi, 1.0);
        }
        // Symmetry: failures are successes of the complementary event.
        let mirror = clopper_pearson_interval(n - k, n, c).unwrap();
        assert_close(1.0 - mirror.hi, ci.lo, 1e-10, 1e-15, &what);
    }
}

#[test]
fn binomial_test_matches_scipy() {
    for &(k, n, p, alt, want) in BINOMIAL {
        let got = binomial_test(k, n, p, alt).unwrap();
        // Exact sums of binomial probabilities; `abs` only for p-values of 0.
        assert_close(
            got,
            want,
            1e-10,
            1e-300,
            &format!("binomtest({k}, {n}, {p}, {alt:?})"),
        );
    }
}

#[test]
fn fisher_exact_matches_scipy() {
    for &(table, alt, want) in FISHER {
        let got = fisher_exact(table, alt).unwrap();
        assert_close(
            got,
            want,
            1e-10,
            0.0,
            &format!("fisher_exact({table:?}, {alt:?})"),
        );
    }
}

#[test]
fn wilcoxon_matches_scipy() {
    let samples: [(usize, &[f64], &[f64]); 5] = [
        (5, &WX5, &WY5),
        (10, &WX10, &WY10),
        (20, &WX20, &WY20),
        (25, &WX25, &WY25),
        (40, &WX40, &WY40),
    ];
    for &(n, alt, w_plus, want, exact) in WILCOXON {
        let (_, x, y) = samples.iter().find(|s| s.0 == n).unwrap();
        let r = wilcoxon_signed_rank(ArrayView1::from(*x), ArrayView1::from(*y), alt).unwrap();
        let what = format!("wilcoxon n = {n}, {alt:?}");
        assert_eq!(r.n, n, "{what}");
        assert_eq!(r.exact, exact, "{what}");
        assert_eq!(r.statistic, w_plus, "{what}");
        // Exact: counts over 2ⁿ sign patterns, one rounding. Approximate: erfc.
        assert_close(r.p_value, want, 1e-10, 0.0, &what);
    }
}

/// All 2ⁿ sign flips of the ranks, by brute force: (P(W⁺ ≤ w), P(W⁺ ≥ w)).
fn brute_force_sign_flips(ranks: &[f64], w: f64) -> (f64, f64) {
    let n = ranks.len();
    let (mut le, mut ge) = (0_u64, 0_u64);
    for mask in 0_u64..(1 << n) {
        let s: f64 = (0..n)
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| ranks[i])
            .sum();
        le += u64::from(s <= w + 1e-9);
        ge += u64::from(s >= w - 1e-9);
    }
    let total = (1_u64 << n) as f64;
    (le as f64 / total, ge as f64 / total)
}

#[test]
fn wilcoxon_exact_with_ties_and_zeros_matches_brute_force_and_scipy() {
    let (x, y) = (ArrayView1::from(&WXT), ArrayView1::from(&WYT));
    let d: Vec<f64> = x
        .iter()
        .zip(y.iter())
        .map(|(a, b)| a - b)
        .filter(|&d| d != 0.0)
        .collect();
    let abs: Array1<f64> = d.iter().map(|d| d.abs()).collect();
    let ranks = stats::ranks(abs.view()).unwrap();
    assert!(
        ranks.iter().any(|r| r.fract() != 0.0),
        "the sample should have ties"
    );
    let w: f64 = d
        .iter()
        .zip(ranks.iter())
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, r)| r)
        .sum();
    let (le, ge) = brute_force_sign_flips(ranks.as_slice().unwrap(), w);
    for &(alt, w_plus, scipy) in WILCOXON_TIES {
        let r = wilcoxon_signed_rank(x, y, alt).unwrap();
        assert!(r.exact);
        assert_eq!(r.n, d.len());
        assert_eq!(r.statistic, w);
        assert_eq!(r.statistic, w_plus);
        let want = match alt {
            Alternative::Less => le,
            Alternative::Greater => ge,
            Alternative::TwoSided => (2.0 * le.min(ge)).min(1.0),
        };
        assert_close(
            r.p_value,
            want,
            1e-12,
            0.0,
            &format!("ties, {alt:?}, brute force"),
        );
        // SciPy's default here is the exact sign-flip permutation test.
        assert_close(
            r.p_value,
            scipy,
            1e-10,
            0.0,
            &format!("ties, {alt:?}, scipy"),
        );
    }
}

#[test]
fn t_interval_matches_scipy() {
    for &(name, c, mean, lo, hi) in T_INTERVALS {
        let data: Array1<f64> = match name {
            "T5" => Array1::from(T5.to_vec()),
            "T2" => Array1::from(T2.to_vec()),
            "T3" => Array1::from(T3.to_vec()),
            "T30" => Array1::from(T30.to_vec()),
            _ => quasi(name[6..name.len() - 1].parse().unwrap()),
        };
        let (m, ci) = t_interval(data.view(), c).unwrap();
        let what = format!("t_interval({name}, {c})");
        // Mean: Welford against numpy's pairwise sum, a few ulps apart.
        assert_close(m, mean, 1e-12, 1e-15, &what);
        // The t quantile is a Newton iterate (ν ≤ 10⁴) or a Cornish–Fisher
        // sum (beyond), good to ~1e-14 relative at moderate c. For
        // (T3, 0.999999) SciPy's own upper end is off by 5.5e-11 relative (it
        // evaluates the quantile at the rounded (1 + c)/2; its lower end, at
        // (1 − c)/2, is right), hence the 1e-10: see `t_quantile_closed_forms`
        // for a tighter check of ours there.
        assert_close(ci.lo, lo, 1e-10, 0.0, &what);
        assert_close(ci.hi, hi, 1e-10, 0.0, &what);
    }
}

/// Closed forms of the two-sided t quantile, written in terms of α = 1 − c
/// (exact in f64) so that they are accurate themselves: ν = 1 (Cauchy),
/// `t = tan(πc/2) = cot(πα/2)`; ν = 2, `t = c √2 / √(α(1 + c))`. The data are chosen
/// with standard error 1 (n = 2: ±1) and 1/√3 (n = 3: −1, 0, 1).
#[test]
fn t_quantile_closed_forms() {
    for c in [1e-6, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999999, 1.0 - 1e-12] {
        let alpha = 1.0 - c;
        // tan(πc/2) = cot(πα/2), each evaluated where its argument is far from π/2.
        let cauchy = if c <= 0.5 {
            (std::f64::consts::FRAC_PI_2 * c).tan()
        } else {
            1.0 / (std::f64::consts::FRAC_PI_2 * alpha).tan()
        };
        let (m, ci) = t_interval(array![-1.0, 1.0].view(), c).unwrap();
        assert_eq!(m, 0.0);
        // Newton on c − P(|T| ≤ t): the residual is formed by a subtraction
        // near 1, which costs about ε/α relative in t.
        let tol = 1e-14 + 1e-16 / alpha;
        assert_close(ci.hi, cauchy, tol, 0.0, &format!("nu = 1, c = {c}"));
        assert_close(-ci.lo, cauchy, tol, 0.0, &format!("nu = 1, c = {c}"));
        let nu2 = c * std::f64::consts::SQRT_2 / (alpha * (1.0 + c)).sqrt();
        let (_, ci) = t_interval(array![-1.0, 0.0, 1.0].view(), c).unwrap();
        assert_close(
            ci.hi * 3.0_f64.sqrt(),
            nu2,
            tol,
            0.0,
            &format!("nu = 2, c = {c}"),
        );
    }
}

#[test]
fn t_interval_of_constant_data_is_degenerate() {
    let (m, ci) = t_interval(array![2.5, 2.5, 2.5].view(), 0.95).unwrap();
    assert_eq!((m, ci.lo, ci.hi), (2.5, 2.5, 2.5));
}

#[test]
fn interval_helpers() {
    let ci = Interval { lo: -1.0, hi: 2.0 };
    assert!(ci.contains(-1.0) && ci.contains(2.0) && ci.contains(0.0));
    assert!(!ci.contains(2.5) && ci.excludes(2.5) && ci.excludes(-1.5));
    assert!(!ci.excludes(0.0));
    assert!(!ci.contains(f64::NAN) && !ci.excludes(f64::NAN));
    assert_eq!(ci.width(), 3.0);
}

/// The statistic `paired_bootstrap_interval` uses: the mean by pairwise summation.
fn mean(s: &[f64]) -> f64 {
    mlcore::stats::pairwise_sum(s) / s.len() as f64
}

#[test]
fn bootstrap_is_deterministic_for_a_seed() {
    let data = quasi(50);
    let a = bootstrap_interval(data.view(), mean, 500, 0.9, 11).unwrap();
    let b = bootstrap_interval(data.view(), mean, 500, 0.9, 11).unwrap();
    let c = bootstrap_interval(data.view(), mean, 500, 0.9, 12).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.lo < a.hi);
    let x = quasi(40);
    let y = x.mapv(|v| 0.5 * v + 0.1);
    let p = paired_bootstrap_interval(x.view(), y.view(), 300, 0.95, 3).unwrap();
    assert_eq!(
        p,
        paired_bootstrap_interval(x.view(), y.view(), 300, 0.95, 3).unwrap()
    );
    let d = &x - &y;
    assert_eq!(p, bootstrap_interval(d.view(), mean, 300, 0.95, 3).unwrap());
}

/// For a large normal sample the percentile bootstrap of the mean is close to
/// the t interval (both ≈ x̄ ± 1.96 s/√n): a property, not a recorded value.
#[test]
fn bootstrap_of_mean_is_close_to_t_interval_for_normal_data() {
    let mut rng = mlcore::sampling::seeded(2024);
    let data = mlcore::sampling::standard_normal(2000, &mut rng).mapv(|z| 3.0 + 2.0 * z);
    let (_, t) = t_interval(data.view(), 0.95).unwrap();
    let b = bootstrap_interval(data.view(), mean, 4000, 0.95, 99).unwrap();
    // Monte Carlo error of the 2.5 % / 97.5 % bootstrap quantiles with 4000
    // resamples is about 2 % of the half-width; allow 10 %.
    let half = t.width() / 2.0;
    assert!((b.lo - t.lo).abs() < 0.1 * half, "{b:?} vs {t:?}");
    assert!((b.hi - t.hi).abs() < 0.1 * half, "{b:?} vs {t:?}");
}

#[test]
fn typed_errors_on_bad_input() {
    let nan = f64::NAN;
    assert!(matches!(
        wilson_interval(3, 0, 0.95),
        Err(Error::InvalidParameter { name: "n", .. })
    ));
    assert!(matches!(
        wilson_interval(4, 3, 0.95),
        Err(Error::InvalidParameter {
            name: "successes",
            ..
        })
    ));
    assert!(matches!(
        clopper_pearson_interval(1, 3, 1.0),
        Err(Error::InvalidParameter {
            name: "confidence",
            ..
        })
    ));
    assert!(matches!(
        binomial_test(1, 3, nan, Alternative::Less),
        Err(Error::InvalidParameter { name: "p", .. })
    ));
    assert!(binomial_test(1, u64::MAX, 0.5, Alternative::Less).is_err());
    assert!(fisher_exact([[u64::MAX, 1], [1, 1]], Alternative::TwoSided).is_err());
    let x = array![1.0, 2.0, 3.0];
    assert!(matches!(
        wilcoxon_signed_rank(x.view(), array![1.0, 2.0].view(), Alternative::TwoSided),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        wilcoxon_signed_rank(x.view(), x.view(), Alternative::TwoSided),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        wilcoxon_signed_rank(
            array![f64::MAX].view(),
            array![-f64::MAX].view(),
            Alternative::Less
        ),
        Err(Error::NonFinite { what: "x - y", .. })
    ));
    assert!(matches!(
        t_interval(array![1.0].view(), 0.95),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        t_interval(array![f64::MAX, -f64::MAX].view(), 0.95),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        bootstrap_interval(x.view(), |_| nan, 10, 0.9, 1),
        Err(Error::NonFinite {
            what: "bootstrap statistic",
            index: 0
        })
    ));
    assert!(matches!(
        bootstrap_interval(x.view(), mean, 0, 0.9, 1),
        Err(Error::InvalidParameter {
            name: "resamples",
            ..
        })
    ));
}

/// A float that is often hostile: NaN, ±∞, 0, 1, out of range, or anything.
fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(1.0),
        Just(-0.5),
        Just(1.5),
        any::<f64>(),
        0.0..1.0_f64,
    ]
}

/// A data vector, possibly empty, possibly with a NaN or an infinity.
fn hostile_data() -> impl Strategy<Value = Vec<f64>> {
    (
        prop::collection::vec(-1e3..1e3_f64, 0..12),
        prop_oneof![
            Just(None),
            Just(Some(f64::NAN)),
            Just(Some(f64::INFINITY)),
            Just(Some(f64::NEG_INFINITY))
        ],
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut v, bad, at)| {
            if let Some(b) = bad {
                let i = at.index(v.len() + 1);
                v.insert(i, b);
            }
            v
        })
}

fn alternative() -> impl Strategy<Value = Alternative> {
    prop_oneof![
        Just(Alternative::TwoSided),
        Just(Alternative::Less),
        Just(Alternative::Greater)
    ]
}

fn is_valid_data(v: &[f64]) -> bool {
    !v.is_empty() && v.iter().all(|x| x.is_finite())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Hostile counts and parameters give `Err` exactly when they are invalid, and never panic.
    #[test]
    fn counts_and_parameters_never_panic(
        k in prop_oneof![0_u64..50, any::<u64>()],
        n in prop_oneof![0_u64..50, any::<u64>()],
        c in hostile_f64(),
        p in hostile_f64(),
        alt in alternative(),
    ) {
        let valid_counts = (1..=1 << 53).contains(&n) && k <= n;
        let valid_c = c > 0.0 && c < 1.0;
        let valid_p = (0.0..=1.0).contains(&p);
        // Keep the valid cases cheap: huge n makes tail sums long.
        prop_assume!(!(valid_counts && n > 1 << 40));
        prop_assert_eq!(wilson_interval(k, n, c).is_ok(), valid_counts && valid_c);
        prop_assert_eq!(clopper_pearson_interval(k, n, c).is_ok(), valid_counts && valid_c);
        prop_assert_eq!(binomial_test(k, n, p, alt).is_ok(), valid_counts && valid_p);
        let table = [[k % 1000, n % 1000], [k / 7 % 1000, n / 3 % 1000]];
        prop_assert!(fisher_exact(table, alt).is_ok());
        prop_assert!(fisher_exact([[k, n], [1, 1]], alt).is_ok() == k.checked_add(n).is_some_and(|s| s <= (1 << 53) - 2));
    }

    /// Hostile arrays and confidences give `Err`, never a panic.
    #[test]
    fn arrays_never_panic(
        x in hostile_data(),
        y in hostile_data(),
        c in hostile_f64(),
        resamples in 0_usize..20,
        alt in alternative(),
    ) {
        let (xv, yv) = (ArrayView1::from(&x[..]), ArrayView1::from(&y[..]));
        let valid_c = c > 0.0 && c < 1.0;
        let w = wilcoxon_signed_rank(xv, yv, alt);
        if !is_valid_data(&x) || !is_valid_data(&y) || x.len() != y.len() {
            prop_assert!(w.is_err());
        } else if let Ok(r) = w {
            prop_assert!((0.0..=1.0).contains(&r.p_value));
        }
        let t = t_interval(xv, c);
        prop_assert_eq!(t.is_ok(), is_valid_data(&x) && x.len() >= 2 && valid_c);
        let b = bootstrap_interval(xv, mean, resamples, c, 5);
        prop_assert_eq!(b.is_ok(), is_valid_data(&x) && valid_c && resamples > 0);
        let pb = paired_bootstrap_interval(xv, yv, resamples, c, 5);
        prop_assert_eq!(
            pb.is_ok(),
            is_valid_data(&x) && is_valid_data(&y) && x.len() == y.len() && valid_c && resamples > 0
        );
    }

    /// Wilson and Clopper–Pearson intervals lie in [0, 1] and contain k/n.
    #[test]
    fn proportion_intervals_are_in_unit_interval_and_contain_phat(
        n in prop_oneof![1_u64..100, 1_u64..1_000_000, 1_u64..(1 << 30)],
        frac in 0.0..=1.0_f64,
        c in prop_oneof![0.0001..0.9999_f64, Just(1e-12), Just(1.0 - 1e-12), Just(0.95)],
    ) {
        let k = ((n as f64 * frac).round() as u64).min(n);
        let phat = k as f64 / n as f64;
        for ci in [wilson_interval(k, n, c).unwrap(), clopper_pearson_interval(k, n, c).unwrap()] {
            prop_assert!(0.0 <= ci.lo && ci.lo <= ci.hi && ci.hi <= 1.0, "{:?}", ci);
            prop_assert!(ci.contains(phat), "{:?} should contain {}", ci, phat);
        }
    }
}
