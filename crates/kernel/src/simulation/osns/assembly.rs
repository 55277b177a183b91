//! The block assembly of the one-step problems (Siconos' `LinearOSNS`, "OneStepNSProblem
//! formalisation" in the Siconos developer documentation; Acary and Brogliato 2008, section
//! 10.3): for interactions α, β linking the systems `j`,
//!
//! `M_αβ = δ_αβ D_α + Σ_{j ∈ DS_α ∩ DS_β} L_α^j (W_j⁻¹ R_β^j)`,
//!
//! each block computed as `L_α^j (W_j⁻¹ R_β^j)` as Siconos does, with `L = H`, `R = Hᵀ` for
//! second-order systems at velocity or position level (`W_j` the integrator's iteration matrix,
//! the identity for a projection onto the constraints, `M_j` for the event-driven impact and
//! acceleration problems), and `L = h C`, `R = γ B` with `D` for first-order systems. The
//! velocity-level problem fills the buffers itself in its tuned gather; the other problems
//! push their interactions ([`BlockAssembly::push`]). Dense or sparse-block storage (blocks
//! per interaction; the off-diagonal blocks are those of interactions sharing a system).

// Index loops mirror the formulas (several arrays indexed together).
#![allow(clippy::needless_range_loop)]

use faer::Mat;
use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::matrix::{NumericsMatrix, SparseBlockMatrix, all_finite};

use super::MatrixStorage;
use crate::KernelError;
use crate::linalg::copy_small;
use crate::model::{DsId, Interaction, NonsmoothLaw, Nsds};

/// The buffers of the block assembly, kept from one problem to the next.
#[derive(Debug, Default)]
pub(crate) struct BlockAssembly {
    /// The shape of each interaction, in the problem's order.
    pub(crate) blocks: Vec<BlockShape>,
    /// The row of each interaction's first unknown.
    pub(crate) positions: Vec<usize>,
    /// `L_α` (`H_α`) row-major of the interactions, one after the other (interaction `k` from
    /// `blocks[k].start`).
    pub(crate) h: Vec<f64>,
    /// `R_αᵀ` in the layout of `h`, when [`BlockAssembly::has_right`] (else `R = Hᵀ`).
    right: Vec<f64>,
    has_right: bool,
    /// The diagonal blocks `D_α` (column-major), when [`BlockAssembly::has_diagonal`].
    diagonal: Vec<f64>,
    has_diagonal: bool,
    /// `W_j⁻¹ R_α^j` of the interactions, system after system in slot order and, on each
    /// system, in the order of `by_system` (term `e` from `by_system[e].x`, the block
    /// column-major `n_j × m_α`): the assembly of a block row reads those of its one or two
    /// systems as contiguous runs, where the problem's order (by priority) scatters them.
    inv_w_ht: Vec<f64>,
    /// The interactions of the problem on each system: those on system slot `d` are
    /// `by_system[by_system_start[d]..by_system_start[d + 1]]`, by increasing position.
    by_system: Vec<SystemTerm>,
    by_system_start: Vec<usize>,
    /// Number of blocks and of values of the last sparse-block matrix assembled.
    last_blocks: usize,
    last_values: usize,
}

impl BlockAssembly {
    /// Forgets the interactions (keeps the buffers).
    pub(crate) fn clear(&mut self) {
        self.blocks.clear();
        self.positions.clear();
        self.h.clear();
        self.right.clear();
        self.diagonal.clear();
        self.has_right = false;
        self.has_diagonal = false;
    }

    /// Total size of the interactions pushed.
    pub(crate) fn size(&self) -> usize {
        self.blocks.last().map_or(0, |b| self.positions[self.positions.len() - 1] + b.size)
    }

