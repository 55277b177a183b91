//! Moreau–Jean with projection onto the constraints (Siconos' `MoreauJeanDirectProjectionOSI`
//! with `TimeSteppingDirectProjection`, and `MoreauJeanCombinedProjectionOSI` with
//! `TimeSteppingCombinedProjection`; Siconos developer documentation, "Projection on
//! constraints", position formulation; Acary, "Projected event-capturing time-stepping schemes
//! for nonsmooth mechanical systems with unilateral contact and Coulomb's friction", CMAME 256,
//! 2013).
//!
//! Moreau–Jean enforces the unilateral constraints at velocity level only, so the positions of
//! active contacts may drift into penetration (with nonlinear relations the drift grows with
//! time). After the velocity step, the positions are projected back onto the admissible set by
//! position-level problems in the Euclidean metric,
//!
//! `q ← q + Hᵀ λ`, `0 ≤ H Hᵀ λ + y(q) ⊥ λ ≥ 0` (unilateral rows), `H_E Hᵀ λ + y_E(q) = 0`
//! (bilateral rows),
//!
//! repeated (with `H` and `y` re-evaluated at the new positions) until the violation is below
//! the tolerances or an iteration cap is reached. The velocities are not changed. `λ[0]` and
//! `p[0] = Σ Hᵀ λ[0]` hold the last correction.
//!
//! `H` acts on velocities. A system whose positions differ from its velocities (`q̇ = T(q) v`,
//! Newton–Euler bodies with `q = (x, p)` and the twist `v = (v, Ω)`) is moved through
//! [`SecondOrderDs::displace_position`], `q ← q + T(q) p[0]`, with `T(q) = diag(I₃, ½Ψ(p))`;
//! since `∇_q h · T(q) = H`, the gaps still move by `H Hᵀ λ` to first order (the developer
//! notes' "approach using V"). The body then divides its quaternion by its norm, after every
//! iteration, as Siconos 4.4 does (`TimeSteppingDirectProjection::advanceToEvent`,
//! `NewtonEulerDS::normalizeq`), rather than adding the row `|p| − 1 = 0`. Siconos builds the
//! Newton–Euler problem on the 7-column gradient `∇_q h` (`jachq jachqᵀ`, `q += jachqᵀ λ`,
//! `MLCPProjectOnConstraints`): with `H_Ω = ∇_p h · ½Ψ(p)` and `½Ψ ½Ψᵀ = ¼(I − p pᵀ)`, our
//! quaternion step is `¼(I − p pᵀ) ∇_p hᵀ λ` where Siconos' is `∇_p hᵀ λ` (the Euclidean
//! metric of the twist instead of that of the quaternion coordinates, `|δΩ|² = 4|δp|²`). Both agree on the translation, and on the
//! rotation when the lever arm of the normal is parallel to it (a sphere). A system with positions and
//! velocities of different sizes that does not implement the displacement is refused.
//!
//! [`SecondOrderDs::displace_position`]: crate::model::SecondOrderDs::displace_position
//!
//! - **Direct projection**: after each Moreau–Jean step, on the interactions of index set 1,
//!   while `max(0, −y)` exceeds the unilateral tolerance or `‖y_E‖∞` the bilateral one. Its
//!   activation rule adds an interaction when `y + γhẏ ≤ threshold` (`1e-7` by default) and
//!   removes it when `y + γhẏ > threshold` and `ẏ ≥ 0`.
//! - **Combined projection**: index set 1 starts empty at every step; the step is redone with
//!   the contacts whose projected gap is closed (`y ≤ 0`) added, until no contact is added;
//!   after each pass every contact of the set is projected onto `y = 0` (as an equality) while
//!   `|y|` exceeds the tolerance.

use nonsmooth_numerics::SolverReport;
use nonsmooth_numerics::mlcp::{EnumOptions, MlcpMethod, MlcpSolver};

