//! NumPy `.npy` arrays (format versions 1–3): little/big-endian `f8`, `f4`,
//! `i8`, `i4`, `i2`, `u1` … read as `f64`, C or Fortran order; and a writer
//! for `f64` arrays.

use crate::error::{Error, Result};
use crate::se3::{Pose, pose_from_array, pose_to_array};
use ndarray::{Array2, ArrayD, IxDyn, ShapeBuilder};

fn fmt_err(file: &str, reason: impl Into<String>) -> Error {
    Error::Format {
        file: file.to_string(),
        line: 0,
        reason: reason.into(),
    }
}

fn dict_value<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let k = format!("'{key}'");
    let i = header.find(&k)? + k.len();
    let rest = header[i..].trim_start().strip_prefix(':')?.trim_start();
    if let Some(r) = rest.strip_prefix('(') {
        return r.find(')').map(|j| &r[..j]);
    }
    if let Some(r) = rest.strip_prefix('\'') {
        return r.find('\'').map(|j| &r[..j]);
    }
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// Parses `.npy` bytes into an `f64` array of any dimension.
///
/// # Errors
/// [`Error::Format`] (file, line 0) for a bad magic, header, dtype, or a
/// body whose length does not match the shape; [`Error::TooLarge`].
pub fn parse_npy(bytes: &[u8], file: &str) -> Result<ArrayD<f64>> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(fmt_err(file, "not a .npy file (bad magic)"));
    }
    let (hlen, start): (usize, usize) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(fmt_err(file, format!("unsupported .npy version {v}"))),
    };
    let end = start
        .checked_add(hlen)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| fmt_err(file, "header runs past the end"))?;
    let header =
        std::str::from_utf8(&bytes[start..end]).map_err(|_| fmt_err(file, "header is not text"))?;
    let descr = dict_value(header, "descr").ok_or_else(|| fmt_err(file, "header has no descr"))?;
    let fortran = dict_value(header, "fortran_order")
        .ok_or_else(|| fmt_err(file, "header has no fortran_order"))?
        == "True";
    let shape_s =
        dict_value(header, "shape").ok_or_else(|| fmt_err(file, "header has no shape"))?;
    let shape: Vec<usize> = shape_s
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| fmt_err(file, format!("bad shape entry {s:?}")))
        })
        .collect::<Result<_>>()?;
    let n = shape
        .iter()
        .try_fold(1usize, |a, &b| a.checked_mul(b))
        .ok_or_else(|| fmt_err(file, "shape overflows"))?;
    crate::error::alloc(n, 8, "npy array")?;
    let (order, kind, size) = {
        let b = descr.as_bytes();
        if b.len() < 3 {
            return Err(fmt_err(file, format!("unsupported dtype {descr:?}")));
        }
        let size: usize = descr[2..]
            .parse()
            .map_err(|_| fmt_err(file, format!("unsupported dtype {descr:?}")))?;
        (b[0], b[1], size)
    };
    let big = order == b'>';
    let body = &bytes[end..];
    if n.checked_mul(size) != Some(body.len()) {
        return Err(fmt_err(
            file,
            format!(
                "body has {} bytes, shape {shape:?} of {descr} needs {}",
                body.len(),
                n.saturating_mul(size)
            ),
        ));
    }
    let mut data = Vec::with_capacity(n);
    for c in body.chunks_exact(size) {
        macro_rules! rd {
            ($t:ty, $k:literal) => {{
                let mut a = [0u8; $k];
                a.copy_from_slice(c);
                (if big {
                    <$t>::from_be_bytes(a)
                } else {
                    <$t>::from_le_bytes(a)
                }) as f64
            }};
        }
        data.push(match (kind, size) {
            (b'f', 8) => rd!(f64, 8),
            (b'f', 4) => rd!(f32, 4),
            (b'i', 8) => rd!(i64, 8),
            (b'i', 4) => rd!(i32, 4),
            (b'i', 2) => rd!(i16, 2),
            (b'i', 1) => c[0] as i8 as f64,
            (b'u', 8) => rd!(u64, 8),
            (b'u', 4) => rd!(u32, 4),
            (b'u', 2) => rd!(u16, 2),
            (b'u', 1) | (b'b', 1) => c[0] as f64,
            _ => return Err(fmt_err(file, format!("unsupported dtype {descr:?}"))),
        });
    }
    let sh = IxDyn(&shape);
    let arr = if fortran {
        ArrayD::from_shape_vec(sh.f(), data)
    } else {
        ArrayD::from_shape_vec(sh, data)
    };
    arr.map_err(|e| fmt_err(file, e.to_string()))
}

/// Writes an `f64` array (C order, `<f8`) as `.npy` version 1.0 bytes.
pub fn to_npy(a: &ArrayD<f64>) -> Vec<u8> {
    let shape = match a.ndim() {
        1 => format!("({},)", a.shape()[0]),
        _ => format!(
            "({})",
            a.shape()
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    for v in a.iter() {
        out.extend(v.to_le_bytes());
    }
    out
}

/// A pose from `.npy` bytes holding a 4×4 or 3×4 matrix.
///
/// # Errors
/// As [`parse_npy`] and [`crate::se3::pose_from_array`].
pub fn pose_from_npy(bytes: &[u8], file: &str) -> Result<Pose> {
    let a = parse_npy(bytes, file)?;
    let a: Array2<f64> = a
        .into_dimensionality()
        .map_err(|_| fmt_err(file, "pose array is not 2-D"))?;
    pose_from_array(a.view())
}

/// `.npy` bytes of a pose as a 4×4 `f64` matrix.
pub fn pose_to_npy(p: &Pose) -> Vec<u8> {
    to_npy(&pose_to_array(p).into_dyn())
}
