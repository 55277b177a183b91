//! The sphere-pile scene shared by our `sphere_pile` and the Rapier comparison
//! (`src/bin/rapier-pile.rs`) of the mechanics benchmark report:
//! `n` equal spheres placed on a jittered cubic lattice inside an open box (ground `z = 0` and four
//! vertical walls), at rest, falling under gravity along `−z`.
//!
//! Both engines build their scene from the same [`PileSpec`], so the initial positions, the box,
//! the masses and the material are identical; [`PileSpec::max_penetration`] and
//! [`PileSpec::mean_height`] measure the end state of either engine the same way.

use nonsmooth::mechanics::pile::SpherePile;

/// The sphere-pile scene: the mechanics crate's [`SpherePile`] (`n` spheres of radius `radius`
/// and density `density`, material μ and e shared by every contact, time step `h`, gravity
/// `gravity` along `−z`, jitter seed `seed`; its fields, lattice, box, mass and initial positions
/// are reached through `Deref`), with what the comparison with Rapier needs on top: validation,
/// the walls as half-spaces, the inertia, and the measures of an end state.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PileSpec(pub SpherePile);

impl std::ops::Deref for PileSpec {
    type Target = SpherePile;

    fn deref(&self) -> &SpherePile {
        &self.0
    }
}

impl PileSpec {
    /// The default scene with `n` spheres.
    pub fn with_n(n: usize) -> Self {
        Self(SpherePile::with_spheres(n))
    }

    /// The scene of the binaries' options: `args.n` spheres, jitter seed `args.seed`.
    pub fn from_args(args: &RunArgs) -> Self {
        Self(SpherePile { seed: args.seed, ..SpherePile::with_spheres(args.n) })
    }

    /// Checks that the scene is physical: `radius`, `density`, `h` positive and finite,
    /// `friction ≥ 0` finite, `restitution ∈ [0, 1]`, `gravity` finite.
    ///
    /// # Errors
    /// A sentence naming the first offending field.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [("radius", self.radius), ("density", self.density), ("h", self.h)];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{name} must be positive and finite, got {v}"));
            }
        }
        if !(self.friction.is_finite() && self.friction >= 0.0) {
            return Err(format!("friction must be finite and ≥ 0, got {}", self.friction));
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(format!("restitution must lie in [0, 1], got {}", self.restitution));
        }
        if !self.gravity.is_finite() {
            return Err(format!("gravity must be finite, got {}", self.gravity));
        }
        Ok(())
    }

    /// The walls as `(inward unit normal n, offset d)`: the inside is `n·x ≥ d`, i.e.
    /// ground `(e_z, 0)`, then `(e_x, 0)`, `(−e_x, −L)`, `(e_y, 0)`, `(−e_y, −L)`.
    pub fn walls(&self) -> [([f64; 3], f64); 5] {
        let l = self.box_side();
        [
            ([0.0, 0.0, 1.0], 0.0),
            ([1.0, 0.0, 0.0], 0.0),
            ([-1.0, 0.0, 0.0], -l),
            ([0.0, 1.0, 0.0], 0.0),
            ([0.0, -1.0, 0.0], -l),
        ]
    }

    /// The same pile as our mechanics crate builds it.
    pub fn to_scene(&self) -> SpherePile {
        self.0
    }

    /// Principal moment of inertia of one (solid) sphere about its centre, `I = 2/5 · m r²`.
    pub fn inertia(&self) -> f64 {
        0.4 * self.mass() * self.radius * self.radius
    }

    /// Mean `z` of the centres (0 for no sphere).
    pub fn mean_height(positions: &[[f64; 3]]) -> f64 {
        if positions.is_empty() {
            return 0.0;
        }
        positions.iter().map(|p| p[2]).sum::<f64>() / positions.len() as f64
    }

    /// The largest penetration depth in `positions` (centres of spheres of this spec's radius),
    /// `max(0, max over pairs (2r − |x_i − x_j|), max over spheres and walls (r − (n·x_i − d)))`
    /// with the walls of [`PileSpec::walls`]. Pairs are found with a uniform grid of cell `2r`
    /// (the spheres sorted by cell, each pair met once in its own cell or one of the 13
    /// neighbour cells after it), so the cost is `O(n log n)` for a pile. Non-finite positions
    /// give `f64::INFINITY`.
    pub fn max_penetration(&self, positions: &[[f64; 3]]) -> f64 {
        let r = self.radius;
        if positions.iter().any(|p| p.iter().any(|v| !v.is_finite())) {
            return f64::INFINITY;
        }
        let mut worst = 0.0f64;
        for p in positions {
            for (n, d) in self.walls() {
                let dist = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - d;
                worst = worst.max(r - dist);
            }
        }
        // Spheres sorted by cell; each pair is met once: in the same cell (later in the order)
        // or in one of the 13 neighbour cells after this one in lexicographic order.
        let cell = 2.0 * r;
        let key = |p: &[f64; 3]| -> [i64; 3] { [0, 1, 2].map(|i| (p[i] / cell).floor() as i64) };
        let mut order: Vec<([i64; 3], usize)> = positions.iter().enumerate().map(|(i, p)| (key(p), i)).collect();
        order.sort_unstable();
        let distance = |i: usize, j: usize| {
            let (p, q) = (&positions[i], &positions[j]);
            ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
        };
        let forward: Vec<[i64; 3]> = (-1..=1)
            .flat_map(|dx| (-1..=1).flat_map(move |dy| (-1..=1).map(move |dz| [dx, dy, dz])))
            .filter(|d| *d > [0, 0, 0])
            .collect();
        for (a, &(k, i)) in order.iter().enumerate() {
            for &(kj, j) in &order[a + 1..] {
                if kj != k {
                    break;
                }
                worst = worst.max(2.0 * r - distance(i, j));
            }
            for d in &forward {
                let target = [k[0] + d[0], k[1] + d[1], k[2] + d[2]];
                let start = order.partition_point(|&(kj, _)| kj < target);
                for &(_, j) in order[start..].iter().take_while(|&&(kj, _)| kj == target) {
                    worst = worst.max(2.0 * r - distance(i, j));
                }
            }
        }
        worst
    }
}

