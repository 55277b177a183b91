//! MLCP solvers on every file of the Siconos collection (`$NONSMOOTH_DATA/siconos/mlcp/`),
//! compared with Siconos 4.4, plus small hand-made problems.
//!
//! The Siconos numbers below were produced once with the Debian build of Siconos 4.4.0
//! (`/usr/bin/python3`, `import siconos.numerics as sn`): for each file,
//! `p = sn.MLCP(); sn.mixedLinearComplementarity_newFromFilename(p, path)`, `z = w = 0`,
//! `o = sn.SolverOptions(id)` with `o.dparam[0] = 1e-8` (and `o.iparam[0] = 10000` for PGS),
//! `sn.mlcp_driver_init(p, o)`, `info = sn.mlcp_driver(p, z, w, o)`, then
//! `err = sn.mlcp_compute_error(p, z, w2, 1e-8)`; ids `SICONOS_MLCP_ENUM`, `SICONOS_MLCP_PGS`,
//! `SICONOS_MLCP_LCP_LEMKE`. ENUM was not run for `m > 20` (2ᵐ cases). The error at a fixed
//! point (`ERROR_AT_POINT`) is `sn.mlcp_compute_error` at `z_j = ((7 j) mod 11 − 5) / 3`.

use std::path::Path;

use nonsmooth_numerics::io::{self, Problem, ProblemKind};
use nonsmooth_numerics::matrix::NumericsMatrix;
use nonsmooth_numerics::mlcp::{
    EnumOptions, EnumSolver, MlcpBlockForm, MlcpMatrixForm, MlcpMethod, MlcpProblem, MlcpSolver, PgsOptions, PgsSolver,
    SchurLemkeOptions, SchurLemkeSolver,
};
use nonsmooth_numerics::{NumericsError, SolverStatus};

const TOLERANCE: f64 = 1e-8;

