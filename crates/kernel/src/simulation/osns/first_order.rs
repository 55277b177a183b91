//! The one-step problems of first-order systems at level 0 (Siconos' `LinearOSNS` with
//! `EulerMoreauOSI`; Siconos developer documentation, "OneStepNSProblem formalisation for
//! several interactions", and Acary and Brogliato 2008, section 10.2):
//! on every interaction (index set 0, in slot order),
//!
//! `y = M λ + q`, `M_αα = D_α + Σ_j (h C_α^j)(W_j⁻¹ (γ B_α^j))`,
//! `M_αβ = Σ_{j shared} (h C_α^j)(W_j⁻¹ (γ B_β^j))`, `q_α = y_p^α`,
//!
//! with `y_p = C x_free + e` for linear relations and `y_p = h(x^α, λ^α) + C(x_p − x^α) − D λ^α`
//! otherwise. The `γ` factor is there only with an explicit γ (as in Siconos). The LCP, relay
//! or MLCP is then solved and `λ[0]` stored in the interactions; for an MLCP the equality rows of
//! all interactions are put first.

use super::FirstOrderContribution;
use super::{MatrixStorage, OneStepNsProblem, Solver, solve_mlcp_equalities_first};
use crate::KernelError;
use crate::model::{FirstOrderRelationKind, InteractionId, NonsmoothLaw, Nsds, Relation};
use nonsmooth_numerics::SolverReport;
use nonsmooth_numerics::lcp::LcpProblem;
use nonsmooth_numerics::matrix::NumericsMatrix;
use nonsmooth_numerics::relay::RelayProblem;

