//! Integration tests: FC2D through its LCP reformulation, solved by Lemke, on every file of the
//! Siconos fc2d collection small enough for a dense LCP of size `3·nc`.

use nonsmooth_numerics::fc::fc2d_lcp::{Fc2dLemkeOptions, Fc2dLemkeSolver, fc2d_to_lcp};
use nonsmooth_numerics::io::{Problem, read_problem};

/// Largest number of contacts tried (the dense LCP has `(3·nc)²` entries).
const MAX_CONTACTS: usize = 400;

#[test]
fn lemke_solves_the_siconos_fc2d_collection() {
    let Some(data) = crate::data_dir() else { return };
    let dir = data.join("siconos").join("fc2d");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fc2d folder readable")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .dat file in {}", dir.display());
    let mut solved = 0;
    for path in &files {
        let name = path.file_name().expect("file name").to_string_lossy().into_owned();
        let problem = match read_problem(path, None).expect("reference file reads") {
            Problem::Fc2d(p) => p,
            other => panic!("{name}: unexpected kind {:?}", other.kind()),
        };
        let nc = problem.number_of_contacts();
        if nc > MAX_CONTACTS {
            println!("skipped {name}: nc = {nc} > {MAX_CONTACTS} (dense LCP of size {})", 3 * nc);
            continue;
        }
        let lcp = fc2d_to_lcp(&problem).expect("valid reformulation");
        assert_eq!(lcp.size(), 3 * nc);
        let mut solver = Fc2dLemkeSolver::new(Fc2dLemkeOptions::default().with_tolerance(1e-8)).expect("options");
        let mut r = vec![0.0; problem.size()];
        let mut u = vec![0.0; problem.size()];
        let start = std::time::Instant::now();
        let report = solver.solve(&problem, &mut r, &mut u).expect("sizes match");
        println!(
            "{name}: nc = {nc}, {} after {} pivots, fc2d error {:.3e}, {:.3} s",
            report.status,
            report.iterations,
            report.residual,
            start.elapsed().as_secs_f64()
        );
        assert!(report.is_converged(), "{name}: {report:?}");
        assert!(report.residual <= 1e-8, "{name}: error {:e}", report.residual);
        // The residual is the FC2D error of the returned reaction.
        let mut u2 = vec![0.0; problem.size()];
        let err = problem.compute_error(&r, &mut u2).expect("sizes match");
        assert!((err - report.residual).abs() <= 1e-15 * (1.0 + err));
        solved += 1;
    }
    assert!(solved >= 8, "only {solved} files solved");
}
