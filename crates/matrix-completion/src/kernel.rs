//! The gradient's hot loops over the observed entries: a row pass (entries in
//! `(row, col)` order) and a column pass (the CSC index), each reading its
//! entries sequentially, plus the evaluation pass `Zᵢⱼ = ⟨Pᵢ, Bⱼ⟩`.
//!
//! On x86-64 the loops are compiled twice, for the baseline (SSE2) and for
//! AVX2, and the AVX2 copy is chosen at run time when the CPU has it. Both
//! copies evaluate the same expressions in the same order (sixteen
//! independent partial sums in [`dot`], no fused multiply-add), so their
//! results are bitwise identical: the instruction set changes the speed, never
//! the figures.
//!
//! **Threads.** The full-batch passes run over fixed blocks of about
//! [`crate::data::BLOCK`] entries, cut at row boundaries (row pass) and at
//! column boundaries (column pass), so every row of `S = ∂J/∂P` and every row
//! of `T = ∂J/∂Bᵀ` is written by exactly one block, in entry order. The blocks
//! depend on the data only; the sum of squared residuals adds the blocks'
//! partial sums in block order. A thread pool therefore only changes which
//! core runs a block, never an addition's operands or order: results are
//! bitwise identical for every thread count, the serial run included (test
//! `tests/threads.rs`).

use crate::link::{Link, ScalarLink};
use rayon::prelude::*;

/// Read-only operands of one gradient evaluation: `Zᵢⱼ = ⟨Pᵢ, Bⱼ⟩`.
pub(crate) struct Operands<'a> {
    pub link: &'a Link,
    pub offset: f64,
    /// `1/N` for the batch.
    pub inv_n: f64,
    /// Width `k` of the rows of `P` and `Bᵀ`.
    pub k: usize,
    /// `P = A₁⋯A_{L−1}`, m×k, row-major.
    pub p: &'a [f64],
    /// `Bᵀ = A_Lᵀ`, n×k, row-major.
    pub bt: &'a [f64],
}

/// The entries of a full-batch evaluation in both orders, with their blocks.
pub(crate) struct Entries<'a> {
    pub rows: &'a [u32],
    pub cols: &'a [u32],
    pub values: &'a [f64],
    /// CSC order: row index, column index, position in the `(row, col)` order.
    pub csc: (&'a [u32], &'a [u32], &'a [u32]),
    /// Block boundaries of the row pass and of the column pass.
    pub blocks: (&'a [usize], &'a [usize]),
}

/// Outputs of the full-batch passes.
pub(crate) struct Outputs<'a> {
    /// `S = ∂J/∂P`, m×k (zeroed).
    pub s: &'a mut [f64],
    /// `T = ∂J/∂Bᵀ`, n×k (zeroed).
    pub t: &'a mut [f64],
    /// `gᵢⱼ` per entry (scratch, length N).
    pub g: &'a mut [f64],
    /// `(zᵢⱼ, rᵢⱼ/N)` per entry, for links with parameters (length N each).
    pub link_terms: Option<(&'a mut [f64], &'a mut [f64])>,
}

/// Runs `f` over `tasks` on `pool` (in parallel) or in order (serial);
/// results come back in task order either way.
fn run_tasks<T: Send, R: Send>(
    tasks: Vec<T>,
    pool: Option<&rayon::ThreadPool>,
    f: impl Fn(T) -> R + Sync + Send,
) -> Vec<R> {
    match pool {
        Some(pool) => pool.install(|| tasks.into_par_iter().map(f).collect()),
        None => tasks.into_iter().map(f).collect(),
    }
}

/// Splits `head` off the front of `*rest` (for handing disjoint pieces of
/// one output to blocks).
fn take<'a, T>(rest: &mut &'a mut [T], len: usize) -> &'a mut [T] {
    let (head, tail) = std::mem::take(rest).split_at_mut(len);
    *rest = tail;
    head
}

