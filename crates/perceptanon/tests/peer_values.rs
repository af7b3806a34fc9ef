//! Known values: the spec's concrete cases and values recorded from scipy
//! 1.17.1 / scikit-image 0.26.0 by `scripts/compare/perceptanon_reference.py`
//! on inputs both sides rebuild from the same 31-bit LCG.

use ndarray::{Array1, Array2, Array3, array};
use perceptanon::anonymize::{gaussian_blur, inpaint_biharmonic};
use perceptanon::corr::{KendallVariant, kendall, pearson, spearman};
use perceptanon::image::{Image, Region};
use perceptanon::iqa::{SsimParams, mse, psnr, ssim};
use perceptanon::simulate::reference_lcg as lcg;

fn corr_case(seed: u64, n: usize, levels: usize) -> (Array1<f64>, Array1<f64>) {
    let u = lcg(seed, 2 * n);
    let mut x: Vec<f64> = u[..n].to_vec();
    let mut y: Vec<f64> = (0..n).map(|i| 0.6 * x[i] + 0.4 * u[n + i]).collect();
    if levels > 0 {
        let l = levels as f64;
        x.iter_mut().for_each(|v| *v = (*v * l).floor());
        y.iter_mut().for_each(|v| *v = (*v * l).floor());
    }
    (Array1::from(x), Array1::from(y))
}

fn image(seed: u64, h: usize, w: usize, c: usize) -> Image {
    let u = lcg(seed, h * w * c);
    let a = Array3::from_shape_fn((h, w, c), |(i, j, k)| {
        let base = 0.5 + 0.3 * (i as f64 / 3.0).sin() * (j as f64 / 5.0).cos();
        (0.7 * base + 0.3 * u[(i * w + j) * c + k]).clamp(0.0, 1.0)
    });
    Image::new(a).unwrap()
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: ours {a:.17e} vs peer {b:.17e}"
    );
}

/// Relative closeness for p-values that can be tiny.
fn close_rel(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        (a - b).abs() <= tol * b.abs(),
        "{what}: ours {a:e} vs peer {b:e}"
    );
}

#[test]
fn spec_concrete_correlations() {
    let x = array![1.0, 2.0, 3.0, 4.0, 5.0];
    let y = array![5.0, 6.0, 7.0, 8.0, 7.0];
    close(
        pearson(x.view(), y.view()).unwrap().value,
        0.8320503,
        5e-8,
        "pearson",
    );
    close(
        spearman(x.view(), y.view()).unwrap().value,
        0.8207827,
        5e-8,
        "spearman",
    );
    close(
        kendall(x.view(), y.view(), KendallVariant::B)
            .unwrap()
            .value,
        0.7378648,
        5e-8,
        "tau-b",
    );
    // scipy: pearsonr p 0.0805095732984986, spearmanr p 0.08858700531354384,
    // kendalltau p 0.07697417298126674 (asymptotic: the data have a tie).
    close_rel(
        pearson(x.view(), y.view()).unwrap().p_value,
        0.0805095732984986,
        1e-9,
        "p pearson",
    );
    close_rel(
        spearman(x.view(), y.view()).unwrap().p_value,
        0.08858700531354384,
        1e-9,
        "p spearman",
    );
    close_rel(
        kendall(x.view(), y.view(), KendallVariant::B)
            .unwrap()
            .p_value,
        0.07697417298126674,
        1e-9,
        "p tau",
    );
}

