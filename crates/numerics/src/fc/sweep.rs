//! The nonsmooth Gauss–Seidel iteration of FC3D written once (Siconos `fc3d_nsgs`; M. Jean,
//! "The non-smooth contact dynamics method", Comput. Methods Appl. Mech. Engrg. 177, 1999): the
//! sweeps over the contacts and their schedules (natural or shuffled order, colours, two halves
//! and a separator), the Anderson acceleration of the sweeps and the stopping test, over a
//! [`ContactOperator`] that says how contact `c` sees the others.
//!
//! Front-ends: [`super::nsgs::NsgsSolver`] (the assembled `W`, state `r`) and
//! [`super::factored::FactoredNsgsSolver`] (`W = H M⁻¹ Hᵀ`, state `r` and the body velocities
//! `w = M⁻¹ Hᵀ r`).

use std::ops::Range;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;

use super::anderson::{Anderson, Buffers, FirstPassSums, PassPlan, Period, first_pass, second_pass};
use super::nsgs::{Local, NsgsOptions, StoppingTest, increment_squared, relaxed_local_solution};
use crate::matrix::norm2;
use crate::parallelism::Executor;
use crate::{SolverReport, SolverStatus};

/// The reactions a contact update reads: `own`, the reactions of the contacts from `first` on
/// (those the sweep updates), and `shared`, those of the contacts from `shared_first` on (read
/// only; a part of a parallel sweep reads the separator there).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reactions<'a> {
    pub(crate) own: &'a [f64],
    pub(crate) first: usize,
    pub(crate) shared: &'a [f64],
    pub(crate) shared_first: usize,
}

impl<'a> Reactions<'a> {
    /// Every reaction, `r` (contact `c` at `r[3c..3c + 3]`).
    pub(crate) fn whole(r: &'a [f64]) -> Self {
        Self { own: r, first: 0, shared: &[], shared_first: 0 }
    }

    /// The reaction of contact `d`, which lies in `own` or in `shared`.
    #[inline(always)]
    pub(crate) fn of(&self, d: usize) -> &'a [f64] {
        let own_end = self.first + self.own.len() / 3;
        if d >= self.first && d < own_end {
            let l = 3 * (d - self.first);
            &self.own[l..l + 3]
        } else {
            let l = 3 * (d - self.shared_first);
            &self.shared[l..l + 3]
        }
    }
}

/// How contact `c` of a frictional contact problem `u = W r + q` sees the others, for the
/// Gauss–Seidel sweeps of this module. The iteration's state is the reactions `r` and, for
/// operators that need one, a vector `w` (the body velocities `M⁻¹ Hᵀ r` of the factored
/// form; empty for the assembled `W`), which a part of a parallel sweep sees from its global
/// entry `w_base` on.
///
/// **Add a contact operator**: implement `local_q` (and, with a state, `apply_increment`,
/// `add_reactions`, `apply_inverses`), extract the diagonal blocks `W_cc` once per solve, and
/// call [`iterate`]; the sweeps, schedules, acceleration and stopping test come with it.
pub(crate) trait ContactOperator: Sync {
    /// Whether the light error's `‖r‖` is summed by the sweeps, contact after contact
    /// ([`Swept::squares`]), instead of a pass over `r` after each sweep ([`norm2`]).
    const SWEEP_SUMS_SQUARES: bool;

    /// The local vector `q_loc = q_c + Σ_{d≠c} W_cd r_d` of contact `c` (whose diagonal block
    /// is `w_cc` and current reaction `rc`) from the reactions `r` and the state `w` (global
    /// entries from `w_base` on); `None` when the state is inconsistent.
    fn local_q(
        &self,
        c: usize,
        w_cc: &[[f64; 3]; 3],
        rc: [f64; 3],
        r: &Reactions<'_>,
        w: &[f64],
        w_base: usize,
    ) -> Option<[f64; 3]>;

    /// Updates the state `w` after contact `c`'s reaction changed by `dr`.
    fn apply_increment(&self, _c: usize, _dr: [f64; 3], _w: &mut [f64], _w_base: usize) {}

    /// Adds the reactions of the contacts `contacts` (contact `c`'s at `r[3(c − first)..]`) to
    /// the state's sums `w` (global entries from `w_base` on), in contact order.
    fn add_reactions(&self, _contacts: Range<usize>, _first: usize, _r: &[f64], _w: &mut [f64], _w_base: usize) {}

