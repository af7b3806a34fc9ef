//! Memories m_{t+1} = μ(m_t, Δ_t) that make the fairness reward Markov on the
//! augmented state (s, m) (paper §5), and their table encoding.
//!
//! Utilities here are counts: each step gives +1 to at most one stakeholder
//! (a donut to person i, a loan to group g), the "gain" Δ_t ∈ {none} ∪ {e_i}.
//! Over a horizon T every count lies in 0..=T.

use crate::error::{Error, Result};
use crate::welfare::Welfare;

/// The memory designs of the official code (the GRU memory is not tabular
/// and not provided).
///
/// Sufficiency — for which welfare W the memory determines W(u(h_t)), so that
/// the fairness reward is a function of (s, m):
///
/// | memory | m_t | sufficient for |
/// |---|---|---|
/// | [`MemoryKind::Full`] | u_t (the counts) | every welfare |
/// | [`MemoryKind::MinShifted`] | u_t − minᵢ u_t,i·1 | shift-invariant W (egalitarian, demographic parity) |
/// | [`MemoryKind::Reset`] | u_t − k·1 (zeroed whenever all counts are equal) | shift-invariant W |
/// | [`MemoryKind::None`] | ∅ | none |
///
/// (Reset: m_t = u_t − c·1 with c the common count at the last time all
/// counts were equal, so W(m_t) = W(u_t) exactly for shift-invariant W.)
/// The official code pairs Min and Reset memories with NSW, for which they
/// are not sufficient; [`MemoryKind::check_sufficient`] rejects that unless
/// explicitly allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryKind {
    /// Full counts u_t.
    Full,
    /// Counts shifted by their minimum.
    MinShifted,
    /// Counts, zeroed whenever they are all equal.
    Reset,
    /// No memory (plain Q-learning on s).
    None,
}

impl MemoryKind {
    /// A short name.
    pub fn name(&self) -> &'static str {
        match self {
            MemoryKind::Full => "full",
            MemoryKind::MinShifted => "min",
            MemoryKind::Reset => "reset",
            MemoryKind::None => "none",
        }
    }

    /// Whether W(u(h)) is a function of the memory (table above).
    pub fn is_sufficient_for(&self, w: &Welfare) -> bool {
        match self {
            MemoryKind::Full => true,
            MemoryKind::MinShifted | MemoryKind::Reset => w.is_shift_invariant(),
            MemoryKind::None => false,
        }
    }

    /// Checks sufficiency, unless `allow_insufficient`.
    ///
    /// # Errors
    /// [`Error::MemoryNotSufficient`] when the memory does not determine W
    /// and `allow_insufficient` is false.
    pub fn check_sufficient(&self, w: &Welfare, allow_insufficient: bool) -> Result<()> {
        if allow_insufficient || self.is_sufficient_for(w) {
            Ok(())
        } else {
            Err(Error::MemoryNotSufficient {
                memory: self.name(),
                welfare: w.name(),
            })
        }
    }
}

/// A memory for N stakeholders over horizon T, with its mixed-radix table
/// encoding code(m) = Σᵢ mᵢ·(T + 1)ⁱ ∈ 0..(T + 1)ᴺ (one code for
/// [`MemoryKind::None`]).
///
/// Deviation from the official code: its binary feature encoding used
/// ⌈log2 T⌉ bits per stakeholder, so a count of T overflows when T is a
/// power of two; [`Memory::binary_bits`] is ⌈log2(T + 1)⌉ and
/// [`Memory::new`] fails with [`Error::HorizonTooLargeForEncoding`] when
/// the table code does not fit in a `usize`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Memory {
    kind: MemoryKind,
    n: usize,
    cap: u32,
    strides: Vec<usize>,
    n_codes: usize,
}

impl Memory {
    /// A memory of `kind` for `n` stakeholders and horizon `horizon` = T.
    ///
    /// # Errors
    /// [`Error::NoStakeholders`]; [`Error::InvalidParameter`] for T = 0 or
    /// T ≥ 2³²; [`Error::HorizonTooLargeForEncoding`] when (T + 1)ᴺ
    /// overflows `usize`.
    pub fn new(kind: MemoryKind, n: usize, horizon: usize) -> Result<Self> {
        if n == 0 {
            return Err(Error::NoStakeholders);
        }
        if horizon == 0 || horizon >= u32::MAX as usize {
            return Err(Error::InvalidParameter {
                name: "horizon",
                value: horizon as f64,
                expected: "1 ≤ T < 2^32",
            });
        }
        let radix = horizon + 1;
        let bits_per = usize::BITS - horizon.leading_zeros(); // ⌈log2(T + 1)⌉
        let overflow = || Error::HorizonTooLargeForEncoding {
            horizon,
            stakeholders: n,
            bits: (n as u64).saturating_mul(u64::from(bits_per)),
            available: usize::BITS,
        };
        // No capacity up front: radix ≥ 2, so a huge N overflows below
        // after at most 64 strides, before any large allocation.
        let mut strides = Vec::new();
        let mut acc: usize = 1;
        for _ in 0..n {
            strides.push(acc);
            acc = acc.checked_mul(radix).ok_or_else(overflow)?;
        }
        let n_codes = if kind == MemoryKind::None { 1 } else { acc };
        Ok(Memory {
            kind,
            n,
            cap: horizon as u32,
            strides,
            n_codes,
        })
    }

