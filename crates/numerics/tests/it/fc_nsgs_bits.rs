//! The numbers of both NSGS front-ends pinned bit for bit: per problem and configuration, the
//! status, the sweep count, the bits of the residual and a checksum of the bits of `r`.
//!
//! Problems: every FC3D file of the Siconos collection (assembled NSGS) and cubic lattices of
//! spheres (`fc_factored::lattice`; both the factored NSGS and the NSGS on the assembled `W`),
//! large enough for the parallel schedules. Configurations: the default options and the
//! scenes' (relaxation 1.5, Anderson memory 3 on pairs of sweeps, the halves schedule, the light
//! error with full final check), sequential and parallel with pools of 1 and 2 threads.
//!
//! The expected lines are in `tests/data/nsgs_bits/expected.txt`; with
//! `NSGS_BITS_WRITE=FILE` the test writes the lines it computes into `FILE` instead of
//! comparing (to record them before a change of the solvers).

use std::fmt::Write as _;

use nonsmooth_numerics::fc::nsgs::{NsgsErrorEvaluation, NsgsOptions, NsgsSchedule, NsgsSolver};
use nonsmooth_numerics::fc::{FactoredFc3dProblem, FactoredNsgsSolver, Fc3dProblem};
use nonsmooth_numerics::io::{Problem, read_problem};
use nonsmooth_numerics::{Parallelism, SolverReport};

use crate::fc_factored::lattice;

/// The options of the scenes (`SceneOptions::default_nsgs` in the mechanics crate).
fn scene_options() -> NsgsOptions {
    NsgsOptions::default()
        .with_max_iterations(3000)
        .with_relaxation(1.5)
        .with_anderson_memory(3)
        .with_anderson_period(2)
        .with_schedule(NsgsSchedule::Halves)
        .with_error_evaluation(NsgsErrorEvaluation::LightWithFullFinal)
}

/// The configurations: name, options, threads (0: sequential).
fn configurations(factored: bool) -> Vec<(&'static str, NsgsOptions, usize)> {
    let mut v =
        vec![("scene-seq", scene_options(), 0), ("scene-par1", scene_options(), 1), ("scene-par2", scene_options(), 2)];
    if !factored {
        v.insert(0, ("default-seq", NsgsOptions::default(), 0));
        v.insert(1, ("default-par1", NsgsOptions::default(), 1));
        v.insert(2, ("default-par2", NsgsOptions::default(), 2));
    }
    v
}

fn with_threads(o: NsgsOptions, threads: usize) -> NsgsOptions {
    match threads {
        0 => o.with_parallelism(Parallelism::Sequential),
        t => o.with_parallelism(Parallelism::Rayon { threads: t }),
    }
}

/// FNV-1a over the bits of `r`.
fn checksum(r: &[f64]) -> u64 {
    r.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| (h ^ x.to_bits()).wrapping_mul(0x0100_0000_01b3))
}

fn line(out: &mut String, problem: &str, solver: &str, config: &str, rep: &SolverReport, r: &[f64]) {
    let _ = writeln!(
        out,
        "{problem} {solver} {config} {:?} {} {:016x} {:016x}",
        rep.status,
        rep.iterations,
        rep.residual.to_bits(),
        checksum(r)
    );
}

fn assembled(out: &mut String, name: &str, p: &Fc3dProblem) {
    for (config, o, threads) in configurations(false) {
        let mut s = NsgsSolver::new(with_threads(o, threads)).expect("valid options");
        let (mut r, mut u) = (vec![0.0; p.size()], vec![0.0; p.size()]);
        let rep = s.solve(p, &mut r, &mut u).expect("sizes match");
        line(out, name, "assembled", config, &rep, &r);
    }
}

fn factored(out: &mut String, name: &str, p: &FactoredFc3dProblem) {
    for (config, o, threads) in configurations(true) {
        let mut s = FactoredNsgsSolver::new(with_threads(o, threads)).expect("valid options");
        let (mut r, mut u) = (vec![0.0; p.size()], vec![0.0; p.size()]);
        let rep = s.solve(p, &mut r, &mut u).expect("sizes match");
        line(out, name, "factored", config, &rep, &r);
    }
}

#[test]
fn nsgs_numbers_are_pinned_bit_for_bit() {
    let mut out = String::new();
    // Lattices: 2 small, 1 above both halves thresholds (9675 contacts); bodies with diagonal
    // (rigid fast path) and dense inverses.
    for (n, dense) in [(4, false), (4, true), (15, false), (15, true)] {
        let p = lattice(n, 0.3, 3, dense);
        let name = format!("lattice-{n}{}", if dense { "-dense" } else { "" });
        factored(&mut out, &name, &p);
        assembled(&mut out, &name, &p.to_assembled().expect("assembles"));
    }
    let Some(data) = crate::data_dir() else { return };
    let mut files: Vec<_> = std::fs::read_dir(data.join("siconos/fc3d"))
        .expect("the fc3d folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    for path in files {
        let Ok(Problem::Fc3d(p)) = read_problem(&path, None) else { continue };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_owned();
        assembled(&mut out, &name, &p);
    }
    if let Some(file) = std::env::var_os("NSGS_BITS_WRITE") {
        std::fs::write(file, &out).expect("writable");
        return;
    }
    let expected = include_str!("../data/nsgs_bits/expected.txt");
    for (got, want) in out.lines().zip(expected.lines()) {
        assert_eq!(got, want);
    }
    assert_eq!(out.lines().count(), expected.lines().count());
}
