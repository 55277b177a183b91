//! The cam-follower of Siconos' `CamFollower` sample: a follower of mass `μ = 1.221`, spring
//! stiffness `κ = 1430.8`, no damping (`ζ = 0`) and no valve force (`f_v = 0`), `μ ü + κ u = λ`,
//! kept above a cam turning at `rpm` by the rheonomous unilateral constraint `y = u − c(t) ≥ 0`
//! (`LagrangianRheonomousR`: `G = 1`, `∂h/∂t = −ċ`, `∂²h/∂t² = −c̈`) with Newton's law
//! `v⁺ − ċ = −r (v⁻ − ċ)`, `r = 0.8`. It starts on the cam at rest relative to it
//! (`u₀ = c(0) = 0.1`, `v₀ = ċ(0) = 0`).
//!
//! Two schemes: Moreau–Jean time-stepping (θ = 1/2, Lemke; the kernel's one-step problem adds
//! `∂h/∂t` at `t_{k+1}`) in [`run_time_stepping`], and event-driven (Dormand–Prince at
//! [`ED_RTOL`], [`ED_ATOL`], impacts at velocity level, contact phases at acceleration level) in
//! [`run_event_driven`]. At high speed (660 rpm) the follower leaves the cam and impacts it
//! again and again; [`poincare_svg`] draws the impact Poincaré section (follower velocity against
//! cam angle at impacts), where a chaotic motion shows as a scattered set of points.
//!
//! The cam profile ([`cam_state`]), checked numerically (tests `cam_profile_*` in
//! `examples/tests/cam_follower.rs`): `c` and `ċ` are continuous everywhere (across each
//! junction they change by `O(δ)` over `±δ`), and `ċ` and `c̈` are the derivatives of `c` and
//! `ċ` (central differences agree to 1e-5 relative) away from the junctions. At the three
//! junctions of each half turn (`β = π/2`, `π/2 + β₂`, `π/2 + β₃`, met again mirrored in the
//! second half) `c̈` jumps: the profile is only C¹ there (at 60 rpm, `c̈` jumps 0 → 8.36 at
//! `β = π/2`, 13.49 → −73.79 at `π/2 + β₂`, −58.89 → 0 at `π/2 + β₃`; the jumps scale with
//! `rpm²`). The contact force `λ = μ c̈ + κ c` of a follower on the cam therefore jumps at the
//! junctions; the event-driven root finder meets these jumps as
//! discontinuities of its root function.

use nonsmooth::kernel::simulation::RunSummary;
use std::fmt::Write as _;

use nonsmooth::kernel::KernelError;
use nonsmooth::kernel::model::{DsId, InteractionId, LagrangianLinearTids, LagrangianRheonomousR, NonsmoothLaw, Nsds};
use nonsmooth::kernel::simulation::{
    EventDriven, EventDrivenOptions, MoreauJeanOsi, OdeMethod, OdeOptions, OneStepNsProblem, RestartingOde,
    TimeDiscretisation, TimeStepping, TimeSteppingOptions, Trajectory,
};

/// Names of the columns of [`CamRun::trajectory`] (header of the example's `--output` file): time,
/// follower position `u` and velocity `v`, cam position `c` and velocity `ċ`, contact force `λ`.
pub const COLUMN_NAMES: [&str; 6] = ["t", "u_follower", "v_follower", "c_cam", "cdot_cam", "lambda"];

/// Follower mass `μ`.
pub const MASS: f64 = 1.221;
/// Spring stiffness `κ`.
pub const STIFFNESS: f64 = 1430.8;
/// Restitution coefficient `r`.
pub const RESTITUTION: f64 = 0.8;
/// Time step of the time-stepping runs (`h = 1e-4`).
pub const TIME_STEP: f64 = 1e-4;

/// Relative tolerance of the event-driven smooth integrator (Dormand–Prince).
pub const ED_RTOL: f64 = 1e-13;
/// Absolute tolerance of the event-driven smooth integrator.
pub const ED_ATOL: f64 = 1e-14;

/// Base radius `R_b` of the cam profile.
const R_B: f64 = 0.40;
/// Profile constants of Siconos' `CamFollower` cam.
const K1: f64 = 0.45;
const K2: f64 = 0.403_933_207_238_21;
const RHO1: f64 = 0.85;
const RHO2: f64 = 0.553_933_207_238_21;
const RHO3: f64 = 0.15;
const BETA1: f64 = 0.0;
const BETA2: f64 = 1.050_328_174_371_336;
const BETA3: f64 = 1.221_730_476_396_03;

/// The cam angular speed `ω = 2π rpm / 60` (rad/s).
pub fn omega(rpm: f64) -> f64 {
    2.0 * std::f64::consts::PI * rpm / 60.0
}

