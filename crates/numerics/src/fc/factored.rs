//! The 3D frictional contact problem with its Delassus operator in factored form,
//! `W = H M⁻¹ Hᵀ`, and NSGS in body velocities on it.
//!
//! A one-step problem of a multibody system (the Moreau–Jean `W_αβ = Σ_j H_α^j W_j⁻¹ (H_β^j)ᵀ`
//! of the Siconos developer documentation, "OneStepNSProblem formalisation for several
//! interactions") couples two contacts whenever they touch a common body. In a dense granular
//! packing a contact is coupled with about seven others, so the assembled `W` holds about seven
//! 3×3 blocks per contact, and its memory outgrows the caches at a few thousand bodies. Here
//! `W` is never formed: the problem keeps, per contact, the rows `H_c = [H_c^a | H_c^b]` of its
//! one or two bodies and, per body, `M_b⁻¹` (diagonal or dense).
//!
//! [`FactoredNsgsSolver`] runs the NSGS of [`super::nsgs::NsgsSolver`] on it with the body
//! velocities `w = M⁻¹ Hᵀ r` as state (the "velocity form" of projected Gauss–Seidel that
//! granular codes use): contact `c` reads `u_c = q_c + Σ_b H_c^b w_b`, forms
//! `q_loc = u_c − W_cc r_c`, solves its one-contact problem and adds `M_b⁻¹ (H_c^b)ᵀ Δr_c`
//! to the velocities of its bodies. In exact arithmetic these are the iterates of the NSGS on
//! the assembled `W` (same order, same relaxation, same Anderson acceleration); in floating
//! point they differ by round-off.

use super::Fc3dProblem;
use super::compute_error::contact_error_squared;
use super::local::isotropic_inverse;
use super::nsgs::{Local, NsgsOptions, NsgsSchedule};
use super::problem::{check_finite, check_len, check_mu};
use super::sweep::{self, ContactOperator, Contacts, Halves, Reactions, Schedule, Workspace};
use crate::matrix::{NumericsMatrix, SparseBlockMatrix, all_finite, norm2};
use crate::parallelism::{Executor, SolverThreads};
use crate::{NumericsError, SolverReport, SolverStatus};

/// The factored NSGS sweeps in halves from this many contacts on. The assembled NSGS's lower
/// threshold was faster on mid-sized sphere piles, but on the largest ones the split order
/// needed more sweeps and reached the sweep cap on some steps, so the factored solver keeps
/// this one (figures in `docs/performance-notes.md`).
const FACTORED_HALVES_MIN_CONTACTS: usize = 8192;

/// Marks the absent second body of a contact with one body.
const NO_BODY: usize = usize::MAX;

/// A Delassus operator `W = H M⁻¹ Hᵀ` kept in factored form: bodies with their inverse
/// iteration matrices `M_b⁻¹` (diagonal or dense, `n_b × n_b`), and contacts of dimension 3
/// with the rows `H_c` (`3 × (n_a + n_b)`, row-major, the columns of their first body then of
/// their second) of their one or two bodies.
///
/// Built incrementally ([`FactoredDelassus::push_body_diagonal`],
/// [`FactoredDelassus::push_body_dense`], then [`FactoredDelassus::push_contact`] per contact, or
/// [`FactoredDelassus::push_rows`] per contact and [`FactoredDelassus::set_contacts`] with all
/// their bodies); its buffers can be reused from one step to the next
/// ([`FactoredDelassus::clear`]).
#[derive(Clone, Debug)]
pub struct FactoredDelassus {
    /// Start of body `b`'s velocities in the global velocity vector (`nb + 1` entries).
    body_starts: Vec<usize>,
    /// Start of body `b`'s inverse in `inverse` (`nb + 1` entries).
    inverse_starts: Vec<usize>,
    /// Whether body `b`'s inverse is stored as its diagonal.
    diagonal: Vec<bool>,
    /// The inverses: the diagonal (`n_b` values) or the dense matrix (row-major, `n_b²`).
    inverse: Vec<f64>,
    /// The bodies of each contact (`NO_BODY` as the second of a one-body contact).
    contact_bodies: Vec<[usize; 2]>,
    /// Start of contact `c`'s rows in `h` (`nc + 1` entries).
    h_starts: Vec<usize>,
    h: Vec<f64>,
    /// Whether the rows appended by [`FactoredDelassus::push_rows`] are finite.
    rows_finite: bool,
}

impl Default for FactoredDelassus {
    fn default() -> Self {
        Self::new()
    }
}

impl FactoredDelassus {
    /// An operator without bodies or contacts.
    pub fn new() -> Self {
        Self {
            body_starts: vec![0],
            inverse_starts: vec![0],
            diagonal: Vec::new(),
            inverse: Vec::new(),
            contact_bodies: Vec::new(),
            h_starts: vec![0],
            h: Vec::new(),
            rows_finite: true,
        }
    }

    /// Removes every body and contact (keeps the buffers).
    pub fn clear(&mut self) {
        for v in [&mut self.body_starts, &mut self.inverse_starts, &mut self.h_starts] {
            v.clear();
            v.push(0);
        }
        self.diagonal.clear();
        self.inverse.clear();
        self.contact_bodies.clear();
        self.h.clear();
        self.rows_finite = true;
    }

    /// Adds a body whose inverse iteration matrix is `diag(inverse_diagonal)`; returns its
    /// index.
    ///
    /// # Errors
    /// [`NumericsError::EmptyProblem`] for a body without velocities,
    /// [`NumericsError::NonFinite`] for NaN or infinite entries.
    pub fn push_body_diagonal(&mut self, inverse_diagonal: &[f64]) -> Result<usize, NumericsError> {
        self.push_body(inverse_diagonal.len(), inverse_diagonal, true)
    }

    /// Adds a body whose inverse iteration matrix is the dense `n × n` matrix `inverse`
    /// (row-major, `n² ` values); returns its index.
    ///
    /// # Errors
    /// [`NumericsError::EmptyProblem`] for `n = 0`, [`NumericsError::DimensionMismatch`] when
    /// `inverse` has not `n²` values, [`NumericsError::NonFinite`] for NaN or infinite entries.
    pub fn push_body_dense(&mut self, n: usize, inverse: &[f64]) -> Result<usize, NumericsError> {
        check_len("factored delassus: dense body inverse", inverse, n * n)?;
        self.push_body(n, inverse, false)
    }

