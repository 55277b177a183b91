//! Parallel NSGS by colouring of the contact graph (`nonsmooth_numerics::fc::colouring`,
//! `NsgsOptions::parallelism`): proper colourings, results independent of the thread count and
//! of the sequential-fallback threshold, equality with a sequential sweep in colour order, and
//! convergence on the Siconos fc3d collection.

use nonsmooth_numerics::Parallelism;
use nonsmooth_numerics::SolverReport;
use nonsmooth_numerics::fc::Fc3dProblem;
use nonsmooth_numerics::fc::colouring::{Colouring, colour_contacts};
use nonsmooth_numerics::fc::nsgs::{NsgsErrorEvaluation, NsgsOptions, NsgsSchedule, NsgsSolver};
use nonsmooth_numerics::io::{Problem, read_problem};
use nonsmooth_numerics::matrix::NumericsMatrix;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The FC3D problems of the collection, by file name.
fn collection() -> Option<Vec<(String, Fc3dProblem)>> {
    let data = crate::data_dir()?;
    let mut files: Vec<_> =
        std::fs::read_dir(data.join("siconos/fc3d")).expect("fc3d folder").flatten().map(|e| e.path()).collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let name = path.file_name().and_then(|s| s.to_str()).unwrap_or("").to_string();
        if let Ok(Problem::Fc3d(p)) = read_problem(&path, None) {
            out.push((name, p));
        }
    }
    Some(out)
}

fn solve(problem: &Fc3dProblem, options: NsgsOptions) -> (Vec<f64>, SolverReport) {
    let n = problem.size();
    let (mut r, mut u) = (vec![0.0; n], vec![0.0; n]);
    let rep = NsgsSolver::new(options).expect("valid options").solve(problem, &mut r, &mut u).expect("sizes match");
    (r, rep)
}

fn bits(r: &[f64]) -> Vec<u64> {
    r.iter().map(|v| v.to_bits()).collect()
}

/// No two contacts of one colour share a nonzero entry of `W` (in either order).
fn assert_proper(name: &str, col: &Colouring, w: &NumericsMatrix) {
    let dense = w.to_dense();
    let nc = col.number_of_contacts();
    let mut seen = vec![false; nc];
    for class in col.classes() {
        for &c in class {
            assert!(!seen[c], "{name}: contact {c} coloured twice");
            seen[c] = true;
            for &d in class {
                for a in 0..3 {
                    for b in 0..3 {
                        assert!(c == d || dense[(3 * c + a, 3 * d + b)] == 0.0, "{name}: {c} and {d} share a colour");
                    }
                }
            }
        }
    }
    assert!(seen.iter().all(|&s| s), "{name}: a contact has no colour");
    assert!(col.number_of_colours() <= col.max_degree() + 1);
}

#[test]
fn colourings_of_the_collection_are_proper() {
    let Some(problems) = collection() else { return };
    for (name, p) in &problems {
        let col = colour_contacts(p.w(), p.number_of_contacts(), 3).expect("sizes match");
        let largest = col.classes().iter().map(Vec::len).max().unwrap_or(0);
        println!(
            "{name}: {} contacts, {} colours (max degree {}), largest colour {largest}",
            p.number_of_contacts(),
            col.number_of_colours(),
            col.max_degree()
        );
        assert_proper(name, &col, p.w());
        // The colouring depends only on the pattern: the dense copy gives the same one.
        let dense = NumericsMatrix::Dense(p.w().to_dense());
        assert_eq!(colour_contacts(&dense, p.number_of_contacts(), 3).expect("sizes match"), col, "{name}");
    }
}

