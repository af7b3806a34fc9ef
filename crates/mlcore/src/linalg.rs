//! Dense linear algebra on `ndarray` types, backed by [`faer`].
//!
//! Inputs are borrowed as `ArrayView2<f64>` and handed to faer without a copy
//! when they are contiguous in row- or column-major order (a transposed view
//! counts); other strides are copied once. Results are owned, standard-layout
//! `ndarray` arrays.
//!
//! faer runs sequentially ([`faer::Par::Seq`]) unless the `parallel` feature
//! is on, which turns on faer's rayon backend and its default of all cores.
//! (Feature unification means any crate in the build that enables
//! `faer/rayon` does the same.)
//!
//! Like LAPACK and numpy, the symmetric routines ([`cholesky`], [`eigh`],
//! [`solve_spd`], [`logdet_spd`]) read only the lower triangle.
//!
//! ## Extreme magnitudes
//!
//! Finite input never yields a NaN or an infinity: either the result is
//! finite or the call fails with a typed error. [`qr`], [`svd`], [`eigh`]
//! (and everything built on [`svd`]) first rescale a matrix whose largest
//! entry is outside `[2⁻⁴⁰⁰, 2⁴⁰⁰]` by an exact power of two and undo the
//! scaling on the result, so that entries near `1e±300` or subnormal ones
//! decompose as accurately as ordinary ones (results for ordinary matrices
//! are unchanged, bit for bit). A result whose exact value lies outside the
//! `f64` range (a singular value above `f64::MAX`, the solution of a nearly
//! singular system) is an [`Error::Overflow`].

use crate::check;
use crate::error::{Error, Result};
use faer::linalg::solvers::{Llt, SelfAdjointEigen, Solve, Svd};
use faer::{MatRef, Side};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};

/// Runs `f` on a faer view of `a`.
///
/// Zero-copy when `a` is contiguous in row-major or column-major order;
/// otherwise `a` is first copied into a standard-layout array. Use this to
/// call faer routines that `mlcore` does not wrap.
pub fn with_faer<R>(a: ArrayView2<'_, f64>, f: impl FnOnce(MatRef<'_, f64>) -> R) -> R {
    let (m, n) = a.dim();
    if let Some(s) = a.to_slice() {
        return f(MatRef::from_row_major_slice(s, m, n));
    }
    if let Some(s) = a.reversed_axes().to_slice() {
        return f(MatRef::from_column_major_slice(s, m, n));
    }
    let owned = a.as_standard_layout();
    let s = owned.as_slice().expect("standard layout is contiguous");
    f(MatRef::from_row_major_slice(s, m, n))
}

/// Copies a faer matrix into a standard-layout `Array2`.
pub fn to_ndarray(m: MatRef<'_, f64>) -> Array2<f64> {
    Array2::from_shape_fn((m.nrows(), m.ncols()), |(i, j)| *m.get(i, j))
}

fn col_to_ndarray(c: faer::ColRef<'_, f64>) -> Array1<f64> {
    Array1::from_shape_fn(c.nrows(), |i| *c.get(i))
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for ndarray::ArrayView1<'_, f64> {}
    impl Sealed for ndarray::ArrayView2<'_, f64> {}
}

/// A right-hand side `b` of a linear system: a vector (`ArrayView1`) or a
/// matrix of several columns (`ArrayView2`). The solution has the same shape.
pub trait Rhs: sealed::Sealed {
    /// The owned type of the solution (`Array1` or `Array2`).
    type Output;
    /// `b` as a matrix with one column per right-hand side.
    fn as_matrix(&self) -> ArrayView2<'_, f64>;
    /// Turns a matrix of solutions back into the shape of `b`.
    fn from_matrix(x: Array2<f64>) -> Self::Output;
}

impl Rhs for ArrayView1<'_, f64> {
    type Output = Array1<f64>;
    fn as_matrix(&self) -> ArrayView2<'_, f64> {
        self.view().insert_axis(Axis(1))
    }
    fn from_matrix(x: Array2<f64>) -> Array1<f64> {
        x.index_axis_move(Axis(1), 0)
    }
}

impl Rhs for ArrayView2<'_, f64> {
    type Output = Array2<f64>;
    fn as_matrix(&self) -> ArrayView2<'_, f64> {
        self.view()
    }
    fn from_matrix(x: Array2<f64>) -> Array2<f64> {
        x
    }
}

