//! # deep-fusion
//!
//! Hanna Mazzawi, Xavi Gonzalvo, Michael Wunder, Sammy Jerome, Benoit Dherin.
//! *Deep Fusion: Efficient Network Training via Pre-trained Initializations.*
//! ICML 2024 (arXiv 2306.11903).

#![deny(missing_docs)]

pub mod baselines;
pub mod bea;
mod error;
pub mod experiment;
pub mod fuse;
pub mod mlp;
pub mod train;
pub mod transformer;

pub use error::{Error, Result};
pub use fuse::{
    Certificate, Combine, CrossInit, FuseOptions, Fused, exactness_certificate, fuse, fuse_many,
    self_fuse,
};
pub use mlp::{Activation, Dense, Mlp};
pub use train::{BlockMlp, Execution, LayerRates, Loss, Rate, Trainer, lr_after_fusion};
pub use transformer::{NormKind, NormMode, TinyTransformer, TransformerConfig, fuse_transformer};