/// The cam angle `ω t mod 2π` at time `t`.
pub fn cam_angle(t: f64, rpm: f64) -> f64 {
    (omega(rpm) * t).rem_euclid(2.0 * std::f64::consts::PI)
}

/// The cam position, velocity and acceleration `(c, ċ, c̈)` at time `t` for a cam turning at
/// `rpm` (Siconos' `CamFollower` example, its `CamState`): `β = (ω t + π/2) mod 2π`, mirrored
/// (`β ← 2π − β`, `ω ← −ω`) past `π`; the base circle `R_b` up to `π/2 − β₁`, the flank
/// `−k₁ sin β + ρ₁ √(1 − (k₁ cos β / ρ₁)²)` up to `π/2 + β₂`, the nose
/// `−k₂ cos a + ρ₃ √(1 − (k₂ sin a / ρ₃)²)` (`a = β + π/9`) up to `π/2 + β₃`, then `ρ₂`;
/// finally `c = h − 0.3`.
pub fn cam_state(t: f64, rpm: f64) -> (f64, f64, f64) {
    use std::f64::consts::{FRAC_PI_2, PI};
    let mut w = omega(rpm);
    let mut beta = (w * t + FRAC_PI_2).rem_euclid(2.0 * PI);
    if beta > PI {
        beta = 2.0 * PI - beta;
        w = -w;
    }
    // τ of the acceleration formulas, for the constants (k, ρ) at the shifted angle b.
    let tau = |k: f64, rho: f64, b: f64| {
        let (s, c) = b.sin_cos();
        c * c - s * s - (k * s * c).powi(2) / (rho * rho * (1.0 - (k * c / rho).powi(2)))
    };
    let (h, hd, hdd) = if beta <= FRAC_PI_2 - BETA1 {
        (R_B, 0.0, 0.0)
    } else if beta <= FRAC_PI_2 + BETA2 {
        let (s, c) = beta.sin_cos();
        let root = (1.0 - (K1 * c / RHO1).powi(2)).sqrt();
        let h = -K1 * s + RHO1 * root;
        let hd = (-K1 * c + K1 * K1 * s * c / (RHO1 * root)) * w;
        let b = beta - BETA1;
        let root1 = (1.0 - (K1 * b.cos() / RHO1).powi(2)).sqrt();
        let hdd = (K1 * b.sin() + K1 * K1 * tau(K1, RHO1, b) / (RHO1 * root1)) * w * w;
        (h, hd, hdd)
    } else if beta <= FRAC_PI_2 + BETA3 {
        let a = beta + PI / 9.0;
        let (s, c) = a.sin_cos();
        let root = (1.0 - (K2 * s / RHO3).powi(2)).sqrt();
        let h = -K2 * c + RHO3 * root;
        let hd = (K2 * s - K2 * K2 * s * c / (RHO3 * root)) * w;
        let b = beta - BETA3;
        let root3 = (1.0 - (K2 * b.cos() / RHO3).powi(2)).sqrt();
        let hdd = (-K2 * b.sin() + K2 * K2 * tau(K2, RHO3, b) / (RHO3 * root3)) * w * w;
        (h, hd, hdd)
    } else {
        (RHO2, 0.0, 0.0)
    };
    (h - 0.3, hd, hdd)
}

/// One impact: time, cam angle `ω t mod 2π`, follower velocity before and after.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// Time of the impact (event-driven) or end of the step where the contact closes
    /// (time-stepping).
    pub time: f64,
    /// Cam angle `ω t mod 2π`.
    pub angle: f64,
    /// Follower velocity before the impact.
    pub v_before: f64,
    /// Follower velocity after the impact.
    pub v_after: f64,
}

/// A run: the trajectory, its impacts, and the first time the follower leaves the cam.
///
/// Trajectory columns: `t, u, v, c, ċ, λ`, with `λ` the contact force (time-stepping: the
/// impulse of the step divided by `h`; event-driven: the acceleration-level multiplier `λ[2]`).
#[derive(Debug)]
pub struct CamRun {
    /// The rows `t, u, v, c, ċ, λ`.
    pub trajectory: Trajectory,
    /// The impacts in time order.
    pub impacts: Vec<Impact>,
    /// The first separation: time-stepping, the start of the first step that ends with an
    /// inactive contact and a positive gap; event-driven, the event where the contact leaves `I_2`. `None` if it never
    /// leaves the cam.
    pub first_separation: Option<f64>,
    /// Convergence of the time-stepping run's steps (`None` for the event-driven run).
    pub summary: Option<RunSummary>,
}