    fn push_body(&mut self, n: usize, values: &[f64], diagonal: bool) -> Result<usize, NumericsError> {
        if n == 0 {
            return Err(NumericsError::EmptyProblem { what: "factored delassus: a body without velocities" });
        }
        check_finite("factored delassus: body inverse", values)?;
        let b = self.diagonal.len();
        self.inverse.extend_from_slice(values);
        self.inverse_starts.push(self.inverse.len());
        self.body_starts.push(self.body_starts[b] + n);
        self.diagonal.push(diagonal);
        Ok(b)
    }

    /// Adds a contact of dimension 3 on the bodies `bodies` (one or two, distinct) with the
    /// rows `h` of `H_c` (row-major, `3 × Σ n_b`, the columns of `bodies[0]` first); returns
    /// its index.
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] for no body, more than two, an unknown body or the same
    /// body twice; [`NumericsError::DimensionMismatch`] when `h` has not `3 · Σ n_b` values;
    /// [`NumericsError::NonFinite`] for NaN or infinite entries.
    pub fn push_contact(&mut self, bodies: &[usize], h: &[f64]) -> Result<usize, NumericsError> {
        let invalid =
            |reason: &str| NumericsError::InvalidInput { what: "factored delassus contact", reason: reason.into() };
        let pair = match *bodies {
            [a] => [a, NO_BODY],
            [a, b] if a != b => [a, b],
            [_, _] => return Err(invalid("the same body twice")),
            _ => return Err(invalid("a contact has one or two bodies")),
        };
        let nb = self.number_of_bodies();
        if bodies.iter().any(|&b| b >= nb) {
            return Err(invalid("unknown body"));
        }
        let columns: usize = bodies.iter().map(|&b| self.body_size(b)).sum();
        check_len("factored delassus: contact rows H_c", h, 3 * columns)?;
        check_finite("factored delassus: contact rows H_c", h)?;
        let c = self.contact_bodies.len();
        self.contact_bodies.push(pair);
        self.h.extend_from_slice(h);
        self.h_starts.push(self.h.len());
        Ok(c)
    }

    /// Appends the rows `H_c` (row-major, `3 × Σ n_b`, the columns of its first body first) of
    /// the next contact, whose bodies [`FactoredDelassus::set_contacts`] gives afterwards for
    /// all contacts at once; checks that they are finite on the way (the check is reported by
    /// [`FactoredDelassus::set_contacts`]). For a caller that gathers the rows one contact
    /// after the other and numbers the bodies in a later pass: the rows go once into the
    /// operator and are checked while in cache, where [`FactoredDelassus::push_contact`] needs
    /// the bodies first.
    pub fn push_rows(&mut self, h: &[f64]) {
        // A contact between two 3D bodies has 36 values (fixed-size copy).
        match <&[f64; 36]>::try_from(h) {
            Ok(h) => self.h.extend_from_slice(h),
            Err(_) => self.h.extend_from_slice(h),
        }
        self.rows_finite &= all_finite(h);
    }

    /// Makes the operator's rows (those appended by [`FactoredDelassus::push_rows`] since the
    /// last [`FactoredDelassus::clear`], after those of any contact pushed before) the contacts
    /// `c = 0, 1, …` on the bodies `bodies[c]` (a first body and, for a contact between two, a
    /// distinct second).
    ///
    /// # Errors
    /// [`NumericsError::InvalidInput`] for an unknown body or the same body twice;
    /// [`NumericsError::DimensionMismatch`] when the rows appended have not
    /// `Σ_c 3 · Σ n_b` values; [`NumericsError::NonFinite`] for NaN or infinite rows. The
    /// operator keeps its bodies and has neither contacts nor rows after an error.
    pub fn set_contacts(&mut self, bodies: &[(usize, Option<usize>)]) -> Result<(), NumericsError> {
        let invalid =
            |reason: &str| NumericsError::InvalidInput { what: "factored delassus contact", reason: reason.into() };
        self.contact_bodies.clear();
        self.h_starts.clear();
        self.h_starts.push(0);
        let nb = self.number_of_bodies();
        let mut end = 0;
        for &(a, b) in bodies {
            let second = b.unwrap_or(NO_BODY);
            if a >= nb || (second != NO_BODY && second >= nb) {
                return Err(self.without_contacts(invalid("unknown body")));
            }
            if a == second {
                return Err(self.without_contacts(invalid("the same body twice")));
            }
            end += 3 * (self.body_size(a) + b.map_or(0, |b| self.body_size(b)));
            self.contact_bodies.push([a, second]);
            self.h_starts.push(end);
        }
        if let Err(e) = check_len("factored delassus: contact rows H_c", &self.h, end) {
            return Err(self.without_contacts(e));
        }
        if !self.rows_finite {
            return Err(self.without_contacts(NumericsError::NonFinite { what: "factored delassus: contact rows H_c" }));
        }
        Ok(())
    }

    /// Removes the contacts and rows (keeps the bodies) and returns `e`.
    fn without_contacts(&mut self, e: NumericsError) -> NumericsError {
        self.contact_bodies.clear();
        self.h_starts.truncate(1);
        self.h.clear();
        self.rows_finite = true;
        e
    }

    /// The rows `H_c` of all contacts, one after the other in contact order (contact `c`'s
    /// `3 · Σ n_b` values after those of the contacts before it).
    pub fn rows(&self) -> &[f64] {
        &self.h
    }

    /// Number of bodies.
    pub fn number_of_bodies(&self) -> usize {
        self.diagonal.len()
    }

    /// Number of contacts `nc` (the operator is `3nc × 3nc`).
    pub fn number_of_contacts(&self) -> usize {
        self.contact_bodies.len()
    }

    /// Length of the global velocity vector (`Σ n_b`).
    pub fn velocity_size(&self) -> usize {
        self.body_starts[self.number_of_bodies()]
    }

    fn body_size(&self, b: usize) -> usize {
        self.body_starts[b + 1] - self.body_starts[b]
    }

    /// The bodies of contact `c` with, for each, its column offset in `H_c`.
    fn bodies_of(&self, c: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let [a, b] = self.contact_bodies[c];
        let na = self.body_size(a);
        std::iter::once((a, 0)).chain((b != NO_BODY).then_some((b, na)))
    }

    /// `x ← M_b⁻¹ x`.
    fn apply_inverse(&self, b: usize, x: &mut [f64]) {
        let inv = &self.inverse[self.inverse_starts[b]..self.inverse_starts[b + 1]];
        if self.diagonal[b] {
            for (xi, d) in x.iter_mut().zip(inv) {
                *xi *= d;
            }
        } else {
            let n = x.len();
            with_scratch(n, |out| {
                for (i, oi) in out.iter_mut().enumerate() {
                    *oi = inv[i * n..(i + 1) * n].iter().zip(x.iter()).map(|(a, b)| a * b).sum();
                }
                x.copy_from_slice(out);
            });
        }
    }

    /// The diagonal block `W_cc = Σ_b H_c^b M_b⁻¹ (H_c^b)ᵀ` of contact `c` (row-major).
    pub fn diagonal_block(&self, c: usize) -> [[f64; 3]; 3] {
        let h = &self.h[self.h_starts[c]..self.h_starts[c + 1]];
        let columns = h.len() / 3;
        let mut block = [[0.0; 3]; 3];
        let mut col = Vec::new();
        for (b, off) in self.bodies_of(c) {
            let n = self.body_size(b);
            for l in 0..3 {
                // Column l of M_b⁻¹ (H_c^b)ᵀ, then its products with the rows of H_c^b.
                col.clear();
                col.extend_from_slice(&h[l * columns + off..l * columns + off + n]);
                self.apply_inverse(b, &mut col);
                for (i, row) in block.iter_mut().enumerate() {
                    row[l] +=
                        h[i * columns + off..i * columns + off + n].iter().zip(&col).map(|(a, x)| a * x).sum::<f64>();
                }
            }
        }
        block
    }

    /// The body velocities `w = M⁻¹ Hᵀ r` (`w.len()` = [`velocity_size`](Self::velocity_size),
    /// `r.len() = 3nc`): `p = Hᵀ r` summed contact by contact, then `M_b⁻¹` per body.
    pub fn body_velocities(&self, r: &[f64], w: &mut [f64]) {
        w.fill(0.0);
        self.add_reactions(0..self.number_of_contacts(), 0, r, w, 0);
        self.apply_inverses(w);
    }

    /// `p += (H_c)ᵀ r_c` for the contacts `contacts`, in order: contact `c`'s reaction is
    /// `r[3(c − first)..]`, and `p` holds the global velocities from `p_base` on.
    fn add_reactions(&self, contacts: std::ops::Range<usize>, first: usize, r: &[f64], p: &mut [f64], p_base: usize) {
        for c in contacts {
            let h = &self.h[self.h_starts[c]..self.h_starts[c + 1]];
            let columns = h.len() / 3;
            let rc = &r[3 * (c - first)..3 * (c - first) + 3];
            for (b, off) in self.bodies_of(c) {
                let start = self.body_starts[b] - p_base;
                for (k, pk) in p[start..start + self.body_size(b)].iter_mut().enumerate() {
                    *pk += h[off + k] * rc[0] + h[columns + off + k] * rc[1] + h[2 * columns + off + k] * rc[2];
                }
            }
        }
    }

    /// `w ← M⁻¹ w` on the global velocities, body by body.
    fn apply_inverses(&self, w: &mut [f64]) {
        for b in 0..self.number_of_bodies() {
            let (s, e) = (self.body_starts[b], self.body_starts[b + 1]);
            self.apply_inverse(b, &mut w[s..e]);
        }
    }

    /// `u ← u + H w` (`w` the global velocity).
    pub fn add_contact_velocities(&self, w: &[f64], u: &mut [f64]) {
        for c in 0..self.number_of_contacts() {
            let h = &self.h[self.h_starts[c]..self.h_starts[c + 1]];
            let columns = h.len() / 3;
            for (b, off) in self.bodies_of(c) {
                let wb = &w[self.body_starts[b]..self.body_starts[b + 1]];
                for i in 0..3 {
                    let row = &h[i * columns + off..i * columns + off + wb.len()];
                    u[3 * c + i] += row.iter().zip(wb).map(|(a, x)| a * x).sum::<f64>();
                }
            }
        }
    }

    /// The assembled `W = H M⁻¹ Hᵀ` in sparse-block storage (3×3 blocks, one block row per
    /// contact; block `(c, d)` present when `c` and `d` share a body), for the solvers that
    /// need the matrix and for checks.
    ///
    /// # Errors
    /// [`NumericsError::EmptyProblem`] without contacts.
    pub fn assemble(&self) -> Result<NumericsMatrix, NumericsError> {
        let nc = self.number_of_contacts();
        if nc == 0 {
            return Err(NumericsError::EmptyProblem { what: "factored delassus without contacts" });
        }
        let nb = self.number_of_bodies();
        let mut by_body: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for c in 0..nc {
            for (b, _) in self.bodies_of(c) {
                by_body[b].push(c);
            }
        }
        let mut row_ptr = vec![0];
        let mut col_idx = Vec::new();
        let mut values = Vec::new();
        let mut x = Vec::new();
        for c in 0..nc {
            let mut cols: Vec<usize> = self.bodies_of(c).flat_map(|(b, _)| by_body[b].iter().copied()).collect();
            cols.sort_unstable();
            cols.dedup();
            let hc = &self.h[self.h_starts[c]..self.h_starts[c + 1]];
            let cc = hc.len() / 3;
            for &d in &cols {
                let hd = &self.h[self.h_starts[d]..self.h_starts[d + 1]];
                let cd = hd.len() / 3;
                let mut block = [0.0; 9];
                for (b, off_c) in self.bodies_of(c) {
                    let Some((_, off_d)) = self.bodies_of(d).find(|&(bd, _)| bd == b) else { continue };
                    let n = self.body_size(b);
                    for l in 0..3 {
                        x.clear();
                        x.extend_from_slice(&hd[l * cd + off_d..l * cd + off_d + n]);
                        self.apply_inverse(b, &mut x);
                        for i in 0..3 {
                            let row = &hc[i * cc + off_c..i * cc + off_c + n];
                            // Column-major 3×3 block.
                            block[i + 3 * l] += row.iter().zip(&x).map(|(a, v)| a * v).sum::<f64>();
                        }
                    }
                }
                col_idx.push(d);
                values.extend_from_slice(&block);
            }
            row_ptr.push(col_idx.len());
        }
        let ends: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
        Ok(NumericsMatrix::SparseBlock(SparseBlockMatrix::new(ends.clone(), ends, row_ptr, col_idx, values)?))
    }

    /// Writes into `out` a copy with the contacts in the order `contacts` (new contact `i` is
    /// old contact `contacts[i]`) and the bodies in the order `bodies` (new body `j` is old body
    /// `bodies[j]`; every body of a listed contact must be listed); `new_index` is a workspace.
    /// `out`'s buffers are reused.
    fn permute_into(&self, contacts: &[usize], bodies: &[usize], new_index: &mut Vec<usize>, out: &mut Self) {
        new_index.clear();
        new_index.resize(self.number_of_bodies(), NO_BODY);
        out.clear();
        for (j, &b) in bodies.iter().enumerate() {
            new_index[b] = j;
            let inv = &self.inverse[self.inverse_starts[b]..self.inverse_starts[b + 1]];
            out.inverse.extend_from_slice(inv);
            out.inverse_starts.push(out.inverse.len());
            out.body_starts.push(out.body_starts[j] + self.body_size(b));
            out.diagonal.push(self.diagonal[b]);
        }
        out.h.reserve(self.h.len());
        for &c in contacts {
            let [a, b] = self.contact_bodies[c];
            out.contact_bodies.push([new_index[a], if b == NO_BODY { NO_BODY } else { new_index[b] }]);
            out.h.extend_from_slice(&self.h[self.h_starts[c]..self.h_starts[c + 1]]);
            out.h_starts.push(out.h.len());
        }
    }
}

