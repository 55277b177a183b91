//! What the whole-life runs of the pile print (`src/bin/pile-life.rs`, `rapier-pile --life`, and
//! the Python scripts of `benches/python/`), read by `cargo xtask bench-report --only mechanics`:
//! one JSON line per step ([`StepRecord`]) and the state files the other engines start from
//! ([`write_state`]).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

/// One step of a whole-life run, printed as one JSON line with `"record": "step"`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepRecord {
    /// Index of the step (1 for the first step from the lattice).
    pub step: usize,
    /// Translational + rotational kinetic energy after the step, `Σ ½ m |v|² + ½ I |ω|²` (J).
    pub ke: f64,
    /// Wall time of the step (s).
    pub seconds: f64,
    /// Solver iterations of the step (ours: NSGS sweeps of its last FC3D solve).
    pub iterations: Option<usize>,
    /// Whether the solver reached its tolerance (`None`: no problem solved, or no tolerance).
    pub converged: Option<bool>,
    /// The solver's last error (ours: `fc3d_compute_error`), when it has one.
    pub residual: Option<f64>,
    /// [`crate::pile::PileSpec::max_penetration`] after the step (m).
    pub penetration: f64,
    /// [`crate::pile::PileSpec::mean_height`] after the step (m).
    pub mean_height: f64,
    /// Contacts of the step (each engine's own count).
    pub contacts: usize,
}

impl StepRecord {
    /// The JSON line.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "record": "step",
            "step": self.step,
            "ke": self.ke,
            "seconds": self.seconds,
            "iterations": self.iterations,
            "converged": self.converged,
            "residual": self.residual,
            "penetration": self.penetration,
            "mean_height": self.mean_height,
            "contacts": self.contacts,
        })
        .to_string()
    }
}

/// The kinetic energy `Σ ½ m |v|² + ½ I |ω|²` of equal spheres of mass `mass` and moment of
/// inertia `inertia` (isotropic: the frame of `ω` does not matter).
pub fn kinetic_energy(mass: f64, inertia: f64, velocities: &[[f64; 3]], angular: &[[f64; 3]]) -> f64 {
    let square = |v: &[f64; 3]| v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    0.5 * mass * velocities.iter().map(square).sum::<f64>() + 0.5 * inertia * angular.iter().map(square).sum::<f64>()
}

/// The state of one sphere: centre, unit quaternion (scalar first), velocity of the centre,
/// angular velocity in the body frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SphereState {
    /// Centre (m).
    pub position: [f64; 3],
    /// Orientation, scalar first.
    pub orientation: [f64; 4],
    /// Velocity of the centre (m/s).
    pub velocity: [f64; 3],
    /// Angular velocity, body frame (rad/s).
    pub angular_velocity: [f64; 3],
}

/// The text of a state file: a header `# n=.. seed=.. step=.. time=.. radius=.. box_side=..`,
/// then `x y z q0 q1 q2 q3 vx vy vz wx wy wz` per sphere in Rust's shortest round-trip form (so
/// that the Python scripts read back the same doubles).
pub fn state_text(seed: u64, step: usize, time: f64, radius: f64, box_side: f64, spheres: &[SphereState]) -> String {
    let mut out = format!(
        "# n={} seed={seed} step={step} time={time:?} radius={radius:?} box_side={box_side:?}\n",
        spheres.len()
    );
    for s in spheres {
        let [x, y, z] = s.position;
        let [q0, q1, q2, q3] = s.orientation;
        let [vx, vy, vz] = s.velocity;
        let [wx, wy, wz] = s.angular_velocity;
        let _ =
            writeln!(out, "{x:?} {y:?} {z:?} {q0:?} {q1:?} {q2:?} {q3:?} {vx:?} {vy:?} {vz:?} {wx:?} {wy:?} {wz:?}");
    }
    out
}

/// Writes [`state_text`] to `path`.
///
/// # Errors
/// The file cannot be created or written.
pub fn write_state(path: &Path, text: &str) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(text.as_bytes())?;
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn energy_and_state_text() {
        let ke = kinetic_energy(2.0, 0.5, &[[1.0, 2.0, 2.0], [0.0, 0.0, 1.0]], &[[2.0, 0.0, 0.0]]);
        assert!((ke - (0.5 * 2.0 * 10.0 + 0.5 * 0.5 * 4.0)).abs() < 1e-12);
        let s = SphereState {
            position: [0.1, 0.2, 0.30000000000000004],
            orientation: [1.0, 0.0, 0.0, 0.0],
            ..Default::default()
        };
        let text = state_text(42, 0, 0.0, 0.05, 1.1, &[s]);
        assert_eq!(
            text,
            "# n=1 seed=42 step=0 time=0.0 radius=0.05 box_side=1.1\n0.1 0.2 0.30000000000000004 1.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0\n"
        );
        let line =
            StepRecord { step: 3, ke: 1.5, iterations: Some(7), converged: Some(true), ..Default::default() }.to_json();
        let v: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(
            (v["record"].as_str(), v["step"].as_u64(), v["iterations"].as_u64()),
            (Some("step"), Some(3), Some(7))
        );
        assert!(v["residual"].is_null());
    }
}