/// The follower on the cam at rest relative to it, and its rheonomous contact.
fn model(rpm: f64) -> Result<(Nsds, DsId, InteractionId), KernelError> {
    if !rpm.is_finite() || rpm <= 0.0 {
        return Err(KernelError::InvalidOption { name: "rpm", reason: "must be finite and positive" });
    }
    let (c0, cd0, _) = cam_state(0.0, rpm);
    let follower =
        LagrangianLinearTids::new(vec![c0], vec![cd0], faer::mat![[MASS]])?.with_stiffness(faer::mat![[STIFFNESS]])?;
    let relation = LagrangianRheonomousR::new(
        1,
        move |q, t, y| y[0] = q[0] - cam_state(t, rpm).0,
        |_, _, g| g[(0, 0)] = 1.0,
        move |_, t, dhdt| dhdt[0] = -cam_state(t, rpm).1,
    )?
    // G is constant: ∂²h/∂t² = −c̈ is the whole explicit-time part of ÿ.
    .with_time_second_derivative(move |_, _, t, out| out[0] = -cam_state(t, rpm).2);
    let mut nsds = Nsds::new();
    let ds = nsds.add_ds(follower);
    let contact = nsds.link(relation, NonsmoothLaw::newton_impact(RESTITUTION)?, &[ds])?;
    Ok((nsds, ds, contact))
}

/// Moreau–Jean time-stepping (θ = 1/2, Lemke as Siconos' default LCP) with step `h` to
/// `t_end`.
///
/// A flight is a run of steps whose contact is not active (`y + h ẏ / 2 > 0` at the start of
/// the step). Moreau–Jean works at velocity level and leaves `O(h³)` position errors: after the
/// first step the gap is `+3e-11` at 660 rpm (`+1.5e-14` at 100 rpm) with `ẏ = 0`, so the
/// contact is released for one step, the follower sinks by a few `1e-6` and chatters for a
/// few steps before it stays on the cam (the gap then stays at that small negative value).
/// Those flights never open the gap; so an impact here is the first active step after a
/// flight during which the gap became positive (velocities at the start and the end of that
/// step), and the first separation is the start of the first step that ends with an inactive
/// contact and a positive gap.
///
/// # Errors
/// Kernel errors ([`KernelError::InvalidOption`] for `rpm ≤ 0`).
pub fn run_time_stepping(rpm: f64, h: f64, t_end: f64) -> Result<CamRun, KernelError> {
    let (nsds, ds, contact) = model(rpm)?;
    let mut sim = TimeStepping::new(
        nsds,
        MoreauJeanOsi::with_theta(0.5)?,
        OneStepNsProblem::lcp_default()?,
        TimeDiscretisation::new(0.0, h, t_end)?,
        TimeSteppingOptions::default(),
    )?;
    let mut trajectory = Trajectory::new(6);
    let state = |sim: &TimeStepping| -> Result<(f64, f64, f64), KernelError> {
        let s = sim.nsds().ds(ds)?.state();
        Ok((s.q()[0], s.v()[0], sim.nsds().interaction(contact)?.lambda(1)[0]))
    };
    let (u, v, _) = state(&sim)?;
    let (c, cd, _) = cam_state(0.0, rpm);
    trajectory.push(&[0.0, u, v, c, cd, 0.0]);
    let mut impacts = Vec::new();
    let mut first_separation = None;
    // Whether the current flight (run of inactive steps) opened the gap.
    let mut flight_opened = false;
    while sim.has_next_step() {
        let (t_start, v_start) = (sim.time(), state(&sim)?.1);
        let report = sim.step()?;
        let (u, v, impulse) = state(&sim)?;
        let t = sim.time();
        let (c, cd, _) = cam_state(t, rpm);
        if report.active > 0 {
            if flight_opened {
                impacts.push(Impact { time: t, angle: cam_angle(t, rpm), v_before: v_start, v_after: v });
            }
            flight_opened = false;
        } else if u - c > 0.0 {
            flight_opened = true;
            first_separation.get_or_insert(t_start);
        }
        trajectory.push(&[t, u, v, c, cd, impulse / h]);
    }
    Ok(CamRun { trajectory, impacts, first_separation, summary: Some(sim.run_summary()) })
}

