//! Global frictional contact (`nonsmooth_numerics::gfc`): condensation, Siconos 4.4's
//! `gfc3d_compute_error`, and the solver by condensation on the Siconos gfc3d / gfc2d collections.

use std::path::{Path, PathBuf};
use std::time::Instant;

use nonsmooth_numerics::NumericsError;
use nonsmooth_numerics::faer::Mat;
use nonsmooth_numerics::fc::Fc3dProblem;
use nonsmooth_numerics::gfc::{DelassusStorage, GlobalFc3dProblem, GlobalFcOptions, GlobalFcProblem, GlobalFcSolver};
use nonsmooth_numerics::io::{Problem, read_problem};
use nonsmooth_numerics::matrix::NumericsMatrix;

/// The `.dat` files of `siconos/<folder>`, sorted.
fn dat_files(data: &Path, folder: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data.join("siconos").join(folder))
        .expect("collection folder exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    files
}

fn read_3d(path: &Path) -> GlobalFc3dProblem {
    match read_problem(path, None).expect("readable file") {
        Problem::GlobalFc3d(p) => p,
        other => panic!("{}: not a gfc3d problem but {}", path.display(), other.kind()),
    }
}

fn name(path: &Path) -> String {
    path.file_name().expect("a file").to_string_lossy().into_owned()
}

/// Solves at tolerance 1e-9 with the given Delassus storage and checks the global error ≤ 1e-8,
/// recomputed independently.
fn solve_and_check<const D: usize>(p: &GlobalFcProblem<D>, file: &str, storage: DelassusStorage) {
    let start = Instant::now();
    let options = GlobalFcOptions::default().with_tolerance(1e-9).with_delassus_storage(storage);
    let mut solver = GlobalFcSolver::new(options).expect("valid options");
    let (mut r, mut u, mut v) = (vec![0.0; p.size()], vec![0.0; p.size()], vec![0.0; p.velocity_size()]);
    let report = solver.solve(p, &mut r, &mut u, &mut v).expect("solvable input");
    let mut u2 = vec![0.0; p.size()];
    let err = p.compute_error(&r, &mut u2, &v).expect("sizes match");
    println!(
        "{file} ({storage:?}): n = {}, nc = {}, {:?} after {} iterations, global error {:.3e}, {:.3} s",
        p.velocity_size(),
        p.number_of_contacts(),
        report.status,
        report.iterations,
        report.residual,
        start.elapsed().as_secs_f64()
    );
    assert!(report.is_converged(), "{file}: {report:?}");
    assert!(err <= 1e-8, "{file}: error {err}");
    assert!((err - report.residual).abs() <= 1e-15, "{file}: {err} vs {}", report.residual);
    assert!(u.iter().zip(&u2).all(|(a, b)| (a - b).abs() <= 1e-14 * (1.0 + b.abs())));
}

#[test]
fn gfc3d_collection_condenses_and_solves() {
    let Some(data) = crate::data_dir() else { return };
    let files = dat_files(&data, "gfc3d");
    assert_eq!(files.len(), 7);
    for f in files {
        let p = read_3d(&f);
        solve_and_check(&p, &name(&f), DelassusStorage::Auto);
        solve_and_check(&p, &name(&f), DelassusStorage::SparseBlock);
    }
}

#[test]
fn gfc2d_collection_condenses_and_solves() {
    let Some(data) = crate::data_dir() else { return };
    let files = dat_files(&data, "gfc2d");
    assert_eq!(files.len(), 3);
    for f in files {
        let p = match read_problem(&f, None).expect("readable file") {
            Problem::GlobalFc2d(p) => p,
            other => panic!("{}: not a gfc2d problem but {}", f.display(), other.kind()),
        };
        solve_and_check(&p, &name(&f), DelassusStorage::Auto);
    }
}

/// `W = Hᵀ M⁻¹ H` and `q_loc = Hᵀ M⁻¹ q + b` by dense LU on all columns.
fn dense_condensation<const D: usize>(p: &GlobalFcProblem<D>) -> (Mat<f64>, Vec<f64>) {
    use nonsmooth_numerics::faer::linalg::solvers::{PartialPivLu, Solve};
    let m = p.m().to_dense();
    let h = p.h().to_dense();
    let lu = PartialPivLu::new(m.as_ref());
    let x = lu.solve(h.as_ref());
    let w = h.transpose() * &x;
    let y = lu.solve(Mat::from_fn(p.velocity_size(), 1, |i, _| p.q()[i]).as_ref());
    let q = (0..p.size()).map(|i| p.b()[i] + (0..p.velocity_size()).map(|k| h[(k, i)] * y[(k, 0)]).sum::<f64>());
    (w, q.collect())
}