    /// The design.
    pub fn kind(&self) -> MemoryKind {
        self.kind
    }

    /// Number N of stakeholders.
    pub fn n_stakeholders(&self) -> usize {
        self.n
    }

    /// The cap T of every entry.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// Number of table codes: (T + 1)ᴺ, or 1 for no memory.
    pub fn n_codes(&self) -> usize {
        self.n_codes
    }

    /// The initial memory m_0 = 0.
    pub fn init(&self) -> Vec<u32> {
        vec![0; self.n]
    }

    /// The update m' = μ(m, Δ) with Δ = e_g (or nothing), written to `out`
    /// (same length N). O(N). Entries saturate at T (never reached from a
    /// valid history of length ≤ T).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `m` or `out` does not have N
    /// entries or `gain` is not a stakeholder index (< N);
    /// [`Error::MemoryOutOfRange`] for an entry of `m` above T.
    pub fn update(&self, m: &[u32], gain: Option<usize>, out: &mut [u32]) -> Result<()> {
        self.try_encode(m)?;
        if out.len() != self.n {
            return Err(Error::DimensionMismatch {
                what: "memory output",
                expected: self.n,
                got: out.len(),
            });
        }
        if let Some(g) = gain
            && g >= self.n
        {
            return Err(Error::DimensionMismatch {
                what: "gain (a stakeholder index; expected is the count N)",
                expected: self.n,
                got: g,
            });
        }
        self.update_unchecked(m, gain, out);
        Ok(())
    }

    /// [`Memory::update`] without checks, for the learners' hot path
    /// (arguments valid by construction).
    pub(crate) fn update_unchecked(&self, m: &[u32], gain: Option<usize>, out: &mut [u32]) {
        out.copy_from_slice(m);
        if self.kind == MemoryKind::None {
            out.iter_mut().for_each(|x| *x = 0);
            return;
        }
        if let Some(g) = gain {
            out[g] = (out[g] + 1).min(self.cap);
        }
        match self.kind {
            MemoryKind::MinShifted => {
                let lo = out.iter().copied().min().unwrap_or(0);
                out.iter_mut().for_each(|x| *x -= lo);
            }
            MemoryKind::Reset => {
                let lo = out.iter().copied().min().unwrap_or(0);
                let hi = out.iter().copied().max().unwrap_or(0);
                if lo == hi {
                    out.iter_mut().for_each(|x| *x = 0);
                }
            }
            _ => {}
        }
    }

    /// code(m) = Σᵢ mᵢ·(T + 1)ⁱ (0 for no memory); no checks, for the
    /// learners' hot path: for a memory that [`Memory::try_encode`] rejects
    /// (wrong length, an entry above T) the code is meaningless (computed
    /// with wrapping arithmetic, never a panic). O(N).
    #[inline]
    pub fn encode(&self, m: &[u32]) -> usize {
        if self.kind == MemoryKind::None {
            return 0;
        }
        m.iter().zip(&self.strides).fold(0usize, |acc, (&x, &s)| {
            acc.wrapping_add((x as usize).wrapping_mul(s))
        })
    }

    /// [`Memory::encode`] with validation.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`]; [`Error::MemoryOutOfRange`] for an entry > T.
    pub fn try_encode(&self, m: &[u32]) -> Result<usize> {
        if m.len() != self.n {
            return Err(Error::DimensionMismatch {
                what: "memory",
                expected: self.n,
                got: m.len(),
            });
        }
        if let Some((i, &v)) = m.iter().enumerate().find(|&(_, &v)| v > self.cap) {
            return Err(Error::MemoryOutOfRange {
                index: i,
                value: v,
                cap: self.cap,
            });
        }
        Ok(self.encode(m))
    }

    /// The memory of a code (inverse of [`Memory::encode`] for the
    /// count-valued kinds; a code ≥ [`Memory::n_codes`] wraps around, its
    /// top digit taken modulo T + 1). O(N).
    pub fn decode(&self, code: usize) -> Vec<u32> {
        let radix = self.cap as usize + 1;
        let mut c = code;
        (0..self.n)
            .map(|_| {
                let x = (c % radix) as u32;
                c /= radix;
                x
            })
            .collect()
    }

    /// Bits per stakeholder of the binary features, ⌈log2(T + 1)⌉.
    pub fn binary_bits(&self) -> u32 {
        u32::BITS - self.cap.leading_zeros()
    }

    /// Binary features of m (most significant bit first, N·⌈log2(T + 1)⌉
    /// entries), the input of function approximators; O(N·bits).
    ///
    /// # Errors
    /// As [`Memory::try_encode`] (an entry above T does not fit its bits).
    pub fn binary_features(&self, m: &[u32]) -> Result<Vec<u8>> {
        self.try_encode(m)?;
        let b = self.binary_bits();
        Ok(m.iter()
            .flat_map(|&x| (0..b).rev().map(move |k| ((x >> k) & 1) as u8))
            .collect())
    }
}
