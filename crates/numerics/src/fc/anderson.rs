//! Anderson acceleration of a fixed-point iteration on the reactions of a frictional contact
//! problem, used by NSGS ([`NsgsOptions::anderson_memory`](super::nsgs::NsgsOptions::anderson_memory)).
//!
//! One NSGS sweep is a map `G` on the reactions: `g = G(x)`. Anderson acceleration (Anderson
//! 1965; type II as in Walker and Ni, "Anderson acceleration for fixed-point iterations", SIAM J.
//! Numer. Anal. 49(4), 2011, section 3) keeps the last `m` differences of the residuals
//! `f_k = G(x_k) − x_k` and of the images `g_k`, `ΔF = [f_{k−m+1} − f_{k−m}, …, f_k − f_{k−1}]` and
//! `ΔG` likewise, solves the small least-squares problem `γ = argmin ‖f_k − ΔF γ‖₂` and takes
//! `x_{k+1} = g_k − ΔG γ` instead of `g_k`. On a linear iteration this is a GMRES-like
//! extrapolation; on the piecewise-linear NSGS map it is exact wherever the contact statuses
//! (take-off, stick, slide) stop changing.
//!
//! Safeguards for the nonsmooth map: the extrapolated reactions are projected contact by contact
//! on the Coulomb cones `K_μ` (the set NSGS iterates live in); the history is dropped (restart)
//! when the residual norm grows by more than [`RESTART_GROWTH`] in one sweep, when the
//! least-squares system is numerically singular, or when the extrapolation is not finite.

use super::projection::project;

/// Restart when `‖f_k‖ > RESTART_GROWTH · ‖f_{k−1}‖`.
pub(crate) const RESTART_GROWTH: f64 = 1.5;

/// The acceleration is switched off for the rest of a solve when `‖f‖` has not halved within
/// this many sweeps (stagnation: on some FC3D problems of sphere piles the extrapolation cycles
/// near the usual tolerances while plain sweeps converge).
pub(crate) const STALL_SWEEPS: usize = 50;

/// Contacts per block of [`Anderson::extrapolate_visiting`]'s second pass.
pub(crate) const SECOND_PASS_BLOCK: usize = 64;

/// Tikhonov term of the normal equations, relative to the trace of `ΔFᵀΔF`.
const REGULARIZATION: f64 = 1e-10;

/// Largest accepted history (each entry stores two vectors of the problem's size; on the pile
/// problems a short history did as well as a long one).
pub(crate) const MAX_MEMORY: usize = 8;

/// The state of the acceleration over one solve (buffers reused from one solve to the next).
#[derive(Debug, Default)]
pub(crate) struct Anderson {
    memory: usize,
    /// `f_k = G(x_k) − x_k`, written by the sweep (the increments of the contact updates).
    pub(crate) f: Vec<f64>,
    /// `f_{k−1}` and `g_{k−1}` (valid when `has_previous`).
    f_previous: Vec<f64>,
    g_previous: Vec<f64>,
    has_previous: bool,
    norm_previous: f64,
    /// Ring buffers of `Δf` and `Δg`, entry-major (`df[i·memory + j]` is entry `i` of slot `j`,
    /// so that one pass streams through them); `len` slots valid, slot `next` overwritten next.
    df: Vec<f64>,
    dg: Vec<f64>,
    len: usize,
    next: usize,
    /// `ΔFᵀΔF`, `memory × memory`, row-major, for the valid slots.
    gram: Vec<f64>,
    /// Restarts so far in this solve.
    restarts: usize,
    /// `‖f‖` at the last halving, and the sweeps since.
    checkpoint: f64,
    since_checkpoint: usize,
    /// Switched off after a stall ([`STALL_SWEEPS`]).
    disabled: bool,
    /// The running sum of the increments of the sweeps of an extrapolation period
    /// ([`Period`]), sized on first use.
    period_sum: Vec<f64>,
}