/// Full batch: the row pass (`Sᵢ += gᵢⱼ Bⱼ`, `gᵢⱼ = rᵢⱼ f′(zᵢⱼ)/N`,
/// `rᵢⱼ = offset + f(zᵢⱼ) − yᵢⱼ`, storing `gᵢⱼ`), then the column pass
/// (`Tⱼ += gᵢⱼ Pᵢ` over the CSC index, reading the stored `gᵢⱼ`), each over
/// its fixed blocks, on `pool` or serially (bitwise the same). Returns `Σ r²`
/// (block partial sums added in block order). O(N k).
pub(crate) fn full_passes(
    op: &Operands<'_>,
    d: &Entries<'_>,
    out: Outputs<'_>,
    pool: Option<&rayon::ThreadPool>,
) -> f64 {
    let k = op.k;
    let Outputs {
        s,
        t,
        g,
        link_terms,
    } = out;
    let (row_blocks, col_blocks) = d.blocks;
    // Row pass: block b owns entries [e0, e1) and S rows [rows[e0], rows[e1 − 1]].
    let mut tasks = Vec::with_capacity(row_blocks.len().saturating_sub(1));
    {
        let (mut s_rest, mut g_rest) = (s, &mut *g);
        let (mut z_rest, mut sc_rest) = match link_terms {
            Some((z, sc)) => (Some(z), Some(sc)),
            None => (None, None),
        };
        let mut row_at = 0usize;
        for w in row_blocks.windows(2) {
            let (e0, e1) = (w[0], w[1]);
            let (r0, r1) = (d.rows[e0] as usize, d.rows[e1 - 1] as usize + 1);
            take(&mut s_rest, (r0 - row_at) * k);
            let s_b = take(&mut s_rest, (r1 - r0) * k);
            row_at = r1;
            let g_b = take(&mut g_rest, e1 - e0);
            let z_b = z_rest.as_mut().map(|z| take(z, e1 - e0));
            let sc_b = sc_rest.as_mut().map(|z| take(z, e1 - e0));
            tasks.push((e0, e1, r0, s_b, g_b, z_b, sc_b));
        }
    }
    let sses = run_tasks(tasks, pool, |(e0, e1, r0, s_b, g_b, z_b, sc_b)| {
        row_block(
            op,
            RowBlock {
                rows: &d.rows[e0..e1],
                cols: &d.cols[e0..e1],
                values: &d.values[e0..e1],
                r0,
                s: s_b,
                g: g_b,
                zs: z_b,
                scales: sc_b,
            },
        )
    });
    let sse = sses.iter().fold(0.0, |a, b| a + b);
    // Column pass: block b owns CSC positions [q0, q1) and T rows [cols[q0], cols[q1 − 1]].
    let g: &[f64] = g;
    let (c_rows, c_cols, c_pos) = d.csc;
    let mut tasks = Vec::with_capacity(col_blocks.len().saturating_sub(1));
    {
        let mut t_rest = t;
        let mut col_at = 0usize;
        for w in col_blocks.windows(2) {
            let (q0, q1) = (w[0], w[1]);
            let (c0, c1) = (c_cols[q0] as usize, c_cols[q1 - 1] as usize + 1);
            take(&mut t_rest, (c0 - col_at) * k);
            let t_b = take(&mut t_rest, (c1 - c0) * k);
            col_at = c1;
            tasks.push((q0, q1, c0, t_b));
        }
    }
    run_tasks(tasks, pool, |(q0, q1, c0, t_b)| {
        col_block(
            op,
            (&c_rows[q0..q1], &c_cols[q0..q1], &c_pos[q0..q1]),
            c0,
            g,
            t_b,
        )
    });
    sse
}