    /// Turns the sums of [`ContactOperator::add_reactions`] into the state.
    fn apply_inverses(&self, _w: &mut [f64]) {}

    /// The state of the reactions `r`: `w` zeroed, the reactions of every contact added in
    /// order, then [`ContactOperator::apply_inverses`].
    fn refresh_state(&self, r: &[f64], w: &mut [f64]) {
        w.fill(0.0);
        self.add_reactions(0..r.len() / 3, 0, r, w, 0);
        self.apply_inverses(w);
    }
}

/// What the one-contact solves read: each contact's diagonal block `W_cc`, its
/// [`isotropic_inverse`](super::local::isotropic_inverse), its `μ`, the one-contact solver and
/// the relaxation `ω`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Contacts<'a> {
    pub(crate) diag: &'a [[[f64; 3]; 3]],
    pub(crate) isotropic: &'a [Option<[f64; 2]>],
    pub(crate) mu: &'a [f64],
    pub(crate) local: Local,
    pub(crate) omega: f64,
}

impl Contacts<'_> {
    /// The new (relaxed) reaction of contact `c` from its local vector `q_loc` and its current
    /// reaction `old`; `None` for non-finite data or a failed local solve.
    #[inline(always)]
    fn solve(&self, c: usize, q_loc: [f64; 3], old: [f64; 3]) -> Option<[f64; 3]> {
        relaxed_local_solution(&self.local, self.isotropic[c], &self.diag[c], q_loc, self.mu[c], self.omega, old)
    }
}

/// What a sweep sums over its contacts, in the order it visits them: `Σ ‖Δr_c‖²` (the light
/// error's increment) and, with [`ContactOperator::SWEEP_SUMS_SQUARES`], `Σ_c ‖r_c‖²` of the
/// new reactions (from `−0`, entry after entry, as [`norm2`] sums: the same number on a sweep
/// in the natural order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Swept {
    pub(crate) increment: f64,
    pub(crate) squares: f64,
}

impl Swept {
    const ZERO: Self = Self { increment: 0.0, squares: -0.0 };

    /// The sums of two parts, `self` first.
    fn then(self, other: Self) -> Self {
        Self { increment: self.increment + other.increment, squares: self.squares + other.squares }
    }
}

/// A part of a sweep: the reactions it updates (`own`, contacts from `first` on), those it only
/// reads (`shared`, from `shared_first` on), the increments (`delta`, as `own`, or empty), and
/// the state (`w`, global entries from `w_base` on).
struct Part<'a> {
    own: &'a mut [f64],
    first: usize,
    shared: &'a [f64],
    shared_first: usize,
    delta: &'a mut [f64],
    w: &'a mut [f64],
    w_base: usize,
}

/// The Gauss–Seidel sweep of the contacts `order` of `part`: each contact's local problem from
/// the newest reactions, its relaxed solution written back (the increment into `delta`), the
/// state updated; `None` at the first contact whose update fails.
#[inline(always)]
fn sweep_part<O: ContactOperator>(
    op: &O,
    k: &Contacts<'_>,
    order: impl IntoIterator<Item = usize>,
    part: Part<'_>,
) -> Option<Swept> {
    sweep_part_from(op, k, order, part, Swept::ZERO)
}

/// [`sweep_part`] whose sums continue `swept` (those of the contacts swept before these): a
/// sweep done in consecutive pieces sums as one.
#[inline(always)]
fn sweep_part_from<O: ContactOperator>(
    op: &O,
    k: &Contacts<'_>,
    order: impl IntoIterator<Item = usize>,
    part: Part<'_>,
    mut swept: Swept,
) -> Option<Swept> {
    let Part { own, first, shared, shared_first, delta, w, w_base } = part;
    for c in order {
        let l = 3 * (c - first);
        let old = [own[l], own[l + 1], own[l + 2]];
        let reactions = Reactions { own, first, shared, shared_first };
        let q_loc = op.local_q(c, &k.diag[c], old, &reactions, w, w_base)?;
        let new = k.solve(c, q_loc, old)?;
        let rc = &mut own[l..l + 3];
        swept.increment += increment_squared(&new, rc);
        let dr = [new[0] - old[0], new[1] - old[1], new[2] - old[2]];
        if let Some(d) = delta.get_mut(l..l + 3) {
            d.copy_from_slice(&dr);
        }
        rc.copy_from_slice(&new);
        op.apply_increment(c, dr, w, w_base);
        if O::SWEEP_SUMS_SQUARES {
            // In the shadow of the next update's loads: no pass over `r` for its norm.
            for x in rc.iter() {
                swept.squares += x * x;
            }
        }
    }
    Some(swept)
}

