//! Fixtures shared by the criterion benches (`benches/lcp.rs`), the `write-bench-problems` tool
//! and, through the manifest that tool writes, `cargo xtask bench-report` and its Siconos script.
//!
//! The LCP benchmark set is:
//! - random positive definite problems `M = AᵀA + 0.1 I` of sizes [`RANDOM_SIZES`] with fixed seeds
//!   (see [`random_lcp`]), solved to [`RANDOM_TOLERANCE`];
//! - every `.dat` file of the Siconos LCP collection (`$NONSMOOTH_DATA/siconos/lcp/`), solved to
//!   [`FILE_TOLERANCE`] (the tolerance of the reference table `siconos44-lcp.csv`).
//!
//! Every solver starts from `z = 0`, as Siconos' driver does when the caller zeroes `z`.
//!
//! The FC3D benchmark set (`benches/fc3d.rs`) is every file of the Siconos FC3D collection
//! (`$NONSMOOTH_DATA/siconos/fc3d/`, see [`fc3d_bench_set`]) solved from `r = 0` to
//! [`FC3D_TOLERANCE`] by the solvers of [`FC3D_SOLVERS`].

use std::path::{Path, PathBuf};

pub mod kernel_models;
pub mod life;
pub mod pile;

use nonsmooth::numerics::NumericsError;
use nonsmooth::numerics::fc::{Fc3dMethod, Fc3dProblem};
use nonsmooth::numerics::io::{self, Problem, ProblemKind};
use nonsmooth::numerics::lcp::{LcpMethod, LcpProblem};
use nonsmooth::numerics::matrix::{NumericsMatrix, SparseBlockMatrix};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Sizes `n` of the random problems.
pub const RANDOM_SIZES: [usize; 3] = [50, 200, 1000];

/// Tolerance on Siconos' LCP error for the random problems.
pub const RANDOM_TOLERANCE: f64 = 1e-10;

/// Tolerance on Siconos' LCP error for the collection files (as in `siconos44-lcp.csv`).
pub const FILE_TOLERANCE: f64 = 1e-8;

/// Iteration cap given to every solver except `enum` (Siconos' default for Lemke and PGS).
pub const MAX_ITERATIONS: usize = 10_000;

/// The enumerative solver is exponential in `n`: it is run only up to this size.
pub const ENUM_MAX_SIZE: usize = 20;

/// The solver names benchmarked, as [`LcpMethod::from_name`] spells them, with the id of the
/// matching Siconos 4.4 solver (`SICONOS_LCP_*`, `lcp_cst.h`).
pub const SOLVERS: [(&str, i32); 6] =
    [("lemke", 200), ("pgs", 202), ("psor", 210), ("enum", 213), ("newton-fb", 209), ("newton-min", 208)];

/// Environment variable that restricts the set to a quick subset (used by
/// `cargo xtask bench-report --quick` to prove the pipeline end to end).
pub const QUICK_ENV: &str = "NONSMOOTH_BENCH_QUICK";

/// The seed of the random problem of size `n` (fixed, so every run and Siconos see the same data).
pub fn random_seed(n: usize) -> u64 {
    0x5EED_0000 + n as u64
}

/// A random LCP with a symmetric positive definite matrix, the benchmark problem measured on
/// Siconos 4.4 too ("random `M = AᵀA + 0.1 I`"):
///
/// `M = AᵀA + 0.1 I`, with `A` an `n × n` matrix whose entries are drawn uniformly in `[−1, 1)`
/// (row by row, from `StdRng::seed_from_u64(seed)`), then `q` with entries uniform in `[−1, 1)`.
/// `M` is stored dense. Since `M` is positive definite the LCP has exactly one solution.
///
/// # Panics
/// When `n == 0` (the problem would be empty); the benchmark sizes are positive.
pub fn random_lcp(n: usize, seed: u64) -> LcpProblem {
    assert!(n > 0, "random_lcp needs n > 0");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut a = faer::Mat::<f64>::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            a[(i, j)] = rng.random_range(-1.0..1.0);
        }
    }
    let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut m = faer::Mat::<f64>::zeros(n, n);
    faer::linalg::matmul::matmul(&mut m, faer::Accum::Replace, a.transpose(), &a, 1.0, faer::Par::Seq);
    for i in 0..n {
        m[(i, i)] += 0.1;
    }
    LcpProblem::new(NumericsMatrix::Dense(m), q).expect("a finite n × n matrix with n = q.len() > 0 is a valid LCP")
}