/// A 3D frictional contact problem `u = W r + q`, `K_μ ∋ r_c ⊥ û_c ∈ K_μ*` (as
/// [`Fc3dProblem`]) whose `W = H M⁻¹ Hᵀ` is a [`FactoredDelassus`].
#[derive(Clone, Debug)]
pub struct FactoredFc3dProblem {
    delassus: FactoredDelassus,
    q: Vec<f64>,
    mu: Vec<f64>,
}

impl FactoredFc3dProblem {
    /// Builds the problem from `W`, `q` (`3nc`) and `μ` (`nc`).
    ///
    /// # Errors
    /// [`NumericsError::EmptyProblem`] without contacts, [`NumericsError::DimensionMismatch`]
    /// when the sizes disagree, [`NumericsError::NonFinite`] for NaN or infinite data,
    /// [`NumericsError::InvalidInput`] for a negative `μ`.
    pub fn new(delassus: FactoredDelassus, q: Vec<f64>, mu: Vec<f64>) -> Result<Self, NumericsError> {
        let nc = delassus.number_of_contacts();
        if nc == 0 {
            return Err(NumericsError::EmptyProblem { what: "factored frictional contact problem without contacts" });
        }
        check_len("factored fc vector q", &q, 3 * nc)?;
        if mu.len() != nc {
            return Err(NumericsError::DimensionMismatch {
                what: "factored fc friction coefficients",
                expected: nc,
                found: mu.len(),
            });
        }
        check_finite("factored fc vector q", &q)?;
        check_mu(&mu)?;
        Ok(Self { delassus, q, mu })
    }