    /// Appends interaction `inter` with its first `rows` rows of `H` as `L` (and `R = Hᵀ`).
    pub(crate) fn push(&mut self, inter: &Interaction, rows: usize) {
        let nv = inter.h_rows.len().checked_div(inter.size).unwrap_or(0);
        let shape = self.shape_of(inter, rows, nv);
        self.h.extend_from_slice(&inter.h_rows[..rows * nv]);
        self.blocks.push(shape);
    }

    /// Appends first-order interaction `inter` (`m` rows, `columns` state components) with
    /// `L = scale_left · C` and `R = scale_right · B` (`R_αᵀ` row-major) and its `D`.
    pub(crate) fn push_first_order(
        &mut self,
        inter: &Interaction,
        (c, b, d): (&Mat<f64>, &Mat<f64>, &Mat<f64>),
        scale_left: f64,
        scale_right: Option<f64>,
    ) {
        let (m, columns) = (inter.size, c.ncols());
        let shape = self.shape_of(inter, m, columns);
        self.has_right = true;
        self.has_diagonal = true;
        for i in 0..m {
            for j in 0..columns {
                self.h.push(scale_left * c[(i, j)]);
                self.right.push(match scale_right {
                    Some(g) => b[(j, i)] * g,
                    None => b[(j, i)],
                });
            }
        }
        for l in 0..m {
            for i in 0..m {
                self.diagonal.push(d[(i, l)]);
            }
        }
        self.blocks.push(shape);
    }

    /// The shape of `inter` with `rows` rows and `columns` columns, its systems' columns from
    /// their offsets in `inter`; records its position.
    fn shape_of(&mut self, inter: &Interaction, rows: usize, columns: usize) -> BlockShape {
        let position = self.size();
        self.positions.push(position);
        let mut shape = BlockShape {
            size: rows,
            columns,
            start: self.h.len(),
            systems: inter.ds.len(),
            slots: [0; 2],
            offsets: [0; 2],
            widths: [0; 2],
            law: inter.law,
            has_h_dot: false,
            diagonal: self.diagonal.len(),
        };
        for (jj, &d) in inter.ds.iter().enumerate() {
            let end = if jj + 1 < inter.ds.len() { inter.offsets[jj + 1] } else { columns };
            (shape.slots[jj], shape.offsets[jj], shape.widths[jj]) =
                (d.index(), inter.offsets[jj], end - inter.offsets[jj]);
        }
        shape
    }

    /// The matrix of the interactions pushed, with `W_j⁻¹` applied by `solve_w`, in `storage`
    /// (into `spare` when it fits).
    ///
    /// # Errors
    /// [`NumericsError::NonFinite`] (as a [`KernelError`]) for a non-finite entry.
    pub(crate) fn matrix(
        &mut self,
        nsds: &Nsds,
        solve_w: &dyn Fn(DsId, &mut [f64]),
        storage: MatrixStorage,
        spare: Option<NumericsMatrix>,
    ) -> Result<NumericsMatrix, KernelError> {
        self.index_by_system(nsds.ds_bound());
        self.compute_inv_w_ht(nsds, solve_w);
        let n = self.size();
        self.assemble(n, storage, spare)
    }

