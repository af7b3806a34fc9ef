//! The crate's error type.

/// Everything that can go wrong on user input in `ricci-causal`.
///
/// Nodes are named by their label as `Debug` prints it, so the error does not
/// carry the graph's node type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The laziness `α` must lie in `[0, 1)`.
    #[error("alpha = {0} is outside [0, 1)")]
    AlphaOutOfRange(f64),
    /// An edge weight (a length) must be finite and `> 0`.
    #[error("edge ({u}, {v}) has weight {w}: expected a finite weight > 0")]
    NonPositiveWeight {
        /// One end.
        u: String,
        /// The other end.
        v: String,
        /// The weight given.
        w: f64,
    },
    /// Self-loops are not allowed.
    #[error("self-loop at node {0}")]
    SelfLoop(String),
    /// The same undirected edge was given twice (multigraphs are unsupported).
    #[error("edge ({u}, {v}) given more than once")]
    DuplicateEdge {
        /// One end.
        u: String,
        /// The other end.
        v: String,
    },
    /// Two nodes lie in different components (infinite distance).
    #[error("nodes {u} and {v} are not connected")]
    Disconnected {
        /// One node.
        u: String,
        /// The other node.
        v: String,
    },
    /// The graph has no edges (or no nodes).
    #[error("the graph is empty (no edges)")]
    EmptyGraph,
    /// A node label that is not in the graph.
    #[error("node {0} is not in the graph")]
    UnknownNode(String),
    /// A node index or edge index out of range.
    #[error("{what} index {index} out of range (len {len})")]
    IndexOutOfRange {
        /// What was indexed.
        what: &'static str,
        /// The index given.
        index: usize,
        /// The valid length.
        len: usize,
    },
    /// The two measures of a transport problem have different total mass.
    #[error("mass mismatch in optimal transport: Σa = {a}, Σb = {b}")]
    MassMismatch {
        /// Total mass of the source measure.
        a: f64,
        /// Total mass of the target measure.
        b: f64,
    },
    /// A measure has a negative or non-finite mass.
    #[error("{what}[{index}] = {value}: masses must be finite and ≥ 0")]
    NegativeMass {
        /// `"a"` or `"b"`.
        what: &'static str,
        /// Position of the atom.
        index: usize,
        /// The mass given.
        value: f64,
    },
    /// A cost entry is negative or not finite.
    #[error("cost[{row}, {col}] = {value}: costs must be finite and ≥ 0")]
    InvalidCost {
        /// Row.
        row: usize,
        /// Column.
        col: usize,
        /// The entry.
        value: f64,
    },
    /// Lengths or shapes disagree.
    #[error("{what}: expected length {expected}, got {got}")]
    LengthMismatch {
        /// The argument with the wrong length.
        what: &'static str,
        /// The expected length.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// An iteration stopped at its cap before reaching its tolerance.
    #[error("{algorithm} did not converge in {iterations} iterations (residual {residual:e})")]
    NotConverged {
        /// The iteration.
        algorithm: &'static str,
        /// Iterations run.
        iterations: usize,
        /// The last residual (meaning documented at the routine).
        residual: f64,
    },
    /// A Ricci-flow weight left `(0, ∞)` (collapsed to zero or blew up).
    #[error("Ricci flow: weight of edge ({u}, {v}) collapsed to {w} at iteration {iteration}")]
    WeightCollapsed {
        /// One end.
        u: String,
        /// The other end.
        v: String,
        /// The weight reached.
        w: f64,
        /// The flow iteration (1-based).
        iteration: usize,
    },
    /// A node has no neighbours, so its exposure is undefined.
    #[error("node {0} has no neighbours: exposure undefined")]
    NoNeighbours(usize),
    /// A stratum of the Hájek estimator holds no unit.
    #[error(
        "Hájek stratum (t = {t}, exposure bin {z_bin}) is empty or has zero design probability"
    )]
    EmptyStratum {
        /// Treatment.
        t: u8,
        /// Exposure bin.
        z_bin: usize,
    },
    /// A treatment probability outside `(0, 1)`.
    #[error("treatment probability {0} is outside (0, 1)")]
    PropensityOutOfBounds(f64),
    /// A data value is NaN or infinite.
    #[error("{what} has a non-finite value at index {index}")]
    NonFinite {
        /// The argument.
        what: &'static str,
        /// The first offending position.
        index: usize,
    },
    /// Another scalar parameter is out of range.
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// A requested size (a product of dimensions) overflows `usize` or
    /// exceeds the allocation cap [`mlcore::check::MAX_ALLOC_BYTES`].
    #[error("{what} is too large: {size}")]
    TooLarge {
        /// What would have been allocated.
        what: &'static str,
        /// The size asked for, in words.
        size: String,
    },
    /// A vendored data file could not be parsed.
    #[error("{file}, line {line}: {reason}")]
    Parse {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An error from the shared core (linear algebra, statistics).
    #[error(transparent)]
    Core(mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
// The shared checks (mlcore::check) fail with mlcore's error: an out of
// range parameter comes back as this crate's InvalidParameter (same fields,
// naming it), so a caller matches one variant whichever layer checked;
// everything else is Error::Core.
mlcore::impl_from_core_error!(Error, TooLarge { what, size });