/// One sweep colour by colour (colours in `order`): the contacts of a colour are solved from the
/// same `r` (in parallel when the colour has at least `min_parallel` contacts) and then written
/// back in class order, so the increments are summed in an order that does not depend on the
/// threads. Nothing of a colour is written when one of its updates fails.
#[allow(clippy::too_many_arguments)]
fn coloured_sweep<O: ContactOperator>(
    op: &O,
    k: &Contacts<'_>,
    order: &[usize],
    classes: &[Vec<usize>],
    min_parallel: usize,
    updates: &mut Vec<Option<[f64; 3]>>,
    r: &mut [f64],
    delta: &mut [f64],
    w: &mut [f64],
) -> Option<Swept> {
    let mut swept = Swept::ZERO;
    for &class in order {
        let class = &classes[class];
        {
            let (current, state): (&[f64], &[f64]) = (r, w);
            let update = |c: usize| {
                let old = [current[3 * c], current[3 * c + 1], current[3 * c + 2]];
                let q_loc = op.local_q(c, &k.diag[c], old, &Reactions::whole(current), state, 0)?;
                k.solve(c, q_loc, old)
            };
            if class.len() >= min_parallel {
                class.par_iter().map(|&c| update(c)).collect_into_vec(updates);
            } else {
                updates.clear();
                updates.extend(class.iter().map(|&c| update(c)));
            }
        }
        // Write back only when the whole colour succeeded, so `r` stays a consistent iterate.
        if updates.iter().any(Option::is_none) {
            return None;
        }
        for (&c, new) in class.iter().zip(updates.iter().flatten()) {
            let rc = &mut r[3 * c..3 * c + 3];
            swept.increment += increment_squared(new, rc);
            let dr = [new[0] - rc[0], new[1] - rc[1], new[2] - rc[2]];
            if let Some(d) = delta.get_mut(3 * c..3 * c + 3) {
                d.copy_from_slice(&dr);
            }
            rc.copy_from_slice(new);
            op.apply_increment(c, dr, w, 0);
            if O::SWEEP_SUMS_SQUARES {
                for x in rc.iter() {
                    swept.squares += x * x;
                }
            }
        }
    }
    Some(swept)
}

/// Contacts per block of a sweep in the natural order with Anderson acceleration, after which
/// the block's share of the extrapolation's first pass runs (the block's vectors, about 10 kB
/// with a history of 3, are still in the first-level cache).
const HISTORY_BLOCK: usize = 64;

/// The layout of a problem renumbered for [`NsgsSchedule::Halves`](super::nsgs::NsgsSchedule::Halves):
/// contacts `0..na` (`A`), `na..na + nb` (`B`), the rest (`S`), where no contact of `A` is
/// coupled with one of `B`; the state entries `0..va` belong to `A` alone, `va..vb` to `B`
/// alone (both 0 without a state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Halves {
    pub(crate) na: usize,
    pub(crate) nb: usize,
    pub(crate) va: usize,
    pub(crate) vb: usize,
}

/// The order of the contact updates in a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Contacts `0..nc` (shuffled at each sweep with [`NsgsOptions::shuffle`]).
    Natural,
    /// Colour by colour, the classes given in [`Workspace::classes`] (colours and classes
    /// shuffled at each sweep with [`NsgsOptions::shuffle`]); colours of at least
    /// `min_parallel` contacts are updated in parallel.
    Colours { min_parallel: usize },
    /// `A` and `B` at the same time (each in natural order), then `S`: the Gauss–Seidel sweep
    /// in the order `A, B, S`.
    Halves(Halves),
}

/// The buffers of [`iterate`], kept by a solver from one solve to the next.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    pub(crate) order: Vec<usize>,
    pub(crate) classes: Vec<Vec<usize>>,
    updates: Vec<Option<[f64; 3]>>,
    anderson: Anderson,
    /// The copies of `r` and `w` that [`NsgsOptions::plain_check_sweep`] sweeps.
    check_r: Vec<f64>,
    check_w: Vec<f64>,
}