    /// `M_αβ = δ_αβ D_α + Σ_j L_α^j (W_j⁻¹ R_β^j)` over the interactions pushed, of total size
    /// `n`, in `storage` (dense into `spare` when it fits): for each block row α, the blocks of
    /// the interactions sharing a system with α (α's own for the diagonal), found through the
    /// lists of interactions per system, by increasing block column. Needs
    /// [`BlockAssembly::index_by_system`] and [`BlockAssembly::compute_inv_w_ht`] first.
    pub(crate) fn assemble(
        &mut self,
        n: usize,
        storage: MatrixStorage,
        spare: Option<NumericsMatrix>,
    ) -> Result<NumericsMatrix, KernelError> {
        let blocks = &self.blocks[..];
        let (h, x) = (&self.h[..], &self.inv_w_ht[..]);
        let (by_system, by_system_start) = (&self.by_system[..], &self.by_system_start[..]);
        // The blocks of row k as `(column kb, system number in α, β's term on that system)`, by
        // increasing kb (the merge of the sorted lists of α's systems; the terms of an
        // interaction sharing both systems come together).
        let row_terms = |k: usize, out: &mut Vec<(usize, usize, SystemTerm)>| {
            out.clear();
            let a = &blocks[k];
            let list = |ja: usize| {
                let d = a.slots[ja];
                by_system[by_system_start[d]..by_system_start[d + 1]].iter().map(move |&t| (t.position, ja, t))
            };
            if a.systems == 1 {
                out.extend(list(0));
            } else {
                let (mut first, mut second) = (list(0).peekable(), list(1).peekable());
                loop {
                    let next = match (first.peek(), second.peek()) {
                        (Some(f), Some(g)) if f.0 <= g.0 => first.next(),
                        (Some(_), Some(_)) | (None, Some(_)) => second.next(),
                        (Some(_), None) => first.next(),
                        (None, None) => break,
                    };
                    out.extend(next);
                }
            }
        };
        let mut row = Vec::new();
        match storage {
            MatrixStorage::Dense => {
                let mut m = zeroed_dense(spare, n);
                if self.has_diagonal {
                    for (k, a) in blocks.iter().enumerate() {
                        let (p, d) = (self.positions[k], &self.diagonal[a.diagonal..a.diagonal + a.size * a.size]);
                        for l in 0..a.size {
                            for i in 0..a.size {
                                m[(p + i, p + l)] = d[l * a.size + i];
                            }
                        }
                    }
                }
                for k in 0..blocks.len() {
                    let pa = self.positions[k];
                    row_terms(k, &mut row);
                    for &(kb, ja, t) in &row {
                        let pb = self.positions[kb];
                        add_block(h, x, &blocks[k], ja, t, &mut |i, l, v| m[(pa + i, pb + l)] += v);
                    }
                }
                Ok(NumericsMatrix::Dense(m))
            }
            MatrixStorage::SparseBlock => {
                // Block rows in CSR order: for each row, its blocks sorted by block column, the
                // terms of interactions sharing several systems summed into one block.
                let mut ends = Vec::with_capacity(blocks.len());
                let mut row_ptr = Vec::with_capacity(blocks.len() + 1);
                row_ptr.push(0);
                // Room for about the blocks of the last assembly (no growth copies).
                let mut col_idx = Vec::with_capacity(self.last_blocks + self.last_blocks / 8);
                let mut values = Vec::with_capacity(self.last_values + self.last_values / 8);
                // Whether every value is finite, checked row by row while the row is in cache
                // (the matrix is then built without a second scan of its values).
                let mut finite = true;
                for (k, a) in blocks.iter().enumerate() {
                    let ma = a.size;
                    ends.push(self.positions[k] + ma);
                    let row_start = values.len();
                    row_terms(k, &mut row);
                    let mut idx = 0;
                    while idx < row.len() {
                        let (kb, _, first) = row[idx];
                        let start = values.len();
                        if self.has_diagonal && kb == k {
                            values.extend_from_slice(&self.diagonal[a.diagonal..a.diagonal + ma * ma]);
                        } else {
                            values.resize(start + ma * first.size, 0.0);
                        }
                        let out = &mut values[start..];
                        while idx < row.len() && row[idx].0 == kb {
                            let (_, ja, t) = row[idx];
                            add_block(h, x, a, ja, t, &mut |i, l, v| out[l * ma + i] += v);
                            idx += 1;
                        }
                        col_idx.push(kb);
                    }
                    finite &= all_finite(&values[row_start..]);
                    row_ptr.push(col_idx.len());
                }
                if !finite {
                    return Err(NumericsError::NonFinite { what: "sparse-block matrix" }.into());
                }
                (self.last_blocks, self.last_values) = (col_idx.len(), values.len());
                let sbm = SparseBlockMatrix::new_with_finite_values(ends.clone(), ends, row_ptr, col_idx, values)?;
                Ok(NumericsMatrix::SparseBlock(sbm))
            }
        }
    }

