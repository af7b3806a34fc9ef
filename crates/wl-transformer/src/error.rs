//! The crate's error type.

/// Everything that can go wrong on user input in `wl-transformer`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An edge or index names a node `≥ n`.
    #[error("node {node} is out of range for a graph on {n} nodes")]
    NodeOutOfRange {
        /// The node given.
        node: usize,
        /// The number of nodes.
        n: usize,
    },
    /// An edge `(u, u)`: the graphs are simple.
    #[error("self-loop at node {0}: graphs are simple")]
    SelfLoop(usize),
    /// The same undirected edge listed twice.
    #[error("edge ({0}, {1}) is listed twice")]
    DuplicateEdge(usize, usize),
    /// An operation that needs at least one node (or one item) got none.
    #[error("empty input: {0}")]
    Empty(&'static str),
    /// A tuple order `k = 0`.
    #[error("the tuple order k must be at least 1")]
    OrderZero,
    /// `n^k` (or the token count) exceeds the tuple limit.
    #[error("{n}^{k} tuples exceed the limit of {limit}")]
    TooManyTuples {
        /// Nodes.
        n: usize,
        /// Order.
        k: usize,
        /// The limit.
        limit: usize,
    },
    /// The component bound `s` of V^k_s must lie in `1..=k`.
    #[error("component bound s = {s} is outside 1..={k}")]
    BadComponentBound {
        /// The bound given.
        s: usize,
        /// The order.
        k: usize,
    },
    /// A positional encoding asked for zero eigenvectors or steps.
    #[error("num_vecs (or the number of RRWP steps) must be at least 1")]
    NumVecsZero,
    /// A NaN or infinite value where finite numbers are required.
    #[error("non-finite value in {0}")]
    NonFinite(&'static str),
    /// The model width is not a multiple of the number of heads.
    #[error("width {dim} is not divisible by {heads} heads")]
    HeadsDoNotDivide {
        /// Width d.
        dim: usize,
        /// Heads.
        heads: usize,
    },
    /// A node degree exceeds the degree embedding's table.
    #[error("degree {deg} exceeds the degree embedding's maximum {max}")]
    DegreeOverflow {
        /// The degree met.
        deg: usize,
        /// The configured maximum.
        max: usize,
    },
    /// A token order the model does not implement.
    #[error("unsupported tuple order {0}")]
    UnsupportedOrder(usize),
    /// Two shapes disagree.
    #[error("shape mismatch: expected {expected}, got {got}")]
    ShapeMismatch {
        /// What was expected.
        expected: String,
        /// What came.
        got: String,
    },
    /// A weight name that the model does not know (import).
    #[error("unknown weight {0}")]
    UnknownWeight(String),
    /// A hyper-parameter outside its range.
    #[error("parameter {name} = {value} is invalid: {reason}")]
    BadParameter {
        /// Its name.
        name: &'static str,
        /// Its value, printed.
        value: String,
        /// The rule broken.
        reason: &'static str,
    },
    /// Malformed text input (graph6, atlas, SDF), with its 1-based line.
    #[error("{format} parse error at line {line}: {reason}")]
    Parse {
        /// The format being read.
        format: &'static str,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// An error from candle (tensor operations of the model).
    #[error("candle: {0}")]
    Candle(String),
    /// An error from the shared cores (linear algebra, data, training).
    #[error("{0}")]
    Core(String),
}

impl From<candle_core::Error> for Error {
    fn from(e: candle_core::Error) -> Self {
        Error::Candle(e.to_string())
    }
}

impl From<mlcore::Error> for Error {
    fn from(e: mlcore::Error) -> Self {
        Error::Core(e.to_string())
    }
}

impl From<nncore::Error> for Error {
    fn from(e: nncore::Error) -> Self {
        Error::Core(e.to_string())
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
