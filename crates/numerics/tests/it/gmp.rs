//! The mixed mechanical problem (`gmp`): a hand-made problem with a known answer, bad input,
//! the file round trip, and the Siconos files (`$NONSMOOTH_DATA/siconos/genericmechanical/`)
//! solved to Siconos 4.4's status and error.

use nonsmooth_numerics::faer::Mat;
use nonsmooth_numerics::gmp::{BlockKind, GmpNsgsOptions, GmpNsgsSolver, MixedProblem};
use nonsmooth_numerics::io::{self, Problem, ProblemKind};
use nonsmooth_numerics::matrix::{DuplicateBlocks, SparseBlockMatrix};
use nonsmooth_numerics::{NumericsError, SolverStatus};

/// Block-diagonal `M` with the given column-major diagonal blocks.
fn block_diagonal(blocks: &[Vec<f64>]) -> SparseBlockMatrix {
    let mut ends = Vec::new();
    let mut end = 0;
    for b in blocks {
        end += (b.len() as f64).sqrt() as usize;
        ends.push(end);
    }
    let entries = blocks.iter().enumerate().map(|(i, b)| (i, i, col_major(b)));
    SparseBlockMatrix::from_blocks(ends.clone(), ends, entries, DuplicateBlocks::Error)
        .expect("a valid block structure")
}

/// The square matrix whose column-major entries are `v`.
fn col_major(v: &[f64]) -> Mat<f64> {
    let n = (v.len() as f64).sqrt() as usize;
    let r = v.len() / n.max(1);
    Mat::from_fn(r, n, |i, j| v[j * r + i])
}

/// One equality block (2 unknowns, `M = 2 I`) coupled to one FC3D contact (`M = I`, `μ = 0.5`)
/// through `M_12`: the equality gives `z_1 = −q_1/2` whatever the contact, and with `q_N < 0`,
/// `‖q_T‖ ≤ μ|q_N|` after the coupling the contact sticks: `z_2 = −q̃_2`.
#[test]
fn equality_and_contact_have_the_analytic_answer() {
    let ends = vec![2, 5];
    // M_11 = 2 I (2×2), M_22 = I (3×3), M_21 couples z_1 into the contact's normal row.
    let m11 = vec![2.0, 0.0, 0.0, 2.0];
    let m22 = vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    // 3×2 column-major: row 0 (normal) gets 1·z_1[0].
    let m21 = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let m21 = Mat::from_fn(3, 2, |i, j| m21[j * 3 + i]);
    let blocks = [(0, 0, col_major(&m11)), (1, 0, m21), (1, 1, col_major(&m22))];
    let m = SparseBlockMatrix::from_blocks(ends.clone(), ends, blocks, DuplicateBlocks::Error).expect("valid");
    let q = vec![2.0, -4.0, -1.0, 0.1, 0.2];
    let p = MixedProblem::new(m, q, vec![BlockKind::Equality, BlockKind::Fc3d { mu: 0.5 }]).expect("valid");
    let mut solver = GmpNsgsSolver::new(GmpNsgsOptions::default().with_tolerance(1e-12)).expect("options");
    let (mut z, mut w) = (vec![0.0; 5], vec![0.0; 5]);
    let report = solver.solve(&p, &mut z, &mut w).expect("solves");
    assert_eq!(report.status, SolverStatus::Converged, "{report:?}");
    // z_1 = (−1, 2); q̃_2 = (−1 + z_1[0], 0.1, 0.2) = (−2, 0.1, 0.2): sticking, z_2 = (2, −0.1, −0.2).
    let expected = [-1.0, 2.0, 2.0, -0.1, -0.2];
    for (a, b) in z.iter().zip(expected) {
        assert!((a - b).abs() < 1e-12, "z = {z:?}");
    }
    assert!(w.iter().all(|v| v.abs() < 1e-12), "w = {w:?}");
    assert!(report.residual <= 1e-12);
    // A complementarity block with q ≥ 0 stays at zero; one with q < 0 is solved in closed form.
    let p = MixedProblem::new(
        block_diagonal(&[vec![4.0], vec![2.0]]),
        vec![1.0, -3.0],
        vec![BlockKind::Complementarity, BlockKind::Complementarity],
    )
    .expect("valid");
    let (mut z, mut w) = (vec![0.0; 2], vec![0.0; 2]);
    let report = solver.solve(&p, &mut z, &mut w).expect("solves");
    assert!(report.is_converged());
    assert_eq!(z, vec![0.0, 1.5]);
    assert_eq!(report.iterations, 1);
}

