//! What a one-step problem reads of the integrators of its systems (Siconos' `LinearOSNS`
//! asks each interaction's `OneStepIntegrator` for its blocks and its part of `q`; the Siconos
//! documentation, "Simulation component"): the problem's level, and for each system its free
//! state and the action of the inverse of its iteration matrix.

use crate::model::DsId;

/// Which one-step problem of a time-stepping simulation an integrator's interactions enter.
/// Integrators of the same level share one problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProblemLevel {
    /// Velocity level of second-order systems (Moreau–Jean): `q_α = H_α v_free (+ ∂h/∂t) +
    /// e ẏ_k`, unknown `λ[1]`, input `p[1] = Σ Hᵀ λ[1]`.
    Velocity,
    /// Position level of second-order systems (Schatzman–Paoli): `q_α = h(q_free) + e y_{k−1}`,
    /// unknown `λ[0]`, input `p[0]`.
    Position,
    /// Level 0 of first-order systems (Euler–Moreau): `q_α = y_p`, unknown `λ[0]`, input
    /// `r = B λ`.
    FirstOrder,
    /// Velocity level of second-order systems posed in the global form (Moreau–Jean global,
    /// Siconos' `MoreauJeanGOSI` with `GlobalFrictionContact`): the velocities `v_{k+1}` of the
    /// systems are unknowns with the multipliers, `Ŵ v = Ŵ v_free + H λ[1]`,
    /// `u = Hᵀ v + b`; unknowns `v` and `λ[1]`, input `p[1] = Σ Hᵀ λ[1]`.
    GlobalVelocity,
}

/// What a second-order integrator hands to a one-step problem for each of its systems: the
/// free state the problem's vector reads (`q_α = H_α v_free + …` at velocity level,
/// `h(q_free) + …` at position level) and its iteration matrix `W`, whose inverse enters the
/// blocks `H_α W⁻¹ H_βᵀ`.
pub trait SecondOrderContribution {
    /// The free state of system `ds` (the state it reaches with a zero input).
    fn free(&self, ds: DsId) -> &[f64];

    /// Applies `W_ds⁻¹` in place.
    fn solve_w(&self, ds: DsId, x: &mut [f64]);

    /// The diagonal of `W_ds` when the integrator applies `W_ds⁻¹` by dividing the non-zero
    /// entries by it (the factored frictional-contact operator then keeps `W⁻¹` as a
    /// diagonal); `None` otherwise (the default).
    fn diagonal_w(&self, _ds: DsId) -> Option<&[f64]> {
        None
    }

    /// The iteration matrix `W_ds` itself (`W = M + hθC + h²θ²K`, or its nonlinear form at the
    /// Newton iterate), which the global problems take as their block of `M`; `None` when the
    /// integrator does not hand it out (the default).
    fn iteration_matrix(&self, _ds: DsId) -> Option<&faer::Mat<f64>> {
        None
    }
}

/// What a first-order integrator hands to a one-step problem for each of its systems
/// (Acary and Brogliato 2008, section 10.2; Siconos' `EulerMoreauOSI`): the partial state
/// `x_p` the problem's vector reads, `W⁻¹` for the blocks `h C W⁻¹ γ B`, and the scheme's γ.
pub trait FirstOrderContribution {
    /// The partial state `x_p` of system `ds` (the free state for linear relations).
    fn partial_state(&self, ds: DsId) -> &[f64];

    /// Applies `W_ds⁻¹` in place.
    fn solve_w(&self, ds: DsId, x: &mut [f64]);

    /// The factor γ on `B` in the blocks, when explicit (`None`: no factor).
    fn block_gamma(&self) -> Option<f64>;

    /// Whether the full θ-γ scheme is on: then the problem reads
    /// [`FirstOrderContribution::gamma_state`] in place of the partial state (default: no).
    fn full_theta_gamma(&self) -> bool {
        false
    }

    /// `x_{k+γ} = γ x_free + (1−γ) x_k` of system `ds` into `out`, from its `x_k` (`x_memory`);
    /// read only with [`FirstOrderContribution::full_theta_gamma`] (default: `out` unchanged).
    fn gamma_state(&self, _ds: DsId, _x_memory: &[f64], _out: &mut [f64]) {}

    /// The step `h` of the blocks (`t₁ − t₀` when the matrix is built once).
    fn block_step(&self) -> f64;

    /// Whether every operator of the blocks is constant (then the matrix is reused while the
    /// interactions do not change).
    fn constant_operators(&self) -> bool;
}

/// The contribution of an integrator to the one-step problem of its level.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum Contribution<'a> {
    /// Second-order systems (velocity or position level).
    SecondOrder(&'a dyn SecondOrderContribution),
    /// First-order systems.
    FirstOrder(&'a dyn FirstOrderContribution),
}

impl std::fmt::Debug for Contribution<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Contribution::SecondOrder(_) => f.write_str("Contribution::SecondOrder"),
            Contribution::FirstOrder(_) => f.write_str("Contribution::FirstOrder"),
        }
    }
}