impl Anderson {
    /// Prepares a solve of `n` unknowns with history `memory ≥ 1`.
    pub(crate) fn reset(&mut self, memory: usize, n: usize) {
        self.memory = memory;
        for v in [&mut self.f, &mut self.f_previous, &mut self.g_previous] {
            v.clear();
            v.resize(n, 0.0);
        }
        for v in [&mut self.df, &mut self.dg] {
            v.clear();
            v.resize(n * memory, 0.0);
        }
        self.gram.clear();
        self.gram.resize(memory * memory, 0.0);
        self.has_previous = false;
        self.norm_previous = f64::INFINITY;
        self.len = 0;
        self.next = 0;
        self.restarts = 0;
        self.checkpoint = f64::INFINITY;
        self.since_checkpoint = 0;
        self.disabled = false;
    }

    /// The history length `m` of the solve.
    pub(crate) fn memory(&self) -> usize {
        self.memory
    }

    /// Whether a stall switched the acceleration off in this solve.
    pub(crate) fn is_disabled(&self) -> bool {
        self.disabled
    }

    /// Restarts so far in this solve.
    #[cfg(test)]
    pub(crate) fn restarts(&self) -> usize {
        self.restarts
    }

    fn restart(&mut self) {
        self.len = 0;
        self.next = 0;
        self.restarts += 1;
    }

    /// With `r = g_k = G(x_k)` on entry and [`Anderson::f`] holding `f_k = g_k − x_k`, replaces
    /// `r` by the accelerated iterate `x_{k+1}` (projected on the cones of `mu`, one per 3
    /// entries). Leaves `r = g_k` when the history is empty (first sweep, or just restarted) or
    /// the extrapolation is rejected.
    ///
    /// Two passes over the vectors: the first ([`first_pass`]) forms the new differences `Δf`,
    /// `Δg`, the new row of `ΔFᵀΔF`, `ΔFᵀf_k` and `‖f_k‖`, and stores `f_k`, `g_k`; then
    /// [`Anderson::decide`] takes `γ`; the second ([`second_pass`]) forms `g_k − ΔG γ` and
    /// projects it. The passes work on any range of whole contacts, so that a parallel sweep
    /// can run them on its parts (the sums of the first pass are then added part by part).
    ///
    /// Once `‖f‖` has not halved for [`STALL_SWEEPS`] sweeps, the acceleration is off for the
    /// rest of the solve (the sweeps go on unaccelerated from the current iterate).
    #[cfg(test)]
    pub(crate) fn extrapolate(&mut self, r: &mut [f64], mu: &[f64]) {
        self.extrapolate_visiting(r, mu, None, |_, _| {});
    }

    /// [`Anderson::extrapolate`] with the second pass run block after block of
    /// [`SECOND_PASS_BLOCK`] contacts, calling `visit(contacts, x)` on each block of the
    /// extrapolated iterate once written (in contact order; `x` the block's entries), so that
    /// a caller can form what depends on `x` while the block is in cache. `swept` gives the plan and sums of a
    /// first pass already done during the sweep ([`Anderson::record_block`]); without it the first
    /// pass runs here. Returns whether `r` holds an extrapolated iterate (every contact
    /// visited); `false` leaves `r = g_k` (no extrapolation, or a rejected one whose visits
    /// the caller discards).
    pub(crate) fn extrapolate_visiting(
        &mut self,
        r: &mut [f64],
        mu: &[f64],
        swept: Option<(PassPlan, &FirstPassSums)>,
        mut visit: impl FnMut(std::ops::Range<usize>, &[f64]),
    ) -> bool {
        let (plan, sums) = match swept {
            Some((plan, sums)) => (plan, *sums),
            None => {
                let Some(plan) = self.plan() else { return false };
                let Self { f, f_previous, g_previous, df, dg, .. } = self;
                (plan, first_pass(plan, r, f, f_previous, g_previous, df, dg))
            }
        };
        let Some(step) = self.decide(plan, &sums) else { return false };
        let mut finite = true;
        let memory = self.memory;
        for start in (0..mu.len()).step_by(SECOND_PASS_BLOCK) {
            let end = (start + SECOND_PASS_BLOCK).min(mu.len());
            let x = &mut r[3 * start..3 * end];
            finite &= second_pass(step, x, &mu[start..end], &self.dg[3 * memory * start..3 * memory * end]);
            visit(start..end, x);
        }
        if !finite {
            r.copy_from_slice(&self.g_previous);
            self.restart();
            return false;
        }
        true
    }

