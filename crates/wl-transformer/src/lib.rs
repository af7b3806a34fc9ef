//! # wl-transformer — Aligning Transformers with Weisfeiler–Leman
//!
//! Luis Müller and Christopher Morris, *Aligning Transformers with
//! Weisfeiler–Leman*, ICML 2024, PMLR 235:36654–36704 (arXiv 2406.03148);
//! with the sibling Edge Transformer of Müller, Kusuma, Bonnet & Morris,
//! *Towards Principled Graph Transformers*, NeurIPS 2024 (arXiv 2401.10119).
//!
//! The paper aligns graph transformers with the Weisfeiler–Leman hierarchy:
//! a transformer over the tuple tokens `V^k_s` of a graph (the (k,s)-GT),
//! given adjacency-identifying positional encodings (full-spectrum LPE or
//! SPE), simulates (k,s)-LWL, and the order-2 model has only `n + 2m`
//! tokens. This crate implements the hierarchy itself as reusable colour
//! refinement with certificates — 1-WL, oblivious k-WL, folklore k-FWL,
//! δ-k-WL, δ-k-LWL and (k,s)-LWL, jointly on a shared palette — the tuple
//! tokens, the PEs, and the models on candle.
//!
//! | paper | item |
//! |---|---|
//! | graphs, CFI/SRG/molecule pairs | [`graph::Graph`], [`named`] (`cfi`, `shrikhande`, `rook_4x4`, `decalin`, …), [`io`] (graph6, graph atlas, SDF) |
//! | §2 WL variants, Table of pairs | [`wl::Variant`], [`wl::refine_pair`], [`wl::stable_colouring`], [`wl::undistinguished_pairs`] |
//! | tokens `V^k_s`, atomic types | [`tokens::TokenSet`], [`tokens::atomic_type`] |
//! | LPE / SPE / RRWP inputs | [`pe::laplacian_pe`], [`pe::rrwp`]; learned parts [`model::LpeNet`], [`model::SpeNet`] |
//! | (k,s)-GT (§4) | [`model::TupleGraphTransformer`], [`model::GtConfig`] (`Default` = PCQM4Mv2 setting, `small()`) |
//! | Edge Transformer (triangular attention) | [`model::EdgeTransformer`], [`model::TriangularAttention`] |
//!
//! Deviations from the official code (each documented at its item): the
//! (3,1) token list is deduplicated ([`tokens`]); padded eigenpairs carry a
//! mask instead of NaN ([`pe::LaplacianPe`]); SPE's ψ has no BatchNorm
//! ([`model::SpeNet`]); RRWP uses true powers `P^k` by default
//! ([`pe::RrwpPowers`]); one graph per forward call, so no padding mask.
//!
//! Finding (reported by the `wl-transformer` runner entry): with random
//! weights, the (3,1)-GT+SPE does **not** separate the Shrikhande graph from
//! the 4×4 rook's graph (outputs equal to 1e-16), although (3,1)-LWL does
//! (T@1): both graphs are strongly regular with the same parameters, so
//! SPE's node encodings (pooled over `l`) are identical on every node and the
//! random global attention cannot see the tuples' neighbourhoods. The
//! separation needs learned, adjacency-aware attention; the theorems are
//! existence results.
//!
//! ```
//! use wl_transformer::named::{decalin, bicyclopentyl};
//! use wl_transformer::tokens::TokenSet;
//! use wl_transformer::wl::{Variant, refine_pair};
//! # fn main() -> wl_transformer::Result<()> {
//! let (g, h) = (decalin(), bicyclopentyl());
//! // 1-WL cannot tell the two apart; 2-FWL can, at round 2.
//! assert!(!refine_pair(&g, &h, Variant::OneWl, None)?.distinguished);
//! assert_eq!(refine_pair(&g, &h, Variant::Folklore { k: 2 }, None)?.iteration, Some(2));
//! // (2,1) tokens: n + 2m = 10 + 22.
//! assert_eq!(TokenSet::connected(&g, 2, 1)?.len(), 32);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod error;
pub mod graph;
pub mod io;
pub mod model;
pub mod named;
pub mod pe;
pub mod tokens;
pub mod wl;

pub use error::{Error, Result};
pub use graph::Graph;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