impl OneStepNsProblem {
    /// Assembles and solves the level-0 problem of the first-order interactions `ids` from
    /// their integrator's contribution `osi` (the step of the blocks and whether the matrix is
    /// constant are the contribution's). Returns `None` without interactions.
    pub(crate) fn compute_first_order(
        &mut self,
        nsds: &mut Nsds,
        osi: &dyn FirstOrderContribution,
        ids: &[InteractionId],
        t: f64,
    ) -> Result<Option<SolverReport>, KernelError> {
        let (h_block, constant_operators) = (osi.block_step(), osi.constant_operators());
        self.last_size = 0;
        if ids.is_empty() {
            return Ok(None);
        }
        // The interactions' operators for the blocks `(h C_α^j)(W_j⁻¹ (γ B_β^j))`, with `D_α`.
        let gamma = osi.block_gamma();
        self.assembly.clear();
        for &id in ids {
            let inter = nsds.interaction_ref(id);
            let work = inter.first_order.as_ref().ok_or_else(|| {
                KernelError::InvalidModel(format!("interaction {} is not a first-order interaction", id.index()))
            })?;
            self.assembly.push_first_order(inter, (&work.c, &work.b, &work.d), h_block, gamma);
        }
        let n = self.assembly.size();
        self.last_size = n;

        let gamma_for_relation = osi.full_theta_gamma();
        // x_k of every system (the full θ-γ scheme needs them).
        let x_memories: Vec<Option<Vec<f64>>> = if gamma_for_relation {
            (0..nsds.ds_bound())
                .map(|i| nsds.ds_at(i).and_then(|d| nsds.first_order_ds(d).ok()).map(|d| d.state().x_memory().to_vec()))
                .collect()
        } else {
            Vec::new()
        };
        // q = y_p.
        self.q.clear();
        self.q.resize(n, 0.0);
        for (k, &id) in ids.iter().enumerate() {
            let pos = self.assembly.positions[k];
            let inter = nsds.interaction_mut(id);
            let m = inter.size;
            let work = inter.first_order.as_mut().expect("a first-order interaction");
            let Relation::FirstOrder(relation) = &mut inter.relation else {
                unreachable!("a first-order interaction has a first-order relation")
            };
            // Gather the partial states (the free states for linear relations; with the full
            // θ-γ scheme, γ x_free + (1−γ) x_k).
            let mut off = 0;
            for &d in &inter.ds {
                let xp = osi.partial_state(d);
                let len = xp.len();
                if gamma_for_relation {
                    let x_memory = x_memories[d.index()].as_deref().unwrap_or(&[]);
                    osi.gamma_state(d, x_memory, &mut work.x_work[off..off + len]);
                } else {
                    work.x_work[off..off + len].copy_from_slice(xp);
                }
                off += len;
            }
            let q_alpha = &mut self.q[pos..pos + m];
            if relation.kind() == FirstOrderRelationKind::Linear || gamma_for_relation {
                if relation.kind() != FirstOrderRelationKind::Linear {
                    return Err(KernelError::InvalidModel(
                        "the full θ-γ scheme (gamma_for_relation) needs linear relations".into(),
                    ));
                }
                // y_p = C x_free + e: the output at λ = 0.
                let zeros = vec![0.0; m];
                relation.output(t, &work.x_work, &zeros, q_alpha)?;
            } else {
                // y_p = h(x^α, λ^α) + C (x_p − x^α) − D λ^α (x^α, h, C, D from the last
                // linearization).
                q_alpha.copy_from_slice(&work.h_alpha);
                for (i, qi) in q_alpha.iter_mut().enumerate() {
                    let mut s = 0.0;
                    for j in 0..work.x_work.len() {
                        s += work.c[(i, j)] * (work.x_work[j] - work.x_alpha[j]);
                    }
                    let mut dl = 0.0;
                    for j in 0..m {
                        dl += work.d[(i, j)] * work.lambda_alpha[j];
                    }
                    *qi += s - dl;
                }
            }
        }

        // The matrix, reused while the operators and the interactions are unchanged.
        let reuse = self.reusable(constant_operators, nsds.topology_version, ids);
        let matrix = match self.matrix.take() {
            Some(m) if reuse => m,
            spare => self.assembly.matrix(nsds, &|d, x| osi.solve_w(d, x), MatrixStorage::Dense, spare)?,
        };
        self.start_from(nsds, ids, 0, n);

        let q = std::mem::take(&mut self.q);
        let (report, matrix) = match &mut self.solver {
            Solver::Lcp(solver) => {
                let problem = LcpProblem::new(matrix, q)?;
                let report = solver.solve(&problem, &mut self.z, &mut self.w)?;
                let (matrix, q) = problem.into_parts();
                self.q = q;
                (report, matrix)
            }
            Solver::Relay(solver) => {
                let (mut lb, mut ub) = (Vec::with_capacity(n), Vec::with_capacity(n));
                for &id in ids {
                    let inter = nsds.interaction_ref(id);
                    let NonsmoothLaw::Relay(relay) = inter.law else {
                        return Err(KernelError::InvalidModel("a relay problem holds relay laws only".into()));
                    };
                    lb.extend(std::iter::repeat_n(relay.lower(), inter.size));
                    ub.extend(std::iter::repeat_n(relay.upper(), inter.size));
                }
                let problem = RelayProblem::new(matrix, q, lb, ub)?;
                let report = solver.solve(&problem, &mut self.z, &mut self.w)?;
                let (matrix, q, ..) = problem.into_parts();
                self.q = q;
                (report, matrix)
            }
            Solver::Mlcp(solver) => {
                // Equality rows first: a permutation of rows and columns.
                let mut equality = Vec::with_capacity(n);
                for &id in ids {
                    let inter = nsds.interaction_ref(id);
                    let eq = match inter.law {
                        NonsmoothLaw::Equality(law) => law.size(),
                        NonsmoothLaw::MixedComplementarity(law) => law.equalities(),
                        _ => 0,
                    };
                    equality.extend((0..inter.size).map(|i| i < eq));
                }
                let report = match &matrix {
                    NumericsMatrix::Dense(dense) => {
                        solve_mlcp_equalities_first(&mut **solver, dense, &q, &equality, &mut self.z, &mut self.w)?
                    }
                    other => {
                        let dense = other.to_dense();
                        solve_mlcp_equalities_first(&mut **solver, &dense, &q, &equality, &mut self.z, &mut self.w)?
                    }
                };
                self.q = q;
                (report, matrix)
            }
            Solver::Fc2d(_) | Solver::Fc3d(_) | Solver::Fc3dFactored(..) | Solver::Mixed(_) => {
                return Err(KernelError::InvalidModel(
                    "frictional-contact and mixed mechanical problems hold laws of second-order systems".into(),
                ));
            }
        };
        self.keep_matrix(matrix, ids, nsds.topology_version, constant_operators);
        for (k, &id) in ids.iter().enumerate() {
            let pos = self.assembly.positions[k];
            let inter = nsds.interaction_mut(id);
            let m = inter.size;
            inter.lambda[0].copy_from_slice(&self.z[pos..pos + m]);
        }
        Ok(Some(report))
    }
}
