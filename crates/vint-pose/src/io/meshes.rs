//! Mesh readers: Wavefront OBJ, STL (ASCII and binary), PLY (ASCII and
//! binary little/big endian). Each returns a [`Mesh`]; polygons are
//! fan-triangulated. A malformed file is an [`Error::Format`] with the file
//! name and the 1-based line (0 for binary content).

use crate::error::{Error, Result};
use crate::mesh::Mesh;
use nalgebra::Point3;
use std::collections::HashMap;
use std::path::Path;

fn fmt_err(file: &str, line: usize, reason: impl Into<String>) -> Error {
    Error::Format {
        file: file.to_string(),
        line,
        reason: reason.into(),
    }
}

fn num(tok: Option<&str>, file: &str, line: usize, what: &str) -> Result<f64> {
    let t = tok.ok_or_else(|| fmt_err(file, line, format!("missing {what}")))?;
    let v: f64 = t
        .parse()
        .map_err(|_| fmt_err(file, line, format!("{what} {t:?} is not a number")))?;
    if !v.is_finite() {
        return Err(fmt_err(file, line, format!("{what} {t:?} is not finite")));
    }
    Ok(v)
}

fn fan(poly: &[usize], faces: &mut Vec<[usize; 3]>) {
    for k in 1..poly.len().saturating_sub(1) {
        faces.push([poly[0], poly[k], poly[k + 1]]);
    }
}

/// Parses a Wavefront OBJ text: `v x y z` vertices and `f i j k …` faces
/// (`i`, `i/t`, `i//n`, `i/t/n`, negative indices counted from the end);
/// every other statement (normals, texture coordinates, groups, materials)
/// is ignored. All groups form one mesh. O(size).
///
/// # Errors
/// [`Error::Format`] (file, line) for a bad number, a face with fewer than
/// 3 vertices or an index out of range; then as [`Mesh::new`].
pub fn parse_obj(text: &str, file: &str) -> Result<Mesh> {
    let mut v = Vec::new();
    let mut faces = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let s = raw.split('#').next().unwrap_or("").trim();
        let mut it = s.split_whitespace();
        match it.next() {
            Some("v") => {
                let x = num(it.next(), file, line, "x")?;
                let y = num(it.next(), file, line, "y")?;
                let z = num(it.next(), file, line, "z")?;
                v.push(Point3::new(x, y, z));
            }
            Some("f") => {
                let mut poly = Vec::new();
                for tok in it {
                    let head = tok.split('/').next().unwrap_or("");
                    let k: i64 = head.parse().map_err(|_| {
                        fmt_err(file, line, format!("face index {tok:?} is not an integer"))
                    })?;
                    let idx = if k > 0 {
                        (k - 1) as usize
                    } else if k < 0 && (k.unsigned_abs() as usize) <= v.len() {
                        v.len() - k.unsigned_abs() as usize
                    } else {
                        return Err(fmt_err(
                            file,
                            line,
                            format!("face index {k} out of range ({} vertices so far)", v.len()),
                        ));
                    };
                    if idx >= v.len() {
                        return Err(fmt_err(
                            file,
                            line,
                            format!("face index {k} out of range ({} vertices so far)", v.len()),
                        ));
                    }
                    poly.push(idx);
                }
                if poly.len() < 3 {
                    return Err(fmt_err(file, line, "a face needs ≥ 3 vertices"));
                }
                fan(&poly, &mut faces);
            }
            _ => {}
        }
    }
    if v.is_empty() || faces.is_empty() {
        return Err(fmt_err(file, 0, "no vertices or no faces"));
    }
    Mesh::from_parts(v, faces)
}

fn dedupe(tris: Vec<[Point3<f64>; 3]>) -> (Vec<Point3<f64>>, Vec<[usize; 3]>) {
    let mut map: HashMap<[u64; 3], usize> = HashMap::new();
    let mut v = Vec::new();
    let mut f = Vec::with_capacity(tris.len());
    for t in tris {
        let idx = t.map(|p| {
            let key = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
            *map.entry(key).or_insert_with(|| {
                v.push(p);
                v.len() - 1
            })
        });
        f.push(idx);
    }
    (v, f)
}