    /// What the next first pass does (`None` when the acceleration is off).
    pub(crate) fn plan(&self) -> Option<PassPlan> {
        if self.disabled {
            return None;
        }
        let insert = self.has_previous;
        let new_len = if insert { (self.len + 1).min(self.memory) } else { self.len };
        Some(PassPlan { memory: self.memory, slot: insert.then_some(self.next), new_len })
    }

    /// From the sums of the first pass over every entry: the stall and growth tests, the
    /// history update and the least-squares coefficients; `None` when this sweep is not
    /// extrapolated (empty history, restart, singular system, or the acceleration just switched
    /// off).
    pub(crate) fn decide(&mut self, plan: PassPlan, sums: &FirstPassSums) -> Option<SecondPassStep> {
        let norm = sums.norm2.sqrt();
        if norm <= 0.5 * self.checkpoint {
            self.checkpoint = norm;
            self.since_checkpoint = 0;
        } else {
            self.since_checkpoint += 1;
            if self.since_checkpoint >= STALL_SWEEPS {
                self.disabled = true;
                return None;
            }
        }
        let grew = self.has_previous && norm > RESTART_GROWTH * self.norm_previous;
        self.has_previous = true;
        self.norm_previous = norm;
        if grew {
            self.restart();
            return None;
        }
        if let Some(s) = plan.slot {
            for (j, &v) in sums.row.iter().enumerate().take(plan.new_len) {
                self.gram[s * self.memory + j] = v;
                self.gram[j * self.memory + s] = v;
            }
            self.len = plan.new_len;
            self.next = (s + 1) % self.memory;
        }
        let m = self.len;
        if m == 0 {
            return None;
        }
        // Normal equations (ΔFᵀΔF + εI) γ = ΔFᵀ f_k, m ≤ MAX_MEMORY.
        let mut a = [[0.0; MAX_MEMORY]; MAX_MEMORY];
        let trace: f64 = (0..m).map(|i| self.gram[i * self.memory + i]).sum();
        for (i, ai) in a.iter_mut().enumerate().take(m) {
            ai[..m].copy_from_slice(&self.gram[i * self.memory..i * self.memory + m]);
            ai[i] += REGULARIZATION * trace;
        }
        let mut b = sums.b;
        let Some(gamma) = solve_spd(&mut a, &mut b, m) else {
            self.restart();
            return None;
        };
        Some(SecondPassStep { memory: self.memory, len: m, gamma })
    }

    /// Rejects an extrapolation that was not finite: the history restarts (the caller puts the
    /// reactions back to `g_k`, the previous `g` of the first pass).
    pub(crate) fn reject(&mut self) {
        self.restart();
    }

    /// `g_k` as stored by the last first pass.
    pub(crate) fn g_previous(&self) -> &[f64] {
        &self.g_previous
    }

    /// The buffers of the first pass.
    pub(crate) fn buffers(&mut self) -> Buffers<'_> {
        if self.period_sum.len() != self.f.len() {
            self.period_sum.resize(self.f.len(), 0.0);
        }
        Buffers {
            f: &mut self.f,
            f_previous: &mut self.f_previous,
            g_previous: &mut self.g_previous,
            df: &mut self.df,
            dg: &mut self.dg,
            period_sum: &mut self.period_sum,
        }
    }

    /// [`Period::sum_increments`] on the whole of [`Anderson::f`] (after a sweep that wrote its
    /// increments there).
    pub(crate) fn sum_period_increments(&mut self, period: Period) {
        let Buffers { f, period_sum, .. } = self.buffers();
        period.sum_increments(f, period_sum);
    }

    /// Where a sweep in the natural order writes its increments for [`Anderson::record_block`]:
    /// into the period's running sum on the first sweep of a period of several sweeps (where
    /// [`Period::sum_increments`] would copy them), into `f` otherwise.
    pub(crate) fn increments(&mut self, period: Period) -> &mut [f64] {
        let Buffers { f, period_sum, .. } = self.buffers();
        if period.starts_sum() { period_sum } else { f }
    }

    /// The Anderson work of a sweep in the natural order on the entries `entries` (whole
    /// contacts) just swept, its increments written where [`Anderson::increments`] says,
    /// while they are in cache: [`Period::sum_increments`] on them and,
    /// with a plan, the first pass on them, its sums continuing `sums` (the entries in order,
    /// so the sums of one pass over every entry). `g` is the sweep's output.
    pub(crate) fn record_block(
        &mut self,
        period: Period,
        plan: Option<PassPlan>,
        entries: std::ops::Range<usize>,
        g: &[f64],
        sums: &mut FirstPassSums,
    ) {
        let memory = self.memory;
        let Buffers { f, f_previous, g_previous, df, dg, period_sum } = self.buffers();
        let (f, period_sum) = (&mut f[entries.clone()], &mut period_sum[entries.clone()]);
        if !period.starts_sum() {
            period.sum_increments(f, period_sum);
        }
        if let Some(plan) = plan {
            let history = memory * entries.start..memory * entries.end;
            let (df, dg) = (&mut df[history.clone()], &mut dg[history]);
            let (f_previous, g_previous) = (&mut f_previous[entries.clone()], &mut g_previous[entries.clone()]);
            first_pass_continued(plan, &g[entries], f, f_previous, g_previous, df, dg, sums);
        }
    }

    /// The history `Δg` (entry-major, [`PassPlan::memory`] slots per entry).
    pub(crate) fn dg(&self) -> &[f64] {
        &self.dg
    }
}

