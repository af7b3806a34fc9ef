//! Spike counts, operation counts and energy.
//!
//! A spiking layer replaces each multiply–accumulate (MAC) of a dense layer
//! by an accumulate (AC) per *non-zero* spike: a spike `±α` into a layer
//! with `d_out` outputs costs `d_out` ACs (add or subtract the weight row;
//! the single multiply by `α` per output is folded into the next layer's
//! scale or counted with the MACs). Energy follows the 45 nm constants used
//! in the SNN literature (Horowitz 2014): `E = E_AC·#AC + E_MAC·#MAC` with
//! `E_AC = 0.9 pJ`, `E_MAC = 4.6 pJ` (configurable).

use std::ops::{Add, AddAssign};

/// Counts of spikes and operations, summed over layers and time steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpikeStats {
    /// Neuron outputs looked at (`T·n`).
    pub elements: u64,
    /// Outputs equal to `+α`.
    pub positive: u64,
    /// Outputs equal to `−α`.
    pub negative: u64,
    /// Accumulates (spike-driven additions of weights).
    pub ac_ops: u64,
    /// Multiply–accumulates (dense real-valued products).
    pub mac_ops: u64,
}

impl SpikeStats {
    /// Firing rate `(#pos + #neg)/#elements` (0 for no element).
    pub fn rate(&self) -> f64 {
        self.frac(self.positive + self.negative)
    }

    /// Fraction of `+α` outputs.
    pub fn pos_frac(&self) -> f64 {
        self.frac(self.positive)
    }

    /// Fraction of `−α` outputs.
    pub fn neg_frac(&self) -> f64 {
        self.frac(self.negative)
    }

    fn frac(&self, c: u64) -> f64 {
        if self.elements == 0 {
            0.0
        } else {
            c as f64 / self.elements as f64
        }
    }

    /// Energy `E_AC·#AC + E_MAC·#MAC` in picojoules. O(1).
    pub fn energy_pj(&self, model: &EnergyModel) -> f64 {
        model.e_ac_pj * self.ac_ops as f64 + model.e_mac_pj * self.mac_ops as f64
    }
}

impl Add for SpikeStats {
    type Output = SpikeStats;
    fn add(self, o: SpikeStats) -> SpikeStats {
        SpikeStats {
            elements: self.elements + o.elements,
            positive: self.positive + o.positive,
            negative: self.negative + o.negative,
            ac_ops: self.ac_ops + o.ac_ops,
            mac_ops: self.mac_ops + o.mac_ops,
        }
    }
}

impl AddAssign for SpikeStats {
    fn add_assign(&mut self, o: SpikeStats) {
        *self = *self + o;
    }
}

/// Energy per operation in picojoules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnergyModel {
    /// One accumulate (32-bit float add at 45 nm: 0.9 pJ).
    pub e_ac_pj: f64,
    /// One multiply–accumulate (32-bit float at 45 nm: 4.6 pJ).
    pub e_mac_pj: f64,
}

impl Default for EnergyModel {
    fn default() -> Self {
        EnergyModel {
            e_ac_pj: 0.9,
            e_mac_pj: 4.6,
        }
    }
}