use super::moreau_jean::{MoreauJeanOptions, MoreauJeanOsi, check_second_order};
pub use super::osi::ProjectionReport;
use super::osi::{
    AfterNewton, Contribution, IndexSetRule, OneStepIntegrator, OsiContext, ProblemLevel, StepInterval, SystemSet,
    is_bilateral,
};
use super::osns::{BlockAssembly, MatrixStorage, OneStepProblem, solve_mlcp_equalities_first};
use crate::KernelError;
use crate::model::{DsId, InteractionId, NonsmoothLaw, Nsds};
use nonsmooth_numerics::matrix::NumericsMatrix;

/// Siconos' MLCP solver of the projection (`MLCPProjectOnConstraints`: enumeration, tolerance
/// `1e-12`, `10⁷` cases).
fn default_method() -> MlcpMethod {
    MlcpMethod::Enum(EnumOptions::default().with_tolerance(1e-12).with_max_iterations(10_000_000))
}

/// Options of the direct projection (Siconos' `TimeSteppingDirectProjection` defaults).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DirectProjectionOptions {
    /// Projection runs while `max(0, −y)` of a unilateral constraint exceeds it (default: `1e-8`).
    pub unilateral_tolerance: f64,
    /// Projection runs while `‖y‖∞` of a bilateral constraint exceeds it (default: `1e-4`).
    pub bilateral_tolerance: f64,
    /// Projection iterations per step (default: `10`).
    pub max_iterations: usize,
    /// Activation threshold of the prediction `y + γhẏ` (default: `1e-7`).
    pub activation_threshold: f64,
    /// Solver of the position-level MLCP (default: enumeration, tolerance `1e-12`).
    pub method: MlcpMethod,
}

impl Default for DirectProjectionOptions {
    fn default() -> Self {
        Self {
            unilateral_tolerance: 1e-8,
            bilateral_tolerance: 1e-4,
            max_iterations: 10,
            activation_threshold: 1e-7,
            method: default_method(),
        }
    }
}

impl DirectProjectionOptions {
    /// Sets the unilateral tolerance.
    pub fn with_unilateral_tolerance(mut self, tolerance: f64) -> Self {
        self.unilateral_tolerance = tolerance;
        self
    }

    /// Sets the bilateral tolerance.
    pub fn with_bilateral_tolerance(mut self, tolerance: f64) -> Self {
        self.bilateral_tolerance = tolerance;
        self
    }

    /// Sets the iteration cap.
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets the activation threshold.
    pub fn with_activation_threshold(mut self, threshold: f64) -> Self {
        self.activation_threshold = threshold;
        self
    }

    /// Sets the MLCP solver.
    pub fn with_method(mut self, method: MlcpMethod) -> Self {
        self.method = method;
        self
    }
}

/// Options of the combined projection (Siconos' `TimeSteppingCombinedProjection` defaults).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CombinedProjectionOptions {
    /// Projection runs while `|y|` of a unilateral constraint of the set reaches it (default:
    /// `1e-8`).
    pub unilateral_tolerance: f64,
    /// Projection runs while `‖y‖∞` of a bilateral constraint exceeds it (default: `1e-8`).
    pub bilateral_tolerance: f64,
    /// Projection iterations per pass (default: `50`).
    pub max_iterations: usize,
    /// Passes (step redone with a larger index set) per step (default: `50`); more is a
    /// non-convergence.
    pub max_passes: usize,
    /// Solver of the position-level problem (default: enumeration, tolerance `1e-12`).
    pub method: MlcpMethod,
}

impl Default for CombinedProjectionOptions {
    fn default() -> Self {
        Self {
            unilateral_tolerance: 1e-8,
            bilateral_tolerance: 1e-8,
            max_iterations: 50,
            max_passes: 50,
            method: default_method(),
        }
    }
}

impl CombinedProjectionOptions {
    /// Sets the unilateral tolerance.
    pub fn with_unilateral_tolerance(mut self, tolerance: f64) -> Self {
        self.unilateral_tolerance = tolerance;
        self
    }

    /// Sets the bilateral tolerance.
    pub fn with_bilateral_tolerance(mut self, tolerance: f64) -> Self {
        self.bilateral_tolerance = tolerance;
        self
    }