/// The vectors a first pass reads and writes: `f` (the sweep's increments), the previous `f`
/// and `g`, and the histories `Δf`, `Δg` (entry-major).
pub(crate) struct Buffers<'a> {
    pub(crate) f: &'a mut [f64],
    pub(crate) f_previous: &'a mut [f64],
    pub(crate) g_previous: &'a mut [f64],
    pub(crate) df: &'a mut [f64],
    pub(crate) dg: &'a mut [f64],
    pub(crate) period_sum: &'a mut [f64],
}

impl<'a> Buffers<'a> {
    /// The buffers of the entries before `entry` (whole contacts) and those from `entry` on,
    /// for a history of `memory` slots per entry.
    pub(crate) fn split_at(self, entry: usize, memory: usize) -> (Buffers<'a>, Buffers<'a>) {
        let (f, f2) = self.f.split_at_mut(entry);
        let (f_previous, f_previous2) = self.f_previous.split_at_mut(entry);
        let (g_previous, g_previous2) = self.g_previous.split_at_mut(entry);
        let (df, df2) = self.df.split_at_mut(entry * memory);
        let (dg, dg2) = self.dg.split_at_mut(entry * memory);
        let (period_sum, period_sum2) = self.period_sum.split_at_mut(entry);
        (
            Buffers { f, f_previous, g_previous, df, dg, period_sum },
            Buffers {
                f: f2,
                f_previous: f_previous2,
                g_previous: g_previous2,
                df: df2,
                dg: dg2,
                period_sum: period_sum2,
            },
        )
    }
}

/// Where a sweep stands in an extrapolation period of `length` sweeps
/// ([`NsgsOptions::anderson_period`](super::nsgs::NsgsOptions::anderson_period)): the
/// extrapolation works on the map of `length` sweeps, whose `f` is the sum of their increments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Period {
    /// The sweep's number in its period, from 0.
    pub(crate) phase: usize,
    /// Sweeps per extrapolation, at least 1.
    pub(crate) length: usize,
}

impl Period {
    /// The period of sweep `it` (counted from 1) with `length` sweeps per extrapolation.
    pub(crate) fn of_sweep(it: usize, length: usize) -> Self {
        let length = length.max(1);
        Self { phase: (it - 1) % length, length }
    }

    /// Whether the sweep starts the running sum of a period of several sweeps.
    pub(crate) fn starts_sum(self) -> bool {
        self.length > 1 && self.phase == 0
    }

    /// Whether the sweep ends its period (an extrapolation follows it).
    pub(crate) fn ends(self) -> bool {
        self.phase + 1 == self.length
    }

    /// After the sweep wrote its increments into `f`: keeps the period's running sum in `sum`
    /// and, at the period's last sweep, leaves the period's total in `f` (the `f` of the map of
    /// `length` sweeps). Nothing to do for periods of one sweep.
    pub(crate) fn sum_increments(self, f: &mut [f64], sum: &mut [f64]) {
        if self.length > 1 {
            if self.phase == 0 {
                sum.copy_from_slice(f);
            } else if self.ends() {
                for (fi, si) in f.iter_mut().zip(sum.iter()) {
                    *fi += si;
                }
            } else {
                for (si, fi) in sum.iter_mut().zip(f.iter()) {
                    *si += fi;
                }
            }
        }
    }
}

