//! Readers (and a graph6 writer): graph6 (McKay), networkx's graph-atlas
//! text format (`networkx/generators/atlas.dat.gz`, decompressed), and MDL
//! V2000 SDF molecules (atoms, bond orders, `> <NAME>` properties).

use crate::error::{Error, Result};
use crate::graph::Graph;

fn perr(format: &'static str, line: usize, reason: impl Into<String>) -> Error {
    Error::Parse {
        format,
        line,
        reason: reason.into(),
    }
}

/// Parses one graph6 string (optional `>>graph6<<` header; trailing
/// whitespace ignored). Format: `N(n)` then the upper triangle of the
/// adjacency matrix column by column (`(0,1),(0,2),(1,2),(0,3),…`), six bits
/// per byte, each byte + 63, most significant bit first. O(n²).
///
/// # Errors
/// [`Error::Parse`] (line 1) on bytes outside 63..=126, a short or long body,
/// or non-zero padding bits; [`Error::Empty`] for an empty string;
/// [`Error::TooManyTuples`] when `n²` is beyond the tuple limit.
pub fn parse_graph6(s: &str) -> Result<Graph> {
    parse_graph6_line(s, 1)
}

fn parse_graph6_line(s: &str, line: usize) -> Result<Graph> {
    let s = s.trim_end();
    let s = s.strip_prefix(">>graph6<<").unwrap_or(s);
    let b = s.as_bytes();
    if b.is_empty() {
        return Err(Error::Empty("graph6 string"));
    }
    for &c in b {
        if !(63..=126).contains(&c) {
            return Err(perr("graph6", line, format!("byte {c} outside 63..=126")));
        }
    }
    let val = |c: u8| (c - 63) as usize;
    let (n, body) = if b[0] != 126 {
        (val(b[0]), &b[1..])
    } else if b.len() >= 4 && b[1] != 126 {
        (val(b[1]) << 12 | val(b[2]) << 6 | val(b[3]), &b[4..])
    } else if b.len() >= 8 && b[1] == 126 {
        let mut n = 0usize;
        for &c in &b[2..8] {
            n = n << 6 | val(c);
        }
        (n, &b[8..])
    } else {
        return Err(perr("graph6", line, "truncated size header"));
    };
    crate::tokens::check_count(n, 2, crate::tokens::DEFAULT_TUPLE_LIMIT)
        .map_err(|_| perr("graph6", line, format!("n = {n} is beyond the tuple limit")))?;
    let bits = n * n.saturating_sub(1) / 2;
    let need = bits.div_ceil(6);
    if body.len() != need {
        return Err(perr(
            "graph6",
            line,
            format!("body has {} bytes, expected {need} for n = {n}", body.len()),
        ));
    }
    let bit = |i: usize| (val(body[i / 6]) >> (5 - i % 6)) & 1 == 1;
    for i in bits..need * 6 {
        if bit(i) {
            return Err(perr("graph6", line, "non-zero padding bits"));
        }
    }
    let mut edges = Vec::new();
    let mut i = 0;
    for v in 1..n {
        for u in 0..v {
            if bit(i) {
                edges.push((u, v));
            }
            i += 1;
        }
    }
    Graph::from_edges(n, &edges)
}

/// Parses a file of graph6 strings, one per non-empty line.
///
/// # Errors
/// As [`parse_graph6`], with the failing line's number.
pub fn parse_graph6_lines(text: &str) -> Result<Vec<Graph>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| parse_graph6_line(l, i + 1))
        .collect()
}

/// Writes `g` (labels dropped) as a graph6 string without header. O(n²).
///
/// # Errors
/// [`Error::TooManyTuples`] for `n ≥ 2³⁶`.
pub fn to_graph6(g: &Graph) -> Result<String> {
    let n = g.n();
    let mut out: Vec<u8> = Vec::new();
    if n < 63 {
        out.push(n as u8 + 63);
    } else if n < 258_048 {
        out.push(126);
        for sh in [12, 6, 0] {
            out.push(((n >> sh) & 63) as u8 + 63);
        }
    } else if n < (1usize << 36) {
        out.extend_from_slice(&[126, 126]);
        for sh in [30, 24, 18, 12, 6, 0] {
            out.push(((n >> sh) & 63) as u8 + 63);
        }
    } else {
        return Err(Error::TooManyTuples {
            n,
            k: 2,
            limit: 1 << 36,
        });
    }
    let (mut acc, mut nb) = (0u8, 0);
    for v in 1..n {
        for u in 0..v {
            acc = acc << 1 | u8::from(g.has_edge(u, v));
            nb += 1;
            if nb == 6 {
                out.push(acc + 63);
                (acc, nb) = (0, 0);
            }
        }
    }
    if nb > 0 {
        out.push((acc << (6 - nb)) + 63);
    }
    Ok(String::from_utf8(out).expect("graph6 is ASCII"))
}

