//! A helper thread that lives for one solve and spins between its tasks, for the two-halves
//! schedules of NSGS ([`super::nsgs::NsgsSchedule::Halves`], on the assembled `W` and on the
//! factored operator): the solve's sweeps follow each other within microseconds, much sooner
//! than a sleeping rayon worker wakes.
//!
//! The task's state `J` sits behind a mutex. The calling thread fills it and starts a task
//! ([`SpinWorker::start`]), does its own share, then waits for the task and reads the state
//! back ([`SpinWorker::finish`]). Without a thread (rayon's pool of one thread) the task runs
//! inline at [`SpinWorker::start`]: the same operations in the same order either way.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Spins before a waiting thread starts yielding its core.
const SPINS_BEFORE_YIELD: usize = 1 << 16;

/// The handshake of a helper thread serving one task per epoch on the state `J` (module
/// documentation).
#[derive(Debug)]
pub(crate) struct SpinWorker<J> {
    job: Mutex<J>,
    epoch: AtomicUsize,
    done: AtomicUsize,
    stop: AtomicBool,
    /// Whether a thread serves the tasks (else they run inline).
    threaded: bool,
}

/// Sets the worker's stop flag when dropped (also when the solve unwinds), which ends
/// [`SpinWorker::serve`].
pub(crate) struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl<J> SpinWorker<J> {
    /// A worker on the state `job`, served by a thread (`threaded`, which must then run
    /// [`SpinWorker::serve`]) or inline.
    pub(crate) fn new(job: J, threaded: bool) -> Self {
        Self {
            job: Mutex::new(job),
            epoch: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            threaded,
        }
    }

    /// Whether a thread serves the tasks.
    pub(crate) fn threaded(&self) -> bool {
        self.threaded
    }

    /// A guard that stops [`SpinWorker::serve`] when dropped.
    pub(crate) fn stop_on_drop(&self) -> StopOnDrop<'_> {
        StopOnDrop(&self.stop)
    }

    /// Waits (spinning, then yielding) until `ready()` or the stop flag; false when stopped.
    fn wait(&self, ready: impl Fn() -> bool) -> bool {
        let mut spins = 0;
        loop {
            if ready() {
                return true;
            }
            if self.stop.load(Ordering::Acquire) {
                return false;
            }
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// The helper thread's loop: `run` on the state once per new epoch, until stopped.
    pub(crate) fn serve(&self, run: impl Fn(&mut J)) {
        // Epochs only advance for a threaded worker: every epoch after 0 is a task for this
        // thread (the first may be handed before it runs).
        let mut seen = 0;
        while self.wait(|| self.epoch.load(Ordering::Acquire) != seen) {
            seen = self.epoch.load(Ordering::Acquire);
            if let Ok(mut job) = self.job.lock() {
                run(&mut job);
            }
            self.done.store(seen, Ordering::Release);
        }
    }

    /// Fills the state with `prepare` and hands the task to the thread, or runs it inline with
    /// `run` (the function the thread serves with).
    pub(crate) fn start(&self, prepare: impl FnOnce(&mut J), run: impl FnOnce(&mut J)) -> Result<(), ()> {
        let mut job = self.job.lock().map_err(|_| ())?;
        prepare(&mut job);
        if !self.threaded {
            run(&mut job);
            return Ok(());
        }
        drop(job);
        self.epoch.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Waits for the task started last and reads the state (an error when the thread was
    /// stopped or the state poisoned).
    pub(crate) fn finish<T>(&self, read: impl FnOnce(&mut J) -> T) -> Result<T, ()> {
        if self.threaded {
            let epoch = self.epoch.load(Ordering::Acquire);
            if !self.wait(|| self.done.load(Ordering::Acquire) == epoch) {
                return Err(());
            }
        }
        let mut job = self.job.lock().map_err(|_| ())?;
        Ok(read(&mut job))
    }
}