/// The options of the pile timing binaries (`mechanics-pile`, `rapier-pile`):
/// `--n N --steps S --measure M --seed K` (defaults 1000, 500, 200 and the scene's jitter seed
/// 42) and the boolean flags they accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunArgs {
    /// Spheres.
    pub n: usize,
    /// Steps taken.
    pub steps: usize,
    /// Last steps measured.
    pub measure: usize,
    /// Seed of the lattice's jitter ([`SpherePile::seed`]).
    pub seed: u64,
    /// The boolean flags given (among those accepted).
    pub flags: Vec<String>,
}

impl RunArgs {
    /// Parses `args` (without the program name); `flags` are the accepted boolean flags.
    ///
    /// # Errors
    /// A sentence for an unknown option, a missing or bad value, `measure ∉ 1..=steps` or
    /// `n = 0`.
    pub fn parse(args: impl IntoIterator<Item = String>, flags: &[&str]) -> Result<Self, String> {
        let mut out = Self { n: 1000, steps: 500, measure: 200, seed: SpherePile::default().seed, flags: Vec::new() };
        let mut it = args.into_iter();
        while let Some(flag) = it.next() {
            if flags.contains(&flag.as_str()) {
                out.flags.push(flag);
                continue;
            }
            let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let parsed: u64 = value.parse().map_err(|e| format!("{flag} {value}: {e}"))?;
            let size = usize::try_from(parsed).map_err(|e| format!("{flag} {value}: {e}"));
            match flag.as_str() {
                "--n" => out.n = size?,
                "--steps" => out.steps = size?,
                "--measure" => out.measure = size?,
                "--seed" => out.seed = parsed,
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        if out.measure == 0 || out.measure > out.steps {
            return Err(format!("--measure must lie in 1..=steps ({}), got {}", out.steps, out.measure));
        }
        if out.n == 0 {
            return Err("--n must be positive".into());
        }
        Ok(out)
    }

    /// Whether `flag` was given.
    pub fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout `SpherePile::initial_positions` documents, in units of the radius: lattice
    /// spacing, half-width of the horizontal jitter, lift above the nominal layer centres.
    const SPACING: f64 = 2.2;
    const JITTER: f64 = 0.05;
    const LIFT: f64 = 0.1;

    fn min_pair_distance(p: &[[f64; 3]]) -> f64 {
        let mut best = f64::INFINITY;
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                let d =
                    ((p[i][0] - p[j][0]).powi(2) + (p[i][1] - p[j][1]).powi(2) + (p[i][2] - p[j][2]).powi(2)).sqrt();
                best = best.min(d);
            }
        }
        best
    }