/// Parses networkx's graph-atlas text (`GRAPH i`, `NODES n`, then one
/// `u v` edge per line), returning `(i, G_i)` in file order.
///
/// # Errors
/// [`Error::Parse`] with the line number on an unknown line, a bad
/// number, an edge before any `NODES`, or an invalid edge; [`Error::Empty`]
/// when the text holds no graph.
pub fn parse_atlas(text: &str) -> Result<Vec<(usize, Graph)>> {
    struct Pending {
        index: usize,
        nodes: Option<usize>,
        edges: Vec<(usize, usize)>,
        line: usize,
    }
    fn finish(p: Pending) -> Result<(usize, Graph)> {
        let n = p.nodes.ok_or_else(|| {
            perr(
                "atlas",
                p.line,
                format!("GRAPH {} has no NODES line", p.index),
            )
        })?;
        let g = Graph::from_edges(n, &p.edges).map_err(|e| perr("atlas", p.line, e.to_string()))?;
        Ok((p.index, g))
    }
    let mut out = Vec::new();
    let mut cur: Option<Pending> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        let num = |s: &str| -> Result<usize> {
            s.parse::<usize>()
                .map_err(|_| perr("atlas", line, format!("expected a number, got {s:?}")))
        };
        let parts: Vec<&str> = l.split_whitespace().collect();
        match parts.as_slice() {
            ["GRAPH", idx] => {
                if let Some(p) = cur.take() {
                    out.push(finish(p)?);
                }
                cur = Some(Pending {
                    index: num(idx)?,
                    nodes: None,
                    edges: Vec::new(),
                    line,
                });
            }
            ["NODES", n] => {
                let p = cur
                    .as_mut()
                    .ok_or_else(|| perr("atlas", line, "NODES before GRAPH"))?;
                let n = num(n)?;
                if n > crate::tokens::DEFAULT_TUPLE_LIMIT {
                    return Err(perr(
                        "atlas",
                        line,
                        format!("{n} nodes is beyond the limit"),
                    ));
                }
                p.nodes = Some(n);
            }
            [u, v] => {
                let p = cur
                    .as_mut()
                    .filter(|p| p.nodes.is_some())
                    .ok_or_else(|| perr("atlas", line, "edge before NODES"))?;
                let (u, v) = (num(u)?, num(v)?);
                let n = p.nodes.unwrap_or(0);
                if u >= n || v >= n {
                    return Err(perr(
                        "atlas",
                        line,
                        format!("edge ({u}, {v}) outside {n} nodes"),
                    ));
                }
                p.edges.push((u, v));
                p.line = line;
            }
            _ => return Err(perr("atlas", line, format!("unrecognised line {l:?}"))),
        }
    }
    if let Some(p) = cur.take() {
        out.push(finish(p)?);
    }
    if out.is_empty() {
        return Err(Error::Empty("atlas text holds no graph"));
    }
    Ok(out)
}

/// A molecule from an SDF record: the heavy-atom graph as read (node label
/// = atomic number, edge label = bond order 1, 2, 3 or 4 = aromatic),
/// element symbols, and the data items `> <NAME>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Molecule {
    /// Title line.
    pub name: String,
    /// Atoms and bonds.
    pub graph: Graph,
    /// Element symbol per atom.
    pub symbols: Vec<String>,
    /// Data items `(name, value)` in file order (multi-line values joined by `\n`).
    pub properties: Vec<(String, String)>,
}

