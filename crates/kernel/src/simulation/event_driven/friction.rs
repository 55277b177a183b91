//! Coulomb friction in the event-driven scheme: the sticking and sliding modes of the persistent
//! contacts, the problems solved at each level and the friction root functions (Pfeiffer and
//! Glocker, "Multibody Dynamics with Unilateral Contacts", Wiley 1996, chapters 6–7; Acary and
//! Brogliato, "Numerical Methods for Nonsmooth Dynamical Systems", Springer 2008, chapter 7;
//! Siconos documentation, "Event-Driven schemes", the index sets and the event-driven treatment
//! of frictional contacts).
//!
//! A frictional contact `α` (law `NewtonImpactFriction` of dimension `D = 2` or 3, relation of
//! `D` rows: normal `y_N`, then the tangential rows) has local velocities `u = (u_N, u_T) = G v`
//! and reactions `λ = (λ_N, λ_T)`.
//!
//! **Impact (velocity level)**, on `I_1` when `I_1 − I_2 ≠ ∅`: the local frictional contact
//! problem (FC2D or FC3D of `nonsmooth_numerics`, as the time-stepping's velocity-level problem)
//! `u⁺ = W λ[1] + q`, `W = G M⁻¹ Gᵀ`, `q = G v⁻ + (e_N u_N⁻, e_T u_T⁻)`, each contact in
//! Coulomb's cone complementarity `K_μ ∋ λ[1] ⊥ û ∈ K_μ*` (De Saxcé's modified velocity), so
//! the normal row is Newton's restitution `u_N⁺ + e_N u_N⁻ ≥ 0 ⊥ λ_N ≥ 0` and the tangential
//! impulse sticks (`u_T⁺ + e_T u_T⁻ = 0`, `‖λ_T‖ ≤ μ λ_N`) or slides (`λ_T = −μ λ_N` along the
//! post-impact tangential velocity); then `v⁺ = v⁻ + M⁻¹ Gᵀ λ[1]`.
//!
//! **Modes** of a contact of `I_2` (closed, `u_N = 0`): *sliding* when `‖u_T‖ > TOL_ED`, with
//! the direction `d = u_T/‖u_T‖`; *sticking* otherwise. At each nonsmooth event the modes are
//! set from the velocities, then each sticking contact whose acceleration problem needs a
//! tangential force on the cone's boundary (`μ λ_N − ‖λ_T‖ ≤ TOL_ED`) starts sliding along
//! `d = −λ_T/‖λ_T‖` (the direction of the stick force it can no longer hold) and the problem is
//! solved again, until no mode changes. At a stick → slip root the force is on the cone's
//! boundary, where this `d` solves the acceleration-level Coulomb problem (with `ü_T = 0`); a
//! contact that starts strictly outside the cone (at `t₀`) takes the same `d`, exact in 2D and
//! for an isotropic tangential block `W_TT`, an approximation of the 3D slip direction
//! otherwise.
//!
//! **Acceleration level**, on `I_2` with the modes fixed (between events, at every evaluation
//! of the right-hand side): unknowns `λ_N` of every contact and `λ_T` of the sticking ones;
//! `ü = G v̇ + Ġ v` with `M v̇ = F + Σ Gᵀ λ`; for a sliding contact `λ_T = −μ λ_N d` is
//! substituted (its normal column is `(G_N − μ dᵀ G_T)ᵀ`); the mixed problem is
//! `ü_T = 0` (sticking contacts, equalities) and `0 ≤ ü_N ⊥ λ_N ≥ 0` (every contact),
//! `ü = W λ + q`, `W = L M⁻¹ R` (rows `L` of the constraints, columns `R` of the unknowns, dense),
//! `q = L M⁻¹ F + Ġ v`. The equalities are eliminated (Schur complement of `W_EE`) and
//! the remaining LCP on the normal forces is solved by the scheme's LCP solver (Lemke). While a
//! contact slides in 3D its direction follows the velocity, `d = σ u_T/‖u_T‖` with `σ` the sign
//! of `u_T · d₀` (`d₀` the direction at the start of the mode), so that the dynamics continue
//! smoothly past the stop `u_T = 0` where the root function ends the mode; in 2D `d = d₀`.
//!
//! **Friction root functions** (one per interaction slot, after the normal ones): for a
//! sticking contact `g = μ λ_N − ‖λ_T‖` (stick → slip when the force reaches the cone); for a
//! sliding contact `g = u_T · d₀` (slip → stick when the sliding velocity vanishes), guarded as
//! the normal ones: `100 TOL_ED` while `g ≤ TOL_ED` and `d/dt g = ü_T · d₀ > −TOL_ED` (a slide
//! just started from rest).
//!
//! A model holds either Newton impact laws or friction laws of one dimension (the other
//! combinations are [`KernelError::Unsupported`]). Sticking contacts whose tangential rows are
//! dependent (a body held by more sticking contacts than its tangential degrees of freedom, a
//! box on two or four corners) make `W_EE` singular: the equalities are then eliminated with
//! its pseudo-inverse (eigenvalues below `1e-12` of the largest dropped), which gives the
//! tangential forces of least norm among those that hold the body (the statically
//! indeterminate distribution is not decided by rigid-body mechanics).
//! [`super::EventDriven::friction_mode`] reports each contact's mode.

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;
use nonsmooth_numerics::fc::{Fc2dProblem, Fc2dSolver, Fc3dProblem, Fc3dSolver};
use nonsmooth_numerics::lcp::LcpProblem;
use nonsmooth_numerics::matrix::NumericsMatrix;