    #[test]
    fn lattice_counts() {
        let cases = [(1000, (10, 10)), (5000, (18, 16)), (20000, (28, 26)), (1, (1, 1)), (0, (1, 0)), (9, (3, 1))];
        for (n, expected) in cases {
            assert_eq!(PileSpec::with_n(n).lattice(), expected, "n = {n}");
        }
        for n in [1, 7, 8, 9, 26, 27, 28, 1000, 1001, 5000, 20000] {
            let s = PileSpec::with_n(n);
            let (nx, layers) = s.lattice();
            assert!(nx.pow(3) >= n && (nx - 1).pow(3) < n, "nx = {nx} is not ⌈∛{n}⌉");
            assert!(nx * nx * layers >= n && nx * nx * (layers - 1) < n, "layers = {layers} for n = {n}");
            assert_eq!(s.initial_positions().len(), n);
        }
        assert!((PileSpec::default().box_side() - 10.0 * 2.2 * 0.05).abs() < 1e-12);
    }

    #[test]
    fn no_initial_overlap() {
        for n in [27, 100, 1000] {
            let s = PileSpec::with_n(n);
            let p = s.initial_positions();
            let d = min_pair_distance(&p);
            assert!(d >= 2.0 * s.radius * 1.05 * (1.0 - 1e-12), "n = {n}: min distance {d}");
            assert!(s.max_penetration(&p) <= 0.0, "no penetration at the start");
        }
    }

    #[test]
    fn inside_the_box_and_above_the_ground() {
        let s = PileSpec::with_n(1000);
        let (l, r) = (s.box_side(), s.radius);
        for p in s.initial_positions() {
            assert!(p[0] - r > 0.0 && p[0] + r < l, "x = {} outside [r, L − r]", p[0]);
            assert!(p[1] - r > 0.0 && p[1] + r < l, "y = {} outside [r, L − r]", p[1]);
            assert!(p[2] - r >= 0.2 * r * (1.0 - 1e-12), "z = {} below 1.2 r", p[2]);
        }
    }

