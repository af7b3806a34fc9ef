//! The gradient's hot loops over the observed entries: a row pass (entries in
//! `(row, col)` order) and a column pass (the CSC copy), each reading its
//! entries sequentially.
//!
//! On x86-64 the loops are compiled twice, for the baseline (SSE2) and for
//! AVX2, and the AVX2 copy is chosen at run time when the CPU has it. Both
//! copies evaluate the same expressions in the same order (four independent
//! partial sums in [`dot`], no fused multiply-add), so their results are
//! bitwise identical: the instruction set changes the speed, never the
//! figures.

use crate::link::{Link, ScalarLink};

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

/// Entries of a pass and where its results go.
pub(crate) struct RowPass<'a> {
    pub rows: &'a [u32],
    pub cols: &'a [u32],
    pub values: &'a [f64],
    /// Positions to visit (a mini-batch), or all entries in order.
    pub batch: Option<&'a [usize]>,
    /// `S = ∂J/∂P`, m×k.
    pub s: &'a mut [f64],
    /// `T = ∂J/∂Bᵀ` (n×k), written here for a mini-batch; `None` when the
    /// column pass writes it.
    pub t: Option<&'a mut [f64]>,
    /// `(zᵢⱼ, rᵢⱼ/N)` per visited entry, for links with parameters.
    pub link_terms: Option<(&'a mut Vec<f64>, &'a mut Vec<f64>)>,
}

/// Row pass: accumulates `Sᵢ += gᵢⱼ Bⱼ` (and `Tⱼ += gᵢⱼ Pᵢ` for a mini-batch)
/// with `gᵢⱼ = rᵢⱼ f′(zᵢⱼ)/N`, `rᵢⱼ = offset + f(zᵢⱼ) − yᵢⱼ`; returns `Σ r²`.
/// O(N k).
pub(crate) fn row_pass(op: &Operands<'_>, pass: RowPass<'_>) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { row_pass_avx2(op, pass) };
    }
    row_pass_body(op, pass)
}

/// Column pass over the CSC copy: `Tⱼ += gᵢⱼ Pᵢ`, recomputing `zᵢⱼ` and
/// `gᵢⱼ` from the same operands as the row pass (so bitwise the same values).
/// O(N k).
pub(crate) fn col_pass(op: &Operands<'_>, csc: (&[u32], &[u32], &[f64]), t: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        #[allow(unsafe_code)]
        return unsafe { col_pass_avx2(op, csc, t) };
    }
    col_pass_body(op, csc, t)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn row_pass_avx2(op: &Operands<'_>, pass: RowPass<'_>) -> f64 {
    row_pass_body(op, pass)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn col_pass_avx2(op: &Operands<'_>, csc: (&[u32], &[u32], &[f64]), t: &mut [f64]) {
    col_pass_body(op, csc, t)
}

#[inline(always)]
fn row_pass_body(op: &Operands<'_>, pass: RowPass<'_>) -> f64 {
    let RowPass {
        rows,
        cols,
        values,
        batch,
        s,
        mut t,
        mut link_terms,
    } = pass;
    let k = op.k;
    let count = batch.map_or(rows.len(), <[usize]>::len);
    let mut sse = 0.0;
    for n in 0..count {
        let e = batch.map_or(n, |b| b[n]);
        let (i, j) = (rows[e] as usize, cols[e] as usize);
        let pi = &op.p[i * k..(i + 1) * k];
        let bj = &op.bt[j * k..(j + 1) * k];
        let z = dot(pi, bj);
        let r = op.offset + op.link.value(z) - values[e];
        sse += r * r;
        let g = op.inv_n * r * op.link.dvalue(z);
        if let Some((zs, scales)) = link_terms.as_mut() {
            zs.push(z);
            scales.push(op.inv_n * r);
        }
        axpy(g, bj, &mut s[i * k..(i + 1) * k]);
        if let Some(t) = t.as_deref_mut() {
            axpy(g, pi, &mut t[j * k..(j + 1) * k]);
        }
    }
    sse
}

#[inline(always)]
fn col_pass_body(op: &Operands<'_>, (rows, cols, values): (&[u32], &[u32], &[f64]), t: &mut [f64]) {
    let k = op.k;
    for ((&i, &j), &y) in rows.iter().zip(cols).zip(values) {
        let (i, j) = (i as usize, j as usize);
        let pi = &op.p[i * k..(i + 1) * k];
        let bj = &op.bt[j * k..(j + 1) * k];
        let z = dot(pi, bj);
        let r = op.offset + op.link.value(z) - y;
        let g = op.inv_n * r * op.link.dvalue(z);
        axpy(g, pi, &mut t[j * k..(j + 1) * k]);
    }
}

/// `⟨a, b⟩` with four partial sums (element `4c + l` goes to sum `l`), added as
/// `(s₀ + s₁) + (s₂ + s₃)`, then the tail: one fixed order, whatever the
/// vector width the compiler picks.
#[inline(always)]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
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

    /// The dispatched passes equal a naive triple loop (independent code).
    #[test]
    fn passes_match_naive_loops() {
        let (m, n, k) = (3usize, 4usize, 5usize);
        let p: Vec<f64> = (0..m * k).map(|v| (v as f64 * 0.37).sin()).collect();
        let bt: Vec<f64> = (0..n * k).map(|v| (v as f64 * 0.11).cos()).collect();
        let rows = [0u32, 0, 1, 2, 2];
        let cols = [1u32, 3, 0, 1, 2];
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
        let mut s = vec![0.0; m * k];
        let sse = row_pass(
            &op,
            RowPass {
                rows: &rows,
                cols: &cols,
                values: &values,
                batch: None,
                s: &mut s,
                t: None,
                link_terms: None,
            },
        );
        // CSC copy of the same entries.
        let mut csc: Vec<(u32, u32, f64)> = (0..5).map(|e| (rows[e], cols[e], values[e])).collect();
        csc.sort_by_key(|&(i, j, _)| (j, i));
        let (cr, cc, cv): (Vec<u32>, Vec<u32>, Vec<f64>) = (
            csc.iter().map(|x| x.0).collect(),
            csc.iter().map(|x| x.1).collect(),
            csc.iter().map(|x| x.2).collect(),
        );
        let mut t = vec![0.0; n * k];
        col_pass(&op, (&cr, &cc, &cv), &mut t);
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
    }

    /// The AVX2 copy (where the CPU has it) is bitwise the baseline copy.
    #[test]
    fn instruction_sets_agree_bitwise() {
        let k = 37; // a tail after the blocks of four
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
            let mut s = vec![0.0; k];
            let pass = RowPass {
                rows: &rows,
                cols: &cols,
                values: &values,
                batch: None,
                s: &mut s,
                t: None,
                link_terms: None,
            };
            let sse = if body {
                row_pass_body(&op, pass)
            } else {
                row_pass(&op, pass)
            };
            (
                sse.to_bits(),
                s.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(run(true), run(false));
    }
}
