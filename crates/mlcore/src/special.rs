//! The standard normal distribution's special functions: the density
//! [`norm_pdf`] φ, the distribution function [`norm_cdf`] Φ, its upper tail
//! [`norm_sf`] `1 − Φ`, [`log_norm_cdf`] `log Φ`, and the quantile
//! [`norm_ppf`] `Φ⁻¹` (with [`norm_isf`] for upper-tail probabilities, and
//! [`log_norm_pdf`]).
//!
//! Each is accurate to a few units in the last place in relative terms over
//! the whole range where its value is a normal `f64` (checked against SciPy
//! and 60-digit mpmath values at `|x| ≤ 38` in `tests/special_scipy.rs`; the
//! worst relative error there is below 1e-15):
//!
//! - φ computes `exp(−x²/2)` with `x²` split exactly into two doubles (an
//!   FMA), so the rounding of `x²` (relative error `x²ε/2`, 8e-14 at
//!   `x = 38`, which `scipy.stats.norm.pdf` has) never enters the exponent.
//! - Φ, `1 − Φ` and `log Φ` use W. J. Cody's rational Chebyshev
//!   approximations (ACM TOMS Algorithm 715, as in R's `pnorm`): three ranges
//!   split at `|x| = 0.67449` and `√32`, with `exp(−x²/2)` evaluated as
//!   `exp(−x₀²/2)·exp(−(x − x₀)(x + x₀)/2)` for `x₀ = ⌊16x⌋/16`, whose square
//!   is exact. The tails are computed directly, never as `1 − Φ`, and
//!   `1 − Φ(x)` is `Φ(−x)`. `log Φ` is evaluated in log space below the
//!   point where Φ underflows (`x ≈ −38.4`), with `log Φ(x) ≈ −x²/2 −
//!   log(−x√(2π))` at the far end, and as `log1p(−Φ(−x))` for `x > 0`.
//! - Φ⁻¹ is Wichura's AS 241 (`PPND16`, relative accuracy about 1e-16),
//!   followed in the tails (`p < 0.075` or `p > 0.925`) by one Halley step on
//!   `Φ(x) = p`, with Φ as above.
//!
//! Results that are subnormal (`Φ(x)` and `φ(x)` for `x < −37.5` or so)
//! carry the absolute precision of subnormals (about 5e-324), not the
//! relative one. No function here allocates or fails: they take and return
//! plain `f64`, with NaN for a NaN argument (and for a probability outside
//! `[0, 1]` in [`norm_ppf`] / [`norm_isf`]), and the limits at `±∞`.

// The coefficients are kept digit for digit as published (Cody 1993; Wichura
// 1988), so that they can be checked against the sources; the compiler rounds
// them to the nearest double.
#![allow(clippy::excessive_precision)]

/// `1/√(2π)`.
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_677_939_946_059_934;
/// `log √(2π)`.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_741_780_329_736_406;
/// `√32`: the boundary of Cody's middle range.
const SQRT_32: f64 = 5.656_854_249_492_380_195_206_754_896_838;

/// The standard normal density `φ(x) = exp(−x²/2)/√(2π)`.
///
/// Relative error of a few ulps wherever φ is a normal number (`|x| < 37.5`);
/// 0 for `|x| ≥ 38.6` (where φ underflows) and at `±∞`; NaN for NaN.
pub fn norm_pdf(x: f64) -> f64 {
    let x = x.abs();
    if x.is_nan() {
        return f64::NAN;
    }
    if x >= 40.0 {
        return 0.0;
    }
    // x² = hi + lo exactly; exp(−lo/2) is within 1e-14 of 1.
    let hi = x * x;
    let lo = x.mul_add(x, -hi);
    (FRAC_1_SQRT_2PI * (-0.5 * lo).exp()) * (-0.5 * hi).exp()
}

/// Cody's rational for `|x| ≤ 0.67448975`: returns `Φ(x) − 1/2`.
fn small_range(x: f64) -> f64 {
    // |x| ≤ 0.67448975: Φ(x) = 1/2 + x·R(x²).
    const A: [f64; 5] = [
        2.235_252_035_460_683_928_7,
        161.028_231_068_555_878_81,
        1_067.689_485_460_370_958_2,
        18_154.981_253_343_561_249,
        0.065_682_337_918_207_449_113,
    ];
    const B: [f64; 4] = [
        47.202_581_904_688_241_87,
        976.098_551_737_776_693_22,
        10_260.932_208_618_978_205,
        45_507.789_335_026_729_956,
    ];
    let (xnum, xden) = if x.abs() > f64::EPSILON * 0.5 {
        let xsq = x * x;
        let mut xnum = A[4] * xsq;
        let mut xden = xsq;
        for i in 0..3 {
            xnum = (xnum + A[i]) * xsq;
            xden = (xden + B[i]) * xsq;
        }
        (xnum, xden)
    } else {
        (0.0, 0.0)
    };
    x * (xnum + A[3]) / (xden + B[3])
}