impl Molecule {
    /// The value of data item `name`, if present.
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

const ELEMENTS: [&str; 86] = [
    "H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P", "S", "Cl",
    "Ar", "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As",
    "Se", "Br", "Kr", "Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In",
    "Sn", "Sb", "Te", "I", "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb",
    "Dy", "Ho", "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W", "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl",
    "Pb", "Bi", "Po", "At", "Rn",
];

/// Atomic number of an element symbol (1..=86), `None` if unknown.
pub fn atomic_number(symbol: &str) -> Option<u32> {
    ELEMENTS
        .iter()
        .position(|&e| e == symbol)
        .map(|i| i as u32 + 1)
}

fn field(line: &str, from: usize, to: usize) -> &str {
    line.get(from..to.min(line.len())).unwrap_or("").trim()
}

/// Parses MDL V2000 SDF text: molecule blocks (header, counts line,
/// atom block, bond block, `M  END`) each followed by data items and
/// `$$$$`. O(size of the text).
///
/// # Errors
/// [`Error::Parse`] with the line number on a bad counts line, atom or bond
/// line, an unknown element, a missing `M  END`, or a V3000 block;
/// [`Error::Empty`] when the text has no molecule.
pub fn parse_sdf(text: &str) -> Result<Vec<Molecule>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i..].iter().all(|l| l.trim().is_empty()) {
            break;
        }
        let start = i;
        let name = lines[i].trim().to_string();
        let counts_at = i + 3;
        let counts = *lines
            .get(counts_at)
            .ok_or_else(|| perr("sdf", counts_at + 1, "missing counts line"))?;
        if counts.contains("V3000") {
            return Err(perr("sdf", counts_at + 1, "V3000 blocks are not supported"));
        }
        let num = |s: &str, line: usize, what: &str| -> Result<usize> {
            s.parse::<usize>()
                .map_err(|_| perr("sdf", line, format!("bad {what} {s:?}")))
        };
        let na = num(field(counts, 0, 3), counts_at + 1, "atom count")?;
        let nb = num(field(counts, 3, 6), counts_at + 1, "bond count")?;
        if counts_at + na + nb >= lines.len() {
            return Err(perr(
                "sdf",
                counts_at + 1,
                "file ends inside the atom/bond block",
            ));
        }
        let mut symbols = Vec::with_capacity(na);
        let mut labels = Vec::with_capacity(na);
        for a in 0..na {
            let ln = counts_at + 1 + a;
            let parts: Vec<&str> = lines[ln].split_whitespace().collect();
            if parts.len() < 4 || parts[..3].iter().any(|p| p.parse::<f64>().is_err()) {
                return Err(perr("sdf", ln + 1, "bad atom line"));
            }
            let z = atomic_number(parts[3])
                .ok_or_else(|| perr("sdf", ln + 1, format!("unknown element {:?}", parts[3])))?;
            symbols.push(parts[3].to_string());
            labels.push(z);
        }
        let mut bonds = Vec::with_capacity(nb);
        for b in 0..nb {
            let ln = counts_at + 1 + na + b;
            let l = lines[ln];
            let u = num(field(l, 0, 3), ln + 1, "bond atom")?;
            let v = num(field(l, 3, 6), ln + 1, "bond atom")?;
            let t = num(field(l, 6, 9), ln + 1, "bond type")?;
            if u == 0 || v == 0 || u > na || v > na {
                return Err(perr(
                    "sdf",
                    ln + 1,
                    format!("bond ({u}, {v}) outside 1..={na}"),
                ));
            }
            if !(1..=4).contains(&t) {
                return Err(perr("sdf", ln + 1, format!("bond type {t} not in 1..=4")));
            }
            bonds.push((u - 1, v - 1, t as u32));
        }
        let graph = Graph::from_labelled_edges(na, &bonds, Some(&labels))
            .map_err(|e| perr("sdf", counts_at + na + 2, e.to_string()))?;
        i = counts_at + 1 + na + nb;
        while i < lines.len() && !lines[i].starts_with("M  END") {
            if lines[i].starts_with("$$$$") || lines[i].starts_with("> ") {
                return Err(perr("sdf", i + 1, "missing M  END"));
            }
            i += 1;
        }
        if i == lines.len() {
            return Err(perr("sdf", start + 1, "molecule without M  END"));
        }
        i += 1;
        let mut properties = Vec::new();
        while i < lines.len() && !lines[i].starts_with("$$$$") {
            let l = lines[i];
            if l.starts_with('>') {
                let key = match (l.find('<'), l.rfind('>')) {
                    (Some(a), Some(b)) if b > a => l[a + 1..b].to_string(),
                    _ => return Err(perr("sdf", i + 1, "bad data header")),
                };
                i += 1;
                let mut vals = Vec::new();
                while i < lines.len()
                    && !lines[i].trim().is_empty()
                    && !lines[i].starts_with("$$$$")
                {
                    vals.push(lines[i].trim_end());
                    i += 1;
                }
                properties.push((key, vals.join("\n")));
            } else {
                i += 1;
            }
        }
        i += 1;
        out.push(Molecule {
            name,
            graph,
            symbols,
            properties,
        });
    }
    if out.is_empty() {
        return Err(Error::Empty("SDF text holds no molecule"));
    }
    Ok(out)
}

/// The 1,253 graphs of the graph atlas vendored in `data/graph-atlas/`
/// (networkx 3.6.1's `atlas.dat.gz`, checksum verified), in atlas order.
///
/// # Errors
/// [`Error::Core`] when the file is missing or its SHA-256 differs;
/// [`Error::Parse`] on malformed content.
pub fn vendored_atlas() -> Result<Vec<Graph>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/graph-atlas");
    let ds = mlcore::data::Dataset::open(dir)?;
    let text = ds.read_to_string("atlas.dat.gz")?;
    Ok(parse_atlas(&text)?.into_iter().map(|(_, g)| g).collect())
}