    #[test]
    fn positions_follow_the_lattice_and_the_seed() {
        let s = PileSpec::with_n(30);
        let p = s.initial_positions();
        let (nx, _) = s.lattice();
        let step = SPACING * s.radius;
        for (k, q) in p.iter().enumerate() {
            let (ix, iy, iz) = (k % nx, (k / nx) % nx, k / (nx * nx));
            assert!((q[0] - (ix as f64 + 0.5) * step).abs() <= JITTER * s.radius + 1e-15);
            assert!((q[1] - (iy as f64 + 0.5) * step).abs() <= JITTER * s.radius + 1e-15);
            assert!((q[2] - ((iz as f64 + 0.5) * step + LIFT * s.radius)).abs() < 1e-15);
        }
        let bits = |p: &[[f64; 3]]| p.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&p), bits(&s.initial_positions()), "same seed, same positions");
        let other = PileSpec(SpherePile { seed: 43, ..s.0 });
        assert_ne!(bits(&p), bits(&other.initial_positions()), "another seed, another jitter");
        // The same positions as the mechanics crate's pile.
        assert_eq!(bits(&p), bits(&s.to_scene().initial_positions()));
    }

    #[test]
    fn mass_inertia_and_metrics() {
        let s = PileSpec::default();
        let m = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.05f64.powi(3);
        assert!((s.mass() - m).abs() < 1e-12 && (s.mass() - 0.523_598_775_598_298_8).abs() < 1e-12);
        assert!((s.inertia() - 0.4 * m * 0.0025).abs() < 1e-15);
        let r = s.radius;
        // Two spheres overlapping by 0.01 r, one sinking 0.02 r into the ground, one into wall x = L.
        let l = s.box_side();
        let p = [[0.5, 0.5, 0.5], [0.5 + 1.99 * r, 0.5, 0.5], [0.2, 0.2, 0.98 * r], [l - 0.97 * r, 0.3, 0.3]];
        assert!((s.max_penetration(&p) - 0.03 * r).abs() < 1e-12, "{}", s.max_penetration(&p));
        assert!((s.max_penetration(&p[..2]) - 0.01 * r).abs() < 1e-12);
        assert!(s.max_penetration(&[[f64::NAN, 0.0, 0.0]]).is_infinite());
        // The cell search finds what every pair finds: a packed jittered cloud around cell borders.
        let cloud: Vec<[f64; 3]> = (0..400)
            .map(|k| {
                let f = |m: u64| ((k as u64 * m + 17) % 1009) as f64 / 1009.0;
                [0.1 + 0.4 * f(31), 0.1 + 0.4 * f(57), 0.1 + 0.4 * f(83)]
            })
            .collect();
        let mut brute = 0.0f64;
        for i in 0..cloud.len() {
            for j in i + 1..cloud.len() {
                let d = (0..3).map(|c| (cloud[i][c] - cloud[j][c]).powi(2)).sum::<f64>().sqrt();
                brute = brute.max(2.0 * r - d);
            }
        }
        let walls = cloud
            .iter()
            .flat_map(|p| s.walls().into_iter().map(move |(n, d)| r - (n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - d)));
        let expected = walls.fold(brute, f64::max);
        assert!(
            brute > 0.0 && s.max_penetration(&cloud).to_bits() == expected.to_bits(),
            "{} against {expected}",
            s.max_penetration(&cloud)
        );
        assert!((PileSpec::mean_height(&p[..2]) - 0.5).abs() < 1e-15);
        assert!(PileSpec::mean_height(&[]).abs() < 1e-300);
        assert!(s.validate().is_ok());
        assert!(PileSpec(SpherePile { radius: 0.0, ..s.0 }).validate().is_err());
        assert!(PileSpec(SpherePile { restitution: 1.5, ..s.0 }).validate().is_err());
        assert!(PileSpec(SpherePile { friction: -0.1, ..s.0 }).validate().is_err());
    }

    #[test]
    fn run_arguments_parse_and_are_checked() {
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let a =
            RunArgs::parse(args(&["--n", "5000", "--parallel", "--measure", "50"]), &["--parallel"]).expect("valid");
        assert_eq!((a.n, a.steps, a.measure, a.seed), (5000, 500, 50, 42));
        assert!(a.has("--parallel") && !a.has("--no-sleep"));
        let b = RunArgs::parse(args(&["--seed", "7", "--n", "30"]), &[]).expect("valid");
        assert_eq!((b.n, b.seed), (30, 7));
        assert_eq!(PileSpec::from_args(&b).0, SpherePile { seed: 7, ..SpherePile::with_spheres(30) });
        assert!(RunArgs::parse(args(&["--seed", "-1"]), &[]).is_err());
        assert!(RunArgs::parse(args(&["--parallel"]), &[]).is_err());
        assert!(RunArgs::parse(args(&["--measure", "600"]), &[]).is_err());
        assert!(RunArgs::parse(args(&["--n", "0"]), &[]).is_err());
        assert!(RunArgs::parse(args(&["--n"]), &[]).is_err());
    }
}