/// `0.67448975 < y ≤ √32`: `Φ(−y) = exp(−y²/2)·R(y)`; returns `R(y)`.
fn middle_range(y: f64) -> f64 {
    const C: [f64; 9] = [
        0.398_941_512_088_134_667_64,
        8.883_149_794_388_375_941_2,
        93.506_656_132_177_855_979,
        597.270_276_394_800_262_26,
        2_494.537_585_290_372_671_1,
        6_848.190_450_536_282_332_6,
        11_602.651_437_647_350_124,
        9_842.714_838_383_978_021_8,
        1.076_557_677_372_019_231_7e-8,
    ];
    const D: [f64; 8] = [
        22.266_688_044_328_115_691,
        235.387_901_782_624_998_61,
        1_519.377_599_407_554_805,
        6_485.558_298_266_760_755,
        18_615.571_640_885_098_091,
        34_900.952_721_145_977_266,
        38_912.003_286_093_271_411,
        19_685.429_676_859_990_727,
    ];
    let mut xnum = C[8] * y;
    let mut xden = y;
    for i in 0..7 {
        xnum = (xnum + C[i]) * y;
        xden = (xden + D[i]) * y;
    }
    (xnum + C[7]) / (xden + D[7])
}

/// `y > √32`: `Φ(−y) = exp(−y²/2)·R(y)`; returns `R(y)`.
fn tail_range(y: f64) -> f64 {
    const P: [f64; 6] = [
        0.215_898_534_057_956_99,
        0.127_401_161_160_247_363_9,
        0.022_235_277_870_649_807,
        0.001_421_619_193_227_893_466,
        2.911_287_495_116_879_2e-5,
        0.023_073_441_764_940_173_03,
    ];
    const Q: [f64; 5] = [
        1.284_260_096_144_911_21,
        0.468_238_212_480_865_118,
        0.065_988_137_868_928_551_5,
        0.003_782_396_332_027_582_44,
        7.297_515_550_839_662_05e-5,
    ];
    let xsq = 1.0 / (y * y);
    let mut xnum = P[5] * xsq;
    let mut xden = xsq;
    for i in 0..4 {
        xnum = (xnum + P[i]) * xsq;
        xden = (xden + Q[i]) * xsq;
    }
    let r = xsq * (xnum + P[4]) / (xden + Q[4]);
    (FRAC_1_SQRT_2PI - r) / y
}

/// For `y > 0.67448975`: `(−y₀²/2, −(y − y₀)(y + y₀)/2)`, the exponent of
/// `exp(−y²/2)` in two parts, the first exact, with `y₀ = ⌊16y⌋/16`.
fn split_exponent(y: f64) -> (f64, f64) {
    let y0 = (y * 16.0).trunc() / 16.0;
    let del = (y - y0) * (y + y0);
    (-y0 * y0 * 0.5, -del * 0.5)
}

/// `Φ(−y)` for `y > 0.67448975` (finite): the lower tail, directly.
fn lower_tail(y: f64) -> f64 {
    let r = if y <= SQRT_32 {
        middle_range(y)
    } else {
        tail_range(y)
    };
    let (e0, e1) = split_exponent(y);
    // The one factor that may be subnormal is multiplied last.
    (r * e1.exp()) * e0.exp()
}

/// The standard normal distribution function `Φ(x) = P(Z ≤ x)`.
///
/// Relative error of a few ulps wherever Φ is normal (`x > −37.5`); subnormal
/// (absolute precision) down to `x ≈ −38.4`, then 0. `Φ(+∞) = 1`, NaN for NaN.
pub fn norm_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let y = x.abs();
    if y <= 0.674_489_75 {
        return 0.5 + small_range(x);
    }
    if y > 40.0 {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    let tail = lower_tail(y);
    if x < 0.0 { tail } else { 1.0 - tail }
}