    /// Number of contacts `nc`.
    pub fn number_of_contacts(&self) -> usize {
        self.mu.len()
    }

    /// Number of unknowns `3nc`.
    pub fn size(&self) -> usize {
        self.q.len()
    }

    /// The operator `W`.
    pub fn delassus(&self) -> &FactoredDelassus {
        &self.delassus
    }

    /// The vector `q`.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The friction coefficients.
    pub fn mu(&self) -> &[f64] {
        &self.mu
    }

    /// Splits the problem into `(W, q, μ)` (to reuse the buffers).
    pub fn into_parts(self) -> (FactoredDelassus, Vec<f64>, Vec<f64>) {
        (self.delassus, self.q, self.mu)
    }

    /// The same problem with `W` assembled ([`FactoredDelassus::assemble`]).
    ///
    /// # Errors
    /// As [`Fc3dProblem::new`].
    pub fn to_assembled(&self) -> Result<Fc3dProblem, NumericsError> {
        Fc3dProblem::new(self.delassus.assemble()?, self.q.clone(), self.mu.clone())
    }

    /// `u = W r + q`, through the body velocities `w = M⁻¹ Hᵀ r` (workspace of
    /// [`FactoredDelassus::velocity_size`]).
    fn velocity(&self, r: &[f64], u: &mut [f64], w: &mut Vec<f64>) {
        w.resize(self.delassus.velocity_size(), 0.0);
        self.delassus.body_velocities(r, w);
        u.copy_from_slice(&self.q);
        self.delassus.add_contact_velocities(w, u);
    }

    /// Siconos' error of `r` ([`Fc3dProblem::compute_error`]: `‖(e_c)_c‖` normalized by
    /// `max(‖q‖, ‖r‖, ‖u‖)`); stores `u = W r + q` into `u`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `3nc`.
    pub fn compute_error(&self, r: &[f64], u: &mut [f64]) -> Result<f64, NumericsError> {
        check_len("factored fc error: reaction r", r, self.size())?;
        check_len("factored fc error: velocity u", u, self.size())?;
        Ok(self.error_with(r, u, &mut Vec::new()))
    }

    fn error_with(&self, r: &[f64], u: &mut [f64], w: &mut Vec<f64>) -> f64 {
        self.velocity(r, u, w);
        self.error_of(r, u)
    }

    /// The error of `r` whose `u = W r + q` is `u`.
    fn error_of(&self, r: &[f64], u: &[f64]) -> f64 {
        let mut sum = 0.0;
        for ((rc, uc), &mu) in r.chunks_exact(3).zip(u.chunks_exact(3)).zip(&self.mu) {
            sum += contact_error_squared(&[rc[0], rc[1], rc[2]], &[uc[0], uc[1], uc[2]], mu);
        }
        let err = sum.sqrt();
        let scale = norm2(&self.q).max(norm2(r)).max(norm2(u));
        if scale > f64::EPSILON { err / scale } else { err }
    }
}

/// NSGS on a [`FactoredFc3dProblem`] with the body velocities as state (module
/// documentation); the options are those of [`super::nsgs::NsgsSolver`] (`NsgsOptions`), with
/// the same meaning: tolerance and sweep cap, one-contact solver (the closed form when
/// `W_cc = diag(a, b, b)`), relaxation, error evaluation, shuffling, Anderson acceleration.
///
/// Parallel mode ([`Parallelism::Rayon`](crate::Parallelism::Rayon) with [`NsgsSchedule::Halves`], from 8192 contacts on, without
/// shuffling): the contacts are split as in `Halves` — a first part `A`, the contacts after it
/// sharing a body with `A` (`S`), the rest `B` — and the bodies renumbered so that
/// those of `A` and those of `B` (disjoint sets) are contiguous; a sweep updates `A` and `B`
/// at the same time (each with its reactions and its bodies' velocities), then `S`: the sweeps
/// of the assembled NSGS's halves schedule (`fc/sweep.rs`), with the norm of the reactions of
/// the light error summed part after part in order. The Anderson extrapolation runs by parts
/// too, and so does the recomputation of the body velocities after it. The same numbers for
/// every thread count, and the solver takes the faster of running the halves at the same time
/// or one after the other (see [`NsgsOptions::parallelism`]). `Rayon` with
/// [`NsgsSchedule::Colours`] is rejected ([`FactoredNsgsSolver::new`]): colouring needs the
/// contact graph of the assembled matrix.
///
/// Status and residual as [`super::nsgs::NsgsSolver`]: the residual is always the full error
/// [`FactoredFc3dProblem::compute_error`] at the returned `r` (recomputed from `r`, not from the
/// incrementally updated body velocities), and `u = W r + q` on return.
#[derive(Debug)]
pub struct FactoredNsgsSolver {
    options: NsgsOptions,
    diag: Vec<[[f64; 3]; 3]>,
    isotropic: Vec<Option<[f64; 2]>>,
    w: Vec<f64>,
    /// The buffers of the sweeps (order, Anderson acceleration).
    workspace: Workspace,
    /// The thread pool of [`Parallelism::Rayon`](crate::Parallelism::Rayon).
    threads: SolverThreads,
    rigid: Vec<Rigid>,
    minv: Vec<[f64; 6]>,
    /// Whether the last sweeps ran the rigid-body fast path (`rigid` and `minv` are then
    /// those of the problem they solved).
    rigid_ran: bool,
    /// The halves schedule's renumbered copy of the problem and its workspaces, kept from one
    /// solve to the next (no allocation in steady state).
    halves: HalvesBuffers,
}

