//! Who runs the parallel work of the solvers: [`Parallelism`] (as faer's `Par`), the thread
//! pool a solver owns for it, and the choice, step by step, between running the two parts of a
//! parallel step at the same time or one after the other.

use std::time::Instant;

use crate::NumericsError;

/// Who runs a solver's parallel schedules (as faer's `Par`). The numbers a solver computes
/// depend on its schedule (e.g. [`NsgsSchedule`](crate::fc::nsgs::NsgsSchedule)), never on the
/// thread count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Parallelism {
    /// The calling thread does everything; the solver starts no thread and uses no thread
    /// pool (the default).
    #[default]
    Sequential,
    /// A rayon thread pool of `threads` threads (at least 1), which the solver builds at its
    /// first parallel solve and keeps for the next ones; never rayon's global pool. A parallel
    /// solve runs in the pool (`ThreadPool::install`): one handoff to the pool per solve, then
    /// a `rayon::join` per parallel step, whose second part the calling worker runs itself
    /// when no other thread has taken it yet.
    Rayon {
        /// Threads of the pool (at least 1; 1 runs the parallel schedules on one thread of
        /// the pool).
        threads: usize,
    },
}

impl Parallelism {
    /// Whether the parallel schedules are chosen ([`Parallelism::Rayon`]).
    pub fn is_parallel(self) -> bool {
        matches!(self, Parallelism::Rayon { .. })
    }

    /// Checks `threads ≥ 1`.
    ///
    /// # Errors
    /// [`NumericsError::InvalidOption`] for `Rayon { threads: 0 }`.
    pub(crate) fn validate(self) -> Result<(), NumericsError> {
        match self {
            Parallelism::Rayon { threads: 0 } => {
                Err(NumericsError::InvalidOption { name: "parallelism", reason: "Rayon needs at least 1 thread" })
            }
            _ => Ok(()),
        }
    }
}

/// The thread pool of a solver (built at the first parallel solve, rebuilt when the thread
/// count changes) and the timing of its two-part steps, kept from one solve to the next.
#[derive(Debug, Default)]
pub(crate) struct SolverThreads {
    pool: Option<(usize, rayon::ThreadPool)>,
    timing: JoinTiming,
}

impl SolverThreads {
    /// Runs `f` with the executor of `parallelism`: on the calling thread, or inside the
    /// solver's pool of `threads` threads.
    ///
    /// # Errors
    /// [`NumericsError::ThreadPool`] when the pool cannot be built.
    pub(crate) fn run<R: Send>(
        &mut self,
        parallelism: Parallelism,
        f: impl FnOnce(&mut Executor<'_>) -> R + Send,
    ) -> Result<R, NumericsError> {
        let threads = match parallelism {
            Parallelism::Rayon { threads } => threads,
            Parallelism::Sequential => return Ok(f(&mut Executor::sequential())),
        };
        if self.pool.as_ref().is_none_or(|(n, _)| *n != threads) {
            self.pool = None;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("nonsmooth-solver-{i}"))
                .build()
                .map_err(|e| NumericsError::ThreadPool { threads, reason: e.to_string() })?;
            self.pool = Some((threads, pool));
        }
        let timing = &mut self.timing;
        match &self.pool {
            Some((_, pool)) => Ok(pool.install(|| f(&mut Executor { parallel: threads >= 2, timing: Some(timing) }))),
            // Built just above.
            None => Ok(f(&mut Executor::sequential())),
        }
    }
}

/// Runs the two parts of a parallel step: at the same time (`rayon::join` in the current
/// pool) or one after the other on the calling thread; the same operations in the same order
/// either way. For the timed steps it measures both ways and takes the faster ([`JoinTiming`]):
/// on a machine whose other cores are busy, the join's handoffs can cost more than they save.
#[derive(Debug)]
pub(crate) struct Executor<'a> {
    parallel: bool,
    timing: Option<&'a mut JoinTiming>,
}

impl Executor<'static> {
    /// The executor of [`Parallelism::Sequential`]: every step on the calling thread.
    pub(crate) fn sequential() -> Self {
        Self { parallel: false, timing: None }
    }
}

impl Executor<'_> {
    /// `(a(), b())`, at the same time or one after the other. `work` (the step's size, in
    /// any unit proportional to its cost) marks a timed step, whose duration per unit of work
    /// updates the estimates; an untimed step follows the faster way so far.
    pub(crate) fn join<RA: Send, RB: Send>(
        &mut self,
        work: Option<usize>,
        a: impl FnOnce() -> RA + Send,
        b: impl FnOnce() -> RB + Send,
    ) -> (RA, RB) {
        let timing = match &mut self.timing {
            Some(timing) if self.parallel => timing,
            _ => return (a(), b()),
        };
        let Some(work) = work else {
            return if timing.parallel_is_faster() { rayon::join(a, b) } else { (a(), b()) };
        };
        let parallel = timing.choose();
        let start = Instant::now();
        let out = if parallel { rayon::join(a, b) } else { (a(), b()) };
        timing.record(parallel, start.elapsed().as_secs_f64() / work.max(1) as f64);
        out
    }
}