fn check_rhs<B: Rhs>(b: &B, rows: usize) -> Result<ArrayView2<'_, f64>> {
    let bm = b.as_matrix();
    check::len(bm.nrows(), rows, "b (rows)")?;
    check::finite(&bm, "b")?;
    Ok(bm)
}

fn check_square(a: &ArrayView2<'_, f64>) -> Result<()> {
    check::square(a, "a")?;
    check::data(a, "a")
}

fn llt_lower(a: ArrayView2<'_, f64>, what: &'static str, jitter_tried: f64) -> Result<Llt<f64>> {
    let llt = with_faer(a, |m| Llt::new(m, Side::Lower))
        .map_err(|_| Error::NotPositiveDefinite { what, jitter_tried })?;
    // A pivot that overflowed (or a NaN from an overflowing update) is not a factorisation.
    let l = llt.L();
    if (0..l.ncols()).all(|j| (j..l.nrows()).all(|i| l.get(i, j).is_finite())) {
        Ok(llt)
    } else {
        Err(Error::NotPositiveDefinite { what, jitter_tried })
    }
}

/// `2ᵏ` for `−1022 ≤ k ≤ 1023`, exactly.
fn pow2(k: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x · 2ᵏ` for any `k` (in steps that stay normal, so exact unless the
/// result itself is subnormal or overflows).
fn ldexp(mut x: f64, mut k: i32) -> f64 {
    while k > 1000 {
        x *= pow2(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= pow2(-1000);
        k += 1000;
    }
    x * pow2(k)
}

/// The power of two `e` by which a matrix with largest magnitude `max_abs`
/// is divided before a decomposition: 0 (no scaling) when `max_abs` is zero
/// or in `[2⁻⁴⁰⁰, 2⁴⁰⁰]`, else `⌊log₂ max_abs⌋`.
fn scale_exponent(max_abs: f64) -> i32 {
    const LO: f64 = 3.872_591_914_849_318e-121; // 2^-400
    const HI: f64 = 2.582_249_878_086_908_6e120; // 2^400
    if max_abs == 0.0 || (LO..=HI).contains(&max_abs) {
        0
    } else {
        max_abs.log2().floor() as i32
    }
}

fn max_abs<'a>(it: impl IntoIterator<Item = &'a f64>) -> f64 {
    it.into_iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// A copy of `a · 2⁻ᵉ` when `a` needs rescaling (`None` when `e = 0`), and
/// the exponent `e` of [`scale_exponent`].
fn scaled(a: ArrayView2<'_, f64>) -> (Option<Array2<f64>>, i32) {
    let e = scale_exponent(max_abs(a.iter()));
    ((e != 0).then(|| a.mapv(|v| ldexp(v, -e))), e)
}

/// Multiplies every entry by `2ᵉ`; [`Error::Overflow`] naming `what` if one
/// overflows (or was already non-finite).
fn unscale<D: ndarray::Dimension>(
    mut x: ndarray::Array<f64, D>,
    e: i32,
    what: &'static str,
) -> Result<ndarray::Array<f64, D>> {
    if e != 0 {
        x.mapv_inplace(|v| ldexp(v, e));
    }
    all_finite(x, what)
}

/// `x` itself when every entry is finite, else [`Error::Overflow`] naming `what`.
fn all_finite<D: ndarray::Dimension>(
    x: ndarray::Array<f64, D>,
    what: &'static str,
) -> Result<ndarray::Array<f64, D>> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(x)
    } else {
        Err(Error::Overflow { what })
    }
}

/// Cholesky factor `L` (lower triangular) with `A = L Lᵀ`.
///
/// Reads the lower triangle of `a`. O(n³/3).
///
/// # Errors
/// [`Error::ShapeMismatch`] if `a` is not square, [`Error::Empty`],
/// [`Error::NonFinite`], [`Error::NotPositiveDefinite`] on a non-positive pivot.
pub fn cholesky(a: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
    check_square(&a)?;
    Ok(to_ndarray(llt_lower(a, "a", 0.0)?.L()))
}

/// The most factorisations [`cholesky_jittered`] tries after the first
/// failure: a schedule whose `initial · growthᵏ` needs more retries than this
/// to reach `max` is rejected up front (the default needs 7).
pub const MAX_JITTER_ATTEMPTS: usize = 200;

/// The diagonal jitter schedule of [`cholesky_jittered`].
///
/// The k-th retry adds `initial · growthᵏ · |mean(diag A)|` to the diagonal,
/// up to `max · |mean(diag A)|`. (With a zero mean diagonal, the scale is 1.)
/// At most [`MAX_JITTER_ATTEMPTS`] retries: see [`Jitter::attempts`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Jitter {
    /// First relative jitter tried after a failure, > 0.
    pub initial: f64,
    /// Largest relative jitter tried, ≥ `initial`.
    pub max: f64,
    /// Factor between two consecutive tries, > 1.
    pub growth: f64,
}

impl Default for Jitter {
    /// `1e-10` up to `1e-4`, by factors of 10 (at most 7 retries).
    fn default() -> Self {
        Jitter {
            initial: 1e-10,
            max: 1e-4,
            growth: 10.0,
        }
    }
}

impl Jitter {
    /// Number of retries the schedule asks for: the `k ≥ 0` with
    /// `initial · growthᵏ ≤ max` (up to a relative 1e-12), counted up to
    /// `MAX_JITTER_ATTEMPTS + 1`.
    pub fn attempts(&self) -> usize {
        let mut rel = self.initial;
        let mut n = 0;
        while rel <= self.max * (1.0 + 1e-12) && n <= MAX_JITTER_ATTEMPTS {
            n += 1;
            rel *= self.growth;
        }
        n
    }

    /// Validates the schedule.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `jitter.initial` unless it is
    /// finite and > 0, `jitter.max` unless finite and ≥ `initial`,
    /// `jitter.growth` unless finite and > 1 and large enough that at most
    /// [`MAX_JITTER_ATTEMPTS`] retries reach `max`.
    pub fn check(&self) -> Result<()> {
        check::positive(self.initial, "jitter.initial")?;
        if !(self.max >= self.initial && self.max.is_finite()) {
            return Err(Error::InvalidParameter {
                name: "jitter.max",
                value: self.max,
                expected: ">= jitter.initial",
            });
        }
        check::open_interval(
            self.growth,
            1.0,
            f64::INFINITY,
            "jitter.growth",
            "a finite value > 1",
        )?;
        if self.attempts() > MAX_JITTER_ATTEMPTS {
            return Err(Error::InvalidParameter {
                name: "jitter.growth",
                value: self.growth,
                expected: "large enough to reach jitter.max from jitter.initial within MAX_JITTER_ATTEMPTS = 200 retries",
            });
        }
        Ok(())
    }
}

/// A Cholesky factor of `A + jitter·I`, from [`cholesky_jittered`].
#[derive(Debug, Clone, PartialEq)]
pub struct JitteredCholesky {
    /// Lower-triangular `L` with `A + jitter·I = L Lᵀ`.
    pub l: Array2<f64>,
    /// The absolute jitter that was added to the diagonal (0 when `A` itself factorised).
    pub jitter: f64,
}

/// Cholesky with the usual kernel-matrix remedy: on failure, retry with a
/// growing multiple of the identity added, and report the jitter used.
///
/// At most [`MAX_JITTER_ATTEMPTS`] + 1 factorisations; the retries stop
/// early once the jitter (or a shifted diagonal entry) would overflow.
///
/// # Errors
/// As [`cholesky`], plus [`Error::InvalidParameter`] for a bad schedule
/// ([`Jitter::check`], including one needing more than
/// [`MAX_JITTER_ATTEMPTS`] retries); [`Error::NotPositiveDefinite`] reports
/// the largest jitter tried.
pub fn cholesky_jittered(a: ArrayView2<'_, f64>, schedule: Jitter) -> Result<JitteredCholesky> {
    check_square(&a)?;
    schedule.check()?;
    if let Ok(llt) = llt_lower(a, "a", 0.0) {
        return Ok(JitteredCholesky {
            l: to_ndarray(llt.L()),
            jitter: 0.0,
        });
    }
    let mut mean_diag = a.diag().mean().unwrap_or(0.0);
    if !mean_diag.is_finite() {
        // The plain sum overflowed: average the entries divided by n instead.
        let n = a.nrows() as f64;
        mean_diag = a.diag().iter().map(|d| d / n).sum();
    }
    let mean_diag = mean_diag.abs();
    let scale = if mean_diag > 0.0 { mean_diag } else { 1.0 };
    let mut shifted = a.to_owned();
    let mut rel = schedule.initial;
    let mut tried = 0.0;
    while rel <= schedule.max * (1.0 + 1e-12) {
        let jitter = rel * scale;
        if !jitter.is_finite() || a.diag().iter().any(|d| !(d + jitter).is_finite()) {
            break;
        }
        shifted
            .diag_mut()
            .zip_mut_with(&a.diag(), |s, &d| *s = d + jitter);
        if let Ok(llt) = llt_lower(shifted.view(), "a", jitter) {
            return Ok(JitteredCholesky {
                l: to_ndarray(llt.L()),
                jitter,
            });
        }
        tried = jitter;
        rel *= schedule.growth;
    }
    Err(Error::NotPositiveDefinite {
        what: "a",
        jitter_tried: tried,
    })
}

/// Which triangle of a matrix holds the data, for [`solve_triangular`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triangle {
    /// Lower triangular (entries above the diagonal are ignored).
    Lower,
    /// Upper triangular (entries below the diagonal are ignored).
    Upper,
}

/// The smallest pivot magnitude [`solve_triangular`] accepts:
/// `f64::MIN_POSITIVE` (2.2e-308, the smallest normal number). A diagonal
/// entry below it (zero or subnormal) makes the matrix [`Error::Singular`].
///
/// LAPACK's `dtrtrs` (and so `scipy.linalg.solve_triangular`) call only an
/// exactly zero pivot singular, and return ±∞ for a subnormal one, since
/// `1/5e-324` overflows; the reciprocal of every normal number is finite.
/// A relative cutoff such as numpy's rank tolerance `max|tᵢᵢ| · n · ε` is not
/// used: a triangular system with tiny but normal pivots is often solved
/// accurately, and callers that want a rank decision have [`svd`].
pub const MIN_PIVOT: f64 = f64::MIN_POSITIVE;

/// Solves `T x = b` for a triangular `T` by substitution. O(n² k) for k right-hand sides.
///
/// To solve with `Lᵀ`, pass `l.t()` and [`Triangle::Upper`] (no copy is made).
///
/// # Errors
/// Shape, emptiness and finiteness errors; [`Error::Singular`] when a
/// diagonal entry of `T` is below [`MIN_PIVOT`] in magnitude (zero or
/// subnormal); [`Error::Overflow`] when the solution (or an intermediate of
/// the substitution) exceeds the `f64` range.
pub fn solve_triangular<B: Rhs>(
    t: ArrayView2<'_, f64>,
    b: B,
    triangle: Triangle,
) -> Result<B::Output> {
    check_square(&t)?;
    let bm = check_rhs(&b, t.nrows())?;
    if t.diag().iter().any(|&d| d.abs() < MIN_PIVOT) {
        return Err(Error::Singular { what: "t" });
    }
    let mut x = faer::Mat::<f64>::zeros(bm.nrows(), bm.ncols());
    with_faer(bm, |bf| x.copy_from(bf));
    with_faer(t, |tf| match triangle {
        Triangle::Lower => tf.solve_lower_triangular_in_place(x.as_mut()),
        Triangle::Upper => tf.solve_upper_triangular_in_place(x.as_mut()),
    });
    Ok(B::from_matrix(all_finite(to_ndarray(x.as_ref()), "x")?))
}

/// Solves `A x = b` for a symmetric positive definite `A` through its Cholesky factor.
/// O(n³/3 + n² k).
///
/// # Errors
/// As [`cholesky`], plus shape and finiteness errors on `b`, and
/// [`Error::Overflow`] when the solution exceeds the `f64` range (a nearly
/// singular `A`).
pub fn solve_spd<B: Rhs>(a: ArrayView2<'_, f64>, b: B) -> Result<B::Output> {
    check_square(&a)?;
    let bm = check_rhs(&b, a.nrows())?;
    let llt = llt_lower(a, "a", 0.0)?;
    let x = with_faer(bm, |bf| llt.solve(bf));
    Ok(B::from_matrix(all_finite(to_ndarray(x.as_ref()), "x")?))
}

/// `log det A` of a symmetric positive definite `A`, as `2 Σᵢ log Lᵢᵢ`. O(n³/3).
///
/// # Errors
/// As [`cholesky`].
pub fn logdet_spd(a: ArrayView2<'_, f64>) -> Result<f64> {
    check_square(&a)?;
    let llt = llt_lower(a, "a", 0.0)?;
    let l = llt.L();
    Ok(2.0 * (0..l.nrows()).map(|i| l.get(i, i).ln()).sum::<f64>())
}

/// A thin QR factorisation `A = Q R`, from [`qr`].
#[derive(Debug, Clone, PartialEq)]
pub struct Qr {
    /// `m × k` with orthonormal columns, `k = min(m, n)`.
    pub q: Array2<f64>,
    /// `k × n` upper triangular (trapezoidal when `n > m`).
    pub r: Array2<f64>,
}

/// Thin Householder QR of an `m × n` matrix. O(2mn² − 2n³/3) for m ≥ n.
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`]; [`Error::Overflow`] when an
/// entry of `R` (a column norm of `A`) exceeds `f64::MAX`.
pub fn qr(a: ArrayView2<'_, f64>) -> Result<Qr> {
    check::data(&a, "a")?;
    let (owned, e) = scaled(a);
    let (q, r) = with_faer(owned.as_ref().map_or(a, |o| o.view()), |m| {
        let f = m.qr();
        (
            to_ndarray(f.compute_thin_Q().as_ref()),
            to_ndarray(f.thin_R()),
        )
    });
    Ok(Qr {
        q: all_finite(q, "q")?,
        r: unscale(r, e, "r")?,
    })
}