/// What a first pass does: history length `memory`, the slot the new differences go to
/// (`None` on the first sweep after a (re)start), and the number of valid slots after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PassPlan {
    pub(crate) memory: usize,
    slot: Option<usize>,
    new_len: usize,
}

/// Sums of a first pass: the new row of `ΔFᵀΔF`, `ΔFᵀf_k` and `‖f_k‖²` (add the parts'
/// sums in a fixed order for results that do not depend on the threads).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct FirstPassSums {
    row: [f64; MAX_MEMORY],
    b: [f64; MAX_MEMORY],
    norm2: f64,
}

impl FirstPassSums {
    /// Adds the sums of another part.
    pub(crate) fn add(&mut self, other: &Self) {
        for (a, b) in self.row.iter_mut().zip(&other.row) {
            *a += b;
        }
        for (a, b) in self.b.iter_mut().zip(&other.b) {
            *a += b;
        }
        self.norm2 += other.norm2;
    }
}

/// What a second pass does: `x = P_K(g − ΔG γ)` with the first `len` slots of a history of
/// `memory`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SecondPassStep {
    memory: usize,
    len: usize,
    gamma: [f64; MAX_MEMORY],
}

/// The first pass of [`Anderson::extrapolate`] on a range of whole contacts: `g` (the sweep's
/// output), `f` (its increments) and the matching ranges of the history buffers (`Δf`, `Δg`
/// with `plan.memory` slots per entry).
pub(crate) fn first_pass(
    plan: PassPlan,
    g: &[f64],
    f: &[f64],
    f_previous: &mut [f64],
    g_previous: &mut [f64],
    df: &mut [f64],
    dg: &mut [f64],
) -> FirstPassSums {
    let mut sums = FirstPassSums::default();
    first_pass_continued(plan, g, f, f_previous, g_previous, df, dg, &mut sums);
    sums
}

/// [`first_pass`] whose sums continue `sums` (those of the entries before these, in order):
/// from zero sums, the sums of [`first_pass`].
#[allow(clippy::too_many_arguments)]
fn first_pass_continued(
    plan: PassPlan,
    g: &[f64],
    f: &[f64],
    f_previous: &mut [f64],
    g_previous: &mut [f64],
    df: &mut [f64],
    dg: &mut [f64],
    sums: &mut FirstPassSums,
) {
    let mut pass = FirstPass { r: g, f, f_previous, g_previous, df, dg, memory: plan.memory, slot: plan.slot };
    // The history length as a constant, so that the accumulators stay in registers.
    macro_rules! run {
        ($($k:literal)*) => {
            match plan.new_len {
                $($k => pass.run::<$k>(&mut sums.row, &mut sums.b, &mut sums.norm2),)*
                // `new_len ≤ memory ≤ MAX_MEMORY = 8` (validated options).
                _ => unreachable!("history longer than MAX_MEMORY"),
            }
        };
    }
    run!(0 1 2 3 4 5 6 7 8);
}

/// The second pass on a range of whole contacts (`r` holds `g` on entry, `x` on return; `mu`
/// and `dg` the matching ranges); returns whether every entry is finite.
pub(crate) fn second_pass(step: SecondPassStep, r: &mut [f64], mu: &[f64], dg: &[f64]) -> bool {
    macro_rules! run {
        ($($k:literal)*) => {
            match step.len {
                $($k => second_pass_k::<$k>(r, mu, dg, step.memory, &step.gamma),)*
                // `1 ≤ m ≤ memory ≤ MAX_MEMORY = 8` (validated options).
                _ => unreachable!("history longer than MAX_MEMORY"),
            }
        };
    }
    run!(1 2 3 4 5 6 7 8)
}