/// What a part of a halves sweep records for Anderson acceleration: its share of the
/// buffers, the sweep's place in its extrapolation period and, on the period's last sweep, the
/// plan of the first pass.
type History<'a> = (Buffers<'a>, Period, Option<PassPlan>);

/// [`sweep_part`] of the contacts `contacts` of `part` (increments into the history's `f`),
/// then, when it succeeded, the part's Anderson work: the period's sum of increments and, with
/// a plan, the first pass on the part's entries. Returns the sweep's sums and the first pass's.
fn sweep_part_with_history<O: ContactOperator>(
    op: &O,
    k: &Contacts<'_>,
    contacts: Range<usize>,
    part: Part<'_>,
    mut history: Option<History<'_>>,
) -> (Option<Swept>, FirstPassSums) {
    let Part { own, first, shared, shared_first, w, w_base, .. } = part;
    let swept = {
        let delta: &mut [f64] = match &mut history {
            Some((buffers, ..)) => &mut *buffers.f,
            None => &mut [],
        };
        sweep_part(op, k, contacts, Part { own: &mut *own, first, shared, shared_first, delta, w, w_base })
    };
    let sums = match (swept, history) {
        (Some(_), Some((buffers, period, plan))) => {
            period.sum_increments(buffers.f, buffers.period_sum);
            match plan {
                Some(plan) => {
                    first_pass(plan, own, buffers.f, buffers.f_previous, buffers.g_previous, buffers.df, buffers.dg)
                }
                None => FirstPassSums::default(),
            }
        }
        _ => FirstPassSums::default(),
    };
    (swept, sums)
}

/// One sweep of the halves schedule: `A` and `B` at the same time (`exec`), each with its own
/// reactions, increments and state (disjoint contacts and state entries; both read the
/// separator's reactions, which neither writes), then `S`. With `history` (Anderson, the
/// sweep's period and, on the period's last sweep, the plan of an extrapolation), the
/// increments are summed over the period part by part and, with a plan, `sums` receives the
/// first-pass sums added `A`, `B`, `S` in this order; the parts' [`Swept`] are added in the
/// same order: the same numbers whoever runs the parts.
#[allow(clippy::too_many_arguments)]
fn halves_sweep<O: ContactOperator>(
    op: &O,
    k: &Contacts<'_>,
    layout: Halves,
    exec: &mut Executor<'_>,
    r: &mut [f64],
    w: &mut [f64],
    history: Option<(&mut Anderson, Period, Option<PassPlan>)>,
    sums: &mut FirstPassSums,
) -> Option<Swept> {
    let Halves { na, nb, va, vb } = layout;
    let nc = r.len() / 3;
    let s_start = na + nb;
    let (ha, hb, hs) = match history {
        Some((anderson, period, plan)) => {
            let memory = anderson.memory();
            let (ab, s) = anderson.buffers().split_at(3 * s_start, memory);
            let (a, b) = ab.split_at(3 * na, memory);
            (Some((a, period, plan)), Some((b, period, plan)), Some((s, period, plan)))
        }
        None => (None, None, None),
    };
    *sums = FirstPassSums::default();
    let ((a, sums_a), (b, sums_b)) = {
        let (ra, rest) = r.split_at_mut(3 * na);
        let (rb, rs) = rest.split_at_mut(3 * nb);
        let rs: &[f64] = rs;
        let (wa, rest) = w.split_at_mut(va);
        let wb = &mut rest[..vb - va];
        exec.join(
            Some(3 * s_start),
            || {
                let part =
                    Part { own: ra, first: 0, shared: rs, shared_first: s_start, delta: &mut [], w: wa, w_base: 0 };
                sweep_part_with_history(op, k, 0..na, part, ha)
            },
            || {
                let part =
                    Part { own: rb, first: na, shared: rs, shared_first: s_start, delta: &mut [], w: wb, w_base: va };
                sweep_part_with_history(op, k, na..s_start, part, hb)
            },
        )
    };
    let (a, b) = (a?, b?);
    sums.add(&sums_a);
    let (r_before, rs) = r.split_at_mut(3 * s_start);
    let part = Part { own: rs, first: s_start, shared: r_before, shared_first: 0, delta: &mut [], w, w_base: 0 };
    let (s, sums_s) = sweep_part_with_history(op, k, s_start..nc, part, hs);
    let s = s?;
    sums.add(&sums_b);
    sums.add(&sums_s);
    Some(a.then(b).then(s))
}