/// The buffers of [`FactoredNsgsSolver`]'s halves schedule.
#[derive(Debug, Default)]
struct HalvesBuffers {
    /// The renumbered problem's operator, `q` and `μ`.
    delassus: FactoredDelassus,
    q: Vec<f64>,
    mu: Vec<f64>,
    /// Its reactions.
    r: Vec<f64>,
    /// The new order of the contacts and of the bodies, the old bodies' new numbers.
    contacts: Vec<usize>,
    bodies: Vec<usize>,
    new_index: Vec<usize>,
    /// Whether each body is one of `A`, one of `B`; whether each contact is in `S`.
    in_a: Vec<bool>,
    in_b: Vec<bool>,
    separator: Vec<bool>,
}

/// The factored operator as a [`ContactOperator`] of the sweeps: the state is the body
/// velocities `w = M⁻¹ Hᵀ r`; contact `c` reads `u_c = q_c + Σ_b H_c^b w_b` and, after its
/// reaction changed by `Δr_c`, adds `M_b⁻¹ (H_c^b)ᵀ Δr_c` to the velocities of its bodies.
struct Context<'a> {
    delassus: &'a FactoredDelassus,
    q: &'a [f64],
}

impl ContactOperator for Context<'_> {
    const SWEEP_SUMS_SQUARES: bool = true;

    /// `u_c = q_c + Σ_b H_c^b w_b`, then `q_loc = u_c − W_cc r_c`.
    #[inline(always)]
    fn local_q(
        &self,
        c: usize,
        w_cc: &[[f64; 3]; 3],
        rc: [f64; 3],
        _r: &Reactions<'_>,
        w: &[f64],
        w_base: usize,
    ) -> Option<[f64; 3]> {
        let d = self.delassus;
        let h = &d.h[d.h_starts[c]..d.h_starts[c + 1]];
        let columns = h.len() / 3;
        let mut u = [self.q[3 * c], self.q[3 * c + 1], self.q[3 * c + 2]];
        for (body, off, n) in self.bodies(c) {
            let s = d.body_starts[body] - w_base;
            let wb = &w[s..s + n];
            for (i, ui) in u.iter_mut().enumerate() {
                let row = &h[i * columns + off..i * columns + off + n];
                let mut acc = 0.0;
                for (x, y) in row.iter().zip(wb) {
                    acc += x * y;
                }
                *ui += acc;
            }
        }
        Some(local_vector(u, w_cc, rc))
    }

    /// `w_b += M_b⁻¹ (H_c^b)ᵀ Δr_c` for the bodies `b` of contact `c`.
    #[inline(always)]
    fn apply_increment(&self, c: usize, dr: [f64; 3], w: &mut [f64], w_base: usize) {
        let d = self.delassus;
        let h = &d.h[d.h_starts[c]..d.h_starts[c + 1]];
        let columns = h.len() / 3;
        for (body, off, n) in self.bodies(c) {
            let s = d.body_starts[body] - w_base;
            let inv = &d.inverse[d.inverse_starts[body]..d.inverse_starts[body + 1]];
            if d.diagonal[body] {
                for (k, (wk, m)) in w[s..s + n].iter_mut().zip(inv).enumerate() {
                    let p = h[off + k] * dr[0] + h[columns + off + k] * dr[1] + h[2 * columns + off + k] * dr[2];
                    *wk += m * p;
                }
            } else {
                // M_b⁻¹ (H_c^b)ᵀ Δr.
                with_scratch(n, |p| {
                    for (k, pk) in p.iter_mut().enumerate() {
                        *pk = h[off + k] * dr[0] + h[columns + off + k] * dr[1] + h[2 * columns + off + k] * dr[2];
                    }
                    d.apply_inverse(body, p);
                    for (wk, pk) in w[s..s + n].iter_mut().zip(p.iter()) {
                        *wk += pk;
                    }
                });
            }
        }
    }

    fn add_reactions(&self, contacts: std::ops::Range<usize>, first: usize, r: &[f64], p: &mut [f64], p_base: usize) {
        self.delassus.add_reactions(contacts, first, r, p, p_base);
    }

    fn apply_inverses(&self, w: &mut [f64]) {
        self.delassus.apply_inverses(w);
    }
}

impl Context<'_> {
    /// The bodies of contact `c`: number, column offset in `H_c`, number of velocities.
    #[inline(always)]
    fn bodies(&self, c: usize) -> impl Iterator<Item = (usize, usize, usize)> {
        let d = self.delassus;
        let [a, b] = d.contact_bodies[c];
        let na = d.body_size(a);
        let second = (b != NO_BODY).then(|| (b, na, d.body_size(b)));
        std::iter::once((a, 0, na)).chain(second)
    }
}

/// The local vector `q_loc = u_c − W_cc r_c` of a contact from its velocity
/// `u_c = (W r + q)_c`, its diagonal block and its reaction.
#[inline(always)]
fn local_vector(u: [f64; 3], wcc: &[[f64; 3]; 3], old: [f64; 3]) -> [f64; 3] {
    let mut q_loc = u;
    for (i, qi) in q_loc.iter_mut().enumerate() {
        *qi -= wcc[i][0] * old[0] + wcc[i][1] * old[1] + wcc[i][2] * old[2];
    }
    q_loc
}

/// Marks the absent second body of a [`Rigid`] contact.
const NO_RIGID: u32 = u32::MAX;

