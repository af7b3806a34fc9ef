//! # spikelm — SpikeLM: elastic bi-spiking neurons and spike-driven language models
//!
//! Xingrun Xing, Zheng Zhang, Ziyi Ni, Shitao Xiao, Yiming Ju, Siqi Fan,
//! Yequan Wang, Jiajun Zhang, Guoqi Li. *SpikeLM: Towards General
//! Spike-Driven Language Modeling via Elastic Bi-Spiking Mechanisms.* ICML
//! 2024 (arXiv 2406.03287). Official code: `Xingrun-Xing/SpikeLM`.
//!
//! SpikeLM replaces the `{0, 1}` spikes of earlier spiking networks by
//! *bi-directional, elastic-amplitude* spikes `{−α_t, 0, +α_t}` fired by a
//! leaky membrane over `T` time steps, with the amplitude set from the data
//! (`α_t = k·mean|u_t|`, whose multiplier `k` controls the firing rate),
//! and trains them with the LSQ straight-through gradient. Every linear
//! layer of a transformer then receives spikes, so its products become
//! additions of `±α·W` rows.
//!
//! | paper | item |
//! |---|---|
//! | §4.1 bi-directional, elastic amplitude spikes; official `ElasticBiSpiking` | [`ElasticBiSpike`], [`Levels`], [`ResetMode`], [`neuron`] (plain-slice reference) |
//! | §4.2 elastic frequency encoding (`α = k·mean abs(u)`, first batch) | [`AlphaPolicy`] |
//! | LSQ straight-through gradient | [`ElasticBiSpike::forward`], [`neuron::reference_backward`] |
//! | energy (AC 0.9 pJ, MAC 4.6 pJ) | [`SpikeStats`], [`EnergyModel`] |
//! | `SpikeLinear`, spiking self-attention (K, V re-spiked, Q real) | [`layers`] |
//! | spike-driven BERT (masked LM) and a causal LM, input repeated T times, mean over T | [`model`] |
//! | additions instead of multiplications | [`sparse::SpikeMatrix`] |
//! | data: vendored Shakespeare plays and `fortunes` categories (SHA-checked), vocabularies, BERT masking, a seeded synthetic corpus for tests | [`data`], [`corpus`] |
//! | sequence-classification head for fine-tuning (GLUE in the paper) | [`classify::SeqClassifier`] |
//!
//! Deviations and choices, each documented at its item: the spike value's
//! zero is always `+0.0`; `ResetMode::Normalized` and `ResetMode::Symmetric`
//! fix the official reset's scale dependence and asymmetry (the official
//! one stays the default); the first-batch α initialisation is an explicit,
//! serialisable step ([`ElasticBiSpike::initialize`], [`ElasticBiSpike::to_json`])
//! instead of a hidden side effect of the first forward pass; the FFN uses
//! GELU as the official code (its config says "relu").
//!
//! ```
//! use candle_core::{Device, Tensor};
//! use spikelm::{AlphaPolicy, ElasticBiSpike, NeuronConfig};
//! # fn main() -> spikelm::Result<()> {
//! // The known-value row x = 0.45 of the official neuron (α = 1, T = 4, λ = 0.25).
//! let neuron = ElasticBiSpike::new(NeuronConfig::default(), AlphaPolicy::Fixed(vec![1.0; 4]))?;
//! let x = Tensor::new(&[[0.45f32], [0.45], [0.45], [0.45]], &Device::Cpu)?;
//! let (s, stats) = neuron.forward(&x)?;
//! assert_eq!(s.flatten_all()?.to_vec1::<f32>()?, vec![0.0, 1.0, 0.0, 1.0]);
//! assert_eq!(stats.rate(), 0.5);
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

pub mod classify;
pub mod corpus;
pub mod data;
mod error;
pub mod layers;
pub mod model;
pub mod neuron;
pub mod sparse;
mod spike;
mod stats;

pub use error::{Error, Result};
pub use neuron::{Levels, NeuronConfig, ResetMode};
pub use spike::{AlphaPolicy, ElasticBiSpike};
pub use stats::{EnergyModel, SpikeStats};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
