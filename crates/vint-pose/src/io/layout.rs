//! A per-frame folder layout like VTDexM/ViTaDex (the closest public format
//! to VinT-6D), behind the [`FrameSource`] trait:
//!
//! ```text
//! <root>/intrinsics.json                 {"fx":…, "fy":…, "cx":…, "cy":…, "width":…, "height":…}
//! <root>/<object>/intrinsics.json        (optional, overrides the root one)
//! <root>/<object>/6D_pose/<i>.npy        4×4 or 3×4 camera ← object pose
//! <root>/<object>/depth/<i>.png          16-bit depth, metres = value × depth_scale
//! <root>/<object>/rgb/<i>.png            (optional) 8-bit RGB
//! <root>/<object>/joints/<i>.npy         (optional) joint angles
//! <root>/<object>/tactile/<link>/<i>.txt (optional) taxel readings, rows of numbers
//! ```
//! Folder names and the depth scale are fields of [`DirLayout`].

use super::npy::{parse_npy, pose_from_npy};
use crate::cloud::Intrinsics;
use crate::error::{Error, Result};
use crate::se3::Pose;
use ndarray::{Array1, Array2, Array3};
use std::path::{Path, PathBuf};

/// Readings of one link's taxels for one frame (`rows × cols`, as stored).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkTaxels {
    /// The link's folder name (e.g. `"thumb"`).
    pub link: String,
    /// The readings.
    pub values: Array2<f64>,
}

/// One frame of a visuo-tactile data set.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The object's identifier (its folder name).
    pub obj_id: String,
    /// The frame's index within its object.
    pub index: usize,
    /// The object pose, camera ← object.
    pub obj_pose: Pose,
    /// Depth in metres (`height × width`, 0 = no measurement).
    pub depth_m: Array2<f64>,
    /// RGB (`height × width × 3`) when present.
    pub rgb: Option<Array3<u8>>,
    /// The camera intrinsics.
    pub intrinsics: Intrinsics,
    /// Joint angles when present.
    pub joints: Option<Array1<f64>>,
    /// Taxel readings per link (the links that have a file for this frame).
    pub taxels: Vec<LinkTaxels>,
}

/// A source of frames (a data set on disk, a simulator, …).
pub trait FrameSource {
    /// Number of frames.
    fn len(&self) -> usize;
    /// Whether there are no frames.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Frame `i`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`]; the reader's I/O and format errors.
    fn frame(&self, i: usize) -> Result<Frame>;
}

/// The configurable VTDexM-like layout (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct DirLayout {
    /// The data set's folder.
    pub root: PathBuf,
    /// Pose folder name (default `6D_pose`).
    pub pose_dir: String,
    /// Depth folder name (default `depth`).
    pub depth_dir: String,
    /// RGB folder name (default `rgb`).
    pub rgb_dir: String,
    /// Joint-angle folder name (default `joints`).
    pub joints_dir: String,
    /// Tactile folder name (default `tactile`).
    pub tactile_dir: String,
    /// Link sub-folders of the tactile folder (default thumb, index, middle, ring, pinky, palm).
    pub tactile_links: Vec<String>,
    /// Intrinsics file name (default `intrinsics.json`).
    pub intrinsics_file: String,
    /// Metres per depth unit (default 0.001: millimetres).
    pub depth_scale: f64,
    /// `(object, frame index)` of every frame, objects sorted, indices ascending.
    entries: Vec<(String, usize)>,
}

fn io_err(p: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: p.display().to_string(),
        source: e,
    }
}

fn fmt_err(p: &Path, line: usize, reason: impl Into<String>) -> Error {
    Error::Format {
        file: p.display().to_string(),
        line,
        reason: reason.into(),
    }
}

/// Decodes a 16-bit grayscale PNG into raw values (`height × width`).
///
/// # Errors
/// [`Error::Format`] unless it is a valid 16-bit single-channel PNG.
pub fn decode_depth_png(bytes: &[u8], file: &str) -> Result<Array2<u16>> {
    let f = |r: String| Error::Format {
        file: file.to_string(),
        line: 0,
        reason: r,
    };
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = dec.read_info().map_err(|e| f(e.to_string()))?;
    let info = reader.info();
    if info.bit_depth != png::BitDepth::Sixteen || info.color_type != png::ColorType::Grayscale {
        return Err(f(format!(
            "depth PNG must be 16-bit grayscale, is {:?} {:?}",
            info.bit_depth, info.color_type
        )));
    }
    let (w, h) = (info.width as usize, info.height as usize);
    crate::error::alloc(w.saturating_mul(h), 2, "depth PNG")?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| f("image too large".into()))?;
    let mut buf = vec![0u8; size];
    let out = reader.next_frame(&mut buf).map_err(|e| f(e.to_string()))?;
    let data = &buf[..out.buffer_size()];
    let stride = out.line_size;
    Ok(Array2::from_shape_fn((h, w), |(v, u)| {
        let o = v * stride + 2 * u;
        u16::from_be_bytes([data[o], data[o + 1]])
    }))
}