#[test]
fn spec_concrete_images() {
    let a = Array2::from_shape_fn((32, 32), |(_, j)| j as f64 / 31.0);
    let mut b = a.clone();
    b.slice_mut(ndarray::s![8..24, 8..24]).fill(0.0);
    let (a, b) = (Image::grey(a).unwrap(), Image::grey(b).unwrap());
    close(mse(&a, &b).unwrap(), 0.068028, 5e-7, "MSE");
    close(psnr(&a, &b, 1.0).unwrap(), 11.673117, 5e-7, "PSNR");
    close(
        ssim(&a, &b, &SsimParams::standard()).unwrap(),
        0.117178,
        5e-7,
        "SSIM standard",
    );
    close(
        ssim(&a, &b, &SsimParams::perceptanon_compat()).unwrap(),
        0.093902,
        5e-7,
        "SSIM compat",
    );
    // Full precision from scikit-image 0.26.0.
    close(
        mse(&a, &b).unwrap(),
        0.06802809573361082,
        1e-12,
        "MSE skimage",
    );
    close(
        psnr(&a, &b, 1.0).unwrap(),
        11.673116857932147,
        1e-12,
        "PSNR skimage",
    );
    close(
        ssim(&a, &b, &SsimParams::standard()).unwrap(),
        0.1171781162526476,
        1e-9,
        "SSIM skimage",
    );
    close(
        ssim(&a, &b, &SsimParams::perceptanon_compat()).unwrap(),
        0.093901629665111,
        1e-9,
        "SSIM compat skimage",
    );
    close(
        ssim(&a, &b, &SsimParams::skimage_default()).unwrap(),
        0.34653236250516795,
        1e-9,
        "SSIM default skimage",
    );
}

/// (seed, n, levels, [pearson r, p, spearman ρ, p, τ-b, p (asymptotic), τ-c]).
const CORR: [(u64, usize, usize, [f64; 7]); 6] = [
    (
        1,
        5,
        0,
        [
            0.8311511444308383,
            0.08114538363964259,
            0.7,
            0.1881204043741873,
            0.6,
            0.1416446902951368,
            0.6,
        ],
    ),
    (
        2,
        17,
        4,
        [
            0.7266167821482072,
            0.0009538326477386419,
            0.7160446429310077,
            0.001225296340289687,
            0.6508863078913459,
            0.0024300155204461014,
            0.6089965397923875,
        ],
    ),
    (
        3,
        50,
        6,
        [
            0.8153711646343511,
            5.62060733268118e-13,
            0.822141496921049,
            2.4877075826252517e-13,
            0.7035673996966182,
            6.009873550853996e-10,
            0.6777599999999999,
        ],
    ),
    (
        4,
        200,
        10,
        [
            0.8115066842580846,
            4.394422619531556e-48,
            0.8148360048537108,
            8.992815386261643e-49,
            0.6730198198915126,
            4.198748428701572e-37,
            0.6580555555555555,
        ],
    ),
    (
        5,
        200,
        0,
        [
            0.8562756859152412,
            1.0250811752676748e-58,
            0.8593474836870922,
            1.4171742028993369e-59,
            0.662110552763819,
            4.555298106712144e-44,
            0.6621105527638191,
        ],
    ),
    (
        6,
        123,
        3,
        [
            0.7429353354662859,
            7.779635046290813e-23,
            0.7461114723273444,
            4.076974189242519e-23,
            0.6939683457440893,
            1.0685729242995242e-17,
            0.6740035693039858,
        ],
    ),
];

#[test]
fn correlations_match_scipy_to_1e12() {
    for (seed, n, levels, v) in CORR {
        let (x, y) = corr_case(seed, n, levels);
        let what = format!("case {seed}");
        let p = pearson(x.view(), y.view()).unwrap();
        let s = spearman(x.view(), y.view()).unwrap();
        let k = kendall(x.view(), y.view(), KendallVariant::B).unwrap();
        let kc = kendall(x.view(), y.view(), KendallVariant::C).unwrap();
        close(p.value, v[0], 1e-12, &format!("{what} pearson"));
        close(s.value, v[2], 1e-12, &format!("{what} spearman"));
        close(k.value, v[4], 1e-12, &format!("{what} tau-b"));
        close(kc.value, v[6], 1e-12, &format!("{what} tau-c"));
        // p-values through statrs' Student t and mlcore's normal tail: 1e-6 relative.
        close_rel(p.p_value, v[1], 1e-6, &format!("{what} p pearson"));
        close_rel(s.p_value, v[3], 1e-6, &format!("{what} p spearman"));
        close_rel(k.p_value, v[5], 1e-6, &format!("{what} p tau"));
    }
}