/// Mini-batch pass (serial): `Sᵢ += gᵢⱼ Bⱼ`, `Tⱼ += gᵢⱼ Pᵢ` over the entries
/// at `batch`, pushing `(zᵢⱼ, rᵢⱼ/N)` for links with parameters; returns
/// `Σ r²`. O(B k).
pub(crate) fn batch_pass(
    op: &Operands<'_>,
    (rows, cols, values): (&[u32], &[u32], &[f64]),
    batch: &[usize],
    (s, t): (&mut [f64], &mut [f64]),
    link_terms: Option<(&mut Vec<f64>, &mut Vec<f64>)>,
) -> f64 {
    let b = BatchPass {
        rows,
        cols,
        values,
        batch,
        s,
        t,
        link_terms,
    };
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { batch_pass_avx2(op, b) };
    }
    batch_pass_body::<false>(op, b)
}

/// `out[e] = ⟨P_{rows[e]}, B_{cols[e]}⟩` (the latent values), in chunks on
/// `pool` or serially (no reduction: bitwise the same). O(N k).
pub(crate) fn latent(
    (k, p, bt): (usize, &[f64], &[f64]),
    rows: &[u32],
    cols: &[u32],
    out: &mut [f64],
    pool: Option<&rayon::ThreadPool>,
) {
    let tasks: Vec<(usize, &mut [f64])> = out
        .chunks_mut(crate::data::BLOCK)
        .enumerate()
        .map(|(c, o)| (c * crate::data::BLOCK, o))
        .collect();
    run_tasks(tasks, pool, |(e0, o)| {
        let e1 = e0 + o.len();
        latent_block((k, p, bt), &rows[e0..e1], &cols[e0..e1], o)
    });
}

struct RowBlock<'a> {
    rows: &'a [u32],
    cols: &'a [u32],
    values: &'a [f64],
    /// First row of `s`.
    r0: usize,
    s: &'a mut [f64],
    g: &'a mut [f64],
    zs: Option<&'a mut [f64]>,
    scales: Option<&'a mut [f64]>,
}

struct BatchPass<'a> {
    rows: &'a [u32],
    cols: &'a [u32],
    values: &'a [f64],
    batch: &'a [usize],
    s: &'a mut [f64],
    t: &'a mut [f64],
    link_terms: Option<(&'a mut Vec<f64>, &'a mut Vec<f64>)>,
}

fn row_block(op: &Operands<'_>, b: RowBlock<'_>) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { row_block_avx2(op, b) };
    }
    row_block_body::<false>(op, b)
}

type CscBlock<'a> = (&'a [u32], &'a [u32], &'a [u32]);

fn col_block(op: &Operands<'_>, csc: CscBlock<'_>, c0: usize, g: &[f64], t: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { col_block_avx2(op, csc, c0, g, t) };
    }
    col_block_body::<false>(op, csc, c0, g, t)
}