/// Where a benchmark problem comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// [`random_lcp`] with this seed.
    Random {
        /// The seed given to [`random_lcp`].
        seed: u64,
    },
    /// A file of the Siconos collection.
    File(PathBuf),
}

/// One problem of the benchmark set.
#[derive(Clone, Debug)]
pub struct BenchProblem {
    /// Name used in benchmark ids and reports: `random` or the file stem (`lcp_exp_murty`).
    pub name: String,
    /// Where it comes from.
    pub source: Source,
    /// Tolerance every solver is given on this problem.
    pub tolerance: f64,
    /// The problem.
    pub problem: LcpProblem,
}

impl BenchProblem {
    /// Size `n`.
    pub fn size(&self) -> usize {
        self.problem.size()
    }

    /// Whether `solver` is run on this problem (`enum` only up to [`ENUM_MAX_SIZE`]).
    pub fn runs(&self, solver: &str) -> bool {
        solver != "enum" || self.size() <= ENUM_MAX_SIZE
    }

    /// The method `solver` with this problem's tolerance and the iteration cap [`MAX_ITERATIONS`]
    /// (except `enum`, whose cap counts enumerated cases and which Siconos runs without one).
    pub fn method(&self, solver: &str) -> Option<LcpMethod> {
        let max_iterations = (solver != "enum").then_some(MAX_ITERATIONS);
        LcpMethod::from_name(solver, Some(self.tolerance), max_iterations)
    }
}

/// `true` when [`QUICK_ENV`] is set to a non-empty value other than `0`.
pub fn quick_mode() -> bool {
    std::env::var(QUICK_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The reference data folder: `NONSMOOTH_DATA`, or `../shared/data` seen from the workspace root.
/// Returns `None` after printing one line when it is absent.
pub fn data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("NONSMOOTH_DATA") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: reference data not found at {} (set NONSMOOTH_DATA)", dir.display());
        None
    }
}

/// The LCP files of the Siconos collection (`<data>/siconos/lcp/*.dat`), sorted by name; empty
/// (after printing one line) when the data folder is absent.
pub fn collection_files() -> Vec<PathBuf> {
    let Some(dir) = data_dir() else { return Vec::new() };
    let dir = dir.join("siconos/lcp");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipped: no LCP collection at {}", dir.display());
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    files.sort();
    files
}

/// Reads one collection file as an LCP.
///
/// # Errors
/// Whatever [`io::read_problem`] reports, or [`NumericsError::InvalidInput`] when the file holds
/// another kind of problem.
pub fn read_lcp(path: &Path) -> Result<LcpProblem, NumericsError> {
    match io::read_problem(path, Some(ProblemKind::Lcp))? {
        Problem::Lcp(p) => Ok(p),
        other => Err(NumericsError::InvalidInput {
            what: "benchmark problem",
            reason: format!("{} holds a {} problem, not an lcp", path.display(), other.kind().as_str()),
        }),
    }
}