/// A thin singular value decomposition `A = U diag(s) Vᵀ`, from [`svd`].
#[derive(Debug, Clone, PartialEq)]
pub struct SvdFactors {
    /// `m × k` left singular vectors, `k = min(m, n)`.
    pub u: Array2<f64>,
    /// The `k` singular values, non-negative and non-increasing.
    pub s: Array1<f64>,
    /// `k × n` right singular vectors, as rows.
    pub vt: Array2<f64>,
}

impl SvdFactors {
    /// Numerical rank: the number of `σᵢ > σ₁ · max(m, n) · ε` (numpy's `matrix_rank` default).
    pub fn rank(&self) -> usize {
        let tol = self.s.first().copied().unwrap_or(0.0)
            * (self.u.nrows().max(self.vt.ncols()) as f64)
            * f64::EPSILON;
        self.s.iter().filter(|&&s| s > tol).count()
    }
}

/// The SVD of `a · 2⁻ᵉ` and the exponent `e` ([`scale_exponent`]).
fn svd_scaled(a: ArrayView2<'_, f64>) -> Result<(SvdFactors, i32)> {
    check::data(&a, "a")?;
    let (owned, e) = scaled(a);
    let f = with_faer(owned.as_ref().map_or(a, |o| o.view()), |m| Svd::new_thin(m))
        .map_err(|_| Error::NoConvergence { algorithm: "svd" })?;
    let factors = SvdFactors {
        u: all_finite(to_ndarray(f.U()), "u")?,
        s: all_finite(col_to_ndarray(f.S().column_vector()), "singular values")?,
        vt: all_finite(to_ndarray(f.V().transpose()), "vt")?,
    };
    Ok((factors, e))
}

