//! The mechanics examples: the rolling sphere's transition time, and a small sphere pile.

use nonsmooth::mechanics::output::write_vtp;
use nonsmooth_examples::mechanics::rolling_sphere::RollingSphere;
use nonsmooth_examples::mechanics::sphere_pile;

/// The sliding-to-rolling transition of a sphere launched without spin matches
/// `t* = 2 v0 / (7 μ g)` to 1e-3 (relative), for two friction coefficients, and the sphere then
/// rolls at `5 v0 / 7`.
#[test]
fn rolling_sphere_matches_the_analytic_transition() {
    for mu in [0.3, 0.6] {
        let model = RollingSphere { mu, ..RollingSphere::default() };
        let o = model.run().expect("the model runs");
        let rel = (o.measured - o.analytic).abs() / o.analytic;
        println!(
            "μ = {mu}: t* measured {:.6}, analytic {:.6} (relative {rel:.2e}); final speed {:.6}; sink {:.1e}",
            o.measured, o.analytic, o.final_speed, o.max_sink
        );
        assert!(rel <= 1e-3, "μ = {mu}: relative difference {rel:e}");
        assert!((o.final_speed - 5.0 / 7.0 * model.v0).abs() < 1e-4, "rolling speed {}", o.final_speed);
        assert!(o.max_sink < 1e-6, "the sphere does not sink: {}", o.max_sink);
    }
}

/// 64 spheres dropped into the box: contacts appear (and some vanish as spheres bounce and
/// rearrange), the pile settles inside the box without deep overlaps, and the final frame
/// writes to VTK. The scenes' NSGS (at most `SceneOptions::NSGS_MAX_SWEEPS` = 3000 sweeps)
/// reaches 1e-4 on every step, as the step reports say (with the former cap of 1000 sweeps, 6 of
/// the 800 steps of the collapse stopped above it, residuals ≤ 3.2e-4).
#[test]
fn a_small_sphere_pile_settles_in_its_box() {
    let mut scene = sphere_pile::build(64, 0.8, false).expect("the scene builds");
    let (mut created, mut removed, mut unconverged, mut worst_residual) = (0, 0, 0, 0.0f64);
    let initial: f64 = scene.frames().iter().map(|f| f.position[2]).sum::<f64>() / 64.0;
    while scene.has_next_step() {
        let r = scene.step().expect("the step runs");
        created += r.created;
        removed += r.removed;
        if let Some(o) = r.step.osns
            && !o.is_converged()
        {
            unconverged += 1;
            worst_residual = worst_residual.max(o.residual);
        }
    }
    let frames = scene.frames();
    let pile = nonsmooth::mechanics::pile::SpherePile::with_spheres(64);
    let (r, side) = (pile.radius, pile.box_side());
    let mean: f64 = frames.iter().map(|f| f.position[2]).sum::<f64>() / 64.0;
    let mut worst = 0.0f64;
    for (i, a) in frames.iter().enumerate() {
        let p = a.position;
        assert!(p.iter().all(|x| x.is_finite()));
        worst = worst.max(r - p[2]).max(r - p[0]).max(p[0] + r - side).max(r - p[1]).max(p[1] + r - side);
        for b in &frames[i + 1..] {
            let d = ((p[0] - b.position[0]).powi(2) + (p[1] - b.position[1]).powi(2) + (p[2] - b.position[2]).powi(2))
                .sqrt();
            worst = worst.max(2.0 * r - d);
        }
    }
    println!(
        "64 spheres: {created} contacts created, {removed} removed, {} at the end; mean height {initial:.4} → {mean:.4}; deepest overlap {:.2e} r; {unconverged} steps above tolerance (worst {worst_residual:.1e})",
        scene.number_of_contacts(),
        worst / r
    );
    assert!(created > 100 && removed > 0);
    assert_eq!(unconverged, 0, "{unconverged} steps above the tolerance, worst {worst_residual:e}");
    assert!(mean < initial - 0.5 * r, "the pile settles");
    assert!(worst < 0.1 * r, "no deep overlap: {} r", worst / r);
    let dir = std::env::temp_dir().join(format!("nonsmooth-pile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    write_vtp(dir.join("pile.vtp"), &frames).expect("VTK written");
    let text = std::fs::read_to_string(dir.join("pile.vtp")).expect("readable");
    assert!(text.contains("NumberOfPoints=\"64\""));
    let _ = std::fs::remove_dir_all(&dir);
}