#[test]
fn bad_input_is_a_typed_error() {
    let ok = || block_diagonal(&[vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]]);
    let fc3d = vec![BlockKind::Fc3d { mu: 0.3 }];
    // q of the wrong size, laws of the wrong count, a contact block of the wrong size.
    assert!(matches!(
        MixedProblem::new(ok(), vec![0.0; 2], fc3d.clone()),
        Err(NumericsError::DimensionMismatch { .. })
    ));
    assert!(matches!(MixedProblem::new(ok(), vec![0.0; 3], vec![]), Err(NumericsError::DimensionMismatch { .. })));
    assert!(matches!(
        MixedProblem::new(block_diagonal(&[vec![1.0, 0.0, 0.0, 1.0]]), vec![0.0; 2], fc3d.clone()),
        Err(NumericsError::DimensionMismatch { expected: 3, found: 2, .. })
    ));
    // NaN and infinities, a negative μ, an empty problem.
    assert!(matches!(
        MixedProblem::new(ok(), vec![0.0, f64::NAN, 0.0], fc3d.clone()),
        Err(NumericsError::NonFinite { .. })
    ));
    assert!(matches!(
        MixedProblem::new(ok(), vec![0.0; 3], vec![BlockKind::Fc3d { mu: f64::INFINITY }]),
        Err(NumericsError::NonFinite { .. })
    ));
    assert!(matches!(
        MixedProblem::new(ok(), vec![0.0; 3], vec![BlockKind::Fc3d { mu: -0.1 }]),
        Err(NumericsError::InvalidInput { .. })
    ));
    if let Ok(empty) = SparseBlockMatrix::zeros(vec![], vec![]) {
        assert!(matches!(MixedProblem::new(empty, vec![], vec![]), Err(NumericsError::EmptyProblem { .. })));
    }
    // A singular equality block is refused by the solver; wrong vector sizes too.
    let singular =
        MixedProblem::new(block_diagonal(&[vec![0.0]]), vec![1.0], vec![BlockKind::Equality]).expect("valid");
    let mut solver = GmpNsgsSolver::new(GmpNsgsOptions::default()).expect("options");
    assert!(matches!(solver.solve(&singular, &mut [0.0], &mut [0.0]), Err(NumericsError::Singular { .. })));
    assert!(matches!(solver.solve(&singular, &mut [0.0; 2], &mut [0.0]), Err(NumericsError::DimensionMismatch { .. })));
    // Invalid options.
    assert!(GmpNsgsSolver::new(GmpNsgsOptions::default().with_tolerance(0.0)).is_err());
    assert!(GmpNsgsSolver::new(GmpNsgsOptions::default().with_max_iterations(0)).is_err());
}

/// Siconos 4.4's outcome on each file (`gmp_driver` with the default options, from zero,
/// measured by `xtask/siconos_gmp.py`): converged, sweeps, error.
const SICONOS: [(&str, bool, usize, f64); 7] = [
    ("GMP0.dat", true, 6, 7.428015603005989e-05),
    ("GMP1.dat", true, 43, 9.800939119378183e-05),
    ("GMP2.dat", true, 16, 6.777892905573957e-05),
    ("GMP3.dat", true, 172, 9.907332123967882e-05),
    ("GMP4.dat", true, 1, 5.716158918045692e-19),
    ("GMP5.dat", true, 8074, 9.996291386471512e-05),
    ("GMP6.dat", false, 10000, 0.0016185921773796963),
];

#[test]
fn siconos_files_solve_to_siconos_status_and_error() {
    let Some(data) = crate::data_dir() else { return };
    let folder = data.join("siconos/genericmechanical");
    for (name, converged, iterations, error) in SICONOS {
        let path = folder.join(name);
        let Problem::Gmp(p) = io::read_problem(&path, None).expect(name) else { panic!("{name}: not a gmp") };
        // Write, read: the same problem.
        let text = io::format_problem(&Problem::Gmp(p.clone()));
        let Problem::Gmp(again) = io::parse_problem(&text, Some(ProblemKind::Gmp)).expect(name) else {
            panic!("{name}: round trip changed the kind")
        };
        assert_eq!(again, p, "{name}: round trip");
        let mut solver = GmpNsgsSolver::new(GmpNsgsOptions::default()).expect("options");
        let (mut z, mut w) = (vec![0.0; p.size()], vec![0.0; p.size()]);
        let report = solver.solve(&p, &mut z, &mut w).expect(name);
        assert_eq!(report.is_converged(), converged, "{name}: {report:?}");
        let tol = 1e-4;
        if converged {
            assert!(report.residual <= tol, "{name}: {report:?}");
        } else {
            assert_eq!(report.status, SolverStatus::MaxIterations, "{name}");
            assert!((report.residual - error).abs() <= tol, "{name}: {report:?} vs Siconos {error:e}");
        }
        // The reported residual is compute_error at the returned point.
        let mut w2 = vec![0.0; p.size()];
        let again = p.compute_error(&z, &mut w2).expect("sizes");
        assert_eq!(again.to_bits(), report.residual.to_bits(), "{name}");
        println!("{name}: ours {:?}, Siconos {converged} {iterations} {error:e}", report);
    }
    // Three FC3D blocks: Siconos 4.4 ends on NaN (error 10 after 10000 sweeps); ours converges
    // and the solution satisfies every contact law.
    let path = folder.join("Example1_Fc3D_SBM.dat");
    let Problem::Gmp(p) = io::read_problem(&path, None).expect("read") else { panic!("not a gmp") };
    assert!(p.blocks().iter().all(|b| matches!(b, BlockKind::Fc3d { .. })));
    let mut solver = GmpNsgsSolver::new(GmpNsgsOptions::default()).expect("options");
    let (mut z, mut w) = (vec![0.0; p.size()], vec![0.0; p.size()]);
    let report = solver.solve(&p, &mut z, &mut w).expect("solves");
    println!("Example1_Fc3D_SBM.dat: ours {report:?}, Siconos false 10000 1e1 (NaN)");
    assert!(report.is_converged(), "{report:?}");
}