/// The second pass of [`Anderson::extrapolate`] with `K` slots: `r ← P_K(r − ΔG γ)` contact by
/// contact; returns whether every entry is finite.
#[inline(always)]
fn second_pass_k<const K: usize>(
    r: &mut [f64],
    mu: &[f64],
    dg: &[f64],
    memory: usize,
    gamma: &[f64; MAX_MEMORY],
) -> bool {
    let mut finite = true;
    for ((rc, &mu_c), dgc) in r.chunks_exact_mut(3).zip(mu).zip(dg.chunks_exact(3 * memory)) {
        let mut x = [rc[0], rc[1], rc[2]];
        for (xk, dgk) in x.iter_mut().zip(dgc.chunks_exact(memory)) {
            for j in 0..K {
                *xk -= gamma[j] * dgk[j];
            }
        }
        project(&mut x, mu_c);
        finite &= x.iter().all(|v| v.is_finite());
        rc.copy_from_slice(&x);
    }
    finite
}

/// The first pass of [`Anderson::extrapolate`] over the entries: with `slot = Some(s)`, writes
/// `Δf = f − f_prev`, `Δg = g − g_prev` into slot `s` and accumulates the new row `⟨Δf_s, Δf_j⟩`;
/// always accumulates `⟨Δf_j, f⟩` over the first `k` slots and `‖f‖²`, and stores `f`, `g` as
/// the previous ones.
struct FirstPass<'a> {
    r: &'a [f64],
    f: &'a [f64],
    f_previous: &'a mut [f64],
    g_previous: &'a mut [f64],
    df: &'a mut [f64],
    dg: &'a mut [f64],
    memory: usize,
    slot: Option<usize>,
}

impl FirstPass<'_> {
    /// The pass with `k = K` slots (a constant, for small histories), its sums (the new row,
    /// `ΔFᵀ f` and `‖f‖²`) continuing `row`, `b` and `norm2`.
    #[inline(always)]
    fn run<const K: usize>(&mut self, row: &mut [f64; MAX_MEMORY], b: &mut [f64; MAX_MEMORY], norm2: &mut f64) {
        let mut acc_row = [0.0; K];
        let mut acc_b = [0.0; K];
        acc_row.copy_from_slice(&row[..K]);
        acc_b.copy_from_slice(&b[..K]);
        let mut norm2_acc = *norm2;
        let memory = self.memory;
        let entries = self
            .r
            .iter()
            .zip(self.f)
            .zip(self.f_previous.iter_mut().zip(self.g_previous.iter_mut()))
            .zip(self.df.chunks_exact_mut(memory).zip(self.dg.chunks_exact_mut(memory)));
        for (((&g, &f), (f_prev, g_prev)), (df, dg)) in entries {
            norm2_acc += f * f;
            // Read the row before writing slot `s` into it (a wide load right after a narrow
            // store to the same bytes stalls store forwarding).
            let mut row_i = [0.0; K];
            row_i.copy_from_slice(&df[..K]);
            if let Some(s) = self.slot {
                let dfi = f - *f_prev;
                df[s] = dfi;
                dg[s] = g - *g_prev;
                for (j, (acc, &old)) in acc_row.iter_mut().zip(&row_i).enumerate() {
                    let dfj = if j == s { dfi } else { old };
                    *acc += dfi * dfj;
                    acc_b[j] += dfj * f;
                }
            } else {
                for (acc, &dfj) in acc_b.iter_mut().zip(&row_i) {
                    *acc += dfj * f;
                }
            }
            *f_prev = f;
            *g_prev = g;
        }
        row[..K].copy_from_slice(&acc_row);
        b[..K].copy_from_slice(&acc_b);
        *norm2 = norm2_acc;
    }
}

