//! Siconos' `fc2d_nsgs_dense` reproduced (`nonsmooth_numerics::fc::Fc2dNsgsDenseSolver`): the
//! Siconos fc2d collection against Siconos 4.4's own results, the three branches of the local
//! solve against hand-computed values, the zero start, storage independence and typed errors.

use nonsmooth_numerics::fc::{Fc2dNsgsDenseOptions, Fc2dNsgsDenseSolver, Fc2dProblem};
use nonsmooth_numerics::io::{Problem, read_problem};
use nonsmooth_numerics::matrix::{NumericsMatrix, Storage};
use nonsmooth_numerics::{NumericsError, SolverReport, SolverStatus};

fn solve(p: &Fc2dProblem, options: Fc2dNsgsDenseOptions, r: &mut [f64], u: &mut [f64]) -> SolverReport {
    Fc2dNsgsDenseSolver::new(options).expect("valid options").solve(p, r, u).expect("sizes match")
}

/// (file, max_iterations, sweeps, residual, Σ r_i, Σ |r_i|, Σ u_i, Σ |u_i|).
type Reference = (&'static str, usize, usize, f64, f64, f64, f64, f64);

/// Siconos 4.4.0 (Debian python3-siconos, OpenBLAS 0.3.21 SkylakeX) on every file of
/// `$NONSMOOTH_DATA/siconos/fc2d`, produced once with `/usr/bin/python3`:
/// `p = sn.frictionContact_new_from_filename(path)`; `B = sn.NM_create(sn.NM_DENSE, n, n)`;
/// `sn.NM_to_dense(p.M, B)`; `p.M = B`; `o = sn.SolverOptions(sn.SICONOS_FRICTION_2D_NSGS)`;
/// `o.iparam[0] = max_iterations`; `o.dparam[0] = 1e-4`; `r = u = np.zeros(n)`;
/// `sn.fc2d_nsgs_dense(p, r, u, o)` (same results as `sn.fc2d_driver` on a dense problem);
/// printed with `%.17e`. Columns: file, max_iterations, `iparam[1]` (sweeps), `dparam[1]`
/// (Siconos' residual), Σ r_i, Σ |r_i|, Σ u_i, Σ |u_i| (numpy `sum`). All ended with info 0 but
/// the capped last one. The r and u arrays were also checked bit-identical to Siconos' (not kept).
#[rustfmt::skip]
#[allow(clippy::excessive_precision, reason = "the digits Siconos' run printed, %.17e")]
const SICONOS: &[Reference] = &[
    ("FC2D_SliderCrankLagrangian00000.dat", 1000, 168, 9.92136834110788810e-05, 1.12062983967387064e-01, 1.12062983967387064e-01, -1.70928372280739396e+01, 1.70928372280739396e+01),
    ("FC2D_SliderCrankLagrangian00001.dat", 1000, 169, 9.83130168622257055e-05, 8.94357032730486168e-02, 8.94357032730486168e-02, -1.83316823300052931e+01, 1.83316823300052931e+01),
    ("FrictionContactProblem00031.dat", 1000, 2, 1.12074397800154406e-22, 6.34439164557308198e-04, 6.34778547747050746e-04, 4.90046527120178765e-01, 4.92903681011015227e-01),
    ("FrictionContactProblem00071.dat", 1000, 23, 9.23402670545596187e-05, 2.49986515262792977e+02, 2.92538247274953790e+02, 6.84556176695952416e+01, 1.25712068272132626e+02),
    ("FrictionContactProblem00237.dat", 1000, 137, 9.81812944042214882e-05, 1.97841397643627238e+03, 2.54444697215005453e+03, 1.08141289371095922e+02, 4.11333121489097039e+02),
    ("FrictionContactProblem00374.dat", 1000, 1, 9.20796352857437249e-17, 1.62454273209478470e+03, 1.62454273209478470e+03, 4.41449999995186090e+02, 4.41449999995186090e+02),
    ("FrictionContactProblem00394.dat", 1000, 1, 1.57058208615642070e-17, 2.58719080043538732e-15, 2.58719080043538732e-15, 1.19084700867660908e-16, 8.54759378511246694e-15),
    ("FrictionContactProblem00727.dat", 1000, 259, 9.87613318886519491e-05, 4.28055781707435381e+03, 5.68690138435766221e+03, 1.75334607106630301e+02, 2.98456579069467296e+02),
    ("fc2d_granularflowonwall_00667_00000.dat", 1000, 15, 8.25416344996370840e-05, 4.07997042104582161e-20, 4.84492209794651198e-20, 2.35972880532047943e-17, 6.19508360743038127e-17),
    ("fc2d_granularflowonwall_02020_00213.dat", 1000, 588, 9.91855411796250592e-05, 5.57471940027884916e-02, 6.28158996674346715e-02, 1.57237019635390474e+00, 1.07716225750190926e+01),
    // Capped at 20 sweeps (info 1): Siconos' dense sweeps cost about 1.5 s each at n = 14004 (it
    // needed more than 17 CPU minutes at max_iterations 1000; ours converges in 648 sweeps, 0.7 s).
    ("fc2d_granularflowonwall_07002_00801.dat", 20, 20, 1.49709391631213003e-02, 6.24220076193187506e-02, 7.66711802542696663e-02, -1.74426326360335366e+01, 9.73874065176493673e+01),
];

/// The fc2d files, read, sorted by name.
fn collection() -> Option<Vec<(String, Fc2dProblem)>> {
    let data = crate::data_dir()?;
    let mut files: Vec<_> = std::fs::read_dir(data.join("siconos/fc2d"))
        .expect("fc2d folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("").to_string();
        match read_problem(&path, None).expect("reference file reads") {
            Problem::Fc2d(p) => out.push((name, p)),
            other => panic!("{name}: unexpected kind {:?}", other.kind()),
        }
    }
    Some(out)
}

/// `|a − b| ≤ tol · scale`.
fn check(name: &str, what: &str, a: f64, b: f64, tol: f64, scale: f64) {
    assert!((a - b).abs() <= tol * scale, "{name}: {what} = {a:e}, Siconos {b:e} (diff {:e})", (a - b).abs());
}

/// Every file of the collection: the same sweeps as Siconos, the same reactions and stale
/// velocities (checksums to 1e-14 relative), and Siconos' residual. The residual is compared
/// to 1e-11 relative: Siconos forms it with OpenBLAS `dgemv` and `ddot`, whose blocked FMA
/// kernels round differently from our sequential sums, and `y = q + W r − u` cancels (measured
/// differences up to 6e-13 relative).
#[test]
fn siconos_collection_bit_for_bit() {
    let Some(problems) = collection() else { return };
    let mut compared = 0;
    for (name, p) in &problems {
        let Some(&(_, max_it, iters, res, sum_r, abs_r, sum_u, abs_u)) = SICONOS.iter().find(|row| row.0 == name)
        else {
            panic!("{name}: no Siconos reference in the table");
        };
        let (mut r, mut u) = (vec![0.0; p.size()], vec![0.0; p.size()]);
        let t = std::time::Instant::now();
        let rep = solve(p, Fc2dNsgsDenseOptions::default().with_max_iterations(max_it), &mut r, &mut u);
        let (sr, ar) = (r.iter().sum::<f64>(), r.iter().map(|v| v.abs()).sum::<f64>());
        let (su, au) = (u.iter().sum::<f64>(), u.iter().map(|v| v.abs()).sum::<f64>());
        println!(
            "{name}: {} after {} sweeps (Siconos {iters}), residual {:.17e} (Siconos {res:.17e}), Σr {sr:.17e}, Σ|r| {ar:.17e}, {:.3} s",
            rep.status,
            rep.iterations,
            rep.residual,
            t.elapsed().as_secs_f64()
        );
        assert_eq!(rep.iterations, iters, "{name}: sweeps");
        let expected = if res <= 1e-4 { SolverStatus::Converged } else { SolverStatus::MaxIterations };
        assert_eq!(rep.status, expected, "{name}");
        check(name, "residual", rep.residual, res, 1e-11, res);
        check(name, "Σ|r|", ar, abs_r, 1e-14, abs_r);
        check(name, "Σr", sr, sum_r, 1e-14, abs_r);
        check(name, "Σ|u|", au, abs_u, 1e-14, abs_u);
        check(name, "Σu", su, sum_u, 1e-14, abs_u);
        compared += 1;
    }
    assert_eq!(compared, SICONOS.len());
}

/// The same file in dense and in sparse storage gives bit-identical results (the sparse path
/// skips the entries not stored).
#[test]
fn storage_does_not_change_a_bit() {
    let Some(problems) = collection() else { return };
    let mut compared = 0;
    for (name, p) in problems.iter().filter(|(_, p)| p.number_of_contacts() <= 400) {
        let (w, q, mu) = p.clone().into_parts();
        let mut results = Vec::new();
        for storage in [Storage::Dense, Storage::Sparse] {
            let w = w.to_storage(storage).expect("conversion");
            let p = Fc2dProblem::new(w, q.clone(), mu.clone()).expect("valid");
            let (mut r, mut u) = (vec![0.0; p.size()], vec![0.0; p.size()]);
            let rep = solve(&p, Fc2dNsgsDenseOptions::default(), &mut r, &mut u);
            results.push((
                rep.iterations,
                rep.residual.to_bits(),
                r.iter().chain(&u).map(|v| v.to_bits()).collect::<Vec<_>>(),
            ));
        }
        assert!(results[0] == results[1], "{name}: dense and sparse storage differ");
        compared += 1;
    }
    assert!(compared >= 8, "{compared}");
}

fn one_contact(q: [f64; 2]) -> Fc2dProblem {
    let w = NumericsMatrix::Dense(faer::mat![[2.0, 0.5], [0.5, 1.0]]);
    Fc2dProblem::new(w, q.to_vec(), vec![0.5]).expect("valid problem")
}

/// W = [[2, 0.5], [0.5, 1]], μ = 0.5, by hand (z = −q, det = 1.75, g₊ = 2.25, g₋ = 1.75):
/// take-off, stick, slip+ and slip− (after stick and slip+ are rejected), one sweep each.
#[test]
fn local_branches_by_hand() {
    let cases: [([f64; 2], [f64; 2], [f64; 2]); 4] = [
        // q_N ≥ 0: r = 0, u = q.
        ([0.5, -0.3], [0.0, 0.0], [0.5, -0.3]),
        // Stick: r_N = (2·1 − 0.5·0.5)/1.75 = 1, r_T = (−2·0.5 + 0.5·2)/1.75 = 0.
        ([-2.0, -0.5], [1.0, 0.0], [0.0, 0.0]),
        // Stick gives (0, 2), outside the cone; slip+: r_N = 1/2.25, r_T = μ r_N,
        // u_T = −2 + (1/2.25)(0.5 + 0.5) = −14/9 ≤ 0.
        ([-1.0, -2.0], [4.0 / 9.0, 2.0 / 9.0], [0.0, -14.0 / 9.0]),
        // Stick gives (8/7, −18/7), outside; slip+ gives u_T = 2 + 4/9 > 0; slip−: r_N = 1/1.75,
        // r_T = −μ r_N, u_T = 2 + (1/1.75)(0.5 − 0.5) = 2.
        ([-1.0, 2.0], [4.0 / 7.0, -2.0 / 7.0], [0.0, 2.0]),
    ];
    for (q, r_exact, u_exact) in cases {
        let p = one_contact(q);
        let (mut r, mut u) = ([0.0; 2], [0.0; 2]);
        let rep = solve(&p, Fc2dNsgsDenseOptions::default(), &mut r, &mut u);
        assert!(rep.is_converged() && rep.iterations == 1 && rep.residual < 1e-15, "{q:?}: {rep:?}");
        for k in 0..2 {
            assert!((r[k] - r_exact[k]).abs() < 1e-15, "{q:?}: r = {r:?}, expected {r_exact:?}");
            assert!((u[k] - u_exact[k]).abs() < 1e-15, "{q:?}: u = {u:?}, expected {u_exact:?}");
        }
    }
}

/// The incoming r (and u) are ignored: Siconos always starts from zero.
#[test]
fn zero_start_ignores_a_warm_r() {
    let w = faer::mat![[2.0, 0.5, 0.3, 0.1], [0.5, 1.0, 0.2, 0.2], [0.3, 0.2, 2.0, 0.4], [0.1, 0.2, 0.4, 1.0]];
    let p = Fc2dProblem::new(NumericsMatrix::Dense(w), vec![-1.0, 0.3, -0.5, -0.8], vec![0.3, 0.5]).expect("valid");
    let opts = Fc2dNsgsDenseOptions::default().with_tolerance(1e-12);
    let (mut r0, mut u0) = (vec![0.0; 4], vec![0.0; 4]);
    let cold = solve(&p, opts.clone(), &mut r0, &mut u0);
    let (mut r1, mut u1) = (vec![0.1, -7.0, 3.0, f64::NAN], vec![5.0; 4]);
    let warm = solve(&p, opts, &mut r1, &mut u1);
    assert!(cold.is_converged() && cold.iterations > 1, "{cold:?}");
    assert_eq!((cold.iterations, cold.residual.to_bits()), (warm.iterations, warm.residual.to_bits()));
    assert!(r0.iter().zip(&r1).chain(u0.iter().zip(&u1)).all(|(a, b)| a.to_bits() == b.to_bits()));
    // With a tolerance ≥ 1 no sweep is done (Siconos' normr starts at 1): r = u = 0.
    let rep = solve(&p, Fc2dNsgsDenseOptions::default().with_tolerance(1.0), &mut r1, &mut u1);
    assert_eq!((rep.status, rep.iterations), (SolverStatus::Converged, 0));
    assert!(r1.iter().chain(&u1).all(|v| v.abs() < 1e-300));
}

#[test]
fn typed_errors_and_breakdown() {
    let p = one_contact([-1.0, 0.0]);
    assert!(matches!(
        Fc2dNsgsDenseSolver::new(Fc2dNsgsDenseOptions::default().with_tolerance(f64::NAN)),
        Err(NumericsError::InvalidOption { name: "tolerance", .. })
    ));
    assert!(matches!(
        Fc2dNsgsDenseSolver::new(Fc2dNsgsDenseOptions::default().with_max_iterations(0)),
        Err(NumericsError::InvalidOption { name: "max_iterations", .. })
    ));
    let mut s = Fc2dNsgsDenseSolver::new(Fc2dNsgsDenseOptions::default()).expect("valid options");
    assert!(matches!(
        s.solve(&p, &mut [0.0; 3], &mut [0.0; 2]),
        Err(NumericsError::DimensionMismatch { expected: 2, found: 3, .. })
    ));
    assert!(matches!(
        s.solve(&p, &mut [0.0; 2], &mut [0.0; 1]),
        Err(NumericsError::DimensionMismatch { expected: 2, found: 1, .. })
    ));
    // A zero block with q_N < 0: det = 0 < 100 ε, pivot |W_NN| = 0 < ε, Siconos' info = 1.
    let w = NumericsMatrix::Dense(faer::mat![[0.0, 0.0], [0.0, 0.0]]);
    let p = Fc2dProblem::new(w, vec![-1.0, 0.0], vec![0.3]).expect("valid");
    let (mut r, mut u) = ([0.0; 2], [0.0; 2]);
    let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
    assert_eq!((rep.status, rep.iterations), (SolverStatus::NumericalBreakdown, 1));
    assert!(rep.residual.is_infinite());
    // Stick gives r_N = (1·1 − (−5)(−2))/1 = −9 < 0, then g₊ = W_NN + μ W_NT = 0: Siconos' info = 2.
    let w = NumericsMatrix::Dense(faer::mat![[1.0, -2.0], [0.0, 1.0]]);
    let p = Fc2dProblem::new(w, vec![-1.0, 5.0], vec![0.5]).expect("valid");
    let rep = s.solve(&p, &mut r, &mut u).expect("sizes match");
    assert_eq!((rep.status, rep.iterations), (SolverStatus::NumericalBreakdown, 1));
}