/// Encodes raw 16-bit depth values as a grayscale PNG.
///
/// # Errors
/// [`Error::Format`] when encoding fails (e.g. an empty image).
pub fn encode_depth_png(depth: &Array2<u16>) -> Result<Vec<u8>> {
    let (h, w) = depth.dim();
    let f = |r: String| Error::Format {
        file: "<depth png>".into(),
        line: 0,
        reason: r,
    };
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w as u32, h as u32);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Sixteen);
        let mut wr = enc.write_header().map_err(|e| f(e.to_string()))?;
        let data: Vec<u8> = depth.iter().flat_map(|v| v.to_be_bytes()).collect();
        wr.write_image_data(&data).map_err(|e| f(e.to_string()))?;
    }
    Ok(out)
}

/// Decodes an 8-bit (or palette / 16-bit, converted) RGB(A) or grey PNG to `height × width × 3`.
///
/// # Errors
/// [`Error::Format`].
pub fn decode_rgb_png(bytes: &[u8], file: &str) -> Result<Array3<u8>> {
    let f = |r: String| Error::Format {
        file: file.to_string(),
        line: 0,
        reason: r,
    };
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().map_err(|e| f(e.to_string()))?;
    let (w, h) = (reader.info().width as usize, reader.info().height as usize);
    crate::error::alloc(w.saturating_mul(h), 4, "RGB PNG")?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| f("image too large".into()))?;
    let mut buf = vec![0u8; size];
    let out = reader.next_frame(&mut buf).map_err(|e| f(e.to_string()))?;
    let ch = match out.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        c => return Err(f(format!("unsupported colour type {c:?}"))),
    };
    let stride = out.line_size;
    Ok(Array3::from_shape_fn((h, w, 3), |(v, u, c)| {
        let o = v * stride + ch * u;
        if ch <= 2 { buf[o] } else { buf[o + c] }
    }))
}

/// Parses rows of whitespace-separated numbers (taxel readings); blank lines
/// and `#` comments are skipped.
///
/// # Errors
/// [`Error::Format`] (file, line) for a bad number or rows of different lengths.
pub fn parse_matrix_txt(text: &str, file: &str) -> Result<Array2<f64>> {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let s = raw.split('#').next().unwrap_or("").trim();
        if s.is_empty() {
            continue;
        }
        let row: Vec<f64> = s
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(|t| match t.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(Error::Format {
                    file: file.into(),
                    line: i + 1,
                    reason: format!("{t:?} is not a finite number"),
                }),
            })
            .collect::<Result<_>>()?;
        if let Some(first) = rows.first()
            && first.len() != row.len()
        {
            return Err(Error::Format {
                file: file.into(),
                line: i + 1,
                reason: format!(
                    "row has {} numbers, the first row {}",
                    row.len(),
                    first.len()
                ),
            });
        }
        rows.push(row);
    }
    let cols = rows.first().map_or(0, Vec::len);
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    Array2::from_shape_vec((rows.len(), cols), flat).map_err(|e| Error::Format {
        file: file.into(),
        line: 0,
        reason: e.to_string(),
    })
}

/// Parses intrinsics JSON `{"fx", "fy", "cx", "cy", "width", "height"}`.
///
/// # Errors
/// [`Error::Format`] for bad JSON or a missing key; [`Error::BadIntrinsics`].
pub fn parse_intrinsics_json(text: &str, file: &str) -> Result<Intrinsics> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::Format {
        file: file.into(),
        line: e.line(),
        reason: e.to_string(),
    })?;
    let num = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| Error::Format {
                file: file.into(),
                line: 0,
                reason: format!("missing number {k:?}"),
            })
    };
    let int = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| Error::Format {
                file: file.into(),
                line: 0,
                reason: format!("missing integer {k:?}"),
            })
    };
    let k = Intrinsics {
        fx: num("fx")?,
        fy: num("fy")?,
        cx: num("cx")?,
        cy: num("cy")?,
        width: int("width")? as usize,
        height: int("height")? as usize,
    };
    k.check()?;
    Ok(k)
}

impl DirLayout {
    /// Scans `root` with the default folder names: every sub-folder with a
    /// pose folder is an object; its frames are the `<i>.npy` files there.
    ///
    /// # Errors
    /// [`Error::Io`] when `root` cannot be listed; [`Error::EmptyCloud`] when no frame is found.
    pub fn open(root: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(DirLayout {
            root: root.as_ref().to_path_buf(),
            pose_dir: "6D_pose".into(),
            depth_dir: "depth".into(),
            rgb_dir: "rgb".into(),
            joints_dir: "joints".into(),
            tactile_dir: "tactile".into(),
            tactile_links: ["thumb", "index", "middle", "ring", "pinky", "palm"]
                .map(String::from)
                .to_vec(),
            intrinsics_file: "intrinsics.json".into(),
            depth_scale: 0.001,
            entries: Vec::new(),
        })
    }

