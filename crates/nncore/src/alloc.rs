//! Keeping freed memory in the process: candle allocates a fresh buffer for
//! every tensor it creates, and at training sizes (a 512 × 512 `f32` weight is
//! 1 MiB) glibc's `malloc` serves such buffers with `mmap` or by growing the
//! heap and hands them back to the kernel on `free`. Every training step then
//! pays page faults and page clearing for memory it just released: a
//! `64 → 512 → 512 → 10` MLP spent most of its AdamW step in the kernel
//! (`clear_page`, `exc_page_fault`, `brk`), 64 ms per step against PyTorch's
//! 16 ms, whose caching allocator keeps freed blocks.
//!
//! [`retain_freed_memory`] sets glibc's thresholds so that freed blocks stay
//! in the heap (mmap threshold and top pad 64 MiB, trim threshold 256 MiB):
//! the same step then takes 17 ms. Call it once at the start of a program
//! that trains with candle. It changes no result, only where memory comes
//! from; a process may keep up to the trim threshold of freed memory mapped.
//! The same effect without code: `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864`.

/// Raises glibc's `malloc` thresholds so freed tensor buffers are reused
/// instead of being returned to the kernel (see the module docs). Returns
/// whether the settings were applied: `true` on Linux with glibc, `false`
/// elsewhere (other allocators are left as they are). O(1).
pub fn retain_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const MIB: libc::c_int = 1 << 20;
        // SAFETY: `mallopt` only sets allocator parameters; the arguments are
        // valid glibc parameter ids and non-negative sizes. Called before or
        // between allocations it is safe in any thread (glibc takes its own
        // lock).
        #[allow(unsafe_code)]
        let ok = unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 64 * MIB) == 1
                && libc::mallopt(libc::M_TOP_PAD, 64 * MIB) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, 256 * MIB) == 1
        };
        ok
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn applies_on_glibc_and_allocation_still_works() {
        let applied = super::retain_freed_memory();
        assert_eq!(applied, cfg!(all(target_os = "linux", target_env = "gnu")));
        // Large buffers are still allocated, written and freed correctly.
        for n in [1usize << 10, 1 << 20, 1 << 24] {
            let v = vec![1.5f32; n];
            assert_eq!(v.iter().map(|&x| f64::from(x)).sum::<f64>(), 1.5 * n as f64);
        }
    }
}