fn max_abs(m: &Mat<f64>) -> f64 {
    (0..m.ncols()).flat_map(|j| m.col_as_slice(j).iter()).fold(0.0f64, |a, v| a.max(v.abs()))
}

fn check_condensation<const D: usize>(p: &GlobalFcProblem<D>, file: &str) {
    let (w_ref, q_ref) = dense_condensation(p);
    let scale_w = max_abs(&w_ref);
    let scale_q = q_ref.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    for storage in [DelassusStorage::Dense, DelassusStorage::SparseBlock] {
        let c = p.condense_with(storage).expect("M is nonsingular");
        let local = c.local().expect("the files have contacts");
        let w = local.w().to_dense();
        let dw = (0..w.ncols())
            .flat_map(|j| (0..w.nrows()).map(move |i| (i, j)))
            .fold(0.0f64, |a, (i, j)| a.max((w[(i, j)] - w_ref[(i, j)]).abs()));
        let dq = local.q().iter().zip(&q_ref).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        println!(
            "{file} {storage:?}: max |ΔW| / max |W| = {:.1e}, max |Δq| / max |q| = {:.1e}",
            dw / scale_w,
            dq / scale_q
        );
        assert!(dw <= 1e-12 * scale_w, "{file} {storage:?}: W differs by {dw}");
        assert!(dq <= 1e-12 * scale_q, "{file} {storage:?}: q differs by {dq}");
    }
}

#[test]
fn condensation_agrees_with_a_dense_computation() {
    let Some(data) = crate::data_dir() else { return };
    for f in dat_files(&data, "gfc3d") {
        let p = read_3d(&f);
        if p.number_of_contacts() > 0 {
            check_condensation(&p, &name(&f));
        }
    }
    // The smaller 2D file with contacts (900 velocities, 69 contacts).
    let f = data.join("siconos/gfc2d/gfc2d_granularflowonwall_00069_00350.dat");
    match read_problem(&f, None).expect("readable file") {
        Problem::GlobalFc2d(p) => check_condensation(&p, &name(&f)),
        other => panic!("not a gfc2d problem but {}", other.kind()),
    }
}

#[test]
fn two_rods_condensation_matches_siconos() {
    let Some(data) = crate::data_dir() else { return };
    let p = read_3d(&data.join("siconos/gfc3d/GFC3D_TwoRods1.dat"));
    let reference: Fc3dProblem =
        match read_problem(&data.join("siconos/fc3d/GFC3D_TwoRods1-condensed.dat"), None).expect("readable file") {
            Problem::Fc3d(p) => p,
            other => panic!("not an fc3d problem but {}", other.kind()),
        };
    let c = p.condense().expect("M is SPD");
    let local = c.local().expect("three contacts");
    let (w, w_ref) = (local.w().to_dense(), reference.w().to_dense());
    // Siconos printed W with 7 significant digits ("%e"): each entry is within half a unit of
    // its 7th digit, i.e. 5e-7 relative; q and μ are printed to full precision.
    for j in 0..9 {
        for i in 0..9 {
            let (a, b) = (w[(i, j)], w_ref[(i, j)]);
            assert!((a - b).abs() <= 5e-7 * b.abs() + 1e-15, "W({i}, {j}): {a} vs Siconos {b}");
        }
    }
    let dq = local.q().iter().zip(reference.q()).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
    let nq = reference.q().iter().map(|b| b * b).sum::<f64>().sqrt();
    println!("TwoRods1: ‖Δq‖ / ‖q‖ = {:.1e}", dq / nq);
    assert!(dq <= 1e-10 * nq, "q differs by {dq}");
    assert_eq!(local.mu(), reference.mu());
}