/// A contact of the rigid-body fast path (every body of 6 velocities with a diagonal inverse):
/// `H_c` as fixed rows of 12 (the second body's 6 columns zero for a one-body contact) and the
/// bodies' numbers.
#[derive(Clone, Copy, Debug)]
struct Rigid {
    h: [[f64; 12]; 3],
    bodies: [u32; 2],
}

impl Rigid {
    /// Contact `c` of `d`, whose bodies have 6 velocities each and numbers below [`NO_RIGID`].
    fn of(d: &FactoredDelassus, c: usize) -> Self {
        let h = &d.h[d.h_starts[c]..d.h_starts[c + 1]];
        let columns = h.len() / 3;
        let mut k = Rigid { h: [[0.0; 12]; 3], bodies: [NO_RIGID; 2] };
        for (i, row) in k.h.iter_mut().enumerate() {
            row[..columns].copy_from_slice(&h[i * columns..(i + 1) * columns]);
        }
        for (slot, b) in k.bodies.iter_mut().zip(d.contact_bodies[c]) {
            if b != NO_BODY {
                *slot = b as u32;
            }
        }
        k
    }

    /// `W_cc = Σ_b H_c^b M_b⁻¹ (H_c^b)ᵀ` from the fixed rows and the bodies' inverse diagonals
    /// `minv`: the sums of [`FactoredDelassus::diagonal_block`] in the same order (the same
    /// numbers), without its scratch vector.
    fn diagonal_block(&self, minv: &[[f64; 6]]) -> [[f64; 3]; 3] {
        let mut block = [[0.0; 3]; 3];
        for (side, &b) in self.bodies.iter().enumerate() {
            if b == NO_RIGID {
                continue;
            }
            let (m, columns) = (&minv[b as usize], 6 * side..6 * side + 6);
            for l in 0..3 {
                // Column l of M_b⁻¹ (H_c^b)ᵀ, then its products with the rows of H_c^b.
                let mut col = [0.0; 6];
                for ((x, h), d) in col.iter_mut().zip(&self.h[l][columns.clone()]).zip(m) {
                    *x = h * d;
                }
                for (i, row) in block.iter_mut().enumerate() {
                    row[l] += self.h[i][columns.clone()].iter().zip(&col).map(|(a, x)| a * x).sum::<f64>();
                }
            }
        }
        block
    }
}

/// The rigid-body fast path of [`Context`]: the same operations with fixed sizes.
struct RigidContext<'a> {
    contacts: &'a [Rigid],
    /// The inverse diagonal of each body.
    minv: &'a [[f64; 6]],
    q: &'a [f64],
}

impl ContactOperator for RigidContext<'_> {
    const SWEEP_SUMS_SQUARES: bool = true;

    /// As [`Context`]'s, with fixed sizes.
    #[inline(always)]
    fn local_q(
        &self,
        c: usize,
        w_cc: &[[f64; 3]; 3],
        rc: [f64; 3],
        _r: &Reactions<'_>,
        w: &[f64],
        w_base: usize,
    ) -> Option<[f64; 3]> {
        let k = &self.contacts[c];
        let mut u = [self.q[3 * c], self.q[3 * c + 1], self.q[3 * c + 2]];
        for (side, &b) in k.bodies.iter().enumerate() {
            if b == NO_RIGID {
                continue;
            }
            let s = 6 * b as usize - w_base;
            let wb: &[f64; 6] = w.get(s..s + 6)?.try_into().ok()?;
            for (i, ui) in u.iter_mut().enumerate() {
                let row = &k.h[i][6 * side..6 * side + 6];
                let mut acc = 0.0;
                for j in 0..6 {
                    acc += row[j] * wb[j];
                }
                *ui += acc;
            }
        }
        Some(local_vector(u, w_cc, rc))
    }

    /// As [`Context`]'s, with fixed sizes.
    #[inline(always)]
    fn apply_increment(&self, c: usize, dr: [f64; 3], w: &mut [f64], w_base: usize) {
        let k = &self.contacts[c];
        for (side, &b) in k.bodies.iter().enumerate() {
            if b == NO_RIGID {
                continue;
            }
            let s = 6 * b as usize - w_base;
            let m = &self.minv[b as usize];
            let Some(wb) = w.get_mut(s..s + 6) else { continue };
            for j in 0..6 {
                let col = 6 * side + j;
                wb[j] += m[j] * (k.h[0][col] * dr[0] + k.h[1][col] * dr[1] + k.h[2][col] * dr[2]);
            }
        }
    }

    /// As [`FactoredDelassus::add_reactions`] (the same sums) with fixed sizes.
    #[inline(always)]
    fn add_reactions(&self, contacts: std::ops::Range<usize>, first: usize, r: &[f64], p: &mut [f64], p_base: usize) {
        for c in contacts {
            let k = &self.contacts[c];
            let l = 3 * (c - first);
            let rc = [r[l], r[l + 1], r[l + 2]];
            for (side, &b) in k.bodies.iter().enumerate() {
                if b == NO_RIGID {
                    continue;
                }
                let s = 6 * b as usize - p_base;
                for (j, pj) in p[s..s + 6].iter_mut().enumerate() {
                    let col = 6 * side + j;
                    *pj += k.h[0][col] * rc[0] + k.h[1][col] * rc[1] + k.h[2][col] * rc[2];
                }
            }
        }
    }

    fn apply_inverses(&self, w: &mut [f64]) {
        for (wb, m) in w.chunks_exact_mut(6).zip(self.minv) {
            for (x, d) in wb.iter_mut().zip(m) {
                *x *= d;
            }
        }
    }
}

impl RigidContext<'_> {
    /// `u = W r + q` through the body velocities `w = M⁻¹ Hᵀ r` (6 per body):
    /// [`FactoredFc3dProblem`]'s velocity with fixed sizes, the same sums in the same order
    /// ([`FactoredDelassus::body_velocities`], then [`FactoredDelassus::add_contact_velocities`],
    /// whose products are summed from `−0` as `Iterator::sum` does).
    fn velocity(&self, r: &[f64], u: &mut [f64], w: &mut [f64]) {
        w.fill(0.0);
        self.add_reactions(0..self.contacts.len(), 0, r, w, 0);
        self.apply_inverses(w);
        u.copy_from_slice(self.q);
        for (k, uc) in self.contacts.iter().zip(u.chunks_exact_mut(3)) {
            for (side, &b) in k.bodies.iter().enumerate() {
                if b == NO_RIGID {
                    continue;
                }
                let s = 6 * b as usize;
                let wb = &w[s..s + 6];
                for (ui, row) in uc.iter_mut().zip(&k.h) {
                    let mut acc = -0.0;
                    for (a, x) in row[6 * side..6 * side + 6].iter().zip(wb) {
                        acc += a * x;
                    }
                    *ui += acc;
                }
            }
        }
    }
}

