//! # perceptanon
//!
//! Kartik Patwari, Chen-Nee Chuah, Lingjuan Lyu, Vivek Sharma. *PerceptAnon:
//! Exploring the Human Perception of Image Anonymization Beyond
//! Pseudonymization for GDPR.* ICML 2024.

#![deny(missing_docs)]

pub mod anonymize;
pub mod corr;
mod error;
pub mod features;
mod filter;
pub mod image;
mod inpaint;
pub mod io;
pub mod iqa;
pub mod labels;
pub mod split;

pub use error::{Error, Result};
