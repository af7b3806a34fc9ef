//! Readers: images (PNG, binary PGM/PPM, either gzipped), the official
//! HA1/HA2 annotation CSVs, and image folders.

use std::io::Read;
use std::path::{Path, PathBuf};

use ndarray::Array3;

use crate::error::{Error, Result, alloc_len};
use crate::image::Image;
use crate::labels::check_score;

fn decode_err(path: &str, reason: impl Into<String>) -> Error {
    Error::Decode {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// Decodes an image from bytes: PNG (8/16-bit, grey or colour; alpha is
/// dropped; palettes expanded), binary PGM (`P5`) or PPM (`P6`) with
/// maxval ≤ 65535, or either of those gzipped. Values are scaled to [0, 1]
/// (v / maxval). JPEG is not decoded (no decoder in the dependency set):
/// convert such files to PNG first. O(pixels).
///
/// # Errors
/// [`Error::Decode`] naming `path` for anything malformed or unsupported;
/// [`Error::TooLarge`] for dimensions whose buffer would exceed the cap.
pub fn decode_image(bytes: &[u8], path: &str) -> Result<Image> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(1 << 32)
            .read_to_end(&mut out)
            .map_err(|e| decode_err(path, format!("gzip: {e}")))?;
        return decode_image(&out, path);
    }
    if bytes.starts_with(b"\x89PNG") {
        return decode_png(bytes, path);
    }
    if bytes.starts_with(b"P5") || bytes.starts_with(b"P6") {
        return decode_pnm(bytes, path);
    }
    if bytes.starts_with(&[0xff, 0xd8]) {
        return Err(decode_err(
            path,
            "JPEG is not supported (no JPEG decoder in the dependency set): convert to PNG",
        ));
    }
    Err(decode_err(
        path,
        "unknown format (expected PNG, P5/P6 PNM, or gzip of those)",
    ))
}

fn decode_png(bytes: &[u8], path: &str) -> Result<Image> {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec
        .read_info()
        .map_err(|e| decode_err(path, e.to_string()))?;
    let (w, h) = (reader.info().width as usize, reader.info().height as usize);
    alloc_len(&[w, h, 4], 8, "PNG pixels")?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| decode_err(path, "image too large"))?;
    let mut buf = vec![0u8; size];
    let frame = reader
        .next_frame(&mut buf)
        .map_err(|e| decode_err(path, e.to_string()))?;
    let (src_ch, out_ch) = match frame.color_type {
        png::ColorType::Grayscale => (1, 1),
        png::ColorType::GrayscaleAlpha => (2, 1),
        png::ColorType::Rgb => (3, 3),
        png::ColorType::Rgba => (4, 3),
        c => return Err(decode_err(path, format!("unsupported colour type {c:?}"))),
    };
    let stride = frame.line_size;
    let data = Array3::from_shape_fn((h, w, out_ch), |(i, j, c)| {
        f64::from(buf[i * stride + src_ch * j + c]) / 255.0
    });
    Image::new(data)
}

fn decode_pnm(bytes: &[u8], path: &str) -> Result<Image> {
    let channels = if bytes[1] == b'5' { 1 } else { 3 };
    // Header: magic, width, height, maxval, separated by whitespace and
    // `#` comments, then one whitespace byte.
    let mut pos = 2;
    let mut fields = [0usize; 3];
    for field in &mut fields {
        loop {
            match bytes.get(pos) {
                Some(b'#') => {
                    while bytes.get(pos).is_some_and(|&b| b != b'\n') {
                        pos += 1;
                    }
                }
                Some(b) if b.is_ascii_whitespace() => pos += 1,
                _ => break,
            }
        }
        let start = pos;
        while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        *field = std::str::from_utf8(&bytes[start..pos])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| decode_err(path, "malformed PNM header"))?;
    }
    if !bytes.get(pos).is_some_and(u8::is_ascii_whitespace) {
        return Err(decode_err(path, "malformed PNM header"));
    }
    pos += 1;
    let [w, h, maxval] = fields;
    if w == 0 || h == 0 || maxval == 0 || maxval > 65535 {
        return Err(decode_err(
            path,
            format!("bad PNM size {w}×{h} or maxval {maxval}"),
        ));
    }
    let bpv = if maxval < 256 { 1 } else { 2 };
    let need = alloc_len(&[w, h, channels, bpv], 1, "PNM pixels")?;
    let body = &bytes[pos..];
    if body.len() < need {
        return Err(decode_err(
            path,
            format!("truncated: {} of {need} pixel bytes", body.len()),
        ));
    }
    let m = maxval as f64;
    let data = Array3::from_shape_fn((h, w, channels), |(i, j, c)| {
        let k = (i * w + j) * channels + c;
        let v = if bpv == 1 {
            f64::from(body[k])
        } else {
            f64::from(u16::from_be_bytes([body[2 * k], body[2 * k + 1]]))
        };
        (v / m).min(1.0)
    });
    Image::new(data)
}