/// The Anderson extrapolation of the halves schedule after a sweep with `plan` and first-pass
/// `sums`: the decision here, the second pass on `A` and `B` at the same time, then on `S`; a
/// non-finite extrapolation anywhere puts every reaction back to the sweep's output and
/// restarts the history (as [`Anderson::extrapolate`]).
#[allow(clippy::too_many_arguments)]
fn halves_extrapolate(
    layout: Halves,
    exec: &mut Executor<'_>,
    r: &mut [f64],
    mu: &[f64],
    anderson: &mut Anderson,
    plan: PassPlan,
    sums: &FirstPassSums,
) {
    let Some(step) = anderson.decide(plan, sums) else { return };
    let Halves { na, nb, .. } = layout;
    let (s_start, m) = (na + nb, plan.memory);
    let dg = anderson.dg();
    let (ra, rest) = r.split_at_mut(3 * na);
    let (rb, rs) = rest.split_at_mut(3 * nb);
    let (finite_a, finite_b) = exec.join(
        None,
        || second_pass(step, ra, &mu[..na], &dg[..3 * na * m]),
        || second_pass(step, rb, &mu[na..s_start], &dg[3 * na * m..3 * s_start * m]),
    );
    let finite_s = second_pass(step, rs, &mu[s_start..], &dg[3 * s_start * m..]);
    if !(finite_a && finite_b && finite_s) {
        r.copy_from_slice(anderson.g_previous());
        anderson.reject();
    }
}

/// [`ContactOperator::refresh_state`] in the halves schedule: the sums of `A` and of `B` at
/// the same time, then `S`'s, then [`ContactOperator::apply_inverses`]. Each state entry sums
/// its contacts in contact order, as the sequential refresh does (`A` and `B` share no state
/// entry): the same numbers.
fn halves_refresh<O: ContactOperator>(op: &O, layout: Halves, exec: &mut Executor<'_>, r: &[f64], w: &mut [f64]) {
    let Halves { na, nb, va, vb } = layout;
    let s_start = na + nb;
    let nc = r.len() / 3;
    {
        let (wa, rest) = w.split_at_mut(va);
        let (wb, ws) = rest.split_at_mut(vb - va);
        ws.fill(0.0);
        exec.join(
            None,
            || {
                wa.fill(0.0);
                op.add_reactions(0..na, 0, &r[..3 * na], wa, 0);
            },
            || {
                wb.fill(0.0);
                op.add_reactions(na..s_start, na, &r[3 * na..3 * s_start], wb, va);
            },
        );
    }
    op.add_reactions(s_start..nc, 0, r, w, 0);
    op.apply_inverses(w);
}

/// The Anderson extrapolation of `r` (with the first pass `swept` done during the sweep, or
/// here without it) and the state that follows, [`ContactOperator::refresh_state`] of the new
/// `r`: the reactions are added to `w` block by block as the second pass writes them (in
/// contact order, so the sums of the refresh), then [`ContactOperator::apply_inverses`]. When
/// `r` was not extrapolated (or the extrapolation was rejected), the state is refreshed from
/// `r` as before.
fn extrapolate_and_refresh<O: ContactOperator>(
    op: &O,
    anderson: &mut Anderson,
    swept: Option<&(PassPlan, FirstPassSums)>,
    r: &mut [f64],
    mu: &[f64],
    w: &mut [f64],
) {
    w.fill(0.0);
    let swept = swept.map(|(plan, sums)| (*plan, sums));
    let moved = anderson.extrapolate_visiting(r, mu, swept, |contacts, x| {
        let first = contacts.start;
        op.add_reactions(contacts, first, x, w, 0);
    });
    if moved {
        op.apply_inverses(w);
    } else {
        op.refresh_state(r, w);
    }
}