/// The standard normal upper tail `1 − Φ(x) = Φ(−x) = P(Z > x)` (SciPy's
/// `norm.sf`), computed directly, so accurate in relative terms for large `x`.
pub fn norm_sf(x: f64) -> f64 {
    norm_cdf(-x)
}

/// `log Φ(x)`, accurate in relative terms everywhere, including far in the
/// lower tail where Φ itself underflows (`log Φ(−1e5) ≈ −5e9`) and for
/// `x > 0`, where it is `log1p(−Φ(−x)) ≈ −Φ(−x)`.
///
/// `−∞` for `x = −∞` and for `x < −1.9e154`, where `−x²/2` is below
/// `−f64::MAX`; 0 for `x > 38.5` (where `Φ(−x)` underflows) and `+∞`; NaN for NaN.
pub fn log_norm_cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let y = x.abs();
    if y <= 0.674_489_75 {
        return (0.5 + small_range(x)).ln();
    }
    if x > 0.0 {
        return (-norm_cdf(-x)).ln_1p();
    }
    if y > 1e170 {
        return f64::NEG_INFINITY;
    }
    let r = if y <= SQRT_32 {
        middle_range(y)
    } else {
        tail_range(y)
    };
    let (e0, e1) = split_exponent(y);
    e0 + e1 + r.ln()
}

/// AS 241 (`PPND16`): `Φ⁻¹(p)` for `0 < p < 1`, about 1e-16 relative.
fn as241(p: f64) -> f64 {
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180_625 - q * q;
        return q
            * (((((((2_509.080_928_730_122_672_7 * r + 33_430.575_583_588_128_105) * r
                + 67_265.770_927_008_700_853)
                * r
                + 45_921.953_931_549_871_457)
                * r
                + 13_731.693_765_509_461_125)
                * r
                + 1_971.590_950_306_551_442_7)
                * r
                + 133.141_667_891_784_377_45)
                * r
                + 3.387_132_872_796_366_608)
            / (((((((5_226.495_278_852_854_561 * r + 28_729.085_735_721_942_674) * r
                + 39_307.895_800_092_710_61)
                * r
                + 21_213.794_301_586_595_867)
                * r
                + 5_394.196_021_424_751_107_7)
                * r
                + 687.187_007_492_057_908_3)
                * r
                + 42.313_330_701_600_911_252)
                * r
                + 1.0);
    }
    // 1 − p is exact for p ≥ 1/2.
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let mut r = (-tail.ln()).sqrt();
    let val = if r <= 5.0 {
        r -= 1.6;
        (((((((7.745_450_142_783_414_076_4e-4 * r + 0.022_723_844_989_269_184_583_3) * r
            + 0.241_780_725_177_450_611_77)
            * r
            + 1.270_458_252_452_368_382_58)
            * r
            + 3.647_848_324_763_204_605_04)
            * r
            + 5.769_497_221_460_691_405_5)
            * r
            + 4.630_337_846_156_545_295_9)
            * r
            + 1.423_437_110_749_683_577_34)
            / (((((((1.050_750_071_644_416_843_24e-9 * r + 5.475_938_084_995_344_946e-4) * r
                + 0.015_198_666_563_616_457_196_6)
                * r
                + 0.148_103_976_427_480_074_59)
                * r
                + 0.689_767_334_985_100_004_55)
                * r
                + 1.676_384_830_183_803_849_4)
                * r
                + 2.053_191_626_637_758_821_87)
                * r
                + 1.0)
    } else {
        r -= 5.0;
        (((((((2.010_334_399_292_288_132_65e-7 * r + 2.711_555_568_743_487_578_15e-5) * r
            + 0.001_242_660_947_388_078_438_6)
            * r
            + 0.026_532_189_526_576_123_093)
            * r
            + 0.296_560_571_828_504_891_23)
            * r
            + 1.784_826_539_917_291_335_8)
            * r
            + 5.463_784_911_164_114_369_9)
            * r
            + 6.657_904_643_501_103_777_2)
            / (((((((2.044_263_103_389_939_785_64e-15 * r + 1.421_511_758_316_445_888_7e-7)
                * r
                + 1.846_318_317_510_054_681_8e-5)
                * r
                + 7.868_691_311_456_132_591e-4)
                * r
                + 0.014_875_361_290_850_614_852_5)
                * r
                + 0.136_929_880_922_735_805_31)
                * r
                + 0.599_832_206_555_887_937_69)
                * r
                + 1.0)
    };
    if q < 0.0 { -val } else { val }
}