/// Encodes an image with values in [0, 1] as binary PGM (1 channel) or PPM
/// (3 channels), 8 bits, values rounded. O(pixels).
///
/// # Errors
/// [`Error::InvalidParameter`] for a channel count other than 1 or 3.
pub fn encode_pnm(image: &Image) -> Result<Vec<u8>> {
    let magic = match image.channels() {
        1 => "P5",
        3 => "P6",
        c => {
            return Err(Error::InvalidParameter {
                name: "channels",
                value: c as f64,
                expected: "1 or 3",
            });
        }
    };
    let mut out = format!("{magic}\n{} {}\n255\n", image.width(), image.height()).into_bytes();
    out.extend(
        image
            .view()
            .iter()
            .map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8),
    );
    Ok(out)
}

/// Reads and decodes one image file (see [`decode_image`]).
///
/// # Errors
/// [`Error::MissingFile`] naming the path; [`decode_image`]'s errors.
pub fn read_image(path: impl AsRef<Path>) -> Result<Image> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::MissingFile {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    decode_image(&bytes, &path.display().to_string())
}

/// One row of the official HA1.csv / HA2.csv.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// `original_image_path`.
    pub original: PathBuf,
    /// `anonymized_image_path`.
    pub anonymized: PathBuf,
    /// `source_dataset` (coco, voc, celeba, lfw).
    pub dataset: String,
    /// `scope` (face, person…).
    pub scope: String,
    /// `method` (mask, inpaint, blurpix…).
    pub method: String,
    /// The individual annotators' scores (empty cells skipped).
    pub annotator_scores: Vec<f64>,
    /// `score_mean` ∈ [1, 10].
    pub score_mean: f64,
}

/// Splits one CSV line into fields (RFC 4180 quoting: `"a,b"`, `""` for a quote).
fn csv_fields(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cur.is_empty() => quoted = true,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    fields.push(cur);
    Ok(fields)
}

/// Parses the official annotation CSV (`original_image_path,
/// anonymized_image_path, source_dataset, scope, method, <annotator
/// columns…>, score_mean`; columns are found by name in the header, the
/// annotator columns are those between `method` and `score_mean`). O(size).
///
/// # Errors
/// [`Error::Csv`] with the file and 1-based line for a missing column, a
/// row of the wrong width, a non-numeric score, or a score outside [1, 10];
/// [`Error::EmptyInput`] for a file with no data row.
pub fn parse_annotations(text: &str, file: &str) -> Result<Vec<Annotation>> {
    let csv_err = |line: usize, reason: String| Error::Csv {
        file: file.to_string(),
        line,
        reason,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or(Error::EmptyInput {
        what: "annotation CSV (no header)",
    })?;
    let header: Vec<String> = csv_fields(header.trim_start_matches('\u{feff}'))
        .map_err(|e| csv_err(1, e))?
        .into_iter()
        .map(|s| s.trim().to_string())
        .collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| csv_err(1, format!("missing column `{name}`")))
    };
    let (orig, anon, ds, scope, method, mean) = (
        col("original_image_path")?,
        col("anonymized_image_path")?,
        col("source_dataset")?,
        col("scope")?,
        col("method")?,
        col("score_mean")?,
    );
    let annotators: Vec<usize> = (method + 1..mean).collect();
    let mut out = Vec::new();
    for (k, raw) in lines {
        let line = k + 1;
        let f = csv_fields(raw).map_err(|e| csv_err(line, e))?;
        if f.len() != header.len() {
            return Err(csv_err(
                line,
                format!("{} fields, the header has {}", f.len(), header.len()),
            ));
        }
        let num = |i: usize| -> Result<f64> {
            let v: f64 = f[i].trim().parse().map_err(|_| {
                csv_err(
                    line,
                    format!("`{}` in `{}` is not a number", f[i], header[i]),
                )
            })?;
            check_score(v, 0).map_err(|_| {
                csv_err(
                    line,
                    format!("score {v} in `{}` outside [1, 10]", header[i]),
                )
            })?;
            Ok(v)
        };
        let mut annotator_scores = Vec::new();
        for &a in &annotators {
            if !f[a].trim().is_empty() {
                annotator_scores.push(num(a)?);
            }
        }
        out.push(Annotation {
            original: PathBuf::from(f[orig].trim()),
            anonymized: PathBuf::from(f[anon].trim()),
            dataset: f[ds].trim().to_string(),
            scope: f[scope].trim().to_string(),
            method: f[method].trim().to_string(),
            annotator_scores,
            score_mean: num(mean)?,
        });
    }
    if out.is_empty() {
        return Err(Error::EmptyInput {
            what: "annotation CSV (no data row)",
        });
    }
    Ok(out)
}

/// Reads an annotation CSV file ([`parse_annotations`]).
///
/// # Errors
/// [`Error::MissingFile`]; [`parse_annotations`]' errors.
pub fn read_annotations(path: impl AsRef<Path>) -> Result<Vec<Annotation>> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::MissingFile {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    parse_annotations(&text, &path.display().to_string())
}

/// Loads the (original, anonymised) image pair of each annotation, paths
/// relative to `root`. O(total pixels).
///
/// # Errors
/// [`Error::MissingFile`] naming the first missing image; decoding errors.
pub fn read_pairs(root: impl AsRef<Path>, rows: &[Annotation]) -> Result<Vec<(Image, Image)>> {
    let root = root.as_ref();
    rows.iter()
        .map(|r| {
            Ok((
                read_image(root.join(&r.original))?,
                read_image(root.join(&r.anonymized))?,
            ))
        })
        .collect()
}