    /// Sets the projection iteration cap.
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }

    /// Sets the cap on passes.
    pub fn with_max_passes(mut self, max_passes: usize) -> Self {
        self.max_passes = max_passes;
        self
    }

    /// Sets the MLCP solver.
    pub fn with_method(mut self, method: MlcpMethod) -> Self {
        self.method = method;
        self
    }
}

/// Moreau–Jean with direct projection (Siconos' `MoreauJeanDirectProjectionOSI` with
/// `TimeSteppingDirectProjection`, module documentation).
#[doc(alias = "MoreauJeanDirectProjectionOSI")]
#[derive(Debug)]
pub struct MoreauJeanDirectProjectionOsi {
    pub(crate) inner: MoreauJeanOsi,
    pub(crate) options: DirectProjectionOptions,
    pub(crate) projector: PositionProjector,
}

impl MoreauJeanDirectProjectionOsi {
    /// The scheme with Moreau–Jean options (θ, γ; the activation threshold is the projection's)
    /// and projection options.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for invalid Moreau–Jean options, non-positive or
    /// non-finite tolerances, a zero iteration cap or a non-finite threshold;
    /// [`KernelError::Numerics`] for invalid solver options.
    pub fn new(mj: MoreauJeanOptions, options: DirectProjectionOptions) -> Result<Self, KernelError> {
        check_tolerances(options.unilateral_tolerance, options.bilateral_tolerance, options.max_iterations)?;
        if !options.activation_threshold.is_finite() {
            return Err(KernelError::InvalidOption { name: "activation_threshold", reason: "must be finite" });
        }
        let inner = MoreauJeanOsi::new(mj.with_activation_threshold(options.activation_threshold))?;
        let projector = PositionProjector::new(options.method.clone())?;
        Ok(Self { inner, options, projector })
    }

    /// The Moreau–Jean part.
    pub fn moreau_jean(&self) -> &MoreauJeanOsi {
        &self.inner
    }

    /// The projection options.
    pub fn options(&self) -> &DirectProjectionOptions {
        &self.options
    }

    /// Whether an interaction of index set 1 stays in it: not when `y + γhẏ > threshold` and
    /// `ẏ ≥ 0` (Siconos 4.4 `MoreauJeanDirectProjectionOSI::removeInteractionFromIndexSet`).
    pub(crate) fn stays_active(&self, y0: f64, y1: f64, h: f64) -> bool {
        let predicted = y0 + self.inner.options().gamma * h * y1;
        !(predicted > self.options.activation_threshold && y1 >= 0.0)
    }
}

/// Moreau–Jean with combined projection (Siconos' `MoreauJeanCombinedProjectionOSI` with
/// `TimeSteppingCombinedProjection`, module documentation).
#[doc(alias = "MoreauJeanCombinedProjectionOSI")]
#[derive(Debug)]
pub struct MoreauJeanCombinedProjectionOsi {
    pub(crate) inner: MoreauJeanOsi,
    pub(crate) options: CombinedProjectionOptions,
    pub(crate) projector: PositionProjector,
}

impl MoreauJeanCombinedProjectionOsi {
    /// The scheme with Moreau–Jean options (θ; the activation rule is the scheme's own) and
    /// projection options.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for invalid Moreau–Jean options, non-positive or
    /// non-finite tolerances, or zero caps; [`KernelError::Numerics`] for invalid solver
    /// options.
    pub fn new(mj: MoreauJeanOptions, options: CombinedProjectionOptions) -> Result<Self, KernelError> {
        check_tolerances(options.unilateral_tolerance, options.bilateral_tolerance, options.max_iterations)?;
        if options.max_passes == 0 {
            return Err(KernelError::InvalidOption { name: "max_passes", reason: "must be at least 1" });
        }
        let inner = MoreauJeanOsi::new(mj)?;
        let projector = PositionProjector::new(options.method.clone())?;
        Ok(Self { inner, options, projector })
    }

    /// The Moreau–Jean part.
    pub fn moreau_jean(&self) -> &MoreauJeanOsi {
        &self.inner
    }

    /// The projection options.
    pub fn options(&self) -> &CombinedProjectionOptions {
        &self.options
    }
}