/// Event-driven run to `t_end`, output events every 1e-3 s, one trajectory row per event.
/// Impacts are the impact events reached in flight (not those at the end of a contact phase,
/// see the comment in the loop).
/// The smooth integrator is Dormand–Prince ([`RestartingOde`], `rtol =` [`ED_RTOL`],
/// `atol =` [`ED_ATOL`]) restarted at every event, so that no step is longer than the 1e-3 s
/// output step: our LSODAR port keeps its history across output events and has no largest
/// step, and on the base circle (where `c̈ = 0` and the follower on the cam has a constant
/// acceleration) its steps grow past the whole lift of the cam (at 100 rpm it stepped over
/// the flank and the follower sank into the cam).
///
/// # Errors
/// Kernel errors ([`KernelError::InvalidOption`] for `rpm ≤ 0`).
pub fn run_event_driven(rpm: f64, t_end: f64) -> Result<CamRun, KernelError> {
    let (nsds, ds, contact) = model(rpm)?;
    let grid = TimeDiscretisation::new(0.0, 1e-3, t_end)?;
    let options = OdeOptions::default().with_method(OdeMethod::Explicit).with_rtol(ED_RTOL).with_atol(ED_ATOL);
    let mut sim = EventDriven::new(nsds, grid, RestartingOde::new(options)?, EventDrivenOptions::default())?;
    let mut trajectory = Trajectory::new(6);
    let (c, cd, _) = cam_state(0.0, rpm);
    trajectory.push(&[0.0, c, cd, c, cd, 0.0]);
    let mut impacts = Vec::new();
    let mut first_separation = None;
    let mut in_contact = sim.index_set_sizes().1 > 0;
    while sim.has_next_event() {
        let Some(report) = sim.step()? else { break };
        let (u, v, force) = sim.with_nsds(|n| -> Result<_, KernelError> {
            let s = n.ds(ds)?.state();
            Ok((s.q()[0], s.v()[0], n.interaction(contact)?.lambda(2)[0]))
        })?;
        let t = report.time;
        // An impact LCP at the release of a contact phase (`in_contact`) is not an impact: the
        // integration drift of `ẏ` on the cam (≈ 1e-11, above TOL_ED) makes it solve one with
        // an impulse of that size.
        if report.impact && !in_contact {
            let (_, pre_v) = sim.pre_impact_state(ds)?;
            impacts.push(Impact { time: t, angle: cam_angle(t, rpm), v_before: pre_v[0], v_after: v });
        }
        let now_in_contact = report.index_sets.1 > 0;
        if in_contact && !now_in_contact && first_separation.is_none() {
            first_separation = Some(t);
        }
        in_contact = now_in_contact;
        let (c, cd, _) = cam_state(t, rpm);
        trajectory.push(&[t, u, v, c, cd, force]);
    }
    Ok(CamRun { trajectory, impacts, first_separation, summary: None })
}

/// The impact Poincaré section as an SVG document (our own minimal writer): one circle per
/// impact at (cam angle in `[0, 2π)`, follower velocity before the impact), axes with their
/// ranges, and `title` on top.
pub fn poincare_svg(impacts: &[Impact], title: &str) -> String {
    let (width, height, margin) = (640.0, 480.0, 50.0);
    let (x_min, x_max) = (0.0, 2.0 * std::f64::consts::PI);
    let (mut v_min, mut v_max) =
        impacts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), i| (lo.min(i.v_before), hi.max(i.v_before)));
    if !v_min.is_finite() || !v_max.is_finite() {
        (v_min, v_max) = (-1.0, 1.0);
    }
    if v_max - v_min < 1e-12 {
        v_min -= 0.5;
        v_max += 0.5;
    }
    let px = |a: f64| margin + (a - x_min) / (x_max - x_min) * (width - 2.0 * margin);
    let py = |v: f64| height - margin - (v - v_min) / (v_max - v_min) * (height - 2.0 * margin);
    let escaped: String = title
        .chars()
        .map(|ch| match ch {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            c => c.to_string(),
        })
        .collect();
    let mut s = String::new();
    // Writing into a String cannot fail: the `fmt::Result`s below are always Ok.
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    let _ = writeln!(s, r#"<rect width="{width}" height="{height}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<rect x="{margin}" y="{margin}" width="{}" height="{}" fill="none" stroke="black"/>"#,
        width - 2.0 * margin,
        height - 2.0 * margin
    );
    let _ = writeln!(s, r#"<text x="{}" y="30" text-anchor="middle" font-size="16">{escaped}</text>"#, width / 2.0);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle" font-size="12">cam angle (rad), 0 … 2π</text>"#,
        width / 2.0,
        height - 15.0
    );
    let _ = writeln!(
        s,
        r#"<text x="15" y="{}" font-size="12" transform="rotate(-90 15 {})" text-anchor="middle">follower velocity before impact: {v_min:.4} … {v_max:.4}</text>"#,
        height / 2.0,
        height / 2.0
    );
    for i in impacts {
        let _ = writeln!(
            s,
            r#"<circle class="impact" cx="{:.2}" cy="{:.2}" r="1.2" fill="navy"/>"#,
            px(i.angle),
            py(i.v_before)
        );
    }
    s.push_str("</svg>\n");
    s
}