use super::{EventDrivenOptions, Smooth};
use crate::KernelError;
use crate::model::{InteractionId, NonsmoothLaw, Nsds};

const SCHEME: &str = "the event-driven scheme";

/// The tangential mode of a frictional contact in the event-driven scheme (the module
/// documentation states the problem of each mode; Pfeiffer and Glocker 1996, chapter 7).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum FrictionMode {
    /// Not a persistent contact (not in `I_2`), or a frictionless law.
    Inactive,
    /// Sticking: tangential acceleration `ü_T = 0` with `‖λ_T‖ ≤ μ λ_N`.
    Sticking,
    /// Sliding: `λ_T = −μ λ_N d`.
    Sliding {
        /// The unit direction `d₀` of the sliding velocity `u_T` at the start of the mode, in
        /// the contact's tangential rows (only the first entry is used in 2D).
        direction: [f64; 2],
    },
}

use FrictionMode as Mode;

/// The friction state of the simulation: dimension, modes per interaction slot, the impact
/// solvers.
pub(super) struct Friction {
    dimension: usize,
    modes: Vec<Mode>,
    fc2d: Box<dyn Fc2dSolver + Send>,
    fc3d: Box<dyn Fc3dSolver + Send>,
}

impl Friction {
    /// The mode of interaction slot `i`.
    pub(super) fn mode(&self, i: usize) -> FrictionMode {
        self.modes.get(i).copied().unwrap_or(Mode::Inactive)
    }

    /// Friction of `dimension` (2 or 3) for `bound` interaction slots.
    pub(super) fn new(dimension: usize, options: &EventDrivenOptions, bound: usize) -> Result<Self, KernelError> {
        Ok(Self {
            dimension,
            modes: vec![Mode::Inactive; bound],
            fc2d: options.fc2d.clone().build()?,
            fc3d: options.fc3d.clone().build()?,
        })
    }
}

/// Checks the laws of `nsds` for the event-driven scheme; returns the friction dimension when
/// the model has friction laws.
///
/// # Errors
/// [`KernelError::Unsupported`] for first-order relations, laws other than Newton impact and
/// Newton impact friction, frictional and frictionless laws together, 2D and 3D friction
/// together, or a friction law whose relation does not have `D` rows.
pub(super) fn check_model(nsds: &Nsds) -> Result<Option<usize>, KernelError> {
    let (mut frictionless, mut dimension) = (false, None);
    for id in nsds.interaction_ids() {
        let inter = nsds.interaction(id)?;
        let unsupported = |what: String| KernelError::Unsupported { scheme: SCHEME, what };
        if inter.is_first_order() {
            return Err(unsupported(format!("interaction {}: first-order relations", id.index())));
        }
        match inter.law() {
            NonsmoothLaw::NewtonImpact(_) => frictionless = true,
            NonsmoothLaw::NewtonImpactFriction(law) => {
                let d = law.dimension();
                if inter.size() != d {
                    return Err(unsupported(format!(
                        "interaction {}: a {d}D friction law on a relation of {} rows",
                        id.index(),
                        inter.size()
                    )));
                }
                match dimension {
                    Some(e) if e != d => return Err(unsupported("2D and 3D friction laws in one model".into())),
                    _ => dimension = Some(d),
                }
            }
            other => return Err(unsupported(format!("interaction {}: the law {other:?}", id.index()))),
        }
    }
    if frictionless && dimension.is_some() {
        return Err(KernelError::Unsupported {
            scheme: SCHEME,
            what: "Newton impact laws and Newton impact friction laws in one model".into(),
        });
    }
    Ok(dimension)
}