/// The benchmark set: the random problems, then the collection files (unreadable files are
/// skipped with a printed line). With [`quick_mode`], only the random problem of size 50 and the
/// files `lcp_exp_murty` and `lcp_CPS_1`.
pub fn bench_problems() -> Vec<BenchProblem> {
    let quick = quick_mode();
    let mut out = Vec::new();
    for n in RANDOM_SIZES.into_iter().filter(|&n| !quick || n == 50) {
        let seed = random_seed(n);
        out.push(BenchProblem {
            name: "random".to_owned(),
            source: Source::Random { seed },
            tolerance: RANDOM_TOLERANCE,
            problem: random_lcp(n, seed),
        });
    }
    for path in collection_files() {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if quick && name != "lcp_exp_murty" && name != "lcp_CPS_1" {
            continue;
        }
        match read_lcp(&path) {
            Ok(problem) => {
                out.push(BenchProblem { name, source: Source::File(path), tolerance: FILE_TOLERANCE, problem })
            }
            Err(e) => println!("skipped {}: {e}", path.display()),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// FC3D benchmark set (`benches/fc3d.rs`, `cargo xtask bench-report`, `xtask/siconos_fc3d.py`).
// ---------------------------------------------------------------------------------------------

/// Tolerance on Siconos' FC3D error (`fc3d_compute_error`, normalised by `‖q‖`) given to every FC3D
/// solver, as in the reference table `siconos44-fc3d.csv`.
pub const FC3D_TOLERANCE: f64 = 1e-8;

/// The FC3D solvers benchmarked: the name [`Fc3dMethod::from_name`] takes, the id of the matching
/// Siconos 4.4 solver (`SICONOS_FRICTION_3D_NSGS` = 500 run with the full error evaluation,
/// `SICONOS_FRICTION_3D_NSN_AC` = 504, `SICONOS_FRICTION_3D_PROX` = 502, `fc3d_cst.h`) and the
/// iteration cap of both sides (10 000 sweeps for NSGS, 1000 steps for the others, as in
/// `siconos44-fc3d.csv`).
pub const FC3D_SOLVERS: [(&str, i32, usize); 3] = [("nsgs", 500, 10_000), ("nsn-ac", 504, 1000), ("prox", 502, 1000)];

/// Number of problems (the largest by contact count) on which parallel NSGS is timed.
pub const FC3D_PARALLEL_PROBLEMS: usize = 4;

/// Rayon pool sizes under which parallel NSGS is timed (next to sequential NSGS).
pub const FC3D_PARALLEL_THREADS: [usize; 2] = [1, 2];

/// Environment variable naming the JSON file where `benches/fc3d.rs` writes its FC3D manifest
/// (problems, sizes, solvers, the result of one untimed solve per pair, unreadable files); read by
/// `cargo xtask bench-report` and `xtask/siconos_fc3d.py`.
pub const FC3D_MANIFEST_ENV: &str = "NONSMOOTH_BENCH_FC3D_MANIFEST";

/// One FC3D problem of the benchmark set: a file of the Siconos collection.
#[derive(Clone, Debug)]
pub struct Fc3dBenchProblem {
    /// The file name (`Capsules-i100-1090.dat`), used in benchmark ids and reports.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The problem.
    pub problem: Fc3dProblem,
}

impl Fc3dBenchProblem {
    /// Number of contacts `nc`.
    pub fn contacts(&self) -> usize {
        self.problem.number_of_contacts()
    }

    /// Number of unknowns `3·nc`.
    pub fn size(&self) -> usize {
        self.problem.size()
    }
}

/// The FC3D benchmark set: the problems read, and the files that could not be read (file name,
/// reason), both sorted by file name.
#[derive(Clone, Debug, Default)]
pub struct Fc3dBenchSet {
    /// The problems read.
    pub problems: Vec<Fc3dBenchProblem>,
    /// Files of the collection that [`io::read_problem`] rejects (e.g. `.hdf5` before the FCLIB
    /// reader exists): file name, path and the error.
    pub unreadable: Vec<(String, PathBuf, String)>,
}

/// The files of the Siconos FC3D collection (`<data>/siconos/fc3d/*.dat` and `*.hdf5`), sorted by
/// name; empty (after printing one line) when the data folder is absent.
pub fn fc3d_collection_files() -> Vec<PathBuf> {
    let Some(dir) = data_dir() else { return Vec::new() };
    let dir = dir.join("siconos/fc3d");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipped: no FC3D collection at {}", dir.display());
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dat" || x == "hdf5"))
        .collect();
    files.sort();
    files
}

/// The files of the quick subset (`--quick`): small problems that every solver handles fast.
pub const FC3D_QUICK_FILES: [&str; 3] = ["FrictionContact3D_1c.dat", "Rover1039.dat", "OneObject-i1028-138.hdf5.dat"];

/// Reads one collection file as an FC3D problem.
///
/// # Errors
/// Whatever [`io::read_problem`] reports, or [`NumericsError::InvalidInput`] when the file holds
/// another kind of problem.
pub fn read_fc3d(path: &Path) -> Result<Fc3dProblem, NumericsError> {
    match io::read_problem(path, Some(ProblemKind::Fc3d))? {
        Problem::Fc3d(p) => Ok(p),
        other => Err(NumericsError::InvalidInput {
            what: "benchmark problem",
            reason: format!("{} holds a {} problem, not an fc3d", path.display(), other.kind().as_str()),
        }),
    }
}

/// The FC3D benchmark set: every file of [`fc3d_collection_files`] (with [`quick_mode`], only
/// [`FC3D_QUICK_FILES`]), read with [`read_fc3d`]; files that fail to read are listed as
/// unreadable.
pub fn fc3d_bench_set() -> Fc3dBenchSet {
    let quick = quick_mode();
    let mut set = Fc3dBenchSet::default();
    for path in fc3d_collection_files() {
        let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if quick && !FC3D_QUICK_FILES.contains(&name.as_str()) {
            continue;
        }
        match read_fc3d(&path) {
            Ok(problem) => set.problems.push(Fc3dBenchProblem { name, path, problem }),
            Err(e) => set.unreadable.push((name, path, e.to_string())),
        }
    }
    set
}

/// The iteration cap of the FC3D solver `solver` ([`FC3D_SOLVERS`]), `None` for an unknown name.
pub fn fc3d_max_iterations(solver: &str) -> Option<usize> {
    FC3D_SOLVERS.iter().find(|(name, _, _)| *name == solver).map(|&(_, _, cap)| cap)
}

/// The FC3D method `solver` with tolerance [`FC3D_TOLERANCE`] and its cap from [`FC3D_SOLVERS`];
/// `None` when the name is not benchmarked or when [`Fc3dMethod::from_name`] does not know it
/// (yet): such solvers are reported as not available.
pub fn fc3d_method(solver: &str) -> Option<Fc3dMethod> {
    Fc3dMethod::from_name(solver, Some(FC3D_TOLERANCE), Some(fc3d_max_iterations(solver)?))
}

/// The indices of the `count` problems of `problems` with the most contacts (ties broken by
/// name), largest first: the problems on which parallel NSGS is timed.
pub fn largest_by_contacts(problems: &[Fc3dBenchProblem], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..problems.len()).collect();
    order.sort_by(|&a, &b| {
        problems[b].contacts().cmp(&problems[a].contacts()).then_with(|| problems[a].name.cmp(&problems[b].name))
    });
    order.truncate(count);
    order
}

// ---------------------------------------------------------------------------------------------
// Synthetic granular FC3D problems for parallel NSGS at scale (`benches/fc3d.rs`).
// ---------------------------------------------------------------------------------------------

/// Lattices `[nx, ny, nz]` of the synthetic granular problems ([`granular_lattice_fc3d`]) on which
/// parallel NSGS is timed besides the collection files: 16³ spheres (11 520 contacts) and 32³
/// spheres (95 232 contacts). With [`quick_mode`] only the first one.
pub const FC3D_SYNTHETIC_LATTICES: [[usize; 3]; 2] = [[16, 16, 16], [32, 32, 32]];

/// Seed of every synthetic problem ([`granular_lattice_fc3d`]).
pub const FC3D_SYNTHETIC_SEED: u64 = 0x6A4E_0000;

/// Number of NSGS sweeps every variant does on a synthetic problem: the tolerance
/// [`FC3D_SYNTHETIC_TOLERANCE`] cannot be reached, so sequential and parallel NSGS do exactly this
/// many sweeps (the same work) and their times compare per sweep.
pub const FC3D_SYNTHETIC_SWEEPS: usize = 20;

/// Tolerance given to NSGS on the synthetic problems: far below what floating point reaches, so the
/// sweep cap [`FC3D_SYNTHETIC_SWEEPS`] always ends the solve.
pub const FC3D_SYNTHETIC_TOLERANCE: f64 = 1e-30;

/// Name of the synthetic problem on lattice `n` in benchmark ids and reports: `lattice-16x16x16`.
pub fn synthetic_name(n: [usize; 3]) -> String {
    format!("lattice-{}x{}x{}", n[0], n[1], n[2])
}

/// The synthetic lattices benchmarked: [`FC3D_SYNTHETIC_LATTICES`], only the smallest with
/// [`quick_mode`].
pub fn synthetic_lattices() -> Vec<[usize; 3]> {
    let quick = quick_mode();
    FC3D_SYNTHETIC_LATTICES.iter().copied().take(if quick { 1 } else { FC3D_SYNTHETIC_LATTICES.len() }).collect()
}

/// Number of contacts of [`granular_lattice_fc3d`] on lattice `[nx, ny, nz]`: one per pair of
/// lattice neighbours, `(nx−1)·ny·nz + nx·(ny−1)·nz + nx·ny·(nz−1)` (0 when a side is 0).
pub fn lattice_contacts(n: [usize; 3]) -> usize {
    let [nx, ny, nz] = n;
    if nx == 0 || ny == 0 || nz == 0 {
        return 0;
    }
    (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)
}

/// A synthetic granular FC3D problem: spheres on an `nx × ny × nz` lattice (translational
/// dynamics only), one contact between each pair of lattice neighbours.
///
/// Body `b = x + nx·(y + ny·z)` has mass `m_b` uniform in `[0.5, 2]` and free velocity
/// `v_b^free` with entries uniform in `[−0.5, 0.5]`. Contacts are numbered body by body (in body
/// order, then along x, y, z): the contact along axis `k` between body `a` and its upper neighbour
/// `b` has the local frame `F_c` (3×3, rows `n, t₁, t₂`) with normal `n = e_k` (from `a` to `b`),
/// `t₁ = cos θ e_{k+1} + sin θ e_{k+2}`, `t₂ = n × t₁` (indices mod 3) for a seeded angle
/// `θ ∈ [0, 2π)`, and friction coefficient `μ_c` uniform in `[0.1, 0.5]`. Its Jacobian blocks are
/// `H_cb = F_c`, `H_ca = −F_c`, so the local velocity is `u_c = F_c (v_b − v_a)` (positive
/// normal part: separating).
///
/// Then `W = H M⁻¹ Hᵀ` is assembled directly as a [`SparseBlockMatrix`] of 3×3 blocks:
/// `W_cd = Σ_{i shared by c and d} s_ci s_di / m_i · F_c F_dᵀ` (`s = ±1` the signs above), so
/// `W_cd ≠ 0` exactly when `c` and `d` share a body (two distinct contacts share at most one) and
/// `W_cc = (1/m_a + 1/m_b) I`. `W` is symmetric positive semidefinite, with positive definite
/// diagonal blocks; like the Delassus matrix of a real dense packing (hyperstatic) it is singular
/// as soon as the lattice has a cycle: a force circulating around a lattice square (`H^T x = 0`)
/// is in its kernel (checked by the unit test), and its rank is `3·(bodies − 1)` (the rank of
/// the incidence matrix of a connected graph, times 3).
/// Finally `q = H v^free − v_app e_N` with the approaching normal speed `v_app = 1` on every
/// contact, so `q_N ∈ [−2, 0]` and every contact starts active.
///
/// The generator draws, from `StdRng::seed_from_u64(seed)`: the masses (body order), the free
/// velocities (body order, x y z), then per contact (contact order) `θ` and `μ`.
///
/// # Panics
/// When the lattice has no contact (a side 0, or all sides 1); the benchmark lattices have many.
pub fn granular_lattice_fc3d(n: [usize; 3], seed: u64) -> Fc3dProblem {
    let Lattice { inv_mass, v_free, contacts, mu } = lattice(n, seed);
    let nc = contacts.len();
    let bodies = inv_mass.len();
    // The contacts of each body with the sign of its Jacobian block (−1 lower, +1 upper).
    let mut of_body: Vec<Vec<(usize, f64)>> = vec![Vec::new(); bodies];
    for (c, &(a, b, _)) in contacts.iter().enumerate() {
        of_body[a].push((c, -1.0));
        of_body[b].push((c, 1.0));
    }
    let size = 3 * nc;
    let ends: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
    let mut row_ptr = Vec::with_capacity(nc + 1);
    row_ptr.push(0);
    let mut col_idx = Vec::new();
    let mut values = Vec::new();
    let mut q = Vec::with_capacity(size);
    let mut row: Vec<(usize, f64)> = Vec::with_capacity(16);
    for (c, &(a, b, fc)) in contacts.iter().enumerate() {
        // Neighbours d with the coefficient s_ci s_di / m_i of the body i they share with c.
        row.clear();
        for (body, s_c) in [(a, -1.0), (b, 1.0)] {
            for &(d, s_d) in &of_body[body] {
                if d != c {
                    row.push((d, s_c * s_d * inv_mass[body]));
                }
            }
        }
        row.push((c, inv_mass[a] + inv_mass[b]));
        row.sort_by_key(|&(d, _)| d);
        for &(d, coef) in &row {
            let fd = &contacts[d].2;
            col_idx.push(d);
            // Column-major 3×3 block: entry (r, s) at r + 3 s.
            for fd_s in fd {
                for fc_r in &fc {
                    values.push(coef * dot3(fc_r, fd_s));
                }
            }
        }
        row_ptr.push(col_idx.len());
        let dv = [0, 1, 2].map(|i| v_free[b][i] - v_free[a][i]);
        q.push(dot3(&fc[0], &dv) - 1.0);
        q.push(dot3(&fc[1], &dv));
        q.push(dot3(&fc[2], &dv));
    }
    let w = SparseBlockMatrix::new(ends.clone(), ends, row_ptr, col_idx, values)
        .expect("blocks built row by row with sorted distinct columns and finite values");
    Fc3dProblem::new(NumericsMatrix::SparseBlock(w), q, mu)
        .expect("3×3 blocks per contact, finite q of length 3·nc, μ in [0.1, 0.5]")
}

/// The bodies and contacts of [`granular_lattice_fc3d`] (same draws, same order).
struct Lattice {
    /// `1 / m_b` per body.
    inv_mass: Vec<f64>,
    /// `v_b^free` per body.
    v_free: Vec<[f64; 3]>,
    /// Per contact: lower body `a`, upper body `b`, frame rows `[n, t₁, t₂]`.
    contacts: Vec<(usize, usize, [[f64; 3]; 3])>,
    /// `μ_c` per contact.
    mu: Vec<f64>,
}

/// Draws the lattice of [`granular_lattice_fc3d`].
///
/// # Panics
/// When the lattice has no contact.
fn lattice(n: [usize; 3], seed: u64) -> Lattice {
    let [nx, ny, nz] = n;
    let nc = lattice_contacts(n);
    assert!(nc > 0, "granular_lattice_fc3d needs at least one pair of neighbours");
    let bodies = nx * ny * nz;
    let mut rng = StdRng::seed_from_u64(seed);
    let inv_mass: Vec<f64> = (0..bodies).map(|_| 1.0 / rng.random_range(0.5..=2.0)).collect();
    let v_free: Vec<[f64; 3]> = (0..bodies)
        .map(|_| [rng.random_range(-0.5..=0.5), rng.random_range(-0.5..=0.5), rng.random_range(-0.5..=0.5)])
        .collect();
    // Contacts: (lower body a, upper body b, frame rows [n, t1, t2]).
    let stride = [1, nx, nx * ny];
    let mut contacts: Vec<(usize, usize, [[f64; 3]; 3])> = Vec::with_capacity(nc);
    let mut mu = Vec::with_capacity(nc);
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let a = x + nx * (y + ny * z);
                let has_upper = [x + 1 < nx, y + 1 < ny, z + 1 < nz];
                for k in 0..3 {
                    if !has_upper[k] {
                        continue;
                    }
                    let theta = rng.random_range(0.0..std::f64::consts::TAU);
                    let mut normal = [0.0; 3];
                    normal[k] = 1.0;
                    let mut t1 = [0.0; 3];
                    t1[(k + 1) % 3] = theta.cos();
                    t1[(k + 2) % 3] = theta.sin();
                    let t2 = cross(normal, t1);
                    contacts.push((a, a + stride[k], [normal, t1, t2]));
                    mu.push(rng.random_range(0.1..=0.5));
                }
            }
        }
    }
    debug_assert_eq!(contacts.len(), nc);
    Lattice { inv_mass, v_free, contacts, mu }
}

