//! The mixed mechanical one-step problem (Siconos' `GenericMechanical` one-step problem, kernel
//! file `GenericMechanical.cpp`, solved by numerics' `GenericMechanicalProblem`).
//!
//! The interactions of second-order systems are assembled as for the other velocity-level
//! problems, `w = M λ + q` with `M_αβ = Σ_j H_α^j W_j⁻¹ (H_β^j)ᵀ` in sparse-block storage (one
//! block row and column per interaction), and each interaction's diagonal block takes the law
//! of its nonsmooth law:
//! - [`NonsmoothLaw::Equality`] → an equality block, `w_α = 0` (joints);
//! - [`NonsmoothLaw::NewtonImpact`] → a complementarity block, `0 ≤ λ_α ⊥ w_α ≥ 0` (the
//!   restitution term `e ẏ_k` is in `q_α`);
//! - [`NonsmoothLaw::NewtonImpactFriction`] of dimension 2 or 3 → a 2D or 3D Coulomb block with
//!   its friction coefficient `μ` (De Saxcé's form, the restitution terms in `q_α`).
//!
//! The problem ([`MixedProblem`]) is solved by the block Gauss–Seidel of numerics
//! ([`GmpNsgsSolver`], Siconos' `SICONOS_GENERIC_MECHANICAL_NSGS`). References: V. Acary,
//! B. Brogliato, *Numerical Methods for Nonsmooth Dynamical Systems*, Springer, 2008, sections
//! 10.3 and 13.7; Siconos documentation, "GenericMechanical".

use nonsmooth_numerics::SolverReport;
use nonsmooth_numerics::gmp::{BlockKind, GmpNsgsSolver, MixedProblem};
use nonsmooth_numerics::matrix::NumericsMatrix;

use super::assembly::BlockShape;
use crate::KernelError;
use crate::model::NonsmoothLaw;

/// The block law of an interaction of a second-order system with nonsmooth law `law` and
/// `size` rows in the mixed problem.
///
/// # Errors
/// [`KernelError::InvalidModel`] for a law the mixed problem does not hold (the laws of
/// first-order systems: complementarity, mixed complementarity, relay), or a frictional law
/// whose dimension is not its interaction's size.
pub(crate) fn block_kind(law: NonsmoothLaw, size: usize) -> Result<BlockKind, KernelError> {
    match law {
        NonsmoothLaw::Equality { .. } => Ok(BlockKind::Equality),
        NonsmoothLaw::NewtonImpact(_) => Ok(BlockKind::Complementarity),
        NonsmoothLaw::NewtonImpactFriction(f) if f.dimension() == size && size == 2 => {
            Ok(BlockKind::Fc2d { mu: f.friction() })
        }
        NonsmoothLaw::NewtonImpactFriction(f) if f.dimension() == size && size == 3 => {
            Ok(BlockKind::Fc3d { mu: f.friction() })
        }
        law => Err(KernelError::InvalidModel(format!(
            "a mixed mechanical problem holds equality, Newton impact and Newton impact friction \
             laws (2D or 3D) of second-order systems, not {law:?} on {size} rows"
        ))),
    }
}

/// Whether the mixed problem holds an interaction with law `law` (of a first-order system when
/// `first_order`).
pub(crate) fn accepts(law: NonsmoothLaw, first_order: bool) -> bool {
    !first_order
        && match law {
            NonsmoothLaw::Equality { .. } | NonsmoothLaw::NewtonImpact(_) => true,
            NonsmoothLaw::NewtonImpactFriction(f) => matches!(f.dimension(), 2 | 3),
            _ => false,
        }
}

/// Solves the mixed problem of the interactions `blocks` (in the problem's order) with the
/// matrix `matrix` (sparse-block, one block per interaction) and the vector `q`: `z` is the
/// start on entry and `λ` on exit, `w = M z + q`. Returns the solver's report, the matrix and
/// `q` (kept by the one-step problem for the next step).
///
/// # Errors
/// [`KernelError::InvalidModel`] for a dense matrix or a law the problem does not hold;
/// [`KernelError::Numerics`] for the problem's validation (e.g. a singular equality block,
/// redundant joint rows) and the solver's errors.
pub(crate) fn solve(
    solver: &mut GmpNsgsSolver,
    matrix: NumericsMatrix,
    q: Vec<f64>,
    blocks: &[BlockShape],
    z: &mut [f64],
    w: &mut [f64],
) -> Result<(SolverReport, NumericsMatrix, Vec<f64>), KernelError> {
    let NumericsMatrix::SparseBlock(m) = matrix else {
        return Err(KernelError::InvalidModel("a mixed mechanical problem is assembled sparse-block".into()));
    };
    let kinds = blocks.iter().map(|b| block_kind(b.law, b.size)).collect::<Result<Vec<_>, _>>()?;
    let problem = MixedProblem::new(m, q, kinds)?;
    let report = solver.solve(&problem, z, w)?;
    let (m, q, _) = problem.into_parts();
    Ok((report, NumericsMatrix::SparseBlock(m), q))
}