    /// Fills `by_system` and `by_system_start` from `blocks` (a counting sort by system slot,
    /// stable, so each list is by increasing position).
    pub(crate) fn index_by_system(&mut self, ds_bound: usize) {
        let starts = &mut self.by_system_start;
        starts.clear();
        starts.resize(ds_bound + 1, 0);
        for b in &self.blocks {
            for &d in &b.slots[..b.systems] {
                starts[d + 1] += 1;
            }
        }
        for d in 0..ds_bound {
            starts[d + 1] += starts[d];
        }
        self.by_system.clear();
        self.by_system.resize(starts[ds_bound], SystemTerm { position: 0, system: 0, size: 0, x: 0 });
        // `next[d]` runs from starts[d]; the start array is restored afterwards.
        for (k, b) in self.blocks.iter().enumerate() {
            for (jj, &d) in b.slots[..b.systems].iter().enumerate() {
                self.by_system[starts[d]] = SystemTerm { position: k, system: jj, size: b.size, x: 0 };
                starts[d] += 1;
            }
        }
        for d in (0..ds_bound).rev() {
            starts[d + 1] = starts[d];
        }
        starts[0] = 0;
    }

    /// `W_j⁻¹ R_α^j` of every term of `by_system` (one column per row of `R_αᵀ`, which is `H_α`
    /// unless a right operator was pushed, by `solve_w`), system after system into `inv_w_ht`;
    /// sets each term's `x`.
    ///
    /// The terms of a system are rows of `H` scattered over the problem (which is in priority
    /// order): before the terms of a system are computed, one entry of each `H` row of the next
    /// [`TERM_BATCH`] terms is read ([`BlockAssembly::touch_terms`]), so that their cache
    /// misses overlap instead of coming one after the other.
    pub(crate) fn compute_inv_w_ht(&mut self, nsds: &Nsds, solve_w: &dyn Fn(DsId, &mut [f64])) {
        // The sizes in the problem's order (sequential reads; the same sum in any order).
        let size: usize =
            self.blocks.iter().map(|b| b.widths[..b.systems].iter().map(|w| b.size * w).sum::<usize>()).sum();
        self.inv_w_ht.clear();
        self.inv_w_ht.resize(size, 0.0);
        let mut start = 0;
        let mut touched = 0;
        for d in 0..self.by_system_start.len().saturating_sub(1) {
            let terms = self.by_system_start[d]..self.by_system_start[d + 1];
            if terms.is_empty() {
                continue;
            }
            if terms.end > touched {
                let upto = (terms.start + TERM_BATCH).max(terms.end).min(self.by_system.len());
                self.touch_terms(touched.max(terms.start)..upto);
                touched = upto;
            }
            let ds = nsds.ds_id_at(d);
            for t in &mut self.by_system[terms] {
                let shape = &self.blocks[t.position];
                let (off, nj, nv) = (shape.offsets[t.system], shape.widths[t.system], shape.columns);
                let source = if self.has_right { &self.right } else { &self.h };
                let h = &source[shape.start..shape.start + shape.size * nv];
                let x = &mut self.inv_w_ht[start..start + nj * shape.size];
                for (i, col) in x.chunks_exact_mut(nj).enumerate() {
                    copy_small(col, &h[i * nv + off..i * nv + off + nj]);
                    solve_w(ds, col);
                }
                t.x = start;
                start += nj * shape.size;
            }
        }
    }

    /// Reads the first entry of each row of `H_α^j` (or `R_αᵀ`) of the terms `by_system[range]` and passes
    /// their sum to [`std::hint::black_box`], so that the loads are kept: independent loads
    /// whose misses overlap.
    fn touch_terms(&self, range: std::ops::Range<usize>) {
        let mut sum = 0.0;
        for t in &self.by_system[range] {
            let shape = &self.blocks[t.position];
            let first = shape.start + shape.offsets[t.system];
            for i in 0..shape.size {
                sum += if self.has_right {
                    self.right[first + i * shape.columns]
                } else {
                    self.h[first + i * shape.columns]
                };
            }
        }
        std::hint::black_box(sum);
    }
}