/// Thin SVD of an `m × n` matrix. O(mn·min(m, n)).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`], [`Error::NoConvergence`];
/// [`Error::Overflow`] when the largest singular value exceeds `f64::MAX`.
pub fn svd(a: ArrayView2<'_, f64>) -> Result<SvdFactors> {
    let (mut f, e) = svd_scaled(a)?;
    f.s = unscale(f.s, e, "singular values")?;
    Ok(f)
}

/// A symmetric eigendecomposition `A = V diag(λ) Vᵀ`, from [`eigh`].
#[derive(Debug, Clone, PartialEq)]
pub struct Eigh {
    /// Eigenvalues `λ`, in non-decreasing order.
    pub values: Array1<f64>,
    /// Orthonormal eigenvectors, column `i` for `values[i]`.
    pub vectors: Array2<f64>,
}

/// Eigendecomposition of a symmetric matrix (lower triangle read), eigenvalues sorted ascending. O(n³).
///
/// # Errors
/// Shape, emptiness and finiteness errors, [`Error::NoConvergence`];
/// [`Error::Overflow`] when an eigenvalue exceeds the `f64` range.
pub fn eigh(a: ArrayView2<'_, f64>) -> Result<Eigh> {
    check_square(&a)?;
    // Only the lower triangle is read: scale by its largest entry.
    let lower_max = (0..a.nrows()).fold(0.0f64, |m, i| m.max(max_abs(a.row(i).iter().take(i + 1))));
    let e = scale_exponent(lower_max);
    let owned = (e != 0).then(|| a.mapv(|v| ldexp(v, -e)));
    let f = with_faer(owned.as_ref().map_or(a, |o| o.view()), |m| {
        SelfAdjointEigen::new(m, Side::Lower)
    })
    .map_err(|_| Error::NoConvergence { algorithm: "eigh" })?;
    Ok(Eigh {
        values: unscale(col_to_ndarray(f.S().column_vector()), e, "eigenvalues")?,
        vectors: all_finite(to_ndarray(f.U()), "eigenvectors")?,
    })
}