fn check_tolerances(unilateral: f64, bilateral: f64, max_iterations: usize) -> Result<(), KernelError> {
    if !unilateral.is_finite() || unilateral <= 0.0 {
        return Err(KernelError::InvalidOption { name: "unilateral_tolerance", reason: "must be finite and positive" });
    }
    if !bilateral.is_finite() || bilateral <= 0.0 {
        return Err(KernelError::InvalidOption { name: "bilateral_tolerance", reason: "must be finite and positive" });
    }
    if max_iterations == 0 {
        return Err(KernelError::InvalidOption { name: "max_iterations", reason: "must be at least 1" });
    }
    Ok(())
}

/// Rows of an interaction taking part in the projection, and whether they are equalities.
fn projection_rows(law: &NonsmoothLaw, size: usize) -> (usize, bool) {
    match law {
        // Only the normal component of a frictional contact is projected.
        NonsmoothLaw::NewtonImpactFriction { .. } => (1, false),
        NonsmoothLaw::Equality { .. } => (size, true),
        _ => (size, false),
    }
}

/// Violations `(max(0, −y) over unilateral rows, |y| over unilateral rows, ‖y‖∞ over
/// bilateral rows)` of the interactions `ids` at their current outputs.
pub(crate) fn violations(nsds: &Nsds, ids: &[InteractionId]) -> (f64, f64, f64) {
    let (mut penetration, mut gap, mut bilateral) = (0.0f64, 0.0f64, 0.0f64);
    for &id in ids {
        let inter = nsds.interaction_ref(id);
        let (rows, equality) = projection_rows(&inter.law, inter.size);
        for &y in &inter.y[0][..rows] {
            if equality {
                bilateral = bilateral.max(y.abs());
            } else {
                penetration = penetration.max(-y);
                gap = gap.max(y.abs());
            }
        }
    }
    (penetration.max(0.0), gap, bilateral)
}

/// The position-level problem of the projection and its solver.
pub(crate) struct PositionProjector {
    solver: Box<dyn MlcpSolver + Send>,
    assembly: BlockAssembly,
    z: Vec<f64>,
    w: Vec<f64>,
}

impl std::fmt::Debug for PositionProjector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PositionProjector").finish_non_exhaustive()
    }
}

impl PositionProjector {
    fn new(method: MlcpMethod) -> Result<Self, KernelError> {
        Ok(Self { solver: method.build()?, assembly: BlockAssembly::default(), z: Vec::new(), w: Vec::new() })
    }

