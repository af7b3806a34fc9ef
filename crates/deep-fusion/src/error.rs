//! The error type of every `deep-fusion` entry point.

/// Everything that can go wrong on user input, during fusion or training.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two networks to fuse differ in depth or in a dimension that must be
    /// shared (input or output width). `layer` is the 0-based layer index
    /// (or, for depth, the number of layers is reported in `left`/`right`).
    #[error("architecture mismatch at layer {layer}: {left} vs {right}")]
    ArchitectureMismatch {
        /// The 0-based layer (for a depth mismatch: the shorter depth).
        layer: usize,
        /// The size on the left network.
        left: usize,
        /// The size on the right network.
        right: usize,
    },
    /// The networks use different activations (fusion is exact only for a
    /// shared element-wise activation).
    #[error("activation mismatch: {left} vs {right}")]
    ActivationMismatch {
        /// The left network's activation.
        left: &'static str,
        /// The right network's activation.
        right: &'static str,
    },
    /// A network without layers, or an empty list of networks.
    #[error("empty network: {what}")]
    EmptyNetwork {
        /// What was empty.
        what: &'static str,
    },
    /// A combination weight outside its range (`Weighted(α)` needs
    /// α ∈ [0, 1]; explicit weights must be finite, and positive where the
    /// learning-rate rule divides by them).
    #[error("invalid combination weight {0}")]
    InvalidCombineWeight(f64),
    /// A combination that needs a different number of networks
    /// (`Weighted(α)` combines exactly two).
    #[error("combination {combine} needs {needed} networks, got {got}")]
    CombineArity {
        /// The combination.
        combine: &'static str,
        /// Networks it needs.
        needed: usize,
        /// Networks given.
        got: usize,
    },
    /// Transformers with different attention head dimensions (the fused
    /// network keeps each head and its 1/√d_head scale).
    #[error("head dimension mismatch: {left} vs {right}")]
    HeadDimMismatch {
        /// The left model's head dimension.
        left: usize,
        /// The right model's head dimension.
        right: usize,
    },
    /// Transformers with different normalisation layers (LayerNorm vs RMSNorm).
    #[error("normalisation mismatch: {left} vs {right}")]
    NormKindMismatch {
        /// The left model's normalisation.
        left: &'static str,
        /// The right model's normalisation.
        right: &'static str,
    },
    /// A trainable-block mask whose shape does not match the fused layout.
    #[error(
        "frozen-mask shape mismatch at hidden layer {layer}: expected {expected}×{expected}, got {rows}×{cols}"
    )]
    MaskShape {
        /// The hidden layer (0-based among the hidden layers).
        layer: usize,
        /// The number of parts (blocks per side).
        expected: usize,
        /// Rows given.
        rows: usize,
        /// Columns given.
        cols: usize,
    },
    /// A tensor or array whose shape does not match what is expected.
    #[error("shape mismatch in {what}: expected {expected:?}, got {got:?}")]
    Shape {
        /// What was compared.
        what: &'static str,
        /// The expected shape.
        expected: Vec<usize>,
        /// The given shape.
        got: Vec<usize>,
    },
    /// NaN or an infinity in weights, inputs or a loss.
    #[error("{what} contains a non-finite value")]
    NonFinite {
        /// Where it was found.
        what: &'static str,
    },
    /// A scalar parameter out of range (a step size h ≤ 0, a negative σ,
    /// a zero width, …).
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The given value.
        value: f64,
        /// The valid range.
        expected: &'static str,
    },
    /// A request that is well-formed but not supported (named).
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// An allocation larger than [`mlcore::check::MAX_ALLOC_BYTES`] or a size
    /// product that overflows.
    #[error("size too large: {what}")]
    TooLarge {
        /// What would have been allocated.
        what: &'static str,
    },
    /// An error of the shared training core.
    #[error(transparent)]
    Nn(#[from] nncore::Error),
    /// A backend error from candle.
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