/// Siconos 4.4 per (file, our solver name): driver `info` (0 = converged) and the final
/// `mlcp_compute_error` (tolerance 1e-8). `pgs` ↔ `SICONOS_MLCP_PGS`, `enum` ↔
/// `SICONOS_MLCP_ENUM`, `lemke` ↔ `SICONOS_MLCP_LCP_LEMKE`.
const SICONOS44: &[(&str, &str, i32, f64)] = &[
    ("Buck2_mlcp.dat", "enum", 0, 3.031e-17),
    ("Buck2_mlcp.dat", "pgs", 1, 6.796e-01),
    ("Buck2_mlcp.dat", "lemke", 0, 1.758e-11),
    ("BuckConverter_mlcp.dat", "enum", 0, 2.558e-23),
    ("BuckConverter_mlcp.dat", "pgs", 1, 6.796e-01),
    ("BuckConverter_mlcp.dat", "lemke", 0, 2.693e-18),
    ("BuckFirstStep_mlcp.dat", "enum", 0, 2.530e-23),
    ("BuckFirstStep_mlcp.dat", "pgs", 1, 6.796e-01),
    ("BuckFirstStep_mlcp.dat", "lemke", 0, 3.544e-18),
    ("PDSym_mlcp.dat", "enum", 0, 1.112e-15),
    ("PDSym_mlcp.dat", "pgs", 0, 6.197e-09),
    ("PDSym_mlcp.dat", "lemke", 0, 4.607e-15),
    ("PD_mlcp.dat", "enum", 0, 8.681e-18),
    ("PD_mlcp.dat", "pgs", 1, 3.328e-01),
    ("PD_mlcp.dat", "lemke", 1, 3.328e-01),
    ("RCD_mlcp.dat", "enum", 0, 2.225e-17),
    ("RCD_mlcp.dat", "pgs", 2, 1.984e-01),
    ("RCD_mlcp.dat", "lemke", 0, 2.225e-17),
    ("RLCD_mlcp.dat", "enum", 0, 6.351e-23),
    ("RLCD_mlcp.dat", "pgs", 1, 2.014e-01),
    ("RLCD_mlcp.dat", "lemke", 0, 5.307e-18),
    ("deltasigma2_mlcp.dat", "pgs", 1, 9.305e-01),
    ("deltasigma2_mlcp.dat", "lemke", 0, 1.453e-12),
    ("deltasigma_mlcp.dat", "pgs", 1, 8.737e-01),
    ("deltasigma_mlcp.dat", "lemke", 0, 2.674e-13),
    ("deudeu_mlcp.dat", "enum", 0, 0.0),
    ("deudeu_mlcp.dat", "pgs", 0, 0.0),
    ("deudeu_mlcp.dat", "lemke", 0, 0.0),
    ("diodeBridge20_mlcp.dat", "enum", 0, 2.534e-16),
    ("diodeBridge20_mlcp.dat", "pgs", 1, 8.462e-01),
    ("diodeBridge20_mlcp.dat", "lemke", 1, 8.462e-01),
    ("diodeBridge40_mlcp.dat", "pgs", 1, 8.462e-01),
    ("diodeBridge40_mlcp.dat", "lemke", 1, 8.462e-01),
    ("diodeBridge_mlcp.dat", "enum", 0, 1.215e-17),
    ("diodeBridge_mlcp.dat", "pgs", 1, 3.328e-01),
    ("diodeBridge_mlcp.dat", "lemke", 1, 3.328e-01),
    ("m2n1_mlcp.dat", "enum", 0, 0.0),
    ("m2n1_mlcp.dat", "pgs", 0, 0.0),
    ("m2n1_mlcp.dat", "lemke", 0, 0.0),
    ("m3n2_mlcp.dat", "enum", 0, 0.0),
    ("m3n2_mlcp.dat", "pgs", 0, 5.991e-09),
    ("m3n2_mlcp.dat", "lemke", 0, 2.753e-15),
    ("relay2_mlcp.dat", "enum", 0, 8.314e-16),
    ("relay2_mlcp.dat", "pgs", 1, 8.351e-01),
    ("relay2_mlcp.dat", "lemke", 0, 8.314e-16),
    ("relay3_mlcp.dat", "enum", 0, 0.0),
    ("relay3_mlcp.dat", "pgs", 1, 8.351e-01),
    ("relay3_mlcp.dat", "lemke", 0, 0.0),
];

/// Siconos 4.4 ENUM solutions `z` of the small files (compared to ours to 1e-9).
const SICONOS44_SOLUTIONS: &[(&str, &[f64])] = &[
    (
        "PDSym_mlcp.dat",
        &[
            -2.0492122970121533,
            -1.5181387702874005,
            -0.751748190050529,
            0.7609238753951039,
            0.4126314806835316,
            0.6251169017603997,
            0.32555297449876686,
        ],
    ),
    (
        "PD_mlcp.dat",
        &[
            0.9854318217925696,
            0.9729458435437359,
            0.012485978248833726,
            0.000960459865294902,
            0.0,
            0.0,
            0.0009604598652949021,
        ],
    ),
    ("RCD_mlcp.dat", &[0.3289036544850499, 0.0, 0.03289036544850499]),
    (
        "RLCD_mlcp.dat",
        &[
            -0.385584,
            -0.06033960005854918,
            -0.00023419675825074617,
            -0.00023419675825074617,
            0.0,
            4.683935165014922e-07,
            4.6839351650149234e-07,
            0.0,
        ],
    ),
    ("deudeu_mlcp.dat", &[1.0, 0.0]),
    (
        "diodeBridge_mlcp.dat",
        &[0.9851851851851853, 0.9851851851851853, 0.0, 0.0009851851851851853, 0.0, 0.0, 0.0009851851851851853],
    ),
    ("m2n1_mlcp.dat", &[1.0, 0.0, 3.0]),
    ("m3n2_mlcp.dat", &[1.0, -1.0, 0.0, 4.0, 0.0]),
    ("relay2_mlcp.dat", &[10.0, -1.4, 0.0, -0.014, 9.999, 3.0]),
    ("relay3_mlcp.dat", &[-10.0, 1.6, 0.0, 0.016, 0.0, 0.0]),
];

