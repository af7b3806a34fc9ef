//! CPU clocks for side-by-side timing on a shared machine: wall-clock time
//! counts every other process's turn on the cores, CPU time counts only the
//! work of this thread or process. The comparison examples time both sides
//! by CPU time when the machine is loaded (docs/perf.md says which).
//!
//! One `clock_gettime` call each, on Unix; `None` elsewhere.

/// CPU time of the calling thread, in seconds (`CLOCK_THREAD_CPUTIME_ID`),
/// or `None` where the clock is unavailable. O(1).
pub fn thread_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        clock(libc::CLOCK_THREAD_CPUTIME_ID)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// CPU time of the whole process (all threads), in seconds
/// (`CLOCK_PROCESS_CPUTIME_ID`), or `None` where the clock is unavailable. O(1).
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        clock(libc::CLOCK_PROCESS_CPUTIME_ID)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(unix)]
fn clock(id: libc::clockid_t) -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec that outlives the call, and
    // `id` is one of the clock constants POSIX defines.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    (rc == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_advance_with_work_and_not_with_sleep() {
        let (t0, p0) = (
            thread_cpu_seconds().unwrap(),
            process_cpu_seconds().unwrap(),
        );
        let mut x = 0u64;
        for i in 0..30_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        std::hint::black_box(x);
        let (t1, p1) = (
            thread_cpu_seconds().unwrap(),
            process_cpu_seconds().unwrap(),
        );
        assert!(t1 > t0 && p1 > p0, "busy loop must cost CPU time");
        assert!(
            p1 - p0 >= (t1 - t0) * 0.99,
            "process time includes this thread's"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
        let t2 = thread_cpu_seconds().unwrap();
        assert!(t2 - t1 < 0.1, "sleeping costs no CPU time ({} s)", t2 - t1);
    }
}