/// `Φ⁻¹(p)` for a lower-tail probability `0 < p ≤ 1/2`, refined.
fn lower_quantile(p: f64) -> f64 {
    let x = as241(p);
    if !(f64::MIN_POSITIVE..0.075).contains(&p) {
        // The central rational needs no refinement; a subnormal p has too
        // few digits for one.
        return x;
    }
    // One Halley step on Φ(x) − p = 0: t = (Φ(x) − p)/φ(x), x −= t/(1 + x t/2).
    let t = (norm_cdf(x) - p) / norm_pdf(x);
    if t.is_finite() {
        x - t / (1.0 + 0.5 * x * t)
    } else {
        x
    }
}

/// The standard normal quantile `Φ⁻¹(p)` (SciPy's `ndtri`, `norm.ppf`).
///
/// Relative error of a few ulps for `p ≥ 1e-300` (and `1 − p` likewise in
/// the upper tail, limited there by the spacing of doubles near 1: for an
/// upper-tail probability `q`, [`norm_isf`]`(q)` is exact where `1 − q` is not).
/// `−∞` at `p = 0`, `+∞` at `p = 1`, NaN for NaN or `p ∉ [0, 1]`.
pub fn norm_ppf(p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p <= 0.5 {
        lower_quantile(p)
    } else {
        // 1 − p is exact for p ≥ 1/2.
        -lower_quantile(1.0 - p)
    }
}

/// The upper-tail quantile `x` with `P(Z > x) = q`, i.e. `−Φ⁻¹(q)` (SciPy's
/// `norm.isf`): accurate for tiny `q`, where `norm_ppf(1 − q)` would lose
/// the digits of `q` in `1 − q`. `+∞` at `q = 0`, `−∞` at `q = 1`, NaN for
/// NaN or `q ∉ [0, 1]`.
pub fn norm_isf(q: f64) -> f64 {
    -norm_ppf(q)
}

/// `log φ(x) = −x²/2 − log √(2π)`, exact to rounding for any finite `x`
/// (`−∞` once `x²/2` exceeds `f64::MAX`, at `|x| > 1.9e154`).
pub fn log_norm_pdf(x: f64) -> f64 {
    -0.5 * x * x - LN_SQRT_2PI
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetry_and_special_points() {
        assert_eq!(norm_cdf(0.0), 0.5);
        assert_eq!(norm_pdf(0.0), FRAC_1_SQRT_2PI);
        assert_eq!(norm_ppf(0.5), 0.0);
        assert_eq!(norm_ppf(0.0), f64::NEG_INFINITY);
        assert_eq!(norm_ppf(1.0), f64::INFINITY);
        assert!(norm_ppf(-0.1).is_nan() && norm_ppf(1.1).is_nan() && norm_ppf(f64::NAN).is_nan());
        assert_eq!(norm_cdf(f64::INFINITY), 1.0);
        assert_eq!(norm_cdf(f64::NEG_INFINITY), 0.0);
        assert_eq!(norm_pdf(f64::INFINITY), 0.0);
        assert_eq!(log_norm_cdf(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(log_norm_cdf(f64::INFINITY), 0.0);
        for f in [norm_pdf, norm_cdf, norm_sf, log_norm_cdf, log_norm_pdf] {
            assert!(f(f64::NAN).is_nan());
        }
        for x in [0.1, 0.7, 1.3, 4.0, 6.0, 9.0, 20.0] {
            assert_eq!(norm_pdf(x), norm_pdf(-x));
            assert_eq!(norm_sf(x), norm_cdf(-x));
            assert!((norm_cdf(x) + norm_cdf(-x) - 1.0).abs() <= 2.0 * f64::EPSILON);
        }
    }

    #[test]
    fn ppf_inverts_cdf() {
        for &p in &[
            1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.07, 0.2, 0.4999, 0.6, 0.93, 0.999,
        ] {
            let x = norm_ppf(p);
            let back = if p < 0.5 {
                norm_cdf(x)
            } else {
                1.0 - norm_sf(x)
            };
            // Φ's condition number at x is about x² (in the tail), so an x
            // correct to an ulp maps back to p within a few x²ε.
            let tol = 4.0 * (1.0 + x * x) * f64::EPSILON;
            assert!(
                ((back - p) / p).abs() < tol,
                "p = {p:e}: Φ(Φ⁻¹(p)) = {back:e}"
            );
        }
    }
}
