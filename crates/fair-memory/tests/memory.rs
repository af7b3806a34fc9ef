//! P2: memory sufficiency — the welfare from the full memory equals the
//! welfare of the history; the shift-invariant (gap) criteria from the
//! min-shifted and reset memories equal those of the history; encoding errors.

use fair_memory::{Error, Memory, MemoryKind, Welfare};
use proptest::prelude::*;

const ALL: [Welfare; 6] = [
    Welfare::Nsw { lambda: 1e-4 },
    Welfare::Utilitarian,
    Welfare::Rawlsian,
    Welfare::Egalitarian,
    Welfare::Gini,
    Welfare::DemographicParity,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// P2: along a random history of gains, W(m_t) = W(u_t) for every
    /// welfare with the full memory, and for the shift-invariant welfares
    /// (egalitarian, demographic parity) with the min-shifted and reset
    /// memories; the "max − min" gap is the same from all three.
    #[test]
    fn p2_sufficient_memories_give_the_history_welfare(
        n in 1usize..=4,
        gains in proptest::collection::vec(0usize..5, 1..30),
    ) {
        let horizon = gains.len();
        let mems: Vec<Memory> = [MemoryKind::Full, MemoryKind::MinShifted, MemoryKind::Reset]
            .iter().map(|&k| Memory::new(k, n, horizon).unwrap()).collect();
        let mut u = vec![0u32; n];
        let mut ms: Vec<Vec<u32>> = mems.iter().map(|m| m.init()).collect();
        for &g in &gains {
            let gain = (g < n).then_some(g);
            if let Some(g) = gain { u[g] += 1; }
            for (mem, m) in mems.iter().zip(ms.iter_mut()) {
                let mut next = vec![0; n];
                mem.update(m, gain, &mut next).unwrap();
                *m = next;
                // Every memory code round-trips.
                prop_assert_eq!(mem.decode(mem.try_encode(m).unwrap()), m.clone());
            }
            prop_assert_eq!(&ms[0], &u);
            let gap = |v: &[u32]| v.iter().max().unwrap() - v.iter().min().unwrap();
            for m in &ms { prop_assert_eq!(gap(m), gap(&u)); }
            for w in ALL {
                if w.check(n).is_err() { continue; }
                let truth = w.eval_counts(&u);
                for (mem, m) in mems.iter().zip(&ms) {
                    if mem.kind().is_sufficient_for(&w) {
                        prop_assert!((w.eval_counts(m) - truth).abs() <= 1e-12,
                            "{} with {}: {} vs {}", w.name(), mem.kind().name(), w.eval_counts(m), truth);
                    }
                }
            }
        }
    }
}

/// The insufficient pairings really lose information: two histories with
/// the same min-shifted (and reset) memory but different NSW.
#[test]
fn min_memory_is_not_sufficient_for_nsw() {
    let n = 2;
    let run = |gains: &[usize], kind| {
        let mem = Memory::new(kind, n, 10).unwrap();
        let mut m = mem.init();
        let mut u = vec![0u32; n];
        for &g in gains {
            let mut next = vec![0; n];
            mem.update(&m, Some(g), &mut next).unwrap();
            m = next;
            u[g] += 1;
        }
        (m, u)
    };
    for kind in [MemoryKind::MinShifted, MemoryKind::Reset] {
        let (m1, u1) = run(&[0], kind);
        let (m2, u2) = run(&[0, 1, 0], kind);
        assert_eq!(m1, m2, "{}", kind.name());
        assert_ne!(
            Welfare::nsw().eval_counts(&u1),
            Welfare::nsw().eval_counts(&u2)
        );
        assert!(matches!(
            kind.check_sufficient(&Welfare::nsw(), false),
            Err(Error::MemoryNotSufficient { .. })
        ));
        assert!(kind.check_sufficient(&Welfare::nsw(), true).is_ok());
        assert!(kind.check_sufficient(&Welfare::Egalitarian, false).is_ok());
    }
    assert!(
        MemoryKind::None
            .check_sufficient(&Welfare::Egalitarian, false)
            .is_err()
    );
    assert!(
        MemoryKind::Full
            .check_sufficient(&Welfare::Gini, false)
            .is_ok()
    );
}

/// The official binary encoding used ⌈log2 T⌉ bits and overflowed at
/// T = 2^k; ours has ⌈log2(T + 1)⌉ and a count of T fits.
#[test]
fn binary_encoding_fits_a_count_of_t() {
    for (t, bits) in [(1, 1), (4, 3), (7, 3), (8, 4), (12, 4), (16, 5)] {
        let mem = Memory::new(MemoryKind::Full, 3, t).unwrap();
        assert_eq!(mem.binary_bits(), bits, "T = {t}");
        let f = mem.binary_features(&[t as u32, 0, 1]).unwrap();
        assert_eq!(f.len(), 3 * bits as usize);
        let first: u32 = f[..bits as usize]
            .iter()
            .fold(0, |a, &b| 2 * a + u32::from(b));
        assert_eq!(first, t as u32);
    }
    assert_eq!(
        Memory::new(MemoryKind::Full, 3, 12).unwrap().n_codes(),
        13 * 13 * 13
    );
    assert_eq!(Memory::new(MemoryKind::None, 3, 12).unwrap().n_codes(), 1);
}

#[test]
fn memory_bad_inputs() {
    assert_eq!(
        Memory::new(MemoryKind::Full, 0, 5).err(),
        Some(Error::NoStakeholders)
    );
    assert!(matches!(
        Memory::new(MemoryKind::Full, 2, 0),
        Err(Error::InvalidParameter { .. })
    ));
    match Memory::new(MemoryKind::Full, 8, 1000) {
        Err(Error::HorizonTooLargeForEncoding {
            horizon: 1000,
            stakeholders: 8,
            bits: 80,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        Memory::new(MemoryKind::Full, 2, usize::MAX),
        Err(Error::InvalidParameter { .. })
    ));
    let mem = Memory::new(MemoryKind::Full, 2, 4).unwrap();
    assert!(matches!(
        mem.try_encode(&[5, 0]),
        Err(Error::MemoryOutOfRange {
            index: 0,
            value: 5,
            cap: 4
        })
    ));
    assert!(matches!(
        mem.try_encode(&[1]),
        Err(Error::DimensionMismatch { .. })
    ));
}