impl FactoredNsgsSolver {
    /// Builds a solver.
    ///
    /// # Errors
    /// As [`super::nsgs::NsgsSolver::new`], and [`NumericsError::InvalidOption`] for
    /// [`Parallelism::Rayon`](crate::Parallelism::Rayon) with [`NsgsSchedule::Colours`].
    pub fn new(options: NsgsOptions) -> Result<Self, NumericsError> {
        options.validate()?;
        if options.parallelism.is_parallel() && options.schedule == NsgsSchedule::Colours {
            return Err(NumericsError::InvalidOption {
                name: "schedule",
                reason: "the factored NSGS runs in parallel with NsgsSchedule::Halves only",
            });
        }
        Ok(Self {
            options,
            diag: Vec::new(),
            isotropic: Vec::new(),
            w: Vec::new(),
            workspace: Workspace::default(),
            threads: SolverThreads::default(),
            rigid: Vec::new(),
            minv: Vec::new(),
            rigid_ran: false,
            halves: HalvesBuffers::default(),
        })
    }

    /// The options.
    pub fn options(&self) -> &NsgsOptions {
        &self.options
    }

    /// Solves `problem` from the warm start `r`; on return `r` holds the reactions and
    /// `u = W r + q`.
    ///
    /// # Errors
    /// [`NumericsError::DimensionMismatch`] when `r` or `u` is not of length `3nc`,
    /// [`NumericsError::NonFinite`] for a non-finite warm start.
    pub fn solve(
        &mut self,
        problem: &FactoredFc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
    ) -> Result<SolverReport, NumericsError> {
        let n = problem.size();
        check_len("factored nsgs reaction r", r, n)?;
        check_len("factored nsgs velocity u", u, n)?;
        if !r.iter().all(|v| v.is_finite()) {
            return Err(NumericsError::NonFinite { what: "factored nsgs initial reaction r" });
        }
        if problem.q.iter().step_by(3).all(|&qn| qn >= 0.0) {
            // Siconos' trivial case (as `NsgsSolver`): r = 0, u = q.
            r.fill(0.0);
            let residual = problem.error_with(r, u, &mut self.w);
            return Ok(SolverReport::new(SolverStatus::Converged, 0, residual));
        }
        let nc = problem.number_of_contacts();
        let o = &self.options;
        if o.parallelism.is_parallel() && !o.shuffle && nc >= FACTORED_HALVES_MIN_CONTACTS {
            let mut threads = std::mem::take(&mut self.threads);
            let report = threads.run(o.parallelism, |exec| self.solve_in_halves(problem, r, u, exec));
            self.threads = threads;
            return report?;
        }
        let report = self.run(problem, r, self.options.tolerance, None, &mut Executor::sequential())?;
        let residual = if self.rigid_ran {
            RigidContext { contacts: &self.rigid, minv: &self.minv, q: &problem.q }.velocity(r, u, &mut self.w);
            problem.error_of(r, u)
        } else {
            problem.error_with(r, u, &mut self.w)
        };
        Ok(SolverReport::new(report.status, report.iterations, residual))
    }

    /// The halves schedule on a renumbered copy of `problem`; `r`, `u` and the residual are
    /// returned on the original (a copy's error differs from the original's only by the order
    /// of the sums; if that puts it above the tolerance, the sweeps resume with a halved
    /// tolerance, at most 3 times).
    fn solve_in_halves(
        &mut self,
        problem: &FactoredFc3dProblem,
        r: &mut [f64],
        u: &mut [f64],
        exec: &mut Executor<'_>,
    ) -> Result<SolverReport, NumericsError> {
        let d = &problem.delassus;
        let nc = problem.number_of_contacts();
        let nbodies = d.number_of_bodies();
        // The buffers of the last solve, given back below.
        let mut buffers = std::mem::take(&mut self.halves);
        let HalvesBuffers { delassus, q, mu, r: rp, contacts, bodies, new_index, in_a, in_b, separator } = &mut buffers;
        // The bodies of the contacts before `half` (`in_a`), and the separator of that split.
        let split = |half: usize, in_a: &mut Vec<bool>, separator: &mut Vec<bool>| {
            in_a.clear();
            in_a.resize(nbodies, false);
            for c in 0..half {
                for (b, _) in d.bodies_of(c) {
                    in_a[b] = true;
                }
            }
            separator.clear();
            separator.extend((0..nc).map(|c| c >= half && d.bodies_of(c).any(|(b, _)| in_a[b])));
        };
        // The split of the assembled NSGS: `A` about as large as `B`.
        split(nc / 2, in_a, separator);
        let first = separator.iter().filter(|&&s| s).count();
        let half = (nc - first) / 2;
        split(half, in_a, separator);
        contacts.clear();
        contacts.extend(0..half);
        contacts.extend((half..nc).filter(|&c| !separator[c]));
        let nb = contacts.len() - half;
        contacts.extend((half..nc).filter(|&c| separator[c]));
        in_b.clear();
        in_b.resize(nbodies, false);
        for &c in &contacts[half..half + nb] {
            for (b, _) in d.bodies_of(c) {
                in_b[b] = true;
            }
        }
        bodies.clear();
        bodies.extend((0..nbodies).filter(|&b| in_a[b]));
        let va: usize = bodies.iter().map(|&b| d.body_size(b)).sum();
        bodies.extend((0..nbodies).filter(|&b| in_b[b]));
        let vb: usize = bodies.iter().map(|&b| d.body_size(b)).sum();
        bodies.extend((0..nbodies).filter(|&b| !in_a[b] && !in_b[b]));
        d.permute_into(contacts, bodies, new_index, delassus);
        q.clear();
        q.extend(contacts.iter().flat_map(|&c| problem.q[3 * c..3 * c + 3].iter().copied()));
        mu.clear();
        mu.extend(contacts.iter().map(|&c| problem.mu[c]));
        let permuted =
            FactoredFc3dProblem { delassus: std::mem::take(delassus), q: std::mem::take(q), mu: std::mem::take(mu) };
        let layout = Halves { na: half, nb, va, vb };
        rp.clear();
        rp.extend(contacts.iter().flat_map(|&c| r[3 * c..3 * c + 3].iter().copied()));
        let report = self.halves_attempts(problem, &permuted, rp, contacts, layout, r, u, exec);
        (buffers.delassus, buffers.q, buffers.mu) = permuted.into_parts();
        self.halves = buffers;
        report
    }