/// The minimum-norm least-squares solution of `A x ≈ b`, from [`lstsq`].
#[derive(Debug, Clone, PartialEq)]
pub struct Lstsq<X> {
    /// `x = A⁺ b`: minimises `‖A x − b‖₂`, and `‖x‖₂` among minimisers.
    pub x: X,
    /// Numerical rank of `A` (see [`SvdFactors::rank`]).
    pub rank: usize,
    /// Singular values of `A`, non-increasing.
    pub singular_values: Array1<f64>,
}

/// Minimum-norm least squares through the SVD, robust to rank deficiency
/// (singular values at or below numpy's cutoff are treated as zero).
/// O(mn·min(m, n)).
///
/// # Errors
/// As [`svd`], plus shape and finiteness errors on `b`, and
/// [`Error::Overflow`] when `x` exceeds the `f64` range.
pub fn lstsq<B: Rhs>(a: ArrayView2<'_, f64>, b: B) -> Result<Lstsq<B::Output>> {
    check::data(&a, "a")?;
    let bm = check_rhs(&b, a.nrows())?;
    let (f, ea) = svd_scaled(a)?;
    let rank = f.rank();
    // x = 2^(eb − ea) · V diag(1/σ') Uᵀ (b 2^−eb), every factor of moderate size.
    let eb = scale_exponent(max_abs(bm.iter()));
    let mut utb = if eb == 0 {
        f.u.t().dot(&bm)
    } else {
        f.u.t().dot(&bm.mapv(|v| ldexp(v, -eb)))
    };
    for (i, mut row) in utb.axis_iter_mut(Axis(0)).enumerate() {
        let w = if i < rank { 1.0 / f.s[i] } else { 0.0 };
        row.mapv_inplace(|v| v * w);
    }
    let x = unscale(f.vt.t().dot(&utb), eb - ea, "x")?;
    Ok(Lstsq {
        x: B::from_matrix(x),
        rank,
        singular_values: unscale(f.s, ea, "singular values")?,
    })
}