    /// One projection iteration on the interactions `ids` (non-empty), at their current
    /// outputs and Jacobians: solves `H Hᵀ λ + y = w` with `0 ≤ w ⊥ λ ≥ 0` on unilateral rows
    /// (or `w = 0` on every row with `all_equalities`) and `w = 0` on bilateral rows, stores
    /// `λ[0]` and `p[0] = Σ Hᵀ λ[0]`, moves `q += p[0]`, and recomputes every output at `t`.
    pub(crate) fn project(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        ids: &[InteractionId],
        all_equalities: bool,
        t: f64,
    ) -> Result<SolverReport, KernelError> {
        // Row of each interaction's first projected component, and the equality flags.
        let mut first = Vec::with_capacity(ids.len());
        let mut equality = Vec::new();
        for &id in ids {
            let inter = nsds.interaction_ref(id);
            let (rows, eq) = projection_rows(&inter.law, inter.size);
            first.push(equality.len());
            equality.extend(std::iter::repeat_n(eq || all_equalities, rows));
        }
        let n = equality.len();
        // A = H Hᵀ (blocks through shared systems, `W = I`) and q = y.
        self.assembly.clear();
        for &id in ids {
            let inter = nsds.interaction_ref(id);
            self.assembly.push(inter, projection_rows(&inter.law, inter.size).0);
        }
        let a = match self.assembly.matrix(nsds, &|_, _| {}, MatrixStorage::Dense, None)? {
            NumericsMatrix::Dense(a) => a,
            other => other.to_dense(),
        };
        let mut q = vec![0.0; n];
        for (k, &id) in ids.iter().enumerate() {
            let inter = nsds.interaction_ref(id);
            let rows = projection_rows(&inter.law, inter.size).0;
            q[first[k]..first[k] + rows].copy_from_slice(&inter.y[0][..rows]);
        }
        self.z.clear();
        self.z.resize(n, 0.0);
        self.w.clear();
        self.w.resize(n, 0.0);
        let report = solve_mlcp_equalities_first(&mut *self.solver, &a, &q, &equality, &mut self.z, &mut self.w)?;
        // λ[0] (zero on the components that are not projected).
        let lambda = &self.z;
        for (k, &id) in ids.iter().enumerate() {
            let inter = nsds.interaction_mut(id);
            let rows = projection_rows(&inter.law, inter.size).0;
            inter.lambda[0].fill(0.0);
            inter.lambda[0][..rows].copy_from_slice(&lambda[first[k]..first[k] + rows]);
        }
        // p[0] = Σ Hᵀ λ[0] (velocity coordinates); q ← q + T(q) p[0] on the systems of the
        // projection's integrator (`q += p[0]` when `T = I`; Newton–Euler bodies also bring
        // their quaternion back to the unit sphere, as Siconos does after every iteration).
        for slot in 0..nsds.ds_bound() {
            if let Some(ds) = nsds.ds_slot_mut(slot).filter(|_| systems.contains_slot(slot)) {
                ds.state_mut().p[0].fill(0.0);
            }
        }
        nsds.accumulate_inputs_at(ids, 0);
        for slot in 0..nsds.ds_bound() {
            if let Some(ds) = nsds.ds_slot_mut(slot).filter(|_| systems.contains_slot(slot)) {
                // Taking the vectors out of the state moves no data (no allocation).
                let state = ds.state_mut();
                let mut q = std::mem::take(&mut state.q);
                let delta = std::mem::take(&mut state.p[0]);
                ds.displace_position(&delta, &mut q);
                let state = ds.state_mut();
                state.q = q;
                state.p[0] = delta;
            }
        }
        for slot in 0..nsds.interaction_bound() {
            if let Some(id) = nsds.interaction_at(slot)
                && systems.owns(nsds.interaction_ref(id))
            {
                nsds.update_output(id, t)?;
            }
        }
        Ok(report)
    }
}

/// Zeroes `λ[0]` of the interactions and `p[0]` of the systems of `systems`.
fn clear_position_inputs(nsds: &mut Nsds, systems: &SystemSet) {
    for slot in 0..nsds.interaction_bound() {
        if let Some(id) = nsds.interaction_at(slot) {
            let inter = nsds.interaction_mut(id);
            if systems.owns(inter) {
                inter.lambda[0].fill(0.0);
            }
        }
    }
    for slot in 0..nsds.ds_bound() {
        if let Some(ds) = nsds.ds_slot_mut(slot).filter(|_| systems.contains_slot(slot)) {
            ds.state_mut().p[0].fill(0.0);
        }
    }
}

/// Checks that system `id` is a second-order system that the projection can move: positions
/// and velocities of the same size (`q ← q + Hᵀλ`), or a system with `T(q) ≠ I` that implements
/// [`SecondOrderDs::displace_position`] (`q ← q + T(q) Hᵀλ`, Newton–Euler bodies).
///
/// [`SecondOrderDs::displace_position`]: crate::model::SecondOrderDs::displace_position
fn check_projectable(scheme: &str, nsds: &Nsds, id: DsId) -> Result<(), KernelError> {
    check_second_order(scheme, nsds, id)?;
    let ds = nsds.ds(id)?;
    if !ds.can_displace_position() {
        return Err(KernelError::InvalidModel(format!(
            "{scheme}: system {} has positions of size {} and velocities of size {} and does not implement \
             the displacement q ← q + T(q) δ that the projection onto the constraints needs",
            id.index(),
            ds.position_size(),
            ds.velocity_size()
        )));
    }
    Ok(())
}

/// The interactions of `systems` in `index_set`, in its order.
fn own_interactions(nsds: &Nsds, systems: &SystemSet, index_set: &[InteractionId]) -> Vec<InteractionId> {
    index_set.iter().copied().filter(|&id| systems.owns(nsds.interaction_ref(id))).collect()
}