    /// The sweeps of [`FactoredNsgsSolver::solve_in_halves`] on the renumbered `permuted` (its
    /// reactions `rp`, its contacts the original ones `contacts`), resumed with a halved
    /// tolerance while the original's error is above the tolerance (at most 3 times).
    #[allow(clippy::too_many_arguments)]
    fn halves_attempts(
        &mut self,
        problem: &FactoredFc3dProblem,
        permuted: &FactoredFc3dProblem,
        rp: &mut [f64],
        contacts: &[usize],
        layout: Halves,
        r: &mut [f64],
        u: &mut [f64],
        exec: &mut Executor<'_>,
    ) -> Result<SolverReport, NumericsError> {
        let tolerance = self.options.tolerance;
        let mut iterations = 0;
        let mut attempts = 0;
        loop {
            let report = self.run(permuted, rp, tolerance * 0.5f64.powi(attempts), Some(layout), exec)?;
            iterations += report.iterations;
            for (i, &c) in contacts.iter().enumerate() {
                r[3 * c..3 * c + 3].copy_from_slice(&rp[3 * i..3 * i + 3]);
            }
            let residual = problem.error_with(r, u, &mut self.w);
            if residual <= tolerance {
                return Ok(SolverReport::new(SolverStatus::Converged, iterations, residual));
            }
            if report.status != SolverStatus::Converged || iterations >= self.options.max_iterations || attempts == 3 {
                let status =
                    if report.status == SolverStatus::Converged { SolverStatus::Stalled } else { report.status };
                return Ok(SolverReport::new(status, iterations, residual));
            }
            attempts += 1;
        }
    }

    /// The sweeps on `problem` (natural or shuffled order, or `halves`) until the stopping test
    /// at `tolerance` holds; the report's residual is the last full error evaluated on
    /// `problem` (the caller recomputes the final one). Runs the rigid-body fast path when every
    /// body has 6 velocities and a diagonal inverse.
    fn run(
        &mut self,
        problem: &FactoredFc3dProblem,
        r: &mut [f64],
        tolerance: f64,
        halves: Option<Halves>,
        exec: &mut Executor<'_>,
    ) -> Result<SolverReport, NumericsError> {
        let d = &problem.delassus;
        let nc = problem.number_of_contacts();
        self.rigid_ran = false;
        let rigid = (0..d.number_of_bodies()).all(|b| d.diagonal[b] && d.body_size(b) == 6)
            && u32::try_from(d.number_of_bodies()).is_ok_and(|n| n < NO_RIGID);
        self.diag.clear();
        if rigid {
            self.minv.clear();
            self.minv.extend(d.inverse.chunks_exact(6).map(|m| [m[0], m[1], m[2], m[3], m[4], m[5]]));
            self.rigid.clear();
            // The numbers of the bodies fit in `u32` (checked above).
            self.rigid.extend((0..nc).map(|c| Rigid::of(d, c)));
            self.diag.extend(self.rigid.iter().map(|k| k.diagonal_block(&self.minv)));
        } else {
            self.diag.extend((0..nc).map(|c| d.diagonal_block(c)));
        }
        if self.diag.iter().any(|b| (0..3).any(|i| b[i][i].is_nan() || b[i][i] <= 0.0)) {
            let residual = problem.error_with(r, &mut vec![0.0; 3 * nc], &mut self.w);
            let status = if residual <= tolerance { SolverStatus::Converged } else { SolverStatus::NumericalBreakdown };
            return Ok(SolverReport::new(status, 0, residual));
        }
        self.isotropic.clear();
        self.isotropic.extend(self.diag.iter().map(isotropic_inverse));
        let o = &self.options;
        let contacts = Contacts {
            diag: &self.diag,
            isotropic: &self.isotropic,
            mu: &problem.mu,
            local: Local::from_options(o),
            omega: o.relaxation,
        };
        let schedule = match halves {
            Some(layout) => Schedule::Halves(layout),
            None => Schedule::Natural,
        };
        self.w.resize(d.velocity_size(), 0.0);
        let mut scratch = vec![0.0; 3 * nc];
        let mut error_w = Vec::new();
        self.rigid_ran = rigid;
        let report = if rigid {
            let fast = RigidContext { contacts: &self.rigid, minv: &self.minv, q: &problem.q };
            error_w.resize(d.velocity_size(), 0.0);
            let mut full_error = |r: &[f64]| {
                fast.velocity(r, &mut scratch, &mut error_w);
                problem.error_of(r, &scratch)
            };
            sweep::iterate(
                &fast,
                &contacts,
                o,
                tolerance,
                schedule,
                r,
                &mut self.w,
                &mut self.workspace,
                exec,
                &mut full_error,
            )
        } else {
            let mut full_error = |r: &[f64]| problem.error_with(r, &mut scratch, &mut error_w);
            let context = Context { delassus: d, q: &problem.q };
            sweep::iterate(
                &context,
                &contacts,
                o,
                tolerance,
                schedule,
                r,
                &mut self.w,
                &mut self.workspace,
                exec,
                &mut full_error,
            )
        };
        Ok(report)
    }
}

/// Runs `f` on a zeroed scratch vector of length `n`: on the stack for bodies of up to 16
/// velocities (every rigid body), on the heap beyond.
fn with_scratch<R>(n: usize, f: impl FnOnce(&mut [f64]) -> R) -> R {
    if n <= 16 {
        let mut small = [0.0; 16];
        f(&mut small[..n])
    } else {
        f(&mut vec![0.0; n])
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    /// The rigid-body fast path's diagonal blocks are the general path's, bit for bit, for
    /// two-body and one-body contacts.
    #[test]
    fn rigid_diagonal_blocks_are_the_general_ones() {
        let mut rng = StdRng::seed_from_u64(7);
        let mut d = FactoredDelassus::new();
        for _ in 0..4 {
            let inverse: Vec<f64> = (0..6).map(|_| rng.random_range(0.1..3.0)).collect();
            d.push_body_diagonal(&inverse).expect("a valid body");
        }
        for bodies in [&[0, 1][..], &[2], &[3, 0]] {
            let h: Vec<f64> = (0..18 * bodies.len()).map(|_| rng.random_range(-1.0..1.0)).collect();
            d.push_contact(bodies, &h).expect("a valid contact");
        }
        let minv: Vec<[f64; 6]> = d.inverse.chunks_exact(6).map(|m| [m[0], m[1], m[2], m[3], m[4], m[5]]).collect();
        for c in 0..d.number_of_contacts() {
            let (fast, general) = (Rigid::of(&d, c).diagonal_block(&minv), d.diagonal_block(c));
            assert!(fast.iter().flatten().zip(general.iter().flatten()).all(|(a, b)| a.to_bits() == b.to_bits()));
            assert!(general[0][0] > 0.0, "a non-trivial block");
        }
    }
}
