//! The factored FC3D problem (`W = H M⁻¹ Hᵀ`) and NSGS in body velocities, checked against
//! the assembled matrix and the NSGS on it.

use nonsmooth_numerics::Parallelism;
use nonsmooth_numerics::fc::nsgs::{NsgsErrorEvaluation, NsgsOptions, NsgsSchedule, NsgsSolver};
use nonsmooth_numerics::fc::{FactoredDelassus, FactoredFc3dProblem, FactoredNsgsSolver};
use nonsmooth_numerics::{NumericsError, SolverStatus};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// `a × b`.
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Spheres of radius 0.5 on an `n × n × n` cubic lattice of spacing 1 (every neighbour pair in
/// contact, the bottom layer on the ground z = −0.5), each with the twist `(v, ω)` in world
/// coordinates: contact rows `[f | r_a × f]` for body `a` and the negative at body `b`'s lever
/// arm, frame `(n, t1, t2)` with `n` from `b` to `a`. Free velocities: falling at `h g` with a
/// random perturbation, so the problem needs reactions throughout. `dense` bodies store their
/// inverse as a dense matrix with small off-diagonal terms.
pub(crate) fn lattice(n: usize, mu: f64, seed: u64, dense: bool) -> FactoredFc3dProblem {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut d = FactoredDelassus::new();
    let index = |i: usize, j: usize, k: usize| (k * n + j) * n + i;
    let mut v_free = Vec::new();
    for _ in 0..n * n * n {
        let m = rng.random_range(0.5..2.0);
        let inertia = 0.1 * m;
        let diag = [1.0 / m, 1.0 / m, 1.0 / m, 1.0 / inertia, 1.0 / inertia, 1.0 / inertia];
        if dense {
            let mut full = [0.0; 36];
            for i in 0..6 {
                full[i * 6 + i] = diag[i];
            }
            // A symmetric coupling of the angular entries, small enough to keep it positive.
            let e = 0.1 / inertia;
            for (i, j) in [(3, 4), (4, 5)] {
                full[i * 6 + j] = e;
                full[j * 6 + i] = e;
            }
            d.push_body_dense(6, &full).expect("a valid body");
        } else {
            d.push_body_diagonal(&diag).expect("a valid body");
        }
        let mut v = [0.0; 6];
        v[2] = -0.00981;
        for x in &mut v {
            *x += rng.random_range(-0.005..0.005);
        }
        v_free.push(v);
    }
    let mut q = Vec::new();
    let mut mus = Vec::new();
    let mut push = |d: &mut FactoredDelassus, a: usize, b: Option<usize>, normal: [f64; 3], t1: [f64; 3]| {
        let t2 = cross(normal, t1);
        let frame = [normal, t1, t2];
        let ra = [-0.5 * normal[0], -0.5 * normal[1], -0.5 * normal[2]];
        let rb = [0.5 * normal[0], 0.5 * normal[1], 0.5 * normal[2]];
        let mut h = Vec::new();
        let mut qc = [0.0; 3];
        for (i, f) in frame.iter().enumerate() {
            let aa = cross(ra, *f);
            let row_a = [f[0], f[1], f[2], aa[0], aa[1], aa[2]];
            h.extend_from_slice(&row_a);
            qc[i] += row_a.iter().zip(&v_free[a]).map(|(x, y)| x * y).sum::<f64>();
            if let Some(b) = b {
                let bb = cross(rb, *f);
                let row_b = [-f[0], -f[1], -f[2], -bb[0], -bb[1], -bb[2]];
                h.extend_from_slice(&row_b);
                qc[i] += row_b.iter().zip(&v_free[b]).map(|(x, y)| x * y).sum::<f64>();
            }
        }
        let bodies: Vec<usize> = std::iter::once(a).chain(b).collect();
        d.push_contact(&bodies, &h).expect("a valid contact");
        q.extend_from_slice(&qc);
        mus.push(mu);
    };
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let a = index(i, j, k);
                if k == 0 {
                    push(&mut d, a, None, [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
                } else {
                    push(&mut d, a, Some(index(i, j, k - 1)), [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]);
                }
                if i > 0 {
                    push(&mut d, a, Some(index(i - 1, j, k)), [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
                }
                if j > 0 {
                    push(&mut d, a, Some(index(i, j - 1, k)), [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
                }
            }
        }
    }
    FactoredFc3dProblem::new(d, q, mus).expect("a valid problem")
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

#[test]
fn assembled_operator_matches_the_products() {
    for dense in [false, true] {
        let p = lattice(3, 0.3, 1, dense);
        let assembled = p.to_assembled().expect("assembles");
        let n = p.size();
        let mut rng = StdRng::seed_from_u64(7);
        let r: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let (mut u1, mut u2) = (vec![0.0; n], vec![0.0; n]);
        let e1 = p.compute_error(&r, &mut u1).expect("sizes");
        let e2 = assembled.compute_error(&r, &mut u2).expect("sizes");
        let scale = u2.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(max_abs_diff(&u1, &u2) <= 1e-13 * scale, "u = W r + q differs by {}", max_abs_diff(&u1, &u2));
        assert!((e1 - e2).abs() <= 1e-12 * e2.max(1e-300), "errors {e1} vs {e2}");
        for c in 0..p.number_of_contacts() {
            let blk = p.delassus().diagonal_block(c);
            let dense_blk = assembled.w().diagonal_block(3 * c, 3).expect("a block");
            for i in 0..3 {
                for j in 0..3 {
                    assert!((blk[i][j] - dense_blk[(i, j)]).abs() <= 1e-13);
                }
            }
        }
    }
}

#[test]
fn body_velocity_nsgs_follows_the_assembled_nsgs() {
    for (dense, anderson, period, light, check) in [
        (false, 0, 1, false, false),
        (false, 3, 1, true, false),
        (false, 3, 2, true, false),
        (false, 3, 2, true, true),
        (true, 0, 1, false, false),
        (true, 3, 1, false, false),
        (true, 3, 1, false, true),
    ] {
        let p = lattice(6, 0.3, 2, dense);
        let assembled = p.to_assembled().expect("assembles");
        let n = p.size();
        let mut options = NsgsOptions::default().with_tolerance(1e-8).with_max_iterations(5000).with_relaxation(1.3);
        options = options.with_anderson_memory(anderson).with_anderson_period(period).with_plain_check_sweep(check);
        if light {
            options = options.with_error_evaluation(NsgsErrorEvaluation::LightWithFullFinal);
        }
        let (report1, r1) = solve_factored(&p, options.clone());
        let (report2, r2) = solve_assembled(&assembled, options);
        println!(
            "dense {dense}, anderson {anderson}, period {period}, light {light}, check {check}: factored {} sweeps {:.3e}, assembled {} sweeps {:.3e}, max |Δr| {:.2e}",
            report1.iterations,
            report1.residual,
            report2.iterations,
            report2.residual,
            max_abs_diff(&r1, &r2)
        );
        assert_eq!(report1.status, SolverStatus::Converged);
        assert!(report1.residual <= 1e-8);
        // The residual is the error of the returned r on the assembled problem too.
        let mut u = vec![0.0; n];
        let check = assembled.compute_error(&r1, &mut u).expect("sizes");
        assert!((check - report1.residual).abs() <= 1e-10, "{check} vs {}", report1.residual);
        // The same iteration up to round-off: the same sweep count within a few, and reactions
        // equal to the accuracy of the solutions.
        assert!(report1.iterations.abs_diff(report2.iterations) <= 3 + report2.iterations / 50);
        let scale = r2.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(max_abs_diff(&r1, &r2) <= 1e-5 * scale, "{} vs scale {scale}", max_abs_diff(&r1, &r2));
    }
}

#[test]
fn halves_schedule_matches_the_assembled_halves() {
    // 15³ spheres: 3375 bodies and 9900 contacts, above the 8192 of the halves schedule.
    let p = lattice(15, 0.5, 3, false);
    assert!(p.number_of_contacts() >= 8192);
    let assembled = p.to_assembled().expect("assembles");
    let options = options_parallel();
    let (report1, r1) = solve_factored(&p, options.clone());
    let (report2, r2) = solve_assembled(&assembled, options.clone());
    let (report3, _) = solve_factored(&p, options.with_parallelism(Parallelism::Sequential));
    println!(
        "halves: factored {} sweeps {:.3e}, assembled {} sweeps {:.3e}, sequential factored {} sweeps; max |Δr| {:.2e}",
        report1.iterations,
        report1.residual,
        report2.iterations,
        report2.residual,
        report3.iterations,
        max_abs_diff(&r1, &r2)
    );
    assert_eq!(report1.status, SolverStatus::Converged);
    assert!(report1.residual <= 1e-4);
    assert!(report1.iterations.abs_diff(report2.iterations) <= 3 + report2.iterations / 20);
    let scale = r2.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(max_abs_diff(&r1, &r2) <= 1e-3 * scale);
    // Same numbers whatever the threads: a 1-thread pool gives the same reactions bit for bit.
    let (report4, r4) = solve_factored(&p, options_parallel().with_parallelism(Parallelism::Rayon { threads: 1 }));
    assert_eq!(report4.iterations, report1.iterations);
    assert!(r4.iter().zip(&r1).all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn halves_schedule_without_acceleration_and_with_the_full_error_is_the_same_on_any_pool() {
    // Without Anderson and with the full error every 5 sweeps (no norm of the reactions asked
    // for), the reactions of the error and of the result are those of one thread.
    let p = lattice(15, 0.3, 5, false);
    assert!(p.number_of_contacts() >= 8192);
    let mut options = options_parallel().with_anderson_memory(0).with_error_evaluation(NsgsErrorEvaluation::Full);
    options.error_evaluation_frequency = 5;
    let (report2, r2) = solve_factored(&p, options.clone());
    let (report1, r1) = solve_factored(&p, options.clone().with_parallelism(Parallelism::Rayon { threads: 1 }));
    assert_eq!(report2.status, SolverStatus::Converged);
    assert!(report2.residual <= 1e-4);
    assert_eq!(report2.iterations % 5, 0);
    assert_eq!(report1.iterations, report2.iterations);
    assert!(r1.iter().zip(&r2).all(|(a, b)| a.to_bits() == b.to_bits()));
    // The reported residual is the error of the returned reactions.
    let mut u = vec![0.0; p.size()];
    let residual = p.compute_error(&r2, &mut u).expect("evaluates");
    assert_eq!(residual.to_bits(), report2.residual.to_bits());
}

/// The factored NSGS with `options` from zero reactions: its report and reactions.
fn solve_factored(p: &FactoredFc3dProblem, options: NsgsOptions) -> (nonsmooth_numerics::SolverReport, Vec<f64>) {
    let (mut r, mut u) = (vec![0.0; p.size()], vec![0.0; p.size()]);
    let report = FactoredNsgsSolver::new(options).expect("valid").solve(p, &mut r, &mut u).expect("solves");
    (report, r)
}

/// The NSGS on the assembled problem with `options` from zero reactions.
fn solve_assembled(
    p: &nonsmooth_numerics::fc::Fc3dProblem,
    options: NsgsOptions,
) -> (nonsmooth_numerics::SolverReport, Vec<f64>) {
    let (mut r, mut u) = (vec![0.0; p.size()], vec![0.0; p.size()]);
    let report = NsgsSolver::new(options).expect("valid").solve(p, &mut r, &mut u).expect("solves");
    (report, r)
}

/// The scenes' NSGS at tolerance 1e-4 in the halves schedule.
fn options_parallel() -> NsgsOptions {
    NsgsOptions::default()
        .with_tolerance(1e-4)
        .with_max_iterations(3000)
        .with_relaxation(1.5)
        .with_anderson_memory(3)
        .with_error_evaluation(NsgsErrorEvaluation::LightWithFullFinal)
        .with_parallelism(Parallelism::Rayon { threads: 2 })
        .with_schedule(NsgsSchedule::Halves)
}

#[test]
fn bad_input_is_a_typed_error() {
    let mut d = FactoredDelassus::new();
    assert!(matches!(d.push_body_diagonal(&[]), Err(NumericsError::EmptyProblem { .. })));
    assert!(matches!(d.push_body_diagonal(&[1.0, f64::NAN]), Err(NumericsError::NonFinite { .. })));
    assert!(matches!(d.push_body_dense(2, &[1.0; 3]), Err(NumericsError::DimensionMismatch { .. })));
    let a = d.push_body_diagonal(&[1.0; 6]).expect("valid");
    let b = d.push_body_diagonal(&[1.0; 6]).expect("valid");
    assert!(matches!(d.push_contact(&[a, a], &[0.0; 36]), Err(NumericsError::InvalidInput { .. })));
    assert!(matches!(d.push_contact(&[a, 7], &[0.0; 36]), Err(NumericsError::InvalidInput { .. })));
    assert!(matches!(d.push_contact(&[], &[]), Err(NumericsError::InvalidInput { .. })));
    assert!(matches!(d.push_contact(&[a, b], &[0.0; 18]), Err(NumericsError::DimensionMismatch { .. })));
    assert!(matches!(FactoredFc3dProblem::new(d.clone(), vec![], vec![]), Err(NumericsError::EmptyProblem { .. })));
    let mut h = [0.0; 36];
    h[0] = 1.0;
    h[12 + 1] = 1.0;
    h[24 + 2] = 1.0;
    d.push_contact(&[a, b], &h).expect("valid");
    assert!(matches!(
        FactoredFc3dProblem::new(d.clone(), vec![0.0; 2], vec![0.1]),
        Err(NumericsError::DimensionMismatch { .. })
    ));
    assert!(matches!(
        FactoredFc3dProblem::new(d.clone(), vec![0.0; 3], vec![-0.1]),
        Err(NumericsError::InvalidInput { .. })
    ));
    let p = FactoredFc3dProblem::new(d, vec![-1.0, 0.0, 0.0], vec![0.1]).expect("valid");
    let colours = NsgsOptions::default().with_parallelism(Parallelism::Rayon { threads: 2 });
    assert!(matches!(FactoredNsgsSolver::new(colours), Err(NumericsError::InvalidOption { .. })));
    let mut solver = FactoredNsgsSolver::new(NsgsOptions::default()).expect("valid");
    assert!(matches!(solver.solve(&p, &mut [0.0; 2], &mut [0.0; 3]), Err(NumericsError::DimensionMismatch { .. })));
    assert!(matches!(solver.solve(&p, &mut [f64::NAN, 0.0, 0.0], &mut [0.0; 3]), Err(NumericsError::NonFinite { .. })));
    // One contact with W_cc = I: r = −q.
    let (mut r, mut u) = ([0.0; 3], [0.0; 3]);
    let report = solver.solve(&p, &mut r, &mut u).expect("solves");
    assert_eq!(report.status, SolverStatus::Converged);
    assert!((r[0] - 1.0).abs() <= 1e-12 && r[1].abs() <= 1e-12 && u[0].abs() <= 1e-12, "{r:?} {u:?}");
    // A contact whose rows vanish: W_cc = 0, no one-contact problem (a breakdown after 0 sweeps).
    let (delassus, _, _) = p.into_parts();
    let mut d = delassus;
    d.push_contact(&[b], &[0.0; 18]).expect("valid");
    let p = FactoredFc3dProblem::new(d, vec![-1.0, 0.0, 0.0, -1.0, 0.0, 0.0], vec![0.1, 0.1]).expect("valid");
    let report = solver.solve(&p, &mut [0.0; 6], &mut [0.0; 6]).expect("solves");
    assert_eq!((report.status, report.iterations), (SolverStatus::NumericalBreakdown, 0));
}

/// Rows appended by `push_rows` and made contacts by `set_contacts`: the operator is the one
/// built by `push_contact` (the same rows, the same assembled `W`), and bad contacts or rows
/// are typed errors that leave neither contacts nor rows behind (the bodies stay).
#[test]
fn rows_pushed_then_attached_match_contacts_pushed_one_by_one() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut bodies_only = FactoredDelassus::new();
    for b in 0..4 {
        let inverse: Vec<f64> = (0..6).map(|_| rng.random_range(0.5..2.0)).collect();
        if b == 2 {
            let mut dense = vec![0.0; 36];
            for i in 0..6 {
                dense[i * 6 + i] = inverse[i];
            }
            bodies_only.push_body_dense(6, &dense).expect("valid");
        } else {
            bodies_only.push_body_diagonal(&inverse).expect("valid");
        }
    }
    let contacts = [(0, Some(1)), (1, None), (2, Some(0)), (3, Some(2)), (3, None)];
    let rows: Vec<Vec<f64>> = contacts
        .iter()
        .map(|(_, b)| (0..if b.is_some() { 36 } else { 18 }).map(|_| rng.random_range(-1.0..1.0)).collect())
        .collect();
    let mut reference = bodies_only.clone();
    for (&(a, b), h) in contacts.iter().zip(&rows) {
        let bodies: Vec<usize> = std::iter::once(a).chain(b).collect();
        reference.push_contact(&bodies, h).expect("valid");
    }
    let mut d = bodies_only.clone();
    for h in &rows {
        d.push_rows(h);
    }
    d.set_contacts(&contacts).expect("valid contacts");
    assert_eq!(d.number_of_contacts(), reference.number_of_contacts());
    assert_eq!(d.rows(), reference.rows());
    let (w_set, w_pushed) = (d.assemble().expect("finite"), reference.assemble().expect("finite"));
    assert_eq!(w_set.to_dense(), w_pushed.to_dense());

    let mut d = bodies_only.clone();
    for (c, h) in rows.iter().enumerate() {
        let mut h = h.clone();
        if c == 3 {
            h[7] = f64::INFINITY;
        }
        d.push_rows(&h);
    }
    assert!(matches!(d.set_contacts(&contacts), Err(NumericsError::NonFinite { .. })));
    assert_eq!((d.number_of_contacts(), d.rows().len()), (0, 0));
    for h in &rows {
        d.push_rows(h);
    }
    assert!(matches!(d.set_contacts(&contacts[1..]), Err(NumericsError::DimensionMismatch { .. })));
    d.push_rows(&[0.0; 36]);
    assert!(matches!(d.set_contacts(&[(1, Some(1))]), Err(NumericsError::InvalidInput { .. })));
    d.push_rows(&[0.0; 36]);
    assert!(matches!(d.set_contacts(&[(1, Some(9))]), Err(NumericsError::InvalidInput { .. })));
    assert_eq!((d.number_of_contacts(), d.rows().len(), d.number_of_bodies()), (0, 0, 4));
    // After the errors the operator takes new rows as before.
    for h in &rows {
        d.push_rows(h);
    }
    d.set_contacts(&contacts).expect("valid contacts");
    assert_eq!(d.rows(), reference.rows());
}

/// Over-relaxed sweeps (`ω = 1.5`) with Anderson acceleration on pairs of sweeps and the light
/// error, as the scenes' NSGS, to `1e-8`.
fn accelerated() -> NsgsOptions {
    NsgsOptions::default()
        .with_tolerance(1e-8)
        .with_max_iterations(5000)
        .with_relaxation(1.5)
        .with_anderson_memory(3)
        .with_anderson_period(2)
        .with_error_evaluation(NsgsErrorEvaluation::LightWithFullFinal)
}

#[test]
fn the_cold_restart_leaves_a_converging_solve_unchanged() {
    // The restart comes only after plain sweeps whose error grew: a solve that converges under
    // the accelerated sweeps gives the same reactions bit for bit with or without it.
    let p = lattice(6, 0.3, 2, false);
    let options = accelerated().with_plain_fallback_period(25);
    let (report1, r1) = solve_factored(&p, options.clone());
    let (report2, r2) = solve_factored(&p, options.with_cold_restart(true));
    assert_eq!(report1.status, SolverStatus::Converged);
    assert_eq!(report1.iterations, report2.iterations);
    assert!(r1.iter().zip(&r2).all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn the_plain_check_sweep_returns_the_plain_sweep_that_passes() {
    // Over-relaxed, accelerated sweeps, as the scenes use them. With the check each full error
    // is that of one more plain sweep done on a copy, and the copy is what a converged solve
    // returns: the report's residual is the error of the returned reactions.
    let p = lattice(6, 0.3, 2, false);
    let options = accelerated();
    let (relaxed, _) = solve_factored(&p, options.clone());
    let (report, r) = solve_factored(&p, options.clone().with_plain_check_sweep(true));
    println!("without the check {} sweeps, with it {} sweeps", relaxed.iterations, report.iterations);
    assert_eq!(report.status, SolverStatus::Converged);
    assert!(report.residual <= 1e-8);
    let mut u = vec![0.0; p.size()];
    let error = p.compute_error(&r, &mut u).expect("sizes");
    assert!((error - report.residual).abs() <= 1e-12 * report.residual, "{error} vs {}", report.residual);
    // The overshoot of the relaxation no longer counts: the solve stops no later.
    assert!(report.iterations <= relaxed.iterations, "{} > {}", report.iterations, relaxed.iterations);

    // The check sweeps count against the cap: a solve that cannot reach its tolerance stops
    // after exactly `max_iterations` sweeps in all.
    let capped = options.clone().with_plain_check_sweep(true).with_tolerance(1e-15).with_max_iterations(40);
    let (report, _) = solve_factored(&p, capped);
    assert_eq!((report.status, report.iterations), (SolverStatus::MaxIterations, 40));

    // Without relaxation every sweep is plain already: the option changes nothing.
    let plain = options.with_relaxation(1.0);
    let (report1, r1) = solve_factored(&p, plain.clone());
    let (report2, r2) = solve_factored(&p, plain.with_plain_check_sweep(true));
    assert_eq!(report1.iterations, report2.iterations);
    assert!(r1.iter().zip(&r2).all(|(a, b)| a.to_bits() == b.to_bits()));
}