/// 1, 2 and 4 rayon threads, and every fallback threshold, give bit-identical reactions.
#[test]
fn result_does_not_depend_on_threads_or_threshold() {
    let Some(problems) = collection() else { return };
    let mut checked = 0;
    for (name, p) in problems.iter().filter(|(_, p)| p.number_of_contacts() >= 50) {
        let base = NsgsOptions::default()
            .with_tolerance(1e-8)
            .with_max_iterations(300)
            .with_parallelism(Parallelism::Rayon { threads: 2 });
        let mut runs = Vec::new();
        for threads in [1, 2, 4] {
            for min_size in [0, 8, 64, usize::MAX] {
                let opts = base.clone().with_parallel_min_colour_size(min_size);
                runs.push((threads, min_size, solve(p, opts.with_parallelism(Parallelism::Rayon { threads }))));
            }
        }
        let (_, _, (r0, rep0)) = &runs[0];
        println!("{name}: {rep0:?}");
        for (threads, min_size, (r, rep)) in &runs[1..] {
            assert_eq!(rep, rep0, "{name}: {threads} threads, threshold {min_size}");
            assert!(bits(r) == bits(r0), "{name}: {threads} threads, threshold {min_size}: reactions differ");
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked}");
}

/// Renumbers the contacts of `p` in the order `perm` (new contact `k` is old contact
/// `perm[k]`), with a dense `W`.
fn permuted(p: &Fc3dProblem, perm: &[usize]) -> Fc3dProblem {
    let w = p.w().to_dense();
    let idx = |k: usize| 3 * perm[k / 3] + k % 3;
    let n = p.size();
    let wp = faer::Mat::from_fn(n, n, |i, j| w[(idx(i), idx(j))]);
    let q = (0..n).map(|i| p.q()[idx(i)]).collect();
    let mu = perm.iter().map(|&c| p.mu()[c]).collect();
    Fc3dProblem::new(NumericsMatrix::Dense(wp), q, mu).expect("valid problem")
}

/// A random chain of `nc` contacts: symmetric, diagonally dominant, contact `c` coupled with
/// `c + 1` and `c + 2`.
fn random_chain(nc: usize, seed: u64) -> Fc3dProblem {
    let mut rng = StdRng::seed_from_u64(seed);
    let n = 3 * nc;
    let mut w = faer::Mat::<f64>::zeros(n, n);
    for c in 0..nc {
        for d in [c + 1, c + 2] {
            if d < nc {
                for a in 0..3 {
                    for b in 0..3 {
                        let v = rng.random_range(-0.2..0.2);
                        w[(3 * c + a, 3 * d + b)] = v;
                        w[(3 * d + b, 3 * c + a)] = v;
                    }
                }
            }
        }
    }
    for i in 0..n {
        w[(i, i)] = 3.0 + rng.random::<f64>();
    }
    let q =
        (0..n).map(|i| if i % 3 == 0 { rng.random_range(-2.0..0.5) } else { rng.random_range(-1.0..1.0) }).collect();
    let mu = (0..nc).map(|_| rng.random_range(0.1..0.9)).collect();
    Fc3dProblem::new(NumericsMatrix::Dense(w), q, mu).expect("valid problem")
}

/// The parallel sweep is a Gauss–Seidel sweep in colour order: renumbering the contacts colour
/// by colour and running the sequential NSGS gives the same iterates (up to the summation
/// order of the off-diagonal products, so to 1e-12) and the same sweep count.
#[test]
fn parallel_equals_sequential_sweep_in_colour_order() {
    let mut cases = vec![("random chain".to_string(), random_chain(40, 11))];
    if let Some(problems) = collection() {
        cases.extend(problems.into_iter().filter(|(n, _)| n.starts_with("LMGC") || n.starts_with("OneObject-i1028")));
    }
    for (name, p) in &cases {
        let nc = p.number_of_contacts();
        let col = colour_contacts(p.w(), nc, 3).expect("sizes match");
        assert!(col.number_of_colours() < nc, "{name}: no two contacts share a colour");
        let perm: Vec<usize> = col.classes().iter().flatten().copied().collect();
        let opts = NsgsOptions::default().with_tolerance(1e-10).with_max_iterations(5000);
        let (r_par, rep_par) =
            solve(p, opts.clone().with_parallelism(Parallelism::Rayon { threads: 2 }).with_parallel_min_colour_size(0));
        let (r_seq, rep_seq) = solve(&permuted(p, &perm), opts);
        println!(
            "{name}: {} colours, parallel {rep_par:?}, sequential in colour order {rep_seq:?}",
            col.number_of_colours()
        );
        assert!(rep_par.is_converged(), "{name}: {rep_par:?}");
        assert!(rep_par.iterations.abs_diff(rep_seq.iterations) <= 1, "{name}");
        let scale = r_par.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
        for (k, &c) in perm.iter().enumerate() {
            for a in 0..3 {
                let (x, y) = (r_par[3 * c + a], r_seq[3 * k + a]);
                assert!((x - y).abs() <= 1e-9 * scale, "{name}: contact {c}: {x} vs {y}");
            }
        }
    }
}

/// Parallel NSGS (every colour through rayon) converges on each collection file where the
/// sequential NSGS converges, to the same tolerance.
#[test]
fn parallel_converges_where_sequential_does() {
    let Some(problems) = collection() else { return };
    let mut checked = 0;
    for (name, p) in &problems {
        let opts = NsgsOptions::default().with_tolerance(1e-8).with_max_iterations(10_000);
        let (_, seq) = solve(p, opts.clone());
        if !seq.is_converged() {
            continue;
        }
        let t = std::time::Instant::now();
        let (r, par) =
            solve(p, opts.with_parallelism(Parallelism::Rayon { threads: 2 }).with_parallel_min_colour_size(0));
        println!(
            "{name}: sequential {} sweeps, parallel {} sweeps ({:.3} s)",
            seq.iterations,
            par.iterations,
            t.elapsed().as_secs_f64()
        );
        assert!(par.is_converged() && par.residual <= 1e-8, "{name}: {par:?}");
        let mut u = vec![0.0; p.size()];
        assert!((p.compute_error(&r, &mut u).expect("sizes match") - par.residual).abs() <= 1e-15);
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
}

/// Shuffling with `parallel` is seeded: the same seed gives the same reactions, and the
/// shuffled solve converges.
#[test]
fn shuffled_parallel_is_reproducible() {
    let p = random_chain(60, 5);
    let opts = NsgsOptions::default()
        .with_tolerance(1e-10)
        .with_parallelism(Parallelism::Rayon { threads: 2 })
        .with_parallel_min_colour_size(0)
        .with_shuffle(true, 42);
    let (r1, rep1) = solve(&p, opts.clone());
    let (r2, rep2) = solve(&p, opts);
    assert!(rep1.is_converged(), "{rep1:?}");
    assert_eq!(rep1, rep2);
    assert!(bits(&r1) == bits(&r2));
    // Another seed converges to the same solution.
    let (r3, rep3) = solve(
        &p,
        NsgsOptions::default()
            .with_tolerance(1e-10)
            .with_parallelism(Parallelism::Rayon { threads: 2 })
            .with_shuffle(true, 7),
    );
    assert!(rep3.is_converged(), "{rep3:?}");
    for (a, b) in r1.iter().zip(&r3) {
        assert!((a - b).abs() < 1e-7, "{a} vs {b}");
    }
}

/// A seeded chain of `nc` contacts (contact `c` coupled with `c ± 1`, as beads in a column): a
/// symmetric diagonally dominant sparse-block `W` with 3×3 blocks, approaching normals.
fn chain(nc: usize, seed: u64) -> Fc3dProblem {
    use nonsmooth_numerics::matrix::SparseBlockMatrix;
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut row_ptr, mut col_idx, mut values) = (vec![0], Vec::new(), Vec::new());
    let coupling = |rng: &mut StdRng| rng.random_range(0.05..0.3);
    let couplings: Vec<f64> = (0..nc).map(|_| coupling(&mut rng)).collect();
    for c in 0..nc {
        let mut push = |j: usize, block: [f64; 9]| {
            col_idx.push(j);
            values.extend_from_slice(&block);
        };
        if c > 0 {
            let k = couplings[c - 1];
            push(c - 1, [k, 0.0, 0.0, 0.0, k, 0.0, 0.0, 0.0, k]);
        }
        let d = 2.0 + rng.random_range(0.0..1.0);
        push(c, [d, 0.0, 0.0, 0.0, d, 0.0, 0.0, 0.0, d]);
        if c + 1 < nc {
            let k = couplings[c];
            push(c + 1, [k, 0.0, 0.0, 0.0, k, 0.0, 0.0, 0.0, k]);
        }
        row_ptr.push(col_idx.len());
    }
    let ends: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
    let w = SparseBlockMatrix::new(ends.clone(), ends, row_ptr, col_idx, values).expect("valid chain W");
    let q: Vec<f64> = (0..3 * nc)
        .map(|i| if i % 3 == 0 { -rng.random_range(0.1..1.0) } else { rng.random_range(-1.0..1.0) })
        .collect();
    let mu: Vec<f64> = (0..nc).map(|_| rng.random_range(0.1..0.6)).collect();
    Fc3dProblem::new(NumericsMatrix::SparseBlock(w), q, mu).expect("valid chain problem")
}

/// Large problems take the renumbered path (contiguous colour classes, parallel stopping test):
/// it converges, its report is that of the original problem, and 1, 2 and 4 threads and every
/// threshold give bit-identical reactions.
#[test]
fn renumbered_parallel_path_is_deterministic_and_converges() {
    let p = chain(3000, 0xc4a1);
    let base = NsgsOptions::default()
        .with_tolerance(1e-10)
        .with_max_iterations(500)
        .with_parallelism(Parallelism::Rayon { threads: 2 });
    let mut runs = Vec::new();
    for threads in [1, 2, 4] {
        for min_size in [0, 1024, usize::MAX] {
            let opts = base.clone().with_parallel_min_colour_size(min_size);
            runs.push((threads, min_size, solve(&p, opts.with_parallelism(Parallelism::Rayon { threads }))));
        }
    }
    let (_, _, (r0, rep0)) = &runs[0];
    assert!(rep0.is_converged() && rep0.residual <= 1e-10, "{rep0:?}");
    let mut u = vec![0.0; p.size()];
    let exact = p.compute_error(r0, &mut u).expect("sizes match");
    assert!((exact - rep0.residual).abs() <= 1e-15 * (1.0 + exact), "report residual {} vs {exact}", rep0.residual);
    for (threads, min_size, (r, rep)) in &runs[1..] {
        assert_eq!(rep, rep0, "{threads} threads, threshold {min_size}");
        assert!(bits(r) == bits(r0), "{threads} threads, threshold {min_size}: reactions differ");
    }
    // The natural-order sweep reaches the same solution (unique here: W is diagonally dominant).
    let (r_seq, rep_seq) = solve(&p, NsgsOptions::default().with_tolerance(1e-10).with_max_iterations(500));
    assert!(rep_seq.is_converged(), "{rep_seq:?}");
    let diff = r0.iter().zip(&r_seq).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(diff <= 1e-7, "parallel and sequential solutions differ by {diff}");
}

/// A seeded `side × side` grid of contacts, contact `(i, j)` coupled with `(i + 1, j)`,
/// `(i, j + 1)` and `(i + 1, j + 1)` (and symmetrically), as the contacts of a layer of a pile:
/// a symmetric, diagonally dominant sparse-block `W`; every other diagonal block is
/// `diag(a, b, b)` (closed-form local solve), the others are full (Alart–Curnier Newton).
fn grid(side: usize, seed: u64) -> Fc3dProblem {
    use nonsmooth_numerics::matrix::SparseBlockMatrix;
    let mut rng = StdRng::seed_from_u64(seed);
    let nc = side * side;
    let id = |i: usize, j: usize| i * side + j;
    let mut blocks: std::collections::BTreeMap<(usize, usize), [f64; 9]> = std::collections::BTreeMap::new();
    for i in 0..side {
        for j in 0..side {
            let c = id(i, j);
            for (di, dj) in [(1, 0), (0, 1), (1, 1)] {
                if i + di < side && j + dj < side {
                    let d = id(i + di, j + dj);
                    let b: [f64; 9] = std::array::from_fn(|_| rng.random_range(-0.15..0.15));
                    // Column-major 3×3: the transpose goes to (d, c).
                    let bt: [f64; 9] = std::array::from_fn(|k| b[3 * (k % 3) + k / 3]);
                    blocks.insert((c, d), b);
                    blocks.insert((d, c), bt);
                }
            }
            let (a, t) = (2.5 + rng.random_range(0.0..1.0), 2.5 + rng.random_range(0.0..1.0));
            let e = if c % 2 == 0 { 0.0 } else { rng.random_range(-0.2..0.2) };
            blocks.insert((c, c), [a, e, 0.0, e, t, 0.0, 0.0, 0.0, t + e.abs()]);
        }
    }
    let (mut row_ptr, mut col_idx, mut values) = (vec![0], Vec::new(), Vec::new());
    let mut row = 0;
    for (&(r, c), b) in &blocks {
        while row < r {
            row_ptr.push(col_idx.len());
            row += 1;
        }
        col_idx.push(c);
        values.extend_from_slice(b);
    }
    while row < nc {
        row_ptr.push(col_idx.len());
        row += 1;
    }
    let ends: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
    let w = SparseBlockMatrix::new(ends.clone(), ends, row_ptr, col_idx, values).expect("valid grid W");
    let q: Vec<f64> = (0..3 * nc)
        .map(|i| if i % 3 == 0 { rng.random_range(-1.0..0.2) } else { rng.random_range(-1.0..1.0) })
        .collect();
    let mu: Vec<f64> = (0..nc).map(|_| rng.random_range(0.1..0.6)).collect();
    Fc3dProblem::new(NumericsMatrix::SparseBlock(w), q, mu).expect("valid grid problem")
}

/// The two-halves schedule (`NsgsSchedule::Halves`): for 1, 2 and 4 threads the same reactions
/// bit for bit and the same report, with and without Anderson acceleration (extrapolating after
/// every sweep or every second one); it converges, its
/// residual is the original problem's error, and it finds the solution of the sequential sweep
/// (unique here: `W` is diagonally dominant) in about as many sweeps.
#[test]
fn halves_schedule_is_deterministic_and_converges() {
    let p = grid(92, 0x4a1f);
    assert!(p.number_of_contacts() >= 4096, "the halves schedule starts at 4096 contacts");
    for (name, base) in [
        ("plain", NsgsOptions::default()),
        (
            "anderson, light error",
            NsgsOptions::default()
                .with_anderson_memory(3)
                .with_error_evaluation(NsgsErrorEvaluation::LightWithFullFinal),
        ),
        (
            "anderson, period 2, light error",
            NsgsOptions::default()
                .with_anderson_memory(3)
                .with_anderson_period(2)
                .with_error_evaluation(NsgsErrorEvaluation::LightWithFullFinal),
        ),
    ] {
        let base = base.with_tolerance(1e-10).with_max_iterations(2000);
        let (r_seq, rep_seq) = solve(&p, base.clone());
        assert!(rep_seq.is_converged(), "{name}: {rep_seq:?}");
        let mut first: Option<(Vec<f64>, SolverReport)> = None;
        for threads in [1, 2, 4] {
            let opts =
                base.clone().with_parallelism(Parallelism::Rayon { threads }).with_schedule(NsgsSchedule::Halves);
            let (r, rep) = solve(&p, opts);
            assert!(rep.is_converged() && rep.residual <= 1e-10, "{name}, {threads} threads: {rep:?}");
            let mut u = vec![0.0; p.size()];
            let exact = p.compute_error(&r, &mut u).expect("sizes match");
            assert!((exact - rep.residual).abs() <= 1e-15 * (1.0 + exact), "{name}: {} vs {exact}", rep.residual);
            match &first {
                None => first = Some((r, rep)),
                Some((r0, rep0)) => {
                    assert_eq!(&rep, rep0, "{name}, {threads} threads");
                    assert!(bits(&r) == bits(r0), "{name}, {threads} threads: reactions differ");
                }
            }
        }
        let (r, rep) = first.expect("three runs");
        let diff = r.iter().zip(&r_seq).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        println!(
            "{name}: sequential {} sweeps, halves {} sweeps, max |diff| {diff:.2e}",
            rep_seq.iterations, rep.iterations
        );
        assert!(diff <= 1e-7, "{name}: solutions differ by {diff}");
        assert!(rep.iterations <= rep_seq.iterations + rep_seq.iterations / 2 + 5, "{name}: {rep:?} vs {rep_seq:?}");
    }
}

/// Below the size where the halves schedule starts (4096 contacts), `parallel` with
/// `NsgsSchedule::Halves` sweeps sequentially in natural order: the same reactions, bit for bit,
/// and the same report as the sequential solver (not the colour schedule).
#[test]
fn halves_below_its_threshold_is_the_sequential_sweep() {
    // Below and above the 1024 contacts where the colour schedule renumbers its problems.
    for (side, range) in [(20, 1..1024), (40, 1024..4096)] {
        let p = grid(side, 0x51);
        assert!(range.contains(&p.number_of_contacts()), "{} contacts", p.number_of_contacts());
        let base = NsgsOptions::default().with_tolerance(1e-10).with_max_iterations(2000).with_anderson_memory(3);
        let (r_seq, rep_seq) = solve(&p, base.clone());
        let (r, rep) =
            solve(&p, base.with_parallelism(Parallelism::Rayon { threads: 2 }).with_schedule(NsgsSchedule::Halves));
        assert!(rep_seq.is_converged());
        assert_eq!(rep, rep_seq);
        assert!(bits(&r) == bits(&r_seq));
    }
}