/// (seed, h, w, c, [PSNR, SSIM standard, SSIM compat, SSIM skimage default]).
const IQA: [(u64, usize, usize, usize, [f64; 4]); 3] = [
    (
        7,
        32,
        40,
        1,
        [
            17.96177592322105,
            0.28633732469417494,
            0.25340833213037045,
            0.37036174700502245,
        ],
    ),
    (
        8,
        24,
        30,
        3,
        [
            18.157367400804333,
            0.2862913012856286,
            0.253116843256799,
            0.3948777663824233,
        ],
    ),
    (
        9,
        64,
        64,
        1,
        [
            18.085286827113332,
            0.2936259788780484,
            0.2616061976213108,
            0.38461339120534305,
        ],
    ),
];

#[test]
fn iqa_matches_scikit_image() {
    for (seed, h, w, c, v) in IQA {
        let a = image(seed, h, w, c);
        let b = image(seed + 100, h, w, c);
        close(psnr(&a, &b, 1.0).unwrap(), v[0], 1e-12, "PSNR");
        close(
            ssim(&a, &b, &SsimParams::standard()).unwrap(),
            v[1],
            1e-9,
            "SSIM standard",
        );
        close(
            ssim(&a, &b, &SsimParams::perceptanon_compat()).unwrap(),
            v[2],
            1e-9,
            "SSIM compat",
        );
        close(
            ssim(&a, &b, &SsimParams::skimage_default()).unwrap(),
            v[3],
            1e-9,
            "SSIM default",
        );
    }
}

/// (seed, h, w, c, σ, [Σ, Σ², value at (3, 4, 0)]) of skimage.filters.gaussian.
const BLUR: [(u64, usize, usize, usize, f64, [f64; 3]); 3] = [
    (
        10,
        20,
        24,
        1,
        2.0,
        [240.31896623513654, 123.41478960640936, 0.5854223839018002],
    ),
    (
        11,
        16,
        18,
        3,
        0.7,
        [424.8155397270301, 220.09241081382714, 0.4990763987977375],
    ),
    (
        12,
        9,
        40,
        1,
        5.0,
        [185.00707801548978, 95.64938354057155, 0.5308777443632187],
    ),
];

#[test]
fn gaussian_blur_matches_scikit_image() {
    for (seed, h, w, c, sigma, v) in BLUR {
        let a = image(seed, h, w, c);
        let g = gaussian_blur(&a, Region::full(&a), sigma).unwrap();
        let g = g.view();
        close(g.sum(), v[0], 1e-12, "sum");
        close(g.iter().map(|x| x * x).sum(), v[1], 1e-12, "sum of squares");
        close(g[[3, 4, 0]], v[2], 1e-12, "pixel");
    }
}

/// (seed, h, w, c, [Σ over mask, Σ² over mask, value at (8, 10, 0)]) of
/// skimage.restoration.inpaint_biharmonic.
const INPAINT: [(u64, usize, usize, usize, [f64; 3]); 2] = [
    (
        13,
        20,
        24,
        1,
        [30.5270350640802, 14.657882629310537, 0.4363854541333803],
    ),
    (
        14,
        18,
        22,
        3,
        [105.63238186333776, 57.77599379133474, 0.6122551752263423],
    ),
];

#[test]
fn biharmonic_inpainting_matches_scikit_image() {
    for (seed, h, w, c, v) in INPAINT {
        let a = image(seed, h, w, c);
        let mut m = Array2::from_elem((h, w), false);
        m.slice_mut(ndarray::s![5..12, 6..15]).fill(true);
        m[[0, 0]] = true;
        m[[1, 0]] = true;
        m[[h - 1, w - 2]] = true;
        let out = inpaint_biharmonic(&a, m.view()).unwrap();
        let out = out.view();
        let (mut s, mut s2) = (0.0, 0.0);
        for ((i, j, _), &x) in out.indexed_iter() {
            if m[[i, j]] {
                s += x;
                s2 += x * x;
            }
        }
        close(s, v[0], 1e-9, "inpaint sum");
        close(s2, v[1], 1e-9, "inpaint sum of squares");
        close(out[[8, 10, 0]], v[2], 1e-9, "inpaint pixel");
    }
}