/// The NSGS iteration on the contacts of `k` with the operator `op`, from the reactions `r`
/// (the warm start; the sweeps' output on return), with the state `w` (sized by the caller):
/// sweeps in the order of `schedule` ([`Schedule::Colours`] reads its classes from
/// `ws.classes`), Anderson acceleration ([`NsgsOptions::anderson_memory`]), and the stopping
/// test of [`NsgsErrorEvaluation`](super::nsgs::NsgsErrorEvaluation) at `tolerance`, where
/// `full_error(r)` is the problem's full error. The report's residual is the last full error
/// evaluated (at a breakdown, the full error of `r` then).
#[allow(clippy::too_many_arguments)]
pub(crate) fn iterate<O: ContactOperator>(
    op: &O,
    k: &Contacts<'_>,
    o: &NsgsOptions,
    tolerance: f64,
    schedule: Schedule,
    r: &mut [f64],
    w: &mut [f64],
    ws: &mut Workspace,
    exec: &mut Executor<'_>,
    full_error: &mut (dyn FnMut(&[f64]) -> f64 + Send),
) -> SolverReport {
    let nc = r.len() / 3;
    op.refresh_state(r, w);
    let Workspace { order, classes, updates, anderson, check_r, check_w } = ws;
    order.clear();
    match schedule {
        Schedule::Colours { .. } => order.extend(0..classes.len()),
        _ => order.extend(0..nc),
    }
    let mut rng = StdRng::seed_from_u64(o.shuffle_seed);
    let max_it = o.max_iterations;
    let mut stopping = StoppingTest::new(o, tolerance);
    let mut accelerate = o.anderson_memory > 0;
    if accelerate {
        anderson.reset(o.anderson_memory, r.len());
    }
    let mut sums = FirstPassSums::default();
    // The relaxation in use: `k.omega` until the plain fallback switches to 1.
    let mut k = *k;
    let omega = k.omega;
    let mut fallback = FallbackCheck::new(o.plain_fallback_period, k.omega, accelerate, o.cold_restart);
    // The plain check sweeps done so far (counted with the sweeps).
    let mut checks = 0;
    for it in 1..=max_it {
        let period = Period::of_sweep(it, o.anderson_period);
        // The halves schedule forms the first pass of an extrapolation part by part during
        // the sweep.
        let plan = if accelerate && period.ends() { anderson.plan() } else { None };
        // Whether the sweep kept the Anderson history itself (the natural order), and the plan
        // and sums of the first pass it did then.
        let mut recorded = false;
        let mut swept_pass = None;
        let swept = match schedule {
            Schedule::Halves(layout) => {
                let history = accelerate.then_some((&mut *anderson, period, plan));
                halves_sweep(op, &k, layout, exec, r, w, history, &mut sums)
            }
            Schedule::Colours { min_parallel } => {
                if o.shuffle {
                    order.shuffle(&mut rng);
                    for class in classes.iter_mut() {
                        class.shuffle(&mut rng);
                    }
                }
                let delta: &mut [f64] = if accelerate { &mut anderson.f } else { &mut [] };
                coloured_sweep(op, &k, order, classes, min_parallel, updates, r, delta, w)
            }
            Schedule::Natural if accelerate && !o.shuffle => {
                // The contacts in order, block after block: the period's sums and the first
                // pass follow each block while it is in cache.
                let mut swept = Some(Swept::ZERO);
                let mut sums = FirstPassSums::default();
                for start in (0..nc).step_by(HISTORY_BLOCK) {
                    let Some(so_far) = swept else { break };
                    let end = (start + HISTORY_BLOCK).min(nc);
                    let delta = anderson.increments(period);
                    let part = Part { own: r, first: 0, shared: &[], shared_first: 0, delta, w: &mut *w, w_base: 0 };
                    swept = sweep_part_from(op, &k, start..end, part, so_far);
                    if swept.is_some() {
                        anderson.record_block(period, plan, 3 * start..3 * end, r, &mut sums);
                    }
                }
                recorded = true;
                swept_pass = plan.map(|plan| (plan, sums));
                swept
            }
            Schedule::Natural => {
                if o.shuffle {
                    order.shuffle(&mut rng);
                }
                let delta: &mut [f64] = if accelerate { &mut anderson.f } else { &mut [] };
                let part = Part { own: r, first: 0, shared: &[], shared_first: 0, delta, w, w_base: 0 };
                sweep_part(op, &k, order.iter().copied(), part)
            }
        };
        let Some(Swept { increment, squares }) = swept else {
            return SolverReport::new(SolverStatus::NumericalBreakdown, it, full_error(r));
        };
        if accelerate && !recorded && !matches!(schedule, Schedule::Halves(_)) {
            anderson.sum_period_increments(period);
        }
        let norm_r = &mut || if O::SWEEP_SUMS_SQUARES { squares.sqrt() } else { norm2(r) };
        let plain_check = o.plain_check_sweep && k.omega.to_bits() != 1f64.to_bits();
        // Whether the full error was evaluated on the plain check sweep's copy.
        let mut on_copy = false;
        let stop = {
            let (r, w): (&[f64], &[f64]) = (r, w);
            let mut full = || {
                if plain_check {
                    let plain = Contacts { omega: 1.0, ..k };
                    if plain_sweep_on_copy(
                        op,
                        &plain,
                        schedule,
                        exec,
                        order,
                        classes,
                        updates,
                        (r, w),
                        (check_r, check_w),
                    ) {
                        on_copy = true;
                        return full_error(check_r);
                    }
                }
                full_error(r)
            };
            stopping.check((it + checks).min(max_it), increment, norm_r, &mut full)
        };
        checks += usize::from(on_copy);
        if let Some(mut report) = stop {
            if on_copy && report.status == SolverStatus::Converged {
                r.copy_from_slice(check_r);
                w.copy_from_slice(check_w);
            }
            report.iterations = it + checks;
            return report;
        }
        if it + checks >= max_it {
            return SolverReport::new(SolverStatus::MaxIterations, max_it, stopping.residual);
        }
        if fallback.due(it) {
            match fallback.after(full_error(r)) {
                Fallback::None => {}
                Fallback::Plain => {
                    k.omega = 1.0;
                    accelerate = false;
                }
                Fallback::ColdRestart => {
                    r.fill(0.0);
                    match schedule {
                        Schedule::Halves(layout) => halves_refresh(op, layout, exec, r, w),
                        _ => op.refresh_state(r, w),
                    }
                    k.omega = omega;
                    accelerate = o.anderson_memory > 0;
                    if accelerate {
                        anderson.reset(o.anderson_memory, r.len());
                    }
                    fallback.plain = omega.to_bits() == 1f64.to_bits() && !accelerate;
                    stopping = StoppingTest::new(o, tolerance);
                    continue;
                }
            }
        }
        if accelerate && period.ends() && it < max_it {
            // The extrapolation moved every reaction: the state follows from `r`.
            match (schedule, plan) {
                (Schedule::Halves(layout), Some(plan)) => {
                    halves_extrapolate(layout, exec, r, k.mu, anderson, plan, &sums);
                    halves_refresh(op, layout, exec, r, w);
                }
                _ => extrapolate_and_refresh(op, anderson, swept_pass.as_ref(), r, k.mu, w),
            }
            accelerate = !anderson.is_disabled();
        }
    }
    SolverReport::new(SolverStatus::MaxIterations, max_it, stopping.residual)
}

