//! Integration tests: the frictional contact error measure against Siconos.
//!
//! Our `LocalFcProblem::compute_error` on reference files with a seeded random `r` is compared
//! with Siconos' own `fc3d_compute_error` (Python binding) and `fc2d_compute_error` (called from
//! `libsiconos_numerics` through ctypes, it has no binding). Skipped with one printed line when
//! the data, `/usr/bin/python3` or its `siconos.numerics` module is missing.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use nonsmooth_numerics::io::{Problem, read_problem};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Reads the problem at argv[2] with Siconos, `r` from stdin (one number a line), and prints
/// Siconos' error with norm = ‖q‖₂ then `u = W r + q`, one `repr` a line. argv[1] is the dimension.
const SCRIPT: &str = r#"
import sys, ctypes
try:
    import numpy as np
    import siconos.numerics as sn
except Exception:
    sys.exit(3)
dim, path = int(sys.argv[1]), sys.argv[2]
p = sn.frictionContact_new_from_filename(path)
r = np.array([float(x) for x in sys.stdin.read().split()])
w = np.zeros(r.size)
norm = float(np.linalg.norm(p.q))
if dim == 3:
    o = sn.SolverOptions(sn.SICONOS_FRICTION_3D_NSGS)
    info, err = sn.fc3d_compute_error(p, r, w, 1e-8, o, norm)
else:
    lib = ctypes.CDLL("libsiconos_numerics.so.7")
    f = lib.fc2d_compute_error
    f.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_double] * 2 + [ctypes.c_void_p]
    e = ctypes.c_double(0.0)
    f(int(p.this), r.ctypes.data, w.ctypes.data, 1e-8, norm, ctypes.addressof(e))
    err = e.value
print(repr(float(err)))
for x in w:
    print(repr(float(x)))
"#;

/// Siconos' error and `u` for `r` on the file `path`, or `None` when Python or Siconos is missing.
fn siconos_error(dim: usize, path: &Path, r: &[f64]) -> Option<(f64, Vec<f64>)> {
    let mut child = Command::new("/usr/bin/python3")
        .args(["-c", SCRIPT, &dim.to_string(), &path.display().to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let input: String = r.iter().map(|x| format!("{x:e}\n")).collect();
    child.stdin.take().expect("stdin was piped").write_all(input.as_bytes()).expect("python reads stdin");
    let out = child.wait_with_output().expect("python runs");
    if out.status.code() == Some(3) {
        return None;
    }
    assert!(out.status.success(), "Siconos failed on {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    let values: Vec<f64> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim().parse().expect("python prints floats")).collect();
    Some((values[0], values[1..].to_vec()))
}

#[test]
fn compute_error_matches_siconos_on_reference_files() {
    let Some(data) = crate::data_dir() else { return };
    let files = [
        (3, "fc3d/FrictionContact3D_1c.dat"),
        (3, "fc3d/Capsules-i101-404.dat"),
        (3, "fc3d/FC3D_Example1_SBM.dat"),
        (2, "fc2d/FrictionContactProblem00031.dat"),
        (2, "fc2d/FC2D_SliderCrankLagrangian00000.dat"),
    ];
    let mut rng = StdRng::seed_from_u64(2026);
    let mut worst: f64 = 0.0;
    for (dim, file) in files {
        let path = data.join("siconos").join(file);
        let problem = read_problem(&path, None).expect("reference file reads");
        for trial in 0..3 {
            let n = match &problem {
                Problem::Fc3d(p) => p.size(),
                Problem::Fc2d(p) => p.size(),
                other => panic!("{file}: unexpected kind {:?}", other.kind()),
            };
            // Trial 0: r = 0; then random r of two magnitudes (mixing all three cone cases).
            let scale = [0.0, 1.0, 1e3][trial];
            let r: Vec<f64> = (0..n).map(|_| scale * rng.random_range(-1.0..2.0)).collect();
            let mut u = vec![0.0; n];
            let ours = match &problem {
                Problem::Fc3d(p) => p.compute_error(&r, &mut u),
                Problem::Fc2d(p) => p.compute_error(&r, &mut u),
                _ => unreachable!("checked above"),
            }
            .expect("sizes match");
            let Some((theirs, their_u)) = siconos_error(dim, &path, &r) else {
                println!("skipped: /usr/bin/python3 with siconos.numerics is not available");
                return;
            };
            let rel = (ours - theirs).abs() / theirs.abs().max(f64::MIN_POSITIVE);
            assert!(
                rel <= 1e-14 || (ours - theirs).abs() <= 1e-300,
                "{file} trial {trial}: ours {ours:e}, Siconos {theirs:e}"
            );
            let unorm = their_u.iter().map(|x| x * x).sum::<f64>().sqrt();
            for (a, b) in u.iter().zip(&their_u) {
                assert!((a - b).abs() <= 1e-13 * (1.0 + unorm), "{file}: u differs ({a:e} vs {b:e})");
            }
            worst = worst.max(rel);
            println!("{file} trial {trial}: error {ours:.17e} (Siconos {theirs:.17e})");
        }
    }
    println!("worst relative difference: {worst:e}");
}