fn cross(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

fn dot3(u: &[f64; 3], v: &[f64; 3]) -> f64 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    #[test]
    fn random_lcp_is_symmetric_positive_definite_and_reproducible() {
        let p = random_lcp(30, random_seed(30));
        let m = p.m().to_dense();
        for i in 0..30 {
            for j in 0..30 {
                assert!((m[(i, j)] - m[(j, i)]).abs() < 1e-12, "M not symmetric at ({i}, {j})");
            }
            assert!(m[(i, i)] >= 0.1 - 1e-12, "diagonal entry {} below 0.1", m[(i, i)]);
        }
        // xᵀ M x ≥ 0.1 ‖x‖² for a few deterministic x.
        for k in 0..5 {
            let x: Vec<f64> = (0..30).map(|i| ((i * 7 + k * 13) % 11) as f64 - 5.0).collect();
            let mx = p.m().mul_vec(&x).expect("sizes agree");
            let xmx: f64 = x.iter().zip(&mx).map(|(a, b)| a * b).sum();
            let xx: f64 = x.iter().map(|a| a * a).sum();
            assert!(xmx >= 0.1 * xx - 1e-9, "xᵀMx = {xmx} < 0.1 ‖x‖² = {}", 0.1 * xx);
        }
        assert!(p.q().iter().all(|v| (-1.0..1.0).contains(v)));
        let again = random_lcp(30, random_seed(30));
        let bits = |p: &LcpProblem| p.q().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&p), bits(&again), "same seed, same q");
        let other = random_lcp(30, random_seed(30) + 1);
        assert_ne!(bits(&p), bits(&other), "another seed, another q");
    }

    #[test]
    fn enum_runs_only_on_small_problems() {
        let small = BenchProblem {
            name: "random".into(),
            source: Source::Random { seed: 1 },
            tolerance: RANDOM_TOLERANCE,
            problem: random_lcp(ENUM_MAX_SIZE, 1),
        };
        assert!(small.runs("enum") && small.runs("lemke"));
        let big = BenchProblem { problem: random_lcp(ENUM_MAX_SIZE + 1, 1), ..small.clone() };
        assert!(!big.runs("enum") && big.runs("pgs"));
        for (name, _) in SOLVERS {
            assert!(small.method(name).is_some(), "{name} is a known solver name");
        }
    }

    fn fc3d_problem(name: &str, contacts: usize) -> Fc3dBenchProblem {
        let n = 3 * contacts;
        let w = NumericsMatrix::Dense(faer::Mat::<f64>::identity(n, n));
        let problem = Fc3dProblem::new(w, vec![-1.0; n], vec![0.5; contacts]).expect("a valid FC3D problem");
        Fc3dBenchProblem { name: name.into(), path: PathBuf::from(name), problem }
    }

    #[test]
    fn largest_by_contacts_orders_by_contacts_then_name() {
        let problems = [fc3d_problem("b", 2), fc3d_problem("a", 5), fc3d_problem("c", 5), fc3d_problem("d", 1)];
        assert_eq!(largest_by_contacts(&problems, 3), vec![1, 2, 0]);
        assert_eq!(largest_by_contacts(&problems, 10).len(), 4);
        assert!(largest_by_contacts(&[], 3).is_empty());
    }

    #[test]
    fn fc3d_solvers_have_caps_and_nsgs_builds() {
        assert_eq!(fc3d_max_iterations("nsgs"), Some(10_000));
        assert_eq!(fc3d_max_iterations("prox"), Some(1000));
        assert_eq!(fc3d_max_iterations("lemke"), None);
        assert!(fc3d_method("lemke").is_none(), "not a benchmarked FC3D solver");
        let mut solver = fc3d_method("nsgs").expect("nsgs exists").build().expect("valid options");
        let p = fc3d_problem("one", 2);
        let (mut r, mut u) = (vec![0.0; 6], vec![0.0; 6]);
        let report = solver.solve(&p.problem, &mut r, &mut u).expect("sizes agree");
        assert!(report.is_converged() && report.residual <= FC3D_TOLERANCE, "{report:?}");
    }

    #[test]
    fn lattice_contact_count() {
        assert_eq!(lattice_contacts([3, 3, 3]), 54);
        assert_eq!(lattice_contacts([32, 32, 32]), 95_232);
        assert_eq!(lattice_contacts([16, 16, 16]), 11_520);
        assert_eq!(lattice_contacts([2, 1, 1]), 1);
        assert_eq!(lattice_contacts([1, 1, 1]), 0);
        assert_eq!(lattice_contacts([0, 4, 4]), 0);
        for n in [[3, 3, 3], [4, 2, 3], [2, 1, 1]] {
            let p = granular_lattice_fc3d(n, 7);
            assert_eq!(p.number_of_contacts(), lattice_contacts(n), "{n:?}");
            assert!(p.mu().iter().all(|m| (0.1..=0.5).contains(m)));
        }
    }

    #[test]
    fn lattice_w_is_symmetric_psd_with_the_assembled_structure() {
        let n = [3, 3, 3];
        let p = granular_lattice_fc3d(n, FC3D_SYNTHETIC_SEED);
        let geo = lattice(n, FC3D_SYNTHETIC_SEED);
        let nc = p.number_of_contacts();
        let NumericsMatrix::SparseBlock(w) = p.w() else { panic!("W must be sparse-block") };
        assert_eq!(w.uniform_block_size(), Some(3));
        let dense = p.w().to_dense();
        let block = |c: usize, d: usize| Mat::from_fn(3, 3, |i, j| dense[(3 * c + i, 3 * d + j)]);
        for c in 0..nc {
            let (a, b, _) = geo.contacts[c];
            for d in 0..nc {
                let (wcd, wdc) = (block(c, d), block(d, c));
                let asym =
                    (0..3).flat_map(|i| (0..3).map(move |j| (i, j))).map(|(i, j)| (wcd[(i, j)] - wdc[(j, i)]).abs());
                assert!(asym.fold(0.0, f64::max) < 1e-14, "W_{c}{d} ≠ W_{d}{c}ᵀ");
                let (e, f, _) = geo.contacts[d];
                let shares = a == e || a == f || b == e || b == f;
                let norm: f64 = (0..9).map(|k| wcd[(k % 3, k / 3)].abs()).sum();
                assert_eq!(norm > 0.0, shares, "W_{c}{d} nonzero iff the contacts share a body");
            }
            // Diagonal block (1/m_a + 1/m_b) I.
            let s = geo.inv_mass[a] + geo.inv_mass[b];
            let diag = block(c, c);
            for i in 0..3 {
                for j in 0..3 {
                    let expected = if i == j { s } else { 0.0 };
                    assert!((diag[(i, j)] - expected).abs() < 1e-14, "W_cc ≠ (1/m_a + 1/m_b) I at contact {c}");
                }
            }
        }
        // xᵀWx > 0 for seeded random x.
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..5 {
            let x: Vec<f64> = (0..3 * nc).map(|_| rng.random_range(-1.0..1.0)).collect();
            let wx = p.w().mul_vec(&x).expect("sizes agree");
            let xwx: f64 = x.iter().zip(&wx).map(|(a, b)| a * b).sum();
            assert!(xwx > 1e-3, "xᵀWx = {xwx}");
        }
        // The singular direction: a force g circulating around the square of bodies 0, 1, 4, 3
        // (lattice (0,0,0), (1,0,0), (1,1,0), (0,1,0)) has Hᵀx = 0, so Wx = 0.
        let find =
            |a: usize, b: usize| geo.contacts.iter().position(|&(p, q, _)| p == a && q == b).expect("neighbours");
        let g = [0.3, -1.0, 0.7];
        let mut x = vec![0.0; 3 * nc];
        for (a, b, sign) in [(0, 1, 1.0), (1, 4, 1.0), (3, 4, -1.0), (0, 3, -1.0)] {
            let c = find(a, b);
            let f = geo.contacts[c].2;
            for i in 0..3 {
                x[3 * c + i] = sign * dot3(&f[i], &g);
            }
        }
        let wx = p.w().mul_vec(&x).expect("sizes agree");
        assert!(norm(&wx) < 1e-13 * norm(&x), "‖Wx‖ = {} for a circulating force", norm(&wx));
        // q_N = n·(v_b − v_a) − 1 ∈ [−2, 0]: every contact approaches.
        assert!((0..nc).all(|c| (-2.0..=0.0).contains(&p.q()[3 * c])));
        let again = granular_lattice_fc3d(n, FC3D_SYNTHETIC_SEED);
        assert_eq!(
            p.q().iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            again.q().iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }

    fn norm(v: &[f64]) -> f64 {
        v.iter().map(|a| a * a).sum::<f64>().sqrt()
    }
}