/// Every this many timed steps at first, the slower way runs once, to follow a change of the
/// load; the period doubles each time the slower way is confirmed slower, up to
/// [`MAX_PROBE_PERIOD`] (a joined step whose other half waits for a core held by another
/// process can cost several sweeps), and comes back to this when the ways swap.
const PROBE_PERIOD: u64 = 32;

/// The longest period between two runs of the slower way.
const MAX_PROBE_PERIOD: u64 = 1024;

/// Weight of a new duration in the running estimates.
const WEIGHT: f64 = 0.25;

/// A new duration counts for at most this many times the estimate (one step preempted by
/// another process should not condemn a way for long).
const CLIP: f64 = 4.0;

/// Running estimates of the duration per unit of work of a two-part step run at the same time
/// and one after the other (exponential averages of the measured steps).
#[derive(Debug, Default)]
struct JoinTiming {
    parallel: Option<f64>,
    inline: Option<f64>,
    steps: u64,
    /// Steps between two runs of the slower way (0: [`PROBE_PERIOD`]), the step of the next
    /// one, and whether the step under way is one.
    probe_period: u64,
    next_probe: u64,
    probing: bool,
}

impl JoinTiming {
    /// Whether running the parts at the same time is the faster way so far (or not measured).
    fn parallel_is_faster(&self) -> bool {
        match (self.parallel, self.inline) {
            (Some(p), Some(i)) => p <= i,
            _ => true,
        }
    }

    /// The way of the next timed step: each way once first, then the faster, and the slower
    /// once per probe period.
    fn choose(&mut self) -> bool {
        self.steps += 1;
        match (self.parallel, self.inline) {
            (None, _) => true,
            (_, None) => false,
            (Some(p), Some(i)) => {
                let faster = p <= i;
                if self.probe_period == 0 {
                    self.probe_period = PROBE_PERIOD;
                    self.next_probe = self.steps + PROBE_PERIOD;
                }
                self.probing = self.steps >= self.next_probe;
                if self.probing {
                    self.next_probe = self.steps + self.probe_period;
                }
                faster != self.probing
            }
        }
    }

    /// Adds a step of `seconds` per unit of work run in the way `parallel`.
    fn record(&mut self, parallel: bool, seconds: f64) {
        let estimate = if parallel { &mut self.parallel } else { &mut self.inline };
        *estimate = Some(match *estimate {
            Some(old) => old + WEIGHT * (seconds.min(CLIP * old) - old),
            None => seconds,
        });
        if std::mem::take(&mut self.probing) {
            // The probed way is still the slower one: probe less often; else from the start.
            self.probe_period = if self.parallel_is_faster() != parallel {
                (2 * self.probe_period).min(MAX_PROBE_PERIOD)
            } else {
                PROBE_PERIOD
            };
            self.next_probe = self.steps + self.probe_period;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_threads_is_an_invalid_option() {
        assert!(matches!(
            Parallelism::Rayon { threads: 0 }.validate(),
            Err(NumericsError::InvalidOption { name: "parallelism", .. })
        ));
        assert!(Parallelism::Rayon { threads: 1 }.validate().is_ok() && Parallelism::Sequential.validate().is_ok());
    }

    #[test]
    fn the_timing_takes_the_faster_way_and_probes_the_other() {
        let mut t = JoinTiming::default();
        assert!(t.choose());
        t.record(true, 5.0);
        assert!(!t.choose());
        t.record(false, 1.0);
        // The slower way once after `PROBE_PERIOD` steps, then after twice as many.
        let mut probes = Vec::new();
        for step in 0..4 * PROBE_PERIOD {
            let parallel = t.choose();
            if parallel {
                probes.push(step);
            }
            t.record(parallel, if parallel { 5.0 } else { 1.0 });
        }
        assert_eq!(probes.len(), 2, "{probes:?}");
        assert_eq!(probes[1] - probes[0], 2 * PROBE_PERIOD);
        // The parallel way becomes faster: a few probes bring its estimate down.
        for _ in 0..20 {
            t.record(true, 0.1);
        }
        assert!(t.parallel_is_faster());
        // One preempted step moves an estimate by at most `WEIGHT · (CLIP − 1)` of itself.
        let before = t.parallel.unwrap_or(0.0);
        t.record(true, 1e9);
        assert!(t.parallel.unwrap_or(f64::INFINITY) <= before * (1.0 + WEIGHT * (CLIP - 1.0)) * (1.0 + 1e-12));
    }
}