    /// Scans with the folder names and scale of `layout` (its entries are recomputed).
    ///
    /// # Errors
    /// As [`DirLayout::open`]; [`Error::BadParameter`] for a non-positive depth scale.
    pub fn open_with(mut layout: DirLayout) -> Result<Self> {
        crate::error::positive(layout.depth_scale, "depth_scale")?;
        let rd = |p: &Path| std::fs::read_dir(p).map_err(|e| io_err(p, e));
        let mut objects: Vec<String> = Vec::new();
        for e in rd(&layout.root)? {
            let e = e.map_err(|e| io_err(&layout.root, e))?;
            if e.path().join(&layout.pose_dir).is_dir() {
                objects.push(e.file_name().to_string_lossy().into_owned());
            }
        }
        objects.sort();
        let mut entries = Vec::new();
        for o in objects {
            let dir = layout.root.join(&o).join(&layout.pose_dir);
            let mut idx: Vec<usize> = Vec::new();
            for e in rd(&dir)? {
                let e = e.map_err(|e| io_err(&dir, e))?;
                let name = e.file_name().to_string_lossy().into_owned();
                if let Some(i) = name.strip_suffix(".npy").and_then(|s| s.parse().ok()) {
                    idx.push(i);
                }
            }
            idx.sort_unstable();
            entries.extend(idx.into_iter().map(|i| (o.clone(), i)));
        }
        if entries.is_empty() {
            return Err(Error::EmptyCloud {
                what: "frames of the directory layout",
            });
        }
        layout.entries = entries;
        Ok(layout)
    }

    /// `(object, index)` of every frame.
    pub fn entries(&self) -> &[(String, usize)] {
        &self.entries
    }
}

fn read(p: &Path) -> Result<Vec<u8>> {
    std::fs::read(p).map_err(|e| io_err(p, e))
}

fn text(p: &Path) -> Result<String> {
    String::from_utf8(read(p)?).map_err(|_| fmt_err(p, 0, "not UTF-8 text"))
}

impl FrameSource for DirLayout {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn frame(&self, i: usize) -> Result<Frame> {
        let (obj, idx) = self.entries.get(i).ok_or(Error::IndexOutOfRange {
            what: "frame",
            index: i,
            len: self.entries.len(),
        })?;
        let od = self.root.join(obj);
        let name = |dir: &str, ext: &str| od.join(dir).join(format!("{idx}.{ext}"));
        let pp = name(&self.pose_dir, "npy");
        let obj_pose = pose_from_npy(&read(&pp)?, &pp.display().to_string())?;
        let ip = if od.join(&self.intrinsics_file).is_file() {
            od.join(&self.intrinsics_file)
        } else {
            self.root.join(&self.intrinsics_file)
        };
        let intrinsics = parse_intrinsics_json(&text(&ip)?, &ip.display().to_string())?;
        let dp = name(&self.depth_dir, "png");
        let raw = decode_depth_png(&read(&dp)?, &dp.display().to_string())?;
        if raw.dim() != (intrinsics.height, intrinsics.width) {
            return Err(fmt_err(
                &dp,
                0,
                format!(
                    "depth is {:?}, intrinsics say {} × {}",
                    raw.dim(),
                    intrinsics.height,
                    intrinsics.width
                ),
            ));
        }
        let depth_m = raw.mapv(|v| v as f64 * self.depth_scale);
        let rp = name(&self.rgb_dir, "png");
        let rgb = if rp.is_file() {
            Some(decode_rgb_png(&read(&rp)?, &rp.display().to_string())?)
        } else {
            None
        };
        let jp = name(&self.joints_dir, "npy");
        let joints = if jp.is_file() {
            let a = parse_npy(&read(&jp)?, &jp.display().to_string())?;
            if let Some(index) = a.iter().position(|v| !v.is_finite()) {
                return Err(Error::NonFinite {
                    what: "joint angles",
                    index,
                });
            }
            Some(Array1::from_iter(a.iter().copied()))
        } else {
            None
        };
        let mut taxels = Vec::new();
        for l in &self.tactile_links {
            let tp = od
                .join(&self.tactile_dir)
                .join(l)
                .join(format!("{idx}.txt"));
            if tp.is_file() {
                taxels.push(LinkTaxels {
                    link: l.clone(),
                    values: parse_matrix_txt(&text(&tp)?, &tp.display().to_string())?,
                });
            }
        }
        Ok(Frame {
            obj_id: obj.clone(),
            index: *idx,
            obj_pose,
            depth_m,
            rgb,
            intrinsics,
            joints,
            taxels,
        })
    }
}