/// Projection iterations on the interactions of `systems` in `index_set`, from zero position
/// inputs, while the violation exceeds the tolerances: unilateral rows by `max(0, −y)`, or, with
/// `all_equalities` (combined projection), by `|y|`. Returns the report of the projection
/// (`passes` 1).
#[allow(clippy::too_many_arguments)]
fn project_while_violated(
    projector: &mut PositionProjector,
    nsds: &mut Nsds,
    systems: &SystemSet,
    index_set: &[InteractionId],
    all_equalities: bool,
    (tol_u, tol_b, max_it): (f64, f64, usize),
    t: f64,
) -> Result<ProjectionReport, KernelError> {
    clear_position_inputs(nsds, systems);
    let ids = &own_interactions(nsds, systems, index_set)[..];
    let unilateral = |(pen, gap, _): (f64, f64, f64)| if all_equalities { gap >= tol_u } else { pen > tol_u };
    let mut measured = violations(nsds, ids);
    let mut running = !ids.is_empty() && (unilateral(measured) || measured.2 > tol_b);
    let mut iterations = 0;
    let mut last_problem = None;
    while running && iterations < max_it {
        iterations += 1;
        let report = projector.project(nsds, systems, ids, all_equalities, t)?;
        last_problem = Some(report);
        measured = violations(nsds, ids);
        running = unilateral(measured) || measured.2 > tol_b;
        if !report.is_converged() {
            break;
        }
    }
    Ok(ProjectionReport {
        iterations,
        passes: 1,
        max_unilateral_violation: measured.0,
        max_bilateral_violation: measured.2,
        converged: !running,
        last_problem,
    })
}

/// The integrator methods the projection schemes take from their Moreau–Jean part.
macro_rules! moreau_jean_steps {
    () => {
        fn problem_level(&self) -> ProblemLevel {
            ProblemLevel::Velocity
        }

        fn check_system(&self, nsds: &Nsds, ds: DsId) -> Result<(), KernelError> {
            check_projectable(self.name(), nsds, ds)
        }

        fn initialize(
            &mut self,
            nsds: &mut Nsds,
            systems: &SystemSet,
            step: &StepInterval,
            first: bool,
        ) -> Result<(), KernelError> {
            self.inner.initialize_on(nsds, systems, step, first)
        }

        fn is_linear(&self, nsds: &Nsds, systems: &SystemSet) -> bool {
            self.inner.is_linear_on(nsds, systems)
        }

        fn begin_newton(&mut self, ctx: OsiContext<'_>, linear: bool) -> Result<f64, KernelError> {
            let OsiContext { nsds, step, .. } = ctx;
            self.inner.begin_newton_on(nsds, step, linear)
        }

        fn prepare_newton_iteration(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
            let OsiContext { nsds, interactions, step, .. } = ctx;
            self.inner.prepare_iteration_on(nsds, interactions, step)
        }

        fn compute_free_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
            let OsiContext { nsds, .. } = ctx;
            self.inner.compute_free_state(nsds);
            Ok(())
        }

        fn contribution(&self) -> Contribution<'_> {
            Contribution::SecondOrder(&self.inner)
        }

        fn update_state(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
            let OsiContext { nsds, step, .. } = ctx;
            self.inner.update_state(nsds, step.h);
            Ok(())
        }

        fn newton_residual(&mut self, ctx: OsiContext<'_>, _problem: &dyn OneStepProblem) -> Result<f64, KernelError> {
            let OsiContext { nsds, step, .. } = ctx;
            self.inner.compute_residu(nsds, step.t_old, step.t, step.h)
        }

        fn reads_new_outputs(&self) -> bool {
            true
        }

        /// The projection moved the positions: the forces are evaluated at the final state.
        fn commit(&mut self, ctx: OsiContext<'_>) -> Result<(), KernelError> {
            let OsiContext { nsds, step, .. } = ctx;
            self.inner.swap_memories(nsds, step.t, false)
        }
    };
}