/// Siconos 4.4's `gfc3d_compute_error(problem, r, u, v, 1e-10, options, ‖q‖, ‖b‖)` at
/// `r_i = ((i mod 7) − 2) / 4`, `v_i = ((i mod 5) − 2) / 10`, and the norm of the `u` it wrote,
/// obtained with `python3-siconos` 4.4.0 (`sn.globalFrictionContact_new_from_filename`, then
/// `sn.gfc3d_compute_error(p, r, u, v, 1e-10, sn.SolverOptions(sn.SICONOS_GLOBAL_FRICTION_3D_NSGS_WR),
/// norm(q), norm(b))`) by a throwaway script.
const SICONOS_ERRORS: [(&str, f64, f64); 7] = [
    ("GFC3D_Example0.dat", 2.0305041365808307, 0.17320508075688776),
    ("GFC3D_Example00.dat", 2.156503350622038, 0.223606797749979),
    ("GFC3D_Example00_badly_scaled.dat", 2.2345633506628975, 0.223606797749979),
    ("GFC3D_Example0_SBM.dat", 2.0305041365808307, 0.17320508075688776),
    ("GFC3D_Example1.dat", 1.1972595132741584, 11.813128290169374),
    ("GFC3D_OneContact.dat", 2.0005652333263244, 0.14142135926565189),
    ("GFC3D_TwoRods1.dat", 1.726171545058472, 0.39509753311440543),
];

#[test]
fn error_matches_siconos_4_4() {
    let Some(data) = crate::data_dir() else { return };
    for (file, expected, expected_norm_u) in SICONOS_ERRORS {
        let p = read_3d(&data.join("siconos/gfc3d").join(file));
        let r: Vec<f64> = (0..p.size()).map(|i| ((i % 7) as f64 - 2.0) * 0.25).collect();
        let v: Vec<f64> = (0..p.velocity_size()).map(|i| ((i % 5) as f64 - 2.0) * 0.1).collect();
        let mut u = vec![f64::NAN; p.size()];
        let err = p.compute_error(&r, &mut u, &v).expect("sizes match");
        let norm_u = u.iter().map(|x| x * x).sum::<f64>().sqrt();
        println!("{file}: ours {err:.17e}, Siconos {expected:.17e}");
        assert!((err - expected).abs() <= 1e-12 * expected, "{file}: {err} vs {expected}");
        assert!((norm_u - expected_norm_u).abs() <= 1e-12 * expected_norm_u, "{file}: ‖u‖ {norm_u}");
    }
}

#[test]
fn singular_m_and_wrong_sizes_are_typed_errors() {
    let Some(data) = crate::data_dir() else { return };
    let p = read_3d(&data.join("siconos/gfc3d/GFC3D_TwoRods1.dat"));
    let (m, h, q, b, mu) = p.into_parts();
    // Zero the first row and column of M: singular.
    let mut md = m.to_dense();
    for k in 0..md.nrows() {
        md[(0, k)] = 0.0;
        md[(k, 0)] = 0.0;
    }
    let singular =
        GlobalFcProblem::<3>::new(NumericsMatrix::Dense(md.clone()), h.clone(), q.clone(), b.clone(), mu.clone())
            .expect("valid sizes");
    assert!(matches!(singular.condense(), Err(NumericsError::Singular { .. })));
    let sparse = NumericsMatrix::Sparse(NumericsMatrix::Dense(md).to_csc());
    let singular = GlobalFcProblem::<3>::new(sparse, h.clone(), q.clone(), b.clone(), mu.clone()).expect("valid sizes");
    assert!(matches!(singular.condense(), Err(NumericsError::Singular { .. })));
    let mut solver = GlobalFcSolver::new(GlobalFcOptions::default()).expect("valid options");
    let (mut r, mut u, mut v) = (vec![0.0; 9], vec![0.0; 9], vec![0.0; 54]);
    assert!(matches!(solver.solve(&singular, &mut r, &mut u, &mut v), Err(NumericsError::Singular { .. })));

    let p = GlobalFcProblem::<3>::new(m, h, q, b, mu).expect("valid");
    assert!(matches!(
        solver.solve(&p, &mut r, &mut u, &mut [0.0; 53]),
        Err(NumericsError::DimensionMismatch { expected: 54, found: 53, .. })
    ));
    assert!(matches!(
        p.compute_error(&r, &mut [0.0; 8], &v),
        Err(NumericsError::DimensionMismatch { expected: 9, found: 8, .. })
    ));
}
