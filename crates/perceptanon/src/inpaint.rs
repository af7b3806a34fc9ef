//! Biharmonic inpainting: the linear system and its banded LU solve.

use ndarray::ArrayView2;

use crate::error::{Error, Result, alloc_len};
use crate::image::Image;

/// scipy.ndimage `laplace` (mode `reflect`) of an `a × b` array.
fn laplace_reflect(v: &[f64], a: usize, b: usize) -> Vec<f64> {
    let refl = |i: isize, n: usize| -> usize {
        let n = n as isize;
        let p = 2 * n;
        let mut k = i.rem_euclid(p);
        if k >= n {
            k = p - 1 - k;
        }
        k as usize
    };
    let mut out = vec![0.0; a * b];
    for i in 0..a {
        for j in 0..b {
            let c = v[i * b + j];
            let up = v[refl(i as isize - 1, a) * b + j];
            let down = v[refl(i as isize + 1, a) * b + j];
            let left = v[i * b + refl(j as isize - 1, b)];
            let right = v[i * b + refl(j as isize + 1, b)];
            out[i * b + j] = (up + down - 2.0 * c) + (left + right - 2.0 * c);
        }
    }
    out
}

/// The biharmonic coefficients around pixel (i, j) of an `h × w` image:
/// `(row, col, coefficient)` of laplace(laplace(δ)) on the clipped 5×5 window.
fn stencil(i: usize, j: usize, h: usize, w: usize) -> Vec<(usize, usize, f64)> {
    let (i0, i1) = (i.saturating_sub(2), (i + 3).min(h));
    let (j0, j1) = (j.saturating_sub(2), (j + 3).min(w));
    let (a, b) = (i1 - i0, j1 - j0);
    let mut d = vec![0.0; a * b];
    d[(i - i0) * b + (j - j0)] = 1.0;
    let l2 = laplace_reflect(&laplace_reflect(&d, a, b), a, b);
    let mut out = Vec::with_capacity(13);
    for (k, &c) in l2.iter().enumerate() {
        if c != 0.0 {
            out.push((i0 + k / b, j0 + k % b, c));
        }
    }
    out
}

/// A banded row: values of columns `start..start + vals.len()`.
struct Row {
    start: usize,
    vals: Vec<f64>,
}

impl Row {
    fn get(&self, col: usize) -> f64 {
        if col < self.start {
            return 0.0;
        }
        self.vals.get(col - self.start).copied().unwrap_or(0.0)
    }
    fn end(&self) -> usize {
        self.start + self.vals.len()
    }
}

/// Solves A X = B (B with `m` columns, row-major n × m) for a banded A by
/// Gaussian elimination with partial pivoting (rows within `kl` below).
fn banded_solve(mut rows: Vec<Row>, mut rhs: Vec<f64>, m: usize, kl: usize) -> Result<Vec<f64>> {
    let n = rows.len();
    for k in 0..n {
        let last = (k + kl + 1).min(n);
        let (mut p, mut best) = (k, rows[k].get(k).abs());
        for (r, row) in rows.iter().enumerate().take(last).skip(k + 1) {
            let v = row.get(k).abs();
            if v > best {
                best = v;
                p = r;
            }
        }
        if best == 0.0 || !best.is_finite() {
            return Err(Error::Singular {
                what: "biharmonic inpainting system",
            });
        }
        if p != k {
            rows.swap(p, k);
            for c in 0..m {
                rhs.swap(p * m + c, k * m + c);
            }
        }
        let (head, tail) = rows.split_at_mut(k + 1);
        let pivot_row = &head[k];
        let pivot = pivot_row.get(k);
        for (off, row) in tail.iter_mut().take(last - k - 1).enumerate() {
            let r = k + 1 + off;
            let f = row.get(k) / pivot;
            if f == 0.0 {
                continue;
            }
            let end = pivot_row.end();
            if row.end() < end {
                row.vals.resize(end - row.start, 0.0);
            }
            // Columns k..end of the pivot row (it starts at or before k).
            let src = &pivot_row.vals[k - pivot_row.start..end - pivot_row.start];
            let dst = &mut row.vals[k - row.start..end - row.start];
            for (d, v) in dst.iter_mut().zip(src) {
                *d -= f * v;
            }
            for c in 0..m {
                rhs[r * m + c] -= f * rhs[k * m + c];
            }
        }
    }
    let mut x = vec![0.0; n * m];
    for k in (0..n).rev() {
        let row = &rows[k];
        let pivot = row.get(k);
        for c in 0..m {
            let mut s = rhs[k * m + c];
            for col in k + 1..row.end() {
                let v = row.get(col);
                if v != 0.0 {
                    s -= v * x[col * m + c];
                }
            }
            x[k * m + c] = s / pivot;
        }
    }
    Ok(x)
}

pub(crate) fn biharmonic(image: &Image, mask: ArrayView2<'_, bool>) -> Result<Image> {
    let (h, w, ch) = (image.height(), image.width(), image.channels());
    // Unknown index of each masked pixel (row-major); usize::MAX when known.
    let mut index = vec![usize::MAX; h * w];
    let mut pixels = Vec::new();
    for ((i, j), &m) in mask.indexed_iter() {
        if m {
            index[i * w + j] = pixels.len();
            pixels.push((i, j));
        }
    }
    let n = pixels.len();
    let mut out = image.clone();
    if n == 0 {
        return Ok(out);
    }
    if n == h * w {
        return Err(Error::EmptyInput {
            what: "known pixels (the mask covers the whole image)",
        });
    }
    let src = image.view();
    let mut lo = vec![f64::INFINITY; ch];
    let mut hi = vec![f64::NEG_INFINITY; ch];
    for ((i, j, c), &v) in src.indexed_iter() {
        if !mask[[i, j]] {
            lo[c] = lo[c].min(v);
            hi[c] = hi[c].max(v);
        }
    }
    alloc_len(&[n, ch], 8, "inpainting right-hand side")?;
    let mut rows = Vec::with_capacity(n);
    let mut rhs = vec![0.0; n * ch];
    let mut kl = 0usize;
    for (r, &(i, j)) in pixels.iter().enumerate() {
        let mut cols: Vec<(usize, f64)> = Vec::with_capacity(13);
        for (a, b, coef) in stencil(i, j, h, w) {
            let u = index[a * w + b];
            if u == usize::MAX {
                for c in 0..ch {
                    rhs[r * ch + c] -= coef * src[[a, b, c]];
                }
            } else {
                cols.push((u, coef));
            }
        }
        let start = cols.iter().map(|c| c.0).min().unwrap_or(r);
        let end = cols.iter().map(|c| c.0).max().unwrap_or(r) + 1;
        kl = kl
            .max(r.saturating_sub(start))
            .max(end.saturating_sub(r + 1));
        alloc_len(&[end - start], 8, "inpainting band row")?;
        let mut vals = vec![0.0; end - start];
        for (u, coef) in cols {
            vals[u - start] += coef;
        }
        rows.push(Row { start, vals });
    }
    // Partial pivoting widens the upper band to ≤ 2·kl: check that memory.
    alloc_len(&[n, 3 * kl + 1], 8, "inpainting band")?;
    let x = banded_solve(rows, rhs, ch, kl)?;
    let dst = out.data_mut();
    for (r, &(i, j)) in pixels.iter().enumerate() {
        for c in 0..ch {
            dst[[i, j, c]] = x[r * ch + c].clamp(lo[c], hi[c]);
        }
    }
    Ok(out)
}
