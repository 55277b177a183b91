//! Who runs the parallel parts of a solver.

/// Runs the two parts of a parallel step of a solver: on rayon's current pool when it has at
/// least two threads, else one after the other on the calling thread (the same operations in
/// the same order either way).
#[derive(Debug)]
pub(crate) struct Executor<'a> {
    parallel: bool,
    _pool: std::marker::PhantomData<&'a ()>,
}

impl Executor<'_> {
    /// Parts run at the same time when `parallel` and rayon's current pool has two threads.
    pub(crate) fn new(parallel: bool) -> Self {
        Self { parallel: parallel && rayon::current_num_threads() >= 2, _pool: std::marker::PhantomData }
    }

    /// `(a(), b())`, at the same time or one after the other; `timed` marks the steps whose
    /// duration says whether running them at the same time pays.
    pub(crate) fn join<RA: Send, RB: Send>(
        &mut self,
        _timed: bool,
        a: impl FnOnce() -> RA + Send,
        b: impl FnOnce() -> RB + Send,
    ) -> (RA, RB) {
        if self.parallel { rayon::join(a, b) } else { (a(), b()) }
    }
}