/// The plain check sweep of [`NsgsOptions::plain_check_sweep`]: copies `r` and `w` into
/// `copy`, then sweeps the copies once in the order of `schedule` with the one-contact solves
/// of `k` and no extrapolation; false when an update failed.
#[allow(clippy::too_many_arguments)]
fn plain_sweep_on_copy<O: ContactOperator>(
    op: &O,
    k: &Contacts<'_>,
    schedule: Schedule,
    exec: &mut Executor<'_>,
    order: &[usize],
    classes: &[Vec<usize>],
    updates: &mut Vec<Option<[f64; 3]>>,
    (r, w): (&[f64], &[f64]),
    (rc, wc): (&mut Vec<f64>, &mut Vec<f64>),
) -> bool {
    rc.clear();
    rc.extend_from_slice(r);
    wc.clear();
    wc.extend_from_slice(w);
    let swept = match schedule {
        Schedule::Halves(layout) => halves_sweep(op, k, layout, exec, rc, wc, None, &mut FirstPassSums::default()),
        Schedule::Colours { min_parallel } => {
            coloured_sweep(op, k, order, classes, min_parallel, updates, rc, &mut [], wc)
        }
        Schedule::Natural => {
            let part = Part { own: rc, first: 0, shared: &[], shared_first: 0, delta: &mut [], w: wc, w_base: 0 };
            sweep_part(op, k, order.iter().copied(), part)
        }
    };
    swept.is_some()
}