/// Solves the leading `m × m` block of the symmetric positive definite `a x = b` by Cholesky;
/// `None` when a pivot is not positive (numerically singular history).
// Index loops over the leading block read best with indices.
#[allow(clippy::needless_range_loop)]
fn solve_spd(
    a: &mut [[f64; MAX_MEMORY]; MAX_MEMORY],
    b: &mut [f64; MAX_MEMORY],
    m: usize,
) -> Option<[f64; MAX_MEMORY]> {
    for j in 0..m {
        let mut d = a[j][j];
        for k in 0..j {
            d -= a[j][k] * a[j][k];
        }
        if !(d > 0.0 && d.is_finite()) {
            return None;
        }
        let l = d.sqrt();
        a[j][j] = l;
        for i in j + 1..m {
            let mut s = a[i][j];
            for k in 0..j {
                s -= a[i][k] * a[j][k];
            }
            a[i][j] = s / l;
        }
    }
    let mut y = [0.0; MAX_MEMORY];
    for i in 0..m {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i][k] * y[k];
        }
        y[i] = s / a[i][i];
    }
    for i in (0..m).rev() {
        let mut s = y[i];
        for k in i + 1..m {
            s -= a[k][i] * y[k];
        }
        y[i] = s / a[i][i];
    }
    Some(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_a_small_spd_system() {
        let mut a = [[0.0; MAX_MEMORY]; MAX_MEMORY];
        let mut b = [0.0; MAX_MEMORY];
        // [[4, 2], [2, 3]] x = [2, 1] → x = [0.5, 0].
        a[0][0] = 4.0;
        a[0][1] = 2.0;
        a[1][0] = 2.0;
        a[1][1] = 3.0;
        b[0] = 2.0;
        b[1] = 1.0;
        let x = solve_spd(&mut a, &mut b, 2).expect("SPD");
        assert!((x[0] - 0.5).abs() < 1e-15 && x[1].abs() < 1e-15, "{x:?}");
        let mut singular = [[0.0; MAX_MEMORY]; MAX_MEMORY];
        singular[0][0] = 1.0;
        singular[0][1] = 1.0;
        singular[1][0] = 1.0;
        singular[1][1] = 1.0;
        assert!(solve_spd(&mut singular, &mut b, 2).is_none());
    }

    /// A map that never converges, `G(x) = x + c`: `‖f‖` stays at `‖c‖`, so the acceleration
    /// switches itself off after `STALL_SWEEPS` sweeps and then leaves the sweeps' output alone;
    /// a jump of `‖f‖` by more than `RESTART_GROWTH` drops the history.
    #[test]
    fn stalls_switch_off_and_growth_restarts() {
        let c = [0.1, 0.01, 0.0];
        let mut acc = Anderson::default();
        acc.reset(3, 3);
        let mut r = vec![1.0, 0.0, 0.0];
        for _ in 0..=STALL_SWEEPS {
            acc.f.copy_from_slice(&c);
            for (ri, ci) in r.iter_mut().zip(c) {
                *ri += ci;
            }
            acc.extrapolate(&mut r, &[10.0]);
        }
        assert!(acc.is_disabled());
        let g = [r[0] + c[0], r[1] + c[1], r[2]];
        r.copy_from_slice(&g);
        acc.extrapolate(&mut r, &[10.0]);
        assert_eq!(r, g.to_vec(), "a disabled acceleration leaves the sweep's output");

        let mut acc = Anderson::default();
        acc.reset(2, 3);
        let mut r = vec![1.0, 0.0, 0.0];
        for f in [0.02, 0.01, 1.0, 0.5] {
            // ‖f‖ jumps from 0.01 to 1 at the third sweep (a restart), then decreases.
            acc.f.copy_from_slice(&[f, 0.0, 0.0]);
            r[0] += f;
            acc.extrapolate(&mut r, &[10.0]);
        }
        assert_eq!(acc.restarts(), 1);
        assert!(!acc.is_disabled());
    }

    #[test]
    fn accelerates_a_linear_contraction_to_its_fixed_point_in_few_steps() {
        // G(x) = A x + c with a slowly contracting diagonal A (rates 0.99, 0.9, 0.5) on one
        // sticking contact far inside the cone (μ large): plain iteration needs ~1400 steps for
        // 1e-6; Anderson with memory 3 is exact after 4 (a 3-dimensional Krylov space).
        let rates = [0.99, 0.9, 0.5];
        let c = [1.0, 0.05, -0.02];
        let fixed: Vec<f64> = (0..3).map(|i| c[i] / (1.0 - rates[i])).collect();
        let mut acc = Anderson::default();
        acc.reset(3, 3);
        let mut r = vec![0.0; 3];
        let mut steps = 0;
        while steps < 50 {
            steps += 1;
            for i in 0..3 {
                let g = rates[i] * r[i] + c[i];
                acc.f[i] = g - r[i];
                r[i] = g;
            }
            acc.extrapolate(&mut r, &[10.0]);
            let err: f64 = r.iter().zip(&fixed).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            if err < 1e-6 * fixed[0] {
                break;
            }
        }
        assert!(steps <= 6, "{steps} steps");
        assert_eq!(acc.restarts(), 0);
    }
}