/// Parses an STL file, binary (`80-byte header, u32 count, 50 bytes per
/// triangle`, detected by its exact length) or ASCII (`facet … vertex x y z
/// … endfacet`). Identical vertices are merged. O(size).
///
/// # Errors
/// [`Error::Format`] for a truncated binary, a bad number, a facet without 3
/// vertices, non-finite coordinates; then as [`Mesh::new`].
pub fn parse_stl(bytes: &[u8], file: &str) -> Result<Mesh> {
    let binary = bytes.len() >= 84 && {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        n.checked_mul(50).and_then(|b| b.checked_add(84)) == Some(bytes.len())
    };
    let mut tris = Vec::new();
    if binary {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        for k in 0..n {
            let o = 84 + 50 * k + 12;
            let mut t = [Point3::origin(); 3];
            for (j, p) in t.iter_mut().enumerate() {
                for a in 0..3 {
                    let s = o + 12 * j + 4 * a;
                    let x = f32::from_le_bytes([bytes[s], bytes[s + 1], bytes[s + 2], bytes[s + 3]])
                        as f64;
                    if !x.is_finite() {
                        return Err(fmt_err(
                            file,
                            0,
                            format!("triangle {k} has a non-finite coordinate"),
                        ));
                    }
                    p[a] = x;
                }
            }
            tris.push(t);
        }
    } else {
        let text = std::str::from_utf8(bytes).map_err(|_| {
            fmt_err(
                file,
                0,
                "neither a binary STL (length ≠ 84 + 50·count) nor UTF-8 text",
            )
        })?;
        let mut cur: Vec<Point3<f64>> = Vec::new();
        let mut in_facet = false;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let mut it = raw.split_whitespace();
            match it.next() {
                Some("facet") => {
                    in_facet = true;
                    cur.clear();
                }
                Some("vertex") => {
                    if !in_facet {
                        return Err(fmt_err(file, line, "vertex outside a facet"));
                    }
                    let x = num(it.next(), file, line, "x")?;
                    let y = num(it.next(), file, line, "y")?;
                    let z = num(it.next(), file, line, "z")?;
                    cur.push(Point3::new(x, y, z));
                }
                Some("endfacet") => {
                    if cur.len() != 3 {
                        return Err(fmt_err(
                            file,
                            line,
                            format!("facet with {} vertices, expected 3", cur.len()),
                        ));
                    }
                    tris.push([cur[0], cur[1], cur[2]]);
                    in_facet = false;
                }
                _ => {}
            }
        }
    }
    if tris.is_empty() {
        return Err(fmt_err(file, 0, "no triangles"));
    }
    let (v, f) = dedupe(tris);
    Mesh::from_parts(v, f)
}

#[derive(Debug, Clone, Copy)]
enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    fn parse(s: &str) -> Option<Scalar> {
        Some(match s {
            "char" | "int8" => Scalar::I8,
            "uchar" | "uint8" => Scalar::U8,
            "short" | "int16" => Scalar::I16,
            "ushort" | "uint16" => Scalar::U16,
            "int" | "int32" => Scalar::I32,
            "uint" | "uint32" => Scalar::U32,
            "float" | "float32" => Scalar::F32,
            "double" | "float64" => Scalar::F64,
            _ => return None,
        })
    }
    fn size(self) -> usize {
        match self {
            Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::F64 => 8,
        }
    }
    fn read(self, b: &[u8], big: bool) -> f64 {
        macro_rules! rd {
            ($t:ty, $n:literal) => {{
                let mut a = [0u8; $n];
                a.copy_from_slice(&b[..$n]);
                (if big {
                    <$t>::from_be_bytes(a)
                } else {
                    <$t>::from_le_bytes(a)
                }) as f64
            }};
        }
        match self {
            Scalar::I8 => b[0] as i8 as f64,
            Scalar::U8 => b[0] as f64,
            Scalar::I16 => rd!(i16, 2),
            Scalar::U16 => rd!(u16, 2),
            Scalar::I32 => rd!(i32, 4),
            Scalar::U32 => rd!(u32, 4),
            Scalar::F32 => rd!(f32, 4),
            Scalar::F64 => rd!(f64, 8),
        }
    }
}