/// What the check of [`NsgsOptions::plain_fallback_period`] asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fallback {
    /// Go on as before.
    None,
    /// Go on with plain sweeps (`ω = 1`, no acceleration).
    Plain,
    /// Start again from zero reactions with the options' sweeps
    /// ([`NsgsOptions::cold_restart`]).
    ColdRestart,
}

/// The check of [`NsgsOptions::plain_fallback_period`]: every `period` sweeps, compares the
/// full error with the previous check's; when it has grown, the over-relaxed or accelerated
/// sweeps give way to plain ones and, with [`NsgsOptions::cold_restart`], plain sweeps whose
/// error grows give way once to a start from zero reactions.
struct FallbackCheck {
    period: usize,
    /// The error at the previous check (`+∞` before the first).
    last: f64,
    /// Whether the sweeps are plain (`ω = 1` without acceleration).
    plain: bool,
    /// Whether a cold restart is still allowed.
    restart: bool,
    /// The smallest error of the plain sweeps' checks and how many checks since it.
    best: f64,
    since_best: usize,
}

impl FallbackCheck {
    /// Checks without a new smallest error after which plain sweeps restart cold.
    const PATIENCE: usize = 2;

    fn new(period: usize, omega: f64, accelerate: bool, restart: bool) -> Self {
        let plain = omega.to_bits() == 1f64.to_bits() && !accelerate;
        Self { period, last: f64::INFINITY, plain, restart, best: f64::INFINITY, since_best: 0 }
    }

    /// Whether sweep `it` ends a period of a check still in force.
    fn due(&self, it: usize) -> bool {
        self.period > 0 && (!self.plain || self.restart) && it.is_multiple_of(self.period)
    }

    /// Records the full error `error` of this check and says what to do: plain sweeps once
    /// the error has grown, a cold restart once the plain sweeps have not improved on their
    /// smallest error for [`FallbackCheck::PATIENCE`] checks.
    fn after(&mut self, error: f64) -> Fallback {
        let grew = error > self.last;
        self.last = error;
        if !self.plain {
            if grew {
                self.plain = true;
                self.best = error;
                self.since_best = 0;
                return Fallback::Plain;
            }
            return Fallback::None;
        }
        if error < self.best {
            self.best = error;
            self.since_best = 0;
            return Fallback::None;
        }
        self.since_best += 1;
        if self.since_best < Self::PATIENCE {
            return Fallback::None;
        }
        self.restart = false;
        self.last = f64::INFINITY;
        Fallback::ColdRestart
    }
}

#[cfg(test)]
mod tests {
    use super::{Fallback, FallbackCheck};

    #[test]
    fn the_fallback_goes_plain_then_restarts_once_then_stays_plain() {
        let mut check = FallbackCheck::new(10, 1.5, true, true);
        assert!(!check.due(9) && check.due(10));
        assert_eq!(check.after(1e-2), Fallback::None);
        assert_eq!(check.after(5e-3), Fallback::None);
        assert_eq!(check.after(6e-3), Fallback::Plain);
        // Plain sweeps are still checked while a restart is allowed: a new smallest error
        // resets the patience, a growth alone does not restart.
        assert!(check.due(40));
        assert_eq!(check.after(4e-3), Fallback::None);
        assert_eq!(check.after(4.5e-3), Fallback::None);
        assert_eq!(check.after(3e-3), Fallback::None);
        assert_eq!(check.after(3.5e-3), Fallback::None);
        assert_eq!(check.after(3.2e-3), Fallback::ColdRestart);
        // After the restart the caller's sweeps are accelerated again: the first check
        // compares with nothing, then a growth goes plain for good.
        check.plain = false;
        assert!(check.due(100));
        assert_eq!(check.after(1.0), Fallback::None);
        assert_eq!(check.after(2.0), Fallback::Plain);
        assert!(!check.due(120), "no check once plain without a restart left");
    }

    #[test]
    fn without_cold_restart_plain_sweeps_are_not_checked() {
        let mut check = FallbackCheck::new(10, 1.5, true, false);
        assert_eq!(check.after(1.0), Fallback::None);
        assert_eq!(check.after(2.0), Fallback::Plain);
        assert!(!check.due(30));
        // Plain from the start (ω = 1, no acceleration) and no restart: never checked.
        assert!(!FallbackCheck::new(10, 1.0, false, false).due(10));
        // A period of 0 never checks.
        assert!(!FallbackCheck::new(0, 1.5, true, true).due(0));
    }
}
