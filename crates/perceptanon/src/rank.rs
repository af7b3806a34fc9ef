//! The sorting and counting behind Kendall's τ in O(n) passes: a stable
//! least-significant-digit radix sort of `u64` keys with a `u32` payload,
//! dense ranks, and the count of inverted pairs of a rank sequence.

/// Bits per radix digit (256 buckets: the write positions stay in L1).
const DIGIT: u32 = 8;
/// Digits of a `u64` key.
const DIGITS: usize = 64_usize.div_ceil(DIGIT as usize);

/// Sorts `keys` ascending, stably, carrying `payload` along. One counting
/// pass for all digits, then one scatter per digit that is not the same
/// for every key (a constant digit cannot change the order). O(n) per
/// digit, 8 digits at most.
pub(crate) fn radix_sort(keys: &mut Vec<u64>, payload: &mut Vec<u32>) {
    let n = keys.len();
    debug_assert_eq!(n, payload.len());
    let buckets = 1usize << DIGIT;
    let mut counts = vec![0usize; DIGITS * buckets];
    for &k in keys.iter() {
        for d in 0..DIGITS {
            counts[d * buckets + ((k >> (d as u32 * DIGIT)) as usize & (buckets - 1))] += 1;
        }
    }
    let mut k2 = vec![0u64; n];
    let mut p2 = vec![0u32; n];
    for d in 0..DIGITS {
        let c = &mut counts[d * buckets..(d + 1) * buckets];
        if c.contains(&n) {
            continue;
        }
        let mut start = 0;
        for x in c.iter_mut() {
            let here = *x;
            *x = start;
            start += here;
        }
        let shift = d as u32 * DIGIT;
        for (&k, &p) in keys.iter().zip(payload.iter()) {
            let b = (k >> shift) as usize & (buckets - 1);
            let at = c[b];
            k2[at] = k;
            p2[at] = p;
            c[b] = at + 1;
        }
        std::mem::swap(keys, &mut k2);
        std::mem::swap(payload, &mut p2);
    }
}

/// Pairs `i < j` with `ranks[i] > ranks[j]`, for ranks below `m`: a Fenwick
/// tree of the ranks seen so far, O(n log m).
pub(crate) fn inversions(ranks: impl IntoIterator<Item = u32>, m: usize) -> u64 {
    let mut tree = vec![0u64; m + 1];
    let mut inv = 0u64;
    for (seen, r) in ranks.into_iter().enumerate() {
        // Ranks ≤ r seen so far.
        let mut i = r as usize + 1;
        let mut le = 0u64;
        while i > 0 {
            le += tree[i];
            i &= i - 1;
        }
        inv += seen as u64 - le;
        let mut i = r as usize + 1;
        while i <= m {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(s: &mut u64) -> u64 {
        *s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *s
    }

    /// Against the standard library's stable sort by key, on keys with few
    /// distinct values, wide random keys, and keys that differ only in high
    /// or only in low digits.
    #[test]
    fn radix_sort_is_a_stable_sort() {
        let mut s = 3u64;
        for n in [0usize, 1, 2, 100, 5000] {
            for kind in 0..4 {
                let keys: Vec<u64> = (0..n)
                    .map(|_| match kind {
                        0 => lcg(&mut s) % 7,
                        1 => lcg(&mut s),
                        2 => lcg(&mut s) & 0xfff0_0000_0000_0000,
                        _ => 1 << 40 | (lcg(&mut s) % 100),
                    })
                    .collect();
                let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0..).collect();
                want.sort_by_key(|&(k, _)| k);
                let (mut k, mut p) = (keys.clone(), (0..n as u32).collect::<Vec<_>>());
                radix_sort(&mut k, &mut p);
                let got: Vec<(u64, u32)> = k.into_iter().zip(p).collect();
                assert_eq!(got, want, "n = {n}, kind = {kind}");
            }
        }
    }

    #[test]
    fn inversions_equal_the_pair_count() {
        let mut s = 5u64;
        for (n, m) in [(0usize, 1usize), (1, 1), (50, 3), (300, 10), (300, 300)] {
            let r: Vec<u32> = (0..n).map(|_| (lcg(&mut s) % m as u64) as u32).collect();
            let brute = (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .filter(|&(i, j)| r[i] > r[j])
                .count() as u64;
            assert_eq!(inversions(r.iter().copied(), m), brute, "n = {n}, m = {m}");
        }
    }

    /// The Fenwick count and the merge count (Kendall's path beyond 2¹⁶
    /// ranks, itself checked against the pair loop) agree on long sequences.
    #[test]
    fn fenwick_and_merge_counts_agree() {
        let mut s = 9u64;
        for m in [2usize, 1000, 70_000] {
            let r: Vec<u32> = (0..50_000)
                .map(|_| (lcg(&mut s) % m as u64) as u32)
                .collect();
            let mut wide: Vec<u64> = r.iter().map(|&v| u64::from(v)).collect();
            let merged = crate::corr::merge_sort_swaps(&mut wide);
            assert_eq!(inversions(r.iter().copied(), m), merged, "m = {m}");
        }
    }
}