/// Siconos 4.4 `mlcp_compute_error` at `z_j = ((7 j) mod 11 − 5) / 3`.
const ERROR_AT_POINT: &[(&str, f64)] = &[
    ("Buck2_mlcp.dat", 534.0315184205379),
    ("BuckConverter_mlcp.dat", 533.9606643738955),
    ("BuckFirstStep_mlcp.dat", 534.0460142131474),
    ("PDSym_mlcp.dat", 2.685385860094334),
    ("PD_mlcp.dat", 6.9199889448487815),
    ("RCD_mlcp.dat", 1.3485721591527275),
    ("RLCD_mlcp.dat", 1.1604232919619653),
    ("deltasigma2_mlcp.dat", 18115.377495885965),
    ("deltasigma_mlcp.dat", 32924.01706953215),
    ("deudeu_mlcp.dat", 1.1111111111111112),
    ("diodeBridge20_mlcp.dat", 3.3839745255136275),
    ("diodeBridge40_mlcp.dat", 6.079615276028202),
    ("diodeBridge_mlcp.dat", 6.9199889448487815),
    ("m2n1_mlcp.dat", 1.2693088279125886),
    ("m3n2_mlcp.dat", 0.8570592719250106),
    ("relay2_mlcp.dat", 0.9862388127867179),
    ("relay3_mlcp.dat", 0.7206693451859915),
];

/// What we expect of one (file, solver) pair.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Converged with residual ≤ [`TOLERANCE`].
    Converges,
    /// This exact non-converged status (same failure as Siconos, reason in [`FAILS`]).
    Status(SolverStatus),
    /// `A` singular: the Schur reduction does not exist (Siconos: "mlcp_to_lcp conversion failed").
    Singular,
}