/// Moreau–Jean, then the projection of the positions of index set 1 onto the constraints.
impl OneStepIntegrator for MoreauJeanDirectProjectionOsi {
    fn name(&self) -> &'static str {
        "Moreau–Jean with direct projection"
    }

    moreau_jean_steps!();

    fn index_set_rule(&self) -> IndexSetRule {
        IndexSetRule::Activation
    }

    fn enters(&self, y0: f64, y1: f64, h: f64) -> bool {
        self.inner.is_active(y0, y1, h)
    }

    fn stays(&self, y0: f64, y1: f64, h: f64) -> bool {
        self.stays_active(y0, y1, h)
    }

    fn after_newton(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        index_set: &mut Vec<InteractionId>,
        step: &StepInterval,
        _pass: usize,
    ) -> Result<AfterNewton, KernelError> {
        let o = &self.options;
        let tolerances = (o.unilateral_tolerance, o.bilateral_tolerance, o.max_iterations);
        let report = project_while_violated(&mut self.projector, nsds, systems, index_set, false, tolerances, step.t)?;
        Ok(AfterNewton::Done(Some(report)))
    }
}

/// Moreau–Jean whose index set 1 is built from the projected positions: it starts with the
/// bilateral constraints only, and the step is solved again while the projection closes
/// contacts.
impl OneStepIntegrator for MoreauJeanCombinedProjectionOsi {
    fn name(&self) -> &'static str {
        "Moreau–Jean with combined projection"
    }

    moreau_jean_steps!();

    fn index_set_rule(&self) -> IndexSetRule {
        IndexSetRule::Managed
    }

    /// Output memories from the outputs; index set 1 emptied but for the bilateral
    /// constraints, always in it.
    fn begin_step(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        index_set: &mut Vec<InteractionId>,
        _step: &StepInterval,
    ) -> Result<(), KernelError> {
        for slot in 0..nsds.interaction_bound() {
            let Some(id) = nsds.interaction_at(slot) else { continue };
            let inter = nsds.interaction_mut(id);
            if systems.owns(inter) {
                inter.swap_output_memories();
            }
        }
        let mut kept = Vec::with_capacity(index_set.len());
        for id in index_set.drain(..) {
            let inter = nsds.interaction_mut(id);
            if !systems.owns(inter) || is_bilateral(inter) {
                kept.push(id);
            } else {
                inter.active = false;
                inter.lambda[1].fill(0.0);
            }
        }
        *index_set = kept;
        for slot in 0..nsds.interaction_bound() {
            let Some(id) = nsds.interaction_at(slot) else { continue };
            let inter = nsds.interaction_mut(id);
            if systems.owns(inter) && !inter.active && is_bilateral(inter) {
                inter.active = true;
                index_set.push(id);
            }
        }
        Ok(())
    }

    /// Projects the interactions of index set 1 onto `y = 0`, then adds the contacts closed at
    /// the projected positions and asks for the step again, up to `max_passes` solves.
    fn after_newton(
        &mut self,
        nsds: &mut Nsds,
        systems: &SystemSet,
        index_set: &mut Vec<InteractionId>,
        step: &StepInterval,
        pass: usize,
    ) -> Result<AfterNewton, KernelError> {
        let o = &self.options;
        let tolerances = (o.unilateral_tolerance, o.bilateral_tolerance, o.max_iterations);
        let max_passes = o.max_passes;
        let mut report =
            project_while_violated(&mut self.projector, nsds, systems, index_set, true, tolerances, step.t)?;
        report.passes = pass;
        // Contacts closed at the projected positions join index set 1.
        let mut added = false;
        for slot in 0..nsds.interaction_bound() {
            let Some(id) = nsds.interaction_at(slot) else { continue };
            let inter = nsds.interaction_mut(id);
            if systems.owns(inter) && !inter.active && inter.y[0][0] <= 0.0 {
                inter.active = true;
                index_set.push(id);
                added = true;
            }
        }
        if !added {
            return Ok(AfterNewton::Done(Some(report)));
        }
        if pass >= max_passes {
            report.converged = false;
            return Ok(AfterNewton::Done(Some(report)));
        }
        Ok(AfterNewton::Redo)
    }
}