/// The restitution coefficient of row `i` of an impact: `e` (Newton impact), `e_N` on the
/// normal row and `e_T` on the tangential ones (Newton impact friction).
pub(super) fn impact_restitution(law: &NonsmoothLaw, i: usize) -> f64 {
    match law {
        NonsmoothLaw::NewtonImpact(l) => l.restitution(),
        NonsmoothLaw::NewtonImpactFriction(l) if i == 0 => l.normal_restitution(),
        NonsmoothLaw::NewtonImpactFriction(l) => l.tangential_restitution(),
        _ => 0.0,
    }
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The pseudo-inverse of the symmetric positive semi-definite block `W_EE = L_E M⁻¹ L_Eᵀ` (the
/// leading `ne × ne` block of `W`) from its eigen-decomposition `U S Uᵀ`: `U S⁺ Uᵀ`, the
/// eigenvalues below `1e-12 · max S` taken as zero (dependent sticking rows).
struct PseudoInverse {
    u: Mat<f64>,
    inv: Vec<f64>,
}

impl PseudoInverse {
    fn new(w: &Mat<f64>, ne: usize) -> Result<Self, KernelError> {
        let wee = Mat::<f64>::from_fn(ne, ne, |i, j| 0.5 * (w[(i, j)] + w[(j, i)]));
        let evd = wee.self_adjoint_eigen(faer::Side::Lower).map_err(|_| KernelError::Singular {
            what: "tangential block of the acceleration problem (its eigenvalues did not converge)",
        })?;
        let s = evd.S().column_vector();
        let largest = (0..ne).map(|i| s[i].abs()).fold(0.0, f64::max);
        let inv = (0..ne).map(|i| if s[i] > 1e-12 * largest { 1.0 / s[i] } else { 0.0 }).collect();
        Ok(Self { u: evd.U().to_owned(), inv })
    }

    /// `x ← W_EE⁺ x`.
    fn apply(&self, x: &mut [f64]) {
        let n = x.len();
        let c: Vec<f64> = (0..n).map(|k| self.inv[k] * (0..n).map(|i| self.u[(i, k)] * x[i]).sum::<f64>()).collect();
        for i in 0..n {
            x[i] = (0..n).map(|k| self.u[(i, k)] * c[k]).sum();
        }
    }
}

/// One unknown (and its row) of the acceleration problem: contact `c` (index in the active
/// list), row `row` of its relation (0 normal, `k ≥ 1` tangential).
#[derive(Clone, Copy)]
struct Unknown {
    c: usize,
    row: usize,
}

impl Smooth {
    fn friction_mu(&self, id: InteractionId) -> f64 {
        self.nsds.interaction_ref(id).law.friction().unwrap_or(0.0)
    }

    /// `u_T = G_T v` of contact `id` at the systems' current velocities (with `G` as last
    /// evaluated).
    fn tangential_velocity(&self, id: InteractionId) -> Vec<f64> {
        let inter = self.nsds.interaction_ref(id);
        let mut u = vec![0.0; inter.size - 1];
        for (jj, &d) in inter.ds.iter().enumerate() {
            let v = self.nsds.ds(d).expect("a system of the model").state().v();
            for k in 1..inter.size {
                u[k - 1] += (0..v.len()).map(|c| inter.h(k, inter.offsets[jj] + c) * v[c]).sum::<f64>();
            }
        }
        u
    }

    /// Sets free the modes of the slots outside `I_2`, and from the velocities (`y[1]`) the
    /// undecided ones of `I_2`; with `all`, every mode of `I_2` from the velocities.
    fn modes_from_velocities(&mut self, all: bool) {
        let tol = self.tolerance;
        let Some(friction) = self.friction.as_mut() else { return };
        for i in 0..friction.modes.len() {
            let id = self.nsds.interaction_at(i);
            if !self.i2[i] || id.is_none() {
                friction.modes[i] = Mode::Inactive;
                continue;
            }
            if !all && friction.modes[i] != Mode::Inactive {
                continue;
            }
            let inter = self.nsds.interaction_ref(id.expect("checked"));
            let ut = &inter.y[1][1..inter.size];
            let n = norm(ut);
            friction.modes[i] = if n <= tol {
                Mode::Sticking
            } else {
                let mut d = [0.0; 2];
                for k in 0..ut.len() {
                    d[k] = ut[k] / n;
                }
                Mode::Sliding { direction: d }
            };
        }
    }

    /// The acceleration problem with friction on `I_2` (module documentation): `λ[2]`,
    /// `p[2] = Σ Gᵀ λ[2]` and `y[2] = ü`.
    pub(super) fn friction_acceleration_problem(&mut self, t: f64) -> Result<(), KernelError> {
        self.modes_from_velocities(false);
        let ids = self.active(&self.i2.clone());
        if ids.is_empty() {
            return Ok(());
        }
        for &id in &ids {
            self.nsds.update_jacobian(id, t)?;
        }
        self.factorize_masses()?;
        self.compute_forces(t)?;
        let modes = self.friction.as_ref().expect("a friction model").modes.clone();
        // The sliding directions d at this state, the drifts Ġ v.
        let mut directions = Vec::with_capacity(ids.len());
        let mut drifts = Vec::with_capacity(ids.len());
        for &id in &ids {
            let d = match modes[id.index()] {
                Mode::Sliding { direction: d0 } => {
                    let m = self.nsds.interaction_ref(id).size - 1;
                    let u = self.tangential_velocity(id);
                    let n = norm(&u);
                    let s = dot(&u, &d0[..m]);
                    if m == 1 || n <= self.tolerance || s == 0.0 {
                        Some(d0)
                    } else {
                        let sign = s.signum() / n;
                        let mut d = [0.0; 2];
                        for k in 0..m {
                            d[k] = sign * u[k];
                        }
                        Some(d)
                    }
                }
                _ => None,
            };
            directions.push(d);
            drifts.push(self.acceleration_drift(id, t)?);
        }
        // Unknowns: equalities (tangential rows of sticking contacts), then complementarities.
        let mut unknowns = Vec::new();
        for (c, &id) in ids.iter().enumerate() {
            if modes[id.index()] == Mode::Sticking {
                for row in 1..self.nsds.interaction_ref(id).size {
                    unknowns.push(Unknown { c, row });
                }
            }
        }
        let ne = unknowns.len();
        unknowns.extend((0..ids.len()).map(|c| Unknown { c, row: 0 }));
        let n = unknowns.len();
        // Responses M⁻¹ Rᵀ of each unknown, per system of its contact.
        let mut responses: Vec<Vec<(usize, Vec<f64>)>> = Vec::with_capacity(n);
        for u in &unknowns {
            let id = ids[u.c];
            let mu = self.friction_mu(id);
            let inter = self.nsds.interaction_ref(id);
            let mut per_system = Vec::new();
            for (jj, &d) in inter.ds.iter().enumerate() {
                let k = self.system_index(d);
                let nj = self.systems[k].1.n;
                let off = inter.offsets[jj];
                let mut col: Vec<f64> = (0..nj).map(|c| inter.h(u.row, off + c)).collect();
                if let (0, Some(dir)) = (u.row, directions[u.c]) {
                    for r in 1..inter.size {
                        for c in 0..nj {
                            col[c] -= mu * dir[r - 1] * inter.h(r, off + c);
                        }
                    }
                }
                self.systems[k].1.lu.solve_in_place(&mut col);
                per_system.push((k, col));
            }
            responses.push(per_system);
        }
        let free: Vec<Vec<f64>> = self
            .systems
            .iter()
            .map(|(_, d)| {
                let mut a = d.forces.clone();
                d.lu.solve_in_place(&mut a);
                a
            })
            .collect();
        // W = L M⁻¹ R and q = L M⁻¹ F + Ġ v.
        let mut w = Mat::<f64>::zeros(n, n);
        let mut q = vec![0.0; n];
        for (r, ur) in unknowns.iter().enumerate() {
            let inter = self.nsds.interaction_ref(ids[ur.c]);
            let row_of = |k: usize, x: &[f64]| -> f64 {
                inter
                    .ds
                    .iter()
                    .enumerate()
                    .filter(|&(_, &d)| self.system_index(d) == k)
                    .map(|(jj, _)| (0..x.len()).map(|c| inter.h(ur.row, inter.offsets[jj] + c) * x[c]).sum::<f64>())
                    .sum()
            };
            for (col, per_system) in responses.iter().enumerate() {
                w[(r, col)] = per_system.iter().map(|(k, x)| row_of(*k, x)).sum();
            }
            let mut systems: Vec<usize> = inter.ds.iter().map(|&d| self.system_index(d)).collect();
            systems.dedup();
            q[r] = systems.iter().map(|&k| row_of(k, &free[k])).sum::<f64>() + drifts[ur.c][ur.row];
        }
        let lambda = self.solve_mixed(&w, &q, ne, t)?;
        // λ[2] per contact (sliding: λ_T = −μ λ_N d).
        for (c, &id) in ids.iter().enumerate() {
            let mu = self.friction_mu(id);
            let inter = self.nsds.interaction_mut(id);
            inter.lambda[2].fill(0.0);
            inter.lambda[2][0] = lambda[ne + c];
            if let Some(dir) = directions[c] {
                for r in 1..inter.size {
                    inter.lambda[2][r] = -mu * lambda[ne + c] * dir[r - 1];
                }
            }
        }
        for (e, u) in unknowns.iter().take(ne).enumerate() {
            self.nsds.interaction_mut(ids[u.c]).lambda[2][u.row] = lambda[e];
        }
        self.accumulate_inputs(&ids, 2);
        // y[2] = G M⁻¹ (F + p[2]) + Ġ v, every row.
        let accelerations: Vec<Vec<f64>> =
            (0..self.systems.len()).map(|k| self.acceleration(k)).collect::<Result<_, _>>()?;
        for (c, &id) in ids.iter().enumerate() {
            let mut y2 = drifts[c].clone();
            let inter = self.nsds.interaction_ref(id);
            for (jj, &d) in inter.ds.iter().enumerate() {
                let a = &accelerations[self.system_index(d)];
                for r in 0..inter.size {
                    y2[r] += (0..a.len()).map(|col| inter.h(r, inter.offsets[jj] + col) * a[col]).sum::<f64>();
                }
            }
            self.nsds.interaction_mut(id).y[2].copy_from_slice(&y2);
        }
        Ok(())
    }

    /// Solves `ü = W λ + q` with `ü_E = 0` on the first `ne` unknowns (free) and
    /// `0 ≤ ü_C ⊥ λ_C ≥ 0` on the others: `λ_E = −W_EE⁺ (q_E + W_EC λ_C)` and the LCP
    /// `(W_CC − W_CE W_EE⁺ W_EC, q_C − W_CE W_EE⁺ q_E)` (`W_EE⁺` the pseudo-inverse, the inverse
    /// when the sticking rows are independent).
    fn solve_mixed(&mut self, w: &Mat<f64>, q: &[f64], ne: usize, t: f64) -> Result<Vec<f64>, KernelError> {
        let n = q.len();
        let nc = n - ne;
        let (mut m, mut qc) = (Mat::<f64>::zeros(nc, nc), q[ne..].to_vec());
        // X = W_EE⁺ W_EC (columns), x0 = W_EE⁺ q_E.
        let mut x = vec![vec![0.0; ne]; nc];
        let mut x0 = q[..ne].to_vec();
        if ne > 0 {
            let pinv = PseudoInverse::new(w, ne)?;
            pinv.apply(&mut x0);
            for j in 0..nc {
                for i in 0..ne {
                    x[j][i] = w[(i, ne + j)];
                }
                pinv.apply(&mut x[j]);
            }
        }
        for i in 0..nc {
            for j in 0..nc {
                let s: f64 = (0..ne).map(|e| w[(ne + i, e)] * x[j][e]).sum();
                m[(i, j)] = w[(ne + i, ne + j)] - s;
            }
            qc[i] -= (0..ne).map(|e| w[(ne + i, e)] * x0[e]).sum::<f64>();
        }
        let problem = LcpProblem::new(NumericsMatrix::Dense(m), qc)?;
        let (mut z, mut wv) = (vec![0.0; nc], vec![0.0; nc]);
        let report = self.lcp.solve(&problem, &mut z, &mut wv)?;
        if !report.is_converged() {
            return Err(KernelError::NotConverged { time: t, step: 0, report });
        }
        let mut lambda = vec![0.0; n];
        for e in 0..ne {
            lambda[e] = -(x0[e] + (0..nc).map(|j| x[j][e] * z[j]).sum::<f64>());
        }
        lambda[ne..].copy_from_slice(&z);
        Ok(lambda)
    }

    /// The frictional impact problem on `ids` (module documentation): `W = G M⁻¹ Gᵀ`, the given
    /// `q`; stores `λ[1]`, `y[1] = u⁺` and `p[1] = Σ Gᵀ λ[1]`.
    pub(super) fn solve_friction_impact(
        &mut self,
        ids: &[InteractionId],
        q: Vec<f64>,
        t: f64,
    ) -> Result<(), KernelError> {
        let (w, positions) = self.dense_delassus(ids)?;
        let n = w.nrows();
        let mu: Vec<f64> = ids.iter().map(|&id| self.friction_mu(id)).collect();
        let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
        let friction = self.friction.as_mut().expect("a friction model");
        let report = if friction.dimension == 2 {
            let problem = Fc2dProblem::new(NumericsMatrix::Dense(w), q, mu)?;
            friction.fc2d.solve(&problem, &mut r, &mut u)?
        } else {
            let problem = Fc3dProblem::new(NumericsMatrix::Dense(w), q, mu)?;
            friction.fc3d.solve(&problem, &mut r, &mut u)?
        };
        if !report.is_converged() {
            return Err(KernelError::NotConverged { time: t, step: 0, report });
        }
        for (k, &id) in ids.iter().enumerate() {
            let inter = self.nsds.interaction_mut(id);
            let m = inter.size;
            inter.lambda[1].copy_from_slice(&r[positions[k]..positions[k] + m]);
            inter.y[1].copy_from_slice(&u[positions[k]..positions[k] + m]);
        }
        self.accumulate_inputs(ids, 1);
        Ok(())
    }

    /// At a nonsmooth event, after the index sets (module documentation): the modes from the
    /// velocities, then sticking contacts on the cone's boundary start sliding, until no mode
    /// changes; the acceleration problem is solved with the final modes.
    pub(super) fn decide_friction_modes(&mut self, t: f64) -> Result<(), KernelError> {
        let tol = self.tolerance;
        self.modes_from_velocities(true);
        let bound = self.i2.len();
        for _ in 0..=bound {
            self.friction_acceleration_problem(t)?;
            let mut changed = false;
            for i in 0..bound {
                let Some(id) = self.nsds.interaction_at(i) else { continue };
                if !self.i2[i] || self.friction.as_ref().expect("a friction model").modes[i] != Mode::Sticking {
                    continue;
                }
                let mu = self.friction_mu(id);
                let inter = self.nsds.interaction_ref(id);
                let (ln, lt) = (inter.lambda[2][0], &inter.lambda[2][1..inter.size]);
                let nt = norm(lt);
                if ln > tol && nt > 0.0 && mu * ln - nt <= tol {
                    let mut d = [0.0; 2];
                    for k in 0..lt.len() {
                        d[k] = -lt[k] / nt;
                    }
                    self.friction.as_mut().expect("a friction model").modes[i] = Mode::Sliding { direction: d };
                    changed = true;
                }
            }
            if !changed {
                return Ok(());
            }
        }
        Err(KernelError::EventDriven { time: t, interaction: 0, reason: "the friction modes do not settle" })
    }

    /// The friction root functions (module documentation), one per interaction slot.
    pub(super) fn friction_roots(&self, out: &mut [f64]) {
        let tol = self.tolerance;
        let friction = self.friction.as_ref().expect("a friction model");
        for i in 0..out.len() {
            out[i] = 100.0 * tol;
            let Some(id) = self.nsds.interaction_at(i) else { continue };
            if !self.i2[i] {
                continue;
            }
            let inter = self.nsds.interaction_ref(id);
            let m = inter.size;
            match friction.modes[i] {
                Mode::Inactive => {}
                Mode::Sticking => {
                    let mu = inter.law.friction().unwrap_or(0.0);
                    out[i] = mu * inter.lambda[2][0] - norm(&inter.lambda[2][1..m]);
                }
                Mode::Sliding { direction: d0 } => {
                    let s = dot(&inter.y[1][1..m], &d0[..m - 1]);
                    let ds = dot(&inter.y[2][1..m], &d0[..m - 1]);
                    out[i] = if s > tol || ds <= -tol { s } else { 100.0 * tol };
                }
            }
        }
    }
}
