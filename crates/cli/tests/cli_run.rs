//! `nonsmooth run SCENE` as a process: a small scene file runs to its end, writes its record
//! and ParaView series and prints its summary; bad input (a missing or malformed scene file, a
//! zero `--every`, an unwritable output) exits 2, a scene that diverges exits 1.

mod common;

use std::path::{Path, PathBuf};

use common::{code, run, stderr, stdout, str_path, temp_dir};

/// Two spheres on the ground, 30 steps of 1 ms; `extra` is appended to the file.
fn write_scene(dir: &Path, name: &str, velocity: f64, extra: &str) -> PathBuf {
    let text = format!(
        "[simulation]\nh = 1e-3\nt_end = 0.03\n\n[solver]\non_nonconvergence = \"continue\"\n\n\
         [output]\nevery = 4\n{extra}\n\
         [[static]]\nshape = \"half_space\"\n\n\
         [[body]]\nshape = \"sphere\"\nradius = 0.1\ndensity = 1000.0\nposition = [0.0, 0.0, 0.1]\n\n\
         [[body]]\nshape = \"sphere\"\nradius = 0.1\ndensity = 1000.0\nposition = [1.0, 0.0, 0.105]\n\
         velocity = [0.0, 0.0, {velocity:e}]\n"
    );
    let path = dir.join(name);
    std::fs::write(&path, text).expect("cannot write the scene file");
    path
}

#[test]
fn a_scene_file_runs_to_its_end_with_its_outputs_and_summary() {
    let dir = temp_dir("cli_run", "outputs");
    let scene = write_scene(&dir, "two.toml", -0.1, "record = \"rec/two.h5\"\ncsv = \"two.csv\"\n");
    let out = run(&["run", str_path(&scene), "--no-progress"]);
    assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("steps: 30 "), "{text}");
    assert!(text.contains("convergence: 30 steps"), "{text}");
    assert!(text.contains("(8 steps)"), "7 records every 4 steps and the last: {text}");
    let record = dir.join("rec/two.h5");
    let file = hdf5_pure::File::open(&record).expect("the record reads back");
    assert_eq!(file.dataset("step").and_then(|d| d.read_u64()).ok(), Some(vec![4, 8, 12, 16, 20, 24, 28, 30]));
    assert_eq!(file.dataset("bodies/position").and_then(|d| d.shape()).ok(), Some(vec![8, 2, 3]));
    assert!(stderr(&out).is_empty(), "no bar when standard error is not a terminal");
    let csv = std::fs::read_to_string(dir.join("two.csv")).expect("the CSV");
    assert_eq!(csv.lines().count(), 1 + 8 * 2, "a header and two bodies per record");
    assert!(csv.lines().last().is_some_and(|l| l.starts_with("30,")), "{csv}");

    // --out and --every replace the file's settings; the series goes to DIR.
    let out_dir = dir.join("out");
    let out = run(&["run", str_path(&scene), "--out", str_path(&out_dir), "--every", "10"]);
    assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("(3 steps)"), "{}", stdout(&out));
    assert!(out_dir.join("rec/two.h5").is_file() && out_dir.join("two.pvd").is_file());
    assert!(out_dir.join("two_centres_000003.vtp").is_file(), "the initial frame and 3 records");
}

#[test]
fn bad_input_exits_2_and_a_diverged_scene_exits_1() {
    let dir = temp_dir("cli_run", "errors");
    let out = run(&["run", str_path(&dir.join("missing.toml"))]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
    let scene = write_scene(&dir, "ok.toml", 0.0, "");
    let out = run(&["run", str_path(&scene), "--every", "0"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[simulation]\nh = = 1\n").expect("write");
    let out = run(&["run", str_path(&bad)]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("bad.toml"), "{}", stderr(&out));
    let blocker = dir.join("file");
    std::fs::write(&blocker, "x").expect("write");
    let out = run(&["run", str_path(&scene), "--out", str_path(&blocker.join("sub"))]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let diverging = write_scene(&dir, "diverging.toml", -1e308, "");
    let out = run(&["run", str_path(&diverging), "--no-progress"]);
    assert_eq!(code(&out), 1, "stderr: {}", stderr(&out));
    assert!(stdout(&out).contains("stopped: body 1"), "{}", stdout(&out));
    assert!(stdout(&out).starts_with("steps: 0 "), "{}", stdout(&out));
}