/// A zero `n × n` dense matrix, in the buffer of `spare` when it is a dense matrix of that size.
pub(crate) fn zeroed_dense(spare: Option<NumericsMatrix>, n: usize) -> Mat<f64> {
    match spare {
        Some(NumericsMatrix::Dense(mut m)) if m.nrows() == n && m.ncols() == n => {
            m.fill(0.0);
            m
        }
        _ => Mat::<f64>::zeros(n, n),
    }
}

/// Terms read ahead by [`BlockAssembly::compute_inv_w_ht`].
const TERM_BATCH: usize = 16;

/// Where an interaction of a one-step problem keeps its data for the assembly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockShape {
    /// Size `m` of the interaction (its rows in the problem).
    pub(crate) size: usize,
    /// Columns of `H` (the sizes of its systems' velocities or states, summed).
    pub(crate) columns: usize,
    /// Start of its `H` (and right operator) in the assembly's buffers.
    pub(crate) start: usize,
    /// Number of systems (1 or 2).
    pub(crate) systems: usize,
    /// Slot, column offset in `H` and size of each system.
    pub(crate) slots: [usize; 2],
    pub(crate) offsets: [usize; 2],
    pub(crate) widths: [usize; 2],
    /// The interaction's law.
    pub(crate) law: NonsmoothLaw,
    /// Whether its relation has `∂h/∂t`.
    pub(crate) has_h_dot: bool,
    /// Start of its diagonal block `D` (column-major) in the assembly's `diagonal`.
    pub(crate) diagonal: usize,
}

/// An interaction of a one-step problem on one of its systems (an entry of the problem's
/// per-system lists).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SystemTerm {
    /// The interaction's position in the problem.
    position: usize,
    /// The number of the system in the interaction's systems.
    system: usize,
    /// The interaction's size `m`.
    size: usize,
    /// Start of its `W_j⁻¹ R^j` in the assembly's `inv_w_ht`.
    x: usize,
}

/// Adds block `(α, β) = L_α^j (W_j⁻¹ R_β^j)` through their shared system `j`, number
/// `ja` in α's systems, with `b` β's term on `j`, by `add(i, l, value)`; `L` and `W⁻¹R` are
/// read from the assembly's buffers `h` and `x`. Each entry is a dot product summed from 0 in
/// column order.
fn add_block<F: FnMut(usize, usize, f64)>(h: &[f64], x: &[f64], a: &BlockShape, ja: usize, b: SystemTerm, add: &mut F) {
    let nj = a.widths[ja];
    let h_a = &h[a.start + a.offsets[ja]..];
    let x_b = &x[b.x..b.x + nj * b.size];
    if (a.size, b.size, nj) == (3, 3, 6) {
        // Contacts of 3D bodies (fixed sizes: the same sums, unrolled).
        let x_b: &[f64; 18] = x_b.try_into().expect("3 columns of 6");
        for i in 0..3 {
            let h_row: &[f64; 6] = h_a[i * a.columns..i * a.columns + 6].try_into().expect("a row of 6");
            for l in 0..3 {
                let mut s = 0.0;
                for c in 0..6 {
                    s += h_row[c] * x_b[l * 6 + c];
                }
                add(i, l, s);
            }
        }
        return;
    }
    for i in 0..a.size {
        let h_row = &h_a[i * a.columns..i * a.columns + nj];
        for l in 0..b.size {
            let col = &x_b[l * nj..(l + 1) * nj];
            let mut s = 0.0;
            for (h, xc) in h_row.iter().zip(col) {
                s += h * xc;
            }
            add(i, l, s);
        }
    }
}