#[derive(Debug, Clone)]
enum Prop {
    One(String, Scalar),
    List(String, Scalar, Scalar),
}

#[derive(Debug, Clone)]
struct Element {
    name: String,
    count: usize,
    props: Vec<Prop>,
}

/// Parses a PLY file (`format ascii 1.0`, `binary_little_endian 1.0` or
/// `binary_big_endian 1.0`): the `vertex` element's `x y z` and the `face`
/// element's `vertex_indices` (or `vertex_index`) list; other elements and
/// properties are skipped. O(size).
///
/// # Errors
/// [`Error::Format`] for a bad header, a missing property, a truncated body,
/// a face index out of range; then as [`Mesh::new`].
pub fn parse_ply(bytes: &[u8], file: &str) -> Result<Mesh> {
    // Header: text lines up to `end_header`.
    let mut pos = 0;
    let mut lines = Vec::new();
    loop {
        let end = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|k| pos + k)
            .ok_or_else(|| fmt_err(file, lines.len() + 1, "header without end_header"))?;
        let l = std::str::from_utf8(&bytes[pos..end])
            .map_err(|_| fmt_err(file, lines.len() + 1, "header is not text"))?
            .trim_end_matches('\r')
            .to_string();
        pos = end + 1;
        let done = l.trim() == "end_header";
        lines.push(l);
        if done {
            break;
        }
    }
    if lines.first().map(|s| s.trim()) != Some("ply") {
        return Err(fmt_err(file, 1, "missing `ply` magic"));
    }
    let mut format = None;
    let mut elems: Vec<Element> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let line = i + 1;
        let t: Vec<&str> = l.split_whitespace().collect();
        match t.first().copied() {
            Some("format") => format = t.get(1).map(|s| s.to_string()),
            Some("element") => {
                let (Some(name), Some(c)) = (t.get(1), t.get(2)) else {
                    return Err(fmt_err(file, line, "element needs a name and a count"));
                };
                let count = c
                    .parse()
                    .map_err(|_| fmt_err(file, line, format!("bad element count {c:?}")))?;
                elems.push(Element {
                    name: name.to_string(),
                    count,
                    props: Vec::new(),
                });
            }
            Some("property") => {
                let Some(e) = elems.last_mut() else {
                    return Err(fmt_err(file, line, "property before any element"));
                };
                if t.get(1) == Some(&"list") {
                    let (Some(a), Some(b), Some(n)) = (
                        t.get(2).and_then(|s| Scalar::parse(s)),
                        t.get(3).and_then(|s| Scalar::parse(s)),
                        t.get(4),
                    ) else {
                        return Err(fmt_err(file, line, "bad list property"));
                    };
                    e.props.push(Prop::List(n.to_string(), a, b));
                } else {
                    let (Some(s), Some(n)) = (t.get(1).and_then(|s| Scalar::parse(s)), t.get(2))
                    else {
                        return Err(fmt_err(file, line, "bad property"));
                    };
                    e.props.push(Prop::One(n.to_string(), s));
                }
            }
            _ => {}
        }
    }
    let big = match format.as_deref() {
        Some("ascii") => None,
        Some("binary_little_endian") => Some(false),
        Some("binary_big_endian") => Some(true),
        other => {
            return Err(fmt_err(
                file,
                2,
                format!("unsupported PLY format {other:?}"),
            ));
        }
    };
    let header_lines = lines.len();
    let mut verts = Vec::new();
    let mut faces = Vec::new();
    // A reader over the body yielding numbers.
    let body = &bytes[pos..];
    let mut tok_i = 0;
    let mut off = 0;
    let text_tokens: Vec<(usize, &str)> = if big.is_none() {
        let text = std::str::from_utf8(body)
            .map_err(|_| fmt_err(file, header_lines + 1, "ASCII body is not text"))?;
        text.lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |w| (header_lines + 1 + i, w)))
            .collect()
    } else {
        Vec::new()
    };
    let mut next = |s: Scalar| -> Result<f64> {
        match big {
            None => {
                let (line, w) = *text_tokens
                    .get(tok_i)
                    .ok_or_else(|| fmt_err(file, 0, "body ends early"))?;
                tok_i += 1;
                w.parse::<f64>()
                    .map_err(|_| fmt_err(file, line, format!("{w:?} is not a number")))
            }
            Some(be) => {
                let n = s.size();
                if off + n > body.len() {
                    return Err(fmt_err(file, 0, "binary body ends early"));
                }
                let v = s.read(&body[off..], be);
                off += n;
                Ok(v)
            }
        }
    };
    for e in &elems {
        if e.name == "vertex" {
            let find = |n: &str| {
                e.props
                    .iter()
                    .position(|p| matches!(p, Prop::One(m, _) if m == n))
            };
            let (Some(ix), Some(iy), Some(iz)) = (find("x"), find("y"), find("z")) else {
                return Err(fmt_err(file, 0, "vertex element lacks x, y or z"));
            };
            crate::error::alloc(e.count, 24, "PLY vertices")?;
            for _ in 0..e.count {
                let mut p = Point3::origin();
                for (k, pr) in e.props.iter().enumerate() {
                    match pr {
                        Prop::One(_, s) => {
                            let v = next(*s)?;
                            if k == ix || k == iy || k == iz {
                                if !v.is_finite() {
                                    return Err(fmt_err(file, 0, "non-finite vertex coordinate"));
                                }
                                p[if k == ix {
                                    0
                                } else if k == iy {
                                    1
                                } else {
                                    2
                                }] = v;
                            }
                        }
                        Prop::List(_, c, s) => {
                            let n = next(*c)?;
                            for _ in 0..(n.max(0.0) as usize) {
                                next(*s)?;
                            }
                        }
                    }
                }
                verts.push(p);
            }
        } else {
            for _ in 0..e.count {
                for pr in &e.props {
                    match pr {
                        Prop::One(_, s) => {
                            next(*s)?;
                        }
                        Prop::List(name, c, s) => {
                            let n = next(*c)?;
                            if !(0.0..=1e6).contains(&n) {
                                return Err(fmt_err(file, 0, format!("bad list length {n}")));
                            }
                            let mut poly = Vec::with_capacity(n as usize);
                            for _ in 0..n as usize {
                                poly.push(next(*s)?);
                            }
                            if e.name == "face"
                                && (name == "vertex_indices" || name == "vertex_index")
                            {
                                let mut idx = Vec::with_capacity(poly.len());
                                for v in poly {
                                    if !(v >= 0.0 && v < verts.len() as f64 && v.fract() == 0.0) {
                                        return Err(fmt_err(
                                            file,
                                            0,
                                            format!(
                                                "face index {v} out of range ({} vertices)",
                                                verts.len()
                                            ),
                                        ));
                                    }
                                    idx.push(v as usize);
                                }
                                if idx.len() < 3 {
                                    return Err(fmt_err(file, 0, "a face needs ≥ 3 vertices"));
                                }
                                fan(&idx, &mut faces);
                            }
                        }
                    }
                }
            }
        }
    }
    if verts.is_empty() || faces.is_empty() {
        return Err(fmt_err(file, 0, "no vertices or no faces"));
    }
    Mesh::from_parts(verts, faces)
}

/// Reads a mesh file by its extension (`.obj`, `.stl`, `.ply`, any case).
///
/// # Errors
/// [`Error::Io`]; [`Error::Format`] for an unknown extension or content.
pub fn read_mesh(path: impl AsRef<Path>) -> Result<Mesh> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: name.clone(),
        source: e,
    })?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "obj" => parse_obj(
            std::str::from_utf8(&bytes).map_err(|_| fmt_err(&name, 0, "not UTF-8 text"))?,
            &name,
        ),
        "stl" => parse_stl(&bytes, &name),
        "ply" => parse_ply(&bytes, &name),
        _ => Err(fmt_err(
            &name,
            0,
            format!("unknown mesh extension {ext:?} (obj, stl, ply)"),
        )),
    }
}