/// Pairs that do not converge, with the reason; every other pair of the collection converges.
const FAILS: &[(&str, &str, Expect)] = &[
    // FIXME (as Siconos: PGS info 1 or 2, 0 iterations): PGS divides by a zero diagonal
    // entry of A or B on every circuit file.
    ("Buck2_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("BuckConverter_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("BuckFirstStep_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("PD_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("RCD_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("RLCD_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("deltasigma2_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("deltasigma_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("diodeBridge20_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("diodeBridge40_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("diodeBridge_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("relay2_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    ("relay3_mlcp.dat", "pgs", Expect::Status(SolverStatus::NumericalBreakdown)),
    // FIXME (as Siconos, info 1): A is singular on the diode bridges, no Schur reduction.
    ("PD_mlcp.dat", "lemke", Expect::Singular),
    ("diodeBridge20_mlcp.dat", "lemke", Expect::Singular),
    ("diodeBridge40_mlcp.dat", "lemke", Expect::Singular),
    ("diodeBridge_mlcp.dat", "lemke", Expect::Singular),
    // Enumeration with m = 40 or 156 complementarity unknowns: capped at ENUM_LARGE_CAP cases
    // here (Siconos' test collections do not run ENUM on these files either).
    ("deltasigma2_mlcp.dat", "enum", Expect::Status(SolverStatus::MaxIterations)),
    ("deltasigma_mlcp.dat", "enum", Expect::Status(SolverStatus::MaxIterations)),
    ("diodeBridge40_mlcp.dat", "enum", Expect::Status(SolverStatus::MaxIterations)),
];

/// Case cap for the enumeration on files with `m > 20`.
const ENUM_LARGE_CAP: usize = 2000;

fn read(path: &Path) -> MlcpProblem {
    match io::read_problem(path, Some(ProblemKind::Mlcp)).expect("readable MLCP file") {
        Problem::Mlcp(p) => p,
        other => panic!("{} read as {:?}", path.display(), other.kind()),
    }
}

fn collection() -> Option<Vec<(String, MlcpProblem)>> {
    let dir = crate::data_dir()?.join("siconos/mlcp");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("mlcp folder").map(|e| e.expect("entry").path()).collect();
    files.sort();
    assert_eq!(files.len(), 18, "the collection has 18 MLCP files");
    Some(files.iter().map(|f| (f.file_name().expect("name").to_string_lossy().into_owned(), read(f))).collect())
}

#[test]
fn every_file_with_every_solver() {
    let Some(problems) = collection() else { return };
    let mut checked = 0;
    for (file, problem) in &problems {
        for name in MlcpMethod::NAMES {
            let mut method = MlcpMethod::from_name(name, Some(TOLERANCE), None).expect("known name");
            if name == "enum" && problem.m() > 20 {
                method = method.with_max_iterations(ENUM_LARGE_CAP);
            }
            let mut solver = method.build().expect("valid options");
            let (mut z, mut w) = (vec![0.0; problem.size()], vec![0.0; problem.size()]);
            let result = solver.solve(problem, &mut z, &mut w);
            checked += 1;
            if file == "Rectangular_mlcp.dat" {
                // More rows than unknowns: refused (Siconos' tests skip this file as well).
                assert!(matches!(result, Err(NumericsError::InvalidInput { .. })), "{file} {name}: {result:?}");
                continue;
            }
            let expect = FAILS.iter().find(|(f, s, _)| f == file && *s == name).map_or(Expect::Converges, |t| t.2);
            match expect {
                Expect::Converges => {
                    let r = result.unwrap_or_else(|e| panic!("{file} {name}: {e}"));
                    assert!(r.is_converged() && r.residual <= TOLERANCE, "{file} {name}: {r:?}");
                    // The report's residual is the problem's compute_error at the returned z.
                    let mut w2 = vec![0.0; problem.size()];
                    let e = problem.compute_error(&z, &mut w2).expect("sizes");
                    assert!((e - r.residual).abs() <= 1e-15, "{file} {name}: {e} vs {}", r.residual);
                }
                Expect::Status(s) => {
                    let r = result.unwrap_or_else(|e| panic!("{file} {name}: {e}"));
                    assert_eq!(r.status, s, "{file} {name}: {r:?}");
                    assert!(r.residual > TOLERANCE, "{file} {name}: {r:?}");
                }
                Expect::Singular => {
                    assert!(matches!(result, Err(NumericsError::Singular { .. })), "{file} {name}: {result:?}");
                }
            }
            // Agreement with Siconos 4.4: where it converged we converge, and vice versa.
            if let Some((_, _, info, err)) = SICONOS44.iter().find(|(f, s, _, _)| f == file && *s == name) {
                let ours = matches!(expect, Expect::Converges);
                assert_eq!(ours, *info == 0, "{file} {name}: Siconos info {info}, error {err:e}");
            }
        }
    }
    assert_eq!(checked, 18 * 3);
}

#[test]
fn solutions_match_siconos() {
    let Some(problems) = collection() else { return };
    for (file, expected) in SICONOS44_SOLUTIONS {
        let (_, problem) = problems.iter().find(|(f, _)| f == file).expect("file in the collection");
        for name in ["enum", "lemke"] {
            let mut solver = MlcpMethod::from_name(name, Some(1e-12), None).expect("known").build().expect("valid");
            let (mut z, mut w) = (vec![0.0; problem.size()], vec![0.0; problem.size()]);
            match solver.solve(problem, &mut z, &mut w) {
                Ok(r) => assert!(r.is_converged(), "{file} {name}: {r:?}"),
                Err(NumericsError::Singular { .. }) if name == "lemke" => continue,
                Err(e) => panic!("{file} {name}: {e}"),
            }
            for (j, (a, b)) in z.iter().zip(expected.iter()).enumerate() {
                assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{file} {name} z[{j}] = {a} vs Siconos {b}");
            }
        }
    }
}

#[test]
fn compute_error_matches_siconos_at_a_point() {
    let Some(problems) = collection() else { return };
    for (file, expected) in ERROR_AT_POINT {
        let (_, problem) = problems.iter().find(|(f, _)| f == file).expect("file in the collection");
        let z: Vec<f64> = (0..problem.size()).map(|j| ((j * 7 % 11) as f64 - 5.0) / 3.0).collect();
        let mut w = vec![0.0; problem.size()];
        let e = problem.compute_error(&z, &mut w).expect("sizes");
        assert!((e - expected).abs() <= 1e-13 * expected.abs(), "{file}: {e} vs Siconos {expected}");
    }
}

fn dense(rows: &[&[f64]]) -> NumericsMatrix {
    NumericsMatrix::Dense(faer::Mat::from_fn(rows.len(), rows[0].len(), |i, j| rows[i][j]))
}

/// One equality, one complementarity: `2u + v − 2 = 0`, `0 ≤ u + 3v − 3 ⊥ v ≥ 0`.
/// With v = 0: u = 1, w₂ = −2 < 0, not a solution; with w₂ = 0: u = 0.6, v = 0.8.
fn small(block_form: bool) -> MlcpProblem {
    if block_form {
        let blocks = MlcpBlockForm {
            mat_a: dense(&[&[2.0]]),
            mat_b: dense(&[&[3.0]]),
            mat_c: dense(&[&[1.0]]),
            mat_d: dense(&[&[1.0]]),
            vec_a: vec![-2.0],
            vec_b: vec![-3.0],
        };
        MlcpProblem::new(1, 1, None, Some(blocks)).expect("valid")
    } else {
        let whole = MlcpMatrixForm::new(dense(&[&[2.0, 1.0], &[1.0, 3.0]]), vec![-2.0, -3.0], 1, 1);
        MlcpProblem::new(1, 1, Some(whole), None).expect("valid")
    }
}

#[test]
fn small_problem_every_solver_both_forms() {
    for block_form in [false, true] {
        let p = small(block_form);
        let solvers: Vec<Box<dyn MlcpSolver>> = vec![
            Box::new(EnumSolver::new(EnumOptions::default()).expect("valid")),
            Box::new(PgsSolver::new(PgsOptions::default()).expect("valid")),
            Box::new(SchurLemkeSolver::new(SchurLemkeOptions::default()).expect("valid")),
        ];
        for mut s in solvers {
            let (mut z, mut w) = ([0.0; 2], [0.0; 2]);
            let r = s.solve(&p, &mut z, &mut w).expect("solves");
            assert!(r.is_converged(), "{} {block_form}: {r:?}", s.name());
            assert!((z[0] - 0.6).abs() < 1e-9 && (z[1] - 0.8).abs() < 1e-9, "{}: {z:?}", s.name());
            assert!(w[0].abs() < 1e-9 && w[1].abs() < 1e-9, "{}: {w:?}", s.name());
        }
    }
}

#[test]
fn compute_error_formula_by_hand() {
    // At z = (0, 0): w = q = (−2, −3); eₑ = 2, nₑ = 1 + 2 = 3; eᵢ = 3 (w < 0), nᵢ = 1 + 3 = 4;
    // eᵢ/nᵢ = 0.75 ≥ eₑ/nₑ = 2/3, so err = 3 / (1 + 4) = 0.6.
    for block_form in [false, true] {
        let p = small(block_form);
        let mut w = [0.0; 2];
        let e = p.compute_error(&[0.0, 0.0], &mut w).expect("sizes");
        assert!((e - 0.6).abs() < 1e-15, "{e}");
        assert!((w[0] + 2.0).abs() < 1e-15 && (w[1] + 3.0).abs() < 1e-15);
        // At z = (1, −1): w = (−1, −5): eₑ = 1, nₑ = 3; eᵢ = 1 + 5 + (−1)(−5) = 11, nᵢ = 1 + 5 = 6.
        let e = p.compute_error(&[1.0, -1.0], &mut w).expect("sizes");
        assert!((e - 11.0 / 7.0).abs() < 1e-14, "{e}");
    }
}

#[test]
fn dimension_mismatch_and_bad_options_are_typed_errors() {
    let p = small(false);
    let mut w = [0.0; 2];
    assert!(matches!(
        p.compute_error(&[0.0; 3], &mut w),
        Err(NumericsError::DimensionMismatch { expected: 2, found: 3, .. })
    ));
    for name in MlcpMethod::NAMES {
        let mut s = MlcpMethod::from_name(name, None, None).expect("known").build().expect("valid");
        let (mut z, mut w) = (vec![0.0; 1], vec![0.0; 2]);
        let r = s.solve(&p, &mut z, &mut w);
        assert!(matches!(r, Err(NumericsError::DimensionMismatch { expected: 2, found: 1, .. })), "{name}: {r:?}");
    }
    assert!(MlcpMethod::from_name("nope", None, None).is_none());
    let bad = MlcpMethod::from_name("pgs", Some(-1.0), None).expect("known").build();
    assert!(matches!(bad, Err(NumericsError::InvalidOption { name: "tolerance", .. })));
    let bad = MlcpMethod::from_name("enum", None, Some(0)).expect("known").build();
    assert!(matches!(bad, Err(NumericsError::InvalidOption { name: "max_iterations", .. })));
}

#[test]
fn pgs_zero_diagonal_and_lemke_singular_a() {
    // A = 0 (a zero diagonal entry): PGS cannot divide and the Schur reduction does not exist,
    // while the enumeration solves it (`0·u + v − 1 = 0`, `0 ≤ u + v ⊥ v ≥ 0`).
    let whole = MlcpMatrixForm::new(dense(&[&[0.0, 1.0], &[1.0, 1.0]]), vec![-1.0, 0.0], 1, 1);
    let p = MlcpProblem::new(1, 1, Some(whole), None).expect("valid");
    let (mut z, mut w) = ([0.0; 2], [0.0; 2]);
    let r = PgsSolver::new(PgsOptions::default()).expect("valid").solve(&p, &mut z, &mut w).expect("runs");
    assert_eq!((r.status, r.iterations), (SolverStatus::NumericalBreakdown, 0));
    let r = SchurLemkeSolver::new(SchurLemkeOptions::default()).expect("valid").solve(&p, &mut z, &mut w);
    assert!(matches!(r, Err(NumericsError::Singular { .. })), "{r:?}");
    // Case 0 (v basic): K = M = [[0, 1], [1, 1]] is regular, u = −1, v = 1, w₂ = 0.
    let r = EnumSolver::new(EnumOptions::default()).expect("valid").solve(&p, &mut z, &mut w).expect("runs");
    assert!(r.is_converged(), "{r:?}");
    assert!((z[0] + 1.0).abs() < 1e-12 && (z[1] - 1.0).abs() < 1e-12, "{z:?}");
}

#[test]
fn enumeration_reports_stalled_when_no_case_solves() {
    // u − 1 = 0, 0 ≤ w₂ = −1 + 0·u + 0·v ⊥ v ≥ 0: w₂ = −1 always, no solution.
    let whole = MlcpMatrixForm::new(dense(&[&[1.0, 0.0], &[0.0, 0.0]]), vec![-1.0, -1.0], 1, 1);
    let p = MlcpProblem::new(1, 1, Some(whole), None).expect("valid");
    let (mut z, mut w) = ([0.0; 2], [0.0; 2]);
    let r = EnumSolver::new(EnumOptions::default()).expect("valid").solve(&p, &mut z, &mut w).expect("runs");
    assert_eq!((r.status, r.iterations), (SolverStatus::Stalled, 2));
    assert!(r.residual > 1e-3);
}