fn latent_block(pk: (usize, &[f64], &[f64]), rows: &[u32], cols: &[u32], out: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { latent_block_avx2(pk, rows, cols, out) };
    }
    latent_block_body::<false>(pk, rows, cols, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn row_block_avx2(op: &Operands<'_>, b: RowBlock<'_>) -> f64 {
    row_block_body::<true>(op, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn col_block_avx2(op: &Operands<'_>, csc: CscBlock<'_>, c0: usize, g: &[f64], t: &mut [f64]) {
    col_block_body::<true>(op, csc, c0, g, t)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn batch_pass_avx2(op: &Operands<'_>, b: BatchPass<'_>) -> f64 {
    batch_pass_body::<true>(op, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn latent_block_avx2(pk: (usize, &[f64], &[f64]), rows: &[u32], cols: &[u32], out: &mut [f64]) {
    latent_block_body::<true>(pk, rows, cols, out)
}

/// Entries ahead whose `Bⱼ` row is prefetched (a hint: never changes results).
const AHEAD: usize = 8;

/// Prefetches the row of `m` (width `k`) at index `idx` into L1 (no-op off x86-64).
#[inline(always)]
fn prefetch_row(m: &[f64], idx: usize, k: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let base = m.as_ptr().wrapping_add(idx * k);
        let mut c = 0;
        while c < k {
            // SAFETY: prefetch is a hint; it never faults, whatever the address.
            #[allow(unsafe_code)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    base.wrapping_add(c).cast::<i8>(),
                );
            }
            c += 8;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (m, idx, k);
}

#[inline(always)]
fn row_block_body<const AVX: bool>(op: &Operands<'_>, b: RowBlock<'_>) -> f64 {
    let RowBlock {
        rows,
        cols,
        values,
        r0,
        s,
        g,
        mut zs,
        mut scales,
    } = b;
    let k = op.k;
    let mut sse = 0.0;
    for e in 0..rows.len() {
        if let Some(&jn) = cols.get(e + AHEAD) {
            prefetch_row(op.bt, jn as usize, k);
        }
        let (i, j) = (rows[e] as usize, cols[e] as usize);
        let pi = &op.p[i * k..(i + 1) * k];
        let bj = &op.bt[j * k..(j + 1) * k];
        let z = dot_sel::<AVX>(pi, bj);
        let r = op.offset + op.link.value(z) - values[e];
        sse += r * r;
        let gv = op.inv_n * r * op.link.dvalue(z);
        g[e] = gv;
        if let (Some(zs), Some(sc)) = (zs.as_deref_mut(), scales.as_deref_mut()) {
            zs[e] = z;
            sc[e] = op.inv_n * r;
        }
        let il = i - r0;
        axpy(gv, bj, &mut s[il * k..(il + 1) * k]);
    }
    sse
}

#[inline(always)]
fn col_block_body<const AVX: bool>(
    op: &Operands<'_>,
    (rows, cols, pos): CscBlock<'_>,
    c0: usize,
    g: &[f64],
    t: &mut [f64],
) {
    let k = op.k;
    for q in 0..rows.len() {
        if let Some(&inext) = rows.get(q + AHEAD) {
            prefetch_row(op.p, inext as usize, k);
        }
        let (i, j) = (rows[q] as usize, cols[q] as usize - c0);
        let pi = &op.p[i * k..(i + 1) * k];
        axpy(g[pos[q] as usize], pi, &mut t[j * k..(j + 1) * k]);
    }
}

#[inline(always)]
fn batch_pass_body<const AVX: bool>(op: &Operands<'_>, b: BatchPass<'_>) -> f64 {
    let BatchPass {
        rows,
        cols,
        values,
        batch,
        s,
        t,
        mut link_terms,
    } = b;
    let k = op.k;
    let mut sse = 0.0;
    for &e in batch {
        let (i, j) = (rows[e] as usize, cols[e] as usize);
        let pi = &op.p[i * k..(i + 1) * k];
        let bj = &op.bt[j * k..(j + 1) * k];
        let z = dot_sel::<AVX>(pi, bj);
        let r = op.offset + op.link.value(z) - values[e];
        sse += r * r;
        let gv = op.inv_n * r * op.link.dvalue(z);
        if let Some((zs, scales)) = link_terms.as_mut() {
            zs.push(z);
            scales.push(op.inv_n * r);
        }
        axpy(gv, bj, &mut s[i * k..(i + 1) * k]);
        axpy(gv, pi, &mut t[j * k..(j + 1) * k]);
    }
    sse
}

#[inline(always)]
fn latent_block_body<const AVX: bool>(
    (k, p, bt): (usize, &[f64], &[f64]),
    rows: &[u32],
    cols: &[u32],
    out: &mut [f64],
) {
    for e in 0..out.len() {
        if let Some(&jn) = cols.get(e + AHEAD) {
            prefetch_row(bt, jn as usize, k);
        }
        let (i, j) = (rows[e] as usize, cols[e] as usize);
        out[e] = dot_sel::<AVX>(&p[i * k..(i + 1) * k], &bt[j * k..(j + 1) * k]);
    }
}

/// `⟨a, b⟩` in one fixed order, whatever the vector width the compiler
/// picks: element `16c + l` of the leading blocks of sixteen goes to partial
/// sum `l`, folded to four as `qₗ = (aₗ + aₗ₊₄) + (aₗ₊₈ + aₗ₊₁₂)`; element
/// `4c + l` of the following blocks of four is added to `qₗ`; then
/// `(q₀ + q₁) + (q₂ + q₃)` and the tail in order. Sixteen independent sums
/// keep four AVX2 accumulators busy (a single chain of k/4 dependent adds
/// was the step's bottleneck in `perf`).
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lanes by index: the order is the point
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..16 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut q = [0.0f64; 4];
    for l in 0..4 {
        q[l] = (acc[l] + acc[l + 4]) + (acc[l + 8] + acc[l + 12]);
    }
    let (ca, cb) = (ra.chunks_exact(4), rb.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            q[l] += x[l] * y[l];
        }
    }
    let mut s = (q[0] + q[1]) + (q[2] + q[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// [`dot`], through AVX2 intrinsics in the AVX2 copies (`AVX` is true only
/// there): the same products and additions in the same order, so bitwise the
/// same value.
#[inline(always)]
fn dot_sel<const AVX: bool>(a: &[f64], b: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if AVX {
        // SAFETY: `AVX` is true only in the `*_avx2` copies, entered after
        // `is_x86_feature_detected!("avx2")`.
        #[allow(unsafe_code)]
        return unsafe { dot_avx2(a, b) };
    }
    dot(a, b)
}

/// [`dot`] with four AVX2 accumulators: vector `v` holds partial sums
/// `4v … 4v + 3`, folded as `(v₀ + v₁) + (v₂ + v₃)`, then the blocks of four,
/// `(q₀ + q₁) + (q₂ + q₃)` and the tail: [`dot`]'s order exactly.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn dot_avx2(a: &[f64], b: &[f64]) -> f64 {
    use std::arch::x86_64::{
        __m256d, _mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_setzero_pd, _mm256_storeu_pd,
    };
    let n = a.len().min(b.len());
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    // SAFETY (loads): every load reads 4 doubles at c .. c + 3 < n, inside both slices.
    #[allow(unsafe_code)]
    let ld = |p: *const f64, c: usize| -> __m256d { unsafe { _mm256_loadu_pd(p.add(c)) } };
    let mut v = [_mm256_setzero_pd(); 4];
    let mut c = 0;
    while c + 16 <= n {
        for (u, vu) in v.iter_mut().enumerate() {
            let o = c + 4 * u;
            *vu = _mm256_add_pd(*vu, _mm256_mul_pd(ld(pa, o), ld(pb, o)));
        }
        c += 16;
    }
    let mut q = _mm256_add_pd(_mm256_add_pd(v[0], v[1]), _mm256_add_pd(v[2], v[3]));
    while c + 4 <= n {
        q = _mm256_add_pd(q, _mm256_mul_pd(ld(pa, c), ld(pb, c)));
        c += 4;
    }
    let mut t = [0.0f64; 4];
    // SAFETY: `t` holds 4 doubles.
    #[allow(unsafe_code)]
    unsafe {
        _mm256_storeu_pd(t.as_mut_ptr(), q)
    };
    let mut s = (t[0] + t[1]) + (t[2] + t[3]);
    while c < n {
        s += a[c] * b[c];
        c += 1;
    }
    s
}

/// `y += α x`, elementwise.
#[inline(always)]
fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csc_of(rows: &[u32], cols: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let mut q: Vec<u32> = (0..rows.len() as u32).collect();
        q.sort_by_key(|&e| (cols[e as usize], rows[e as usize]));
        (
            q.iter().map(|&e| rows[e as usize]).collect(),
            q.iter().map(|&e| cols[e as usize]).collect(),
            q,
        )
    }

    /// The full-batch passes equal a naive triple loop (independent code),
    /// with blocks cut inside the data (one row and one column per block).
    #[test]
    fn passes_match_naive_loops() {
        let (m, n, k) = (3usize, 4usize, 37usize);
        let p: Vec<f64> = (0..m * k).map(|v| (v as f64 * 0.37).sin()).collect();
        let bt: Vec<f64> = (0..n * k).map(|v| (v as f64 * 0.11).cos()).collect();
        let rows = [0u32, 0, 2, 2, 2];
        let cols = [1u32, 3, 0, 1, 3];
        let values = [0.5, -1.0, 2.0, 0.0, 1.5];
        let link = Link::Identity(Default::default());
        let op = Operands {
            link: &link,
            offset: 0.25,
            inv_n: 1.0 / 5.0,
            k,
            p: &p,
            bt: &bt,
        };
        let csc = csc_of(&rows, &cols);
        let (mut s, mut t, mut g) = (vec![0.0; m * k], vec![0.0; n * k], vec![0.0; 5]);
        let sse = full_passes(
            &op,
            &Entries {
                rows: &rows,
                cols: &cols,
                values: &values,
                csc: (&csc.0, &csc.1, &csc.2),
                blocks: (&[0, 2, 5], &[0, 1, 3, 5]),
            },
            Outputs {
                s: &mut s,
                t: &mut t,
                g: &mut g,
                link_terms: None,
            },
            None,
        );
        let (mut s_ref, mut t_ref, mut sse_ref) = (vec![0.0; m * k], vec![0.0; n * k], 0.0);
        for e in 0..5 {
            let (i, j) = (rows[e] as usize, cols[e] as usize);
            let z: f64 = (0..k).map(|c| p[i * k + c] * bt[j * k + c]).sum();
            let r = 0.25 + z - values[e];
            sse_ref += r * r;
            for c in 0..k {
                s_ref[i * k + c] += r / 5.0 * bt[j * k + c];
                t_ref[j * k + c] += r / 5.0 * p[i * k + c];
            }
        }
        assert!((sse - sse_ref).abs() <= 1e-12 * sse_ref.abs().max(1.0));
        for (a, b) in s.iter().zip(&s_ref).chain(t.iter().zip(&t_ref)) {
            assert!((a - b).abs() <= 1e-12, "{a} vs {b}");
        }
        // The evaluation pass.
        let mut z = vec![0.0; 5];
        latent((k, &p, &bt), &rows, &cols, &mut z, None);
        for e in 0..5 {
            let (i, j) = (rows[e] as usize, cols[e] as usize);
            let zr: f64 = (0..k).map(|c| p[i * k + c] * bt[j * k + c]).sum();
            assert!((z[e] - zr).abs() <= 1e-12);
        }
    }

    /// The AVX2 copy (where the CPU has it) is bitwise the baseline copy, for
    /// widths with and without blocks of sixteen, blocks of four and a tail.
    #[test]
    fn instruction_sets_agree_bitwise() {
        for k in [1usize, 3, 4, 16, 21, 37, 64] {
            let a: Vec<f64> = (0..k).map(|v| 1.0 / (v as f64 + 0.3)).collect();
            let b: Vec<f64> = (0..k).map(|v| (v as f64 * 1.7).sin() * 1e3).collect();
            let link = Link::Identity(Default::default());
            let op = Operands {
                link: &link,
                offset: 0.0,
                inv_n: 1.0 / 3.0,
                k,
                p: &a,
                bt: &b,
            };
            let (rows, cols, values) = ([0u32], [0u32], [0.1]);
            let run = |body: bool| {
                let (mut s, mut g) = (vec![0.0; k], vec![0.0; 1]);
                let blk = RowBlock {
                    rows: &rows,
                    cols: &cols,
                    values: &values,
                    r0: 0,
                    s: &mut s,
                    g: &mut g,
                    zs: None,
                    scales: None,
                };
                let sse = if body {
                    row_block_body::<false>(&op, blk)
                } else {
                    row_block(&op, blk)
                };
                (
                    sse.to_bits(),
                    s.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                )
            };
            assert_eq!(run(true), run(false), "k = {k}");
        }
    }
}
