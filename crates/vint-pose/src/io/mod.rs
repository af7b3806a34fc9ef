//! Readers (feature `io`): meshes ([`meshes`]), MuJoCo MJCF kinematics
//! ([`mjcf`]), `.npy` arrays ([`npy`]), and a VTDexM-like per-frame folder
//! layout behind the [`FrameSource`] trait ([`layout`]).

pub mod layout;
pub mod meshes;
pub mod mjcf;
pub mod npy;

pub use layout::{DirLayout, Frame, FrameSource, LinkTaxels};
