//! Real networks shipped with the workspace (`data/`), verified against
//! their `SHA256SUMS` on every load ([`mlcore::data::Dataset`]).

use crate::error::{Error, Result};
use crate::graph::WeightedGraph;
use mlcore::data::Dataset;
use std::path::Path;

/// Zachary's karate club (Zachary 1977; networkx's `karate_club_graph`,
/// BSD-3-Clause): 34 members, 78 edges (weights 1, in networkx's edge
/// order) and each member's club after the split (0 = Mr. Hi, 1 = Officer),
/// read from `dir` (the workspace's copy is
/// `mlcore::data::workspace_data_dir().join("karate")`). `O(n + m)`.
///
/// # Errors
/// [`Error::Core`] for a missing file or a SHA-256 mismatch;
/// [`Error::Parse`] for a malformed line or a club list that does not
/// cover nodes `0..n`; graph-construction errors.
pub fn karate_from(dir: impl AsRef<Path>) -> Result<(WeightedGraph, Vec<usize>)> {
    karate_dataset(&Dataset::open(dir)?)
}

/// [`karate_from`] on an opened [`Dataset`] (the runner's
/// `ctx.dataset("karate")`).
///
/// # Errors
/// As [`karate_from`].
pub fn karate_dataset(ds: &Dataset) -> Result<(WeightedGraph, Vec<usize>)> {
    let pairs = |file: &str| -> Result<Vec<(usize, usize)>> {
        let text = ds.read_to_string(file)?;
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: &str| Error::Parse {
                file: file.to_string(),
                line: i + 1,
                reason: reason.to_string(),
            };
            let (a, b) = line.split_once(',').ok_or_else(|| bad("expected `a,b`"))?;
            let a = a.trim().parse().map_err(|_| bad("not a node index"))?;
            let b = b.trim().parse().map_err(|_| bad("not an integer"))?;
            out.push((a, b));
        }
        Ok(out)
    };
    let edges = pairs("karate.csv")?;
    let clubs = pairs("clubs.csv")?;
    let n = clubs.len();
    let mut club = vec![usize::MAX; n];
    for (k, &(node, c)) in clubs.iter().enumerate() {
        if node >= n || club[node] != usize::MAX || c > 1 {
            return Err(Error::Parse {
                file: "clubs.csv".into(),
                line: k + 2,
                reason: format!(
                    "node {node}, club {c}: expected each node 0..{n} once, club 0 or 1"
                ),
            });
        }
        club[node] = c;
    }
    if let Some(&(a, b)) = edges.iter().find(|&&(a, b)| a >= n || b >= n) {
        return Err(Error::Parse {
            file: "karate.csv".into(),
            line: 0,
            reason: format!("edge ({a}, {b}) names a node without a club"),
        });
    }
    let g = WeightedGraph::from_nodes_and_edges(0..n, edges.into_iter().map(|(a, b)| (a, b, 1.0)))?;
    Ok((g, club))
}