/// Moore–Penrose pseudo-inverse `A⁺ = V diag(1/σ) Uᵀ` over the numerical rank. O(mn·min(m, n)).
///
/// # Errors
/// As [`svd`], and [`Error::Overflow`] when an entry of `A⁺` exceeds the
/// `f64` range (the smallest kept singular value is below about `1/f64::MAX`).
pub fn pinv(a: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
    let (f, e) = svd_scaled(a)?;
    let rank = f.rank();
    let mut vt = f.vt;
    for (i, mut row) in vt.axis_iter_mut(Axis(0)).enumerate() {
        let w = if i < rank { 1.0 / f.s[i] } else { 0.0 };
        row.mapv_inplace(|v| v * w);
    }
    unscale(vt.t().dot(&f.u.t()), -e, "pinv")
}

/// Statistical leverage scores of the rows of `A`: `τᵢ = ‖Uᵢ‖²`, where the
/// columns of `U` are an orthonormal basis of the column span of `A`
/// (equivalently `τᵢ = aᵢᵀ (AᵀA)⁺ aᵢ`). Each `τᵢ ∈ [0, 1]` and `Σ τᵢ = rank A`.
///
/// Rank-deficient `A` is handled by keeping only the singular directions
/// above the numerical rank cutoff. O(mn·min(m, n)).
///
/// # Errors
/// As [`svd`].
pub fn leverage_scores(a: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
    let (f, _) = svd_scaled(a)?;
    let rank = f.rank();
    Ok(f.u
        .rows()
        .into_iter()
        .map(|row| row.iter().take(rank).map(|v| v * v).sum())
        .collect())
}
