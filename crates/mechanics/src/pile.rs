//! The sphere pile: `n` equal spheres dropped from a jittered cubic lattice into a square box
//! (ground and four walls), the scene of the `sphere_pile` example and of the mechanics
//! benchmark report (the same positions are given to Rapier there).
//!
//! Lattice: `nx = ⌈∛n⌉` spheres per row, `⌈n / nx²⌉` layers, spacing `2.2 r`; sphere
//! `k = ix + nx (iy + nx iz)` (the first `n` of the lattice) starts at
//! `((ix + ½) 2.2r + jx, (iy + ½) 2.2r + jy, (iz + ½) 2.2r + 0.1r)` with `jx, jy` uniform in
//! `[−0.05r, 0.05r]` (SplitMix64 stream from `seed`, two draws per sphere in order), at rest.
//! The box is `[0, L]²` with `L = 2.2 r nx`, ground `z = 0`.

use crate::MechanicsError;
use crate::geometry::Shape;
use crate::scene::{BodySpec, Material, Scene, SceneBuilder, SceneOptions};

/// Parameters of the pile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpherePile {
    /// Number of spheres (default: 1000).
    pub n: usize,
    /// Radius (default: 0.05 m).
    pub radius: f64,
    /// Density (default: 1000 kg/m³).
    pub density: f64,
    /// Friction coefficient of every surface (default: 0.3).
    pub friction: f64,
    /// Restitution coefficient (default: 0).
    pub restitution: f64,
    /// Time step (default: 1e-3 s).
    pub h: f64,
    /// Gravity along `−z` (default: 9.81).
    pub gravity: f64,
    /// Seed of the jitter (default: 42).
    pub seed: u64,
}

impl Default for SpherePile {
    fn default() -> Self {
        Self {
            n: 1000,
            radius: 0.05,
            density: 1000.0,
            friction: 0.3,
            restitution: 0.0,
            h: 1e-3,
            gravity: 9.81,
            seed: 42,
        }
    }
}

/// SplitMix64: the next 64 random bits of the stream `state`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in `[0, 1)` from the 53 high bits of the next SplitMix64 output of the
/// stream `state` (G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): the jitter of the pile's lattice, reproducible from a seed.
pub fn uniform(state: &mut u64) -> f64 {
    (splitmix64(state) >> 11) as f64 / (1u64 << 53) as f64
}

impl SpherePile {
    /// The pile of `n` spheres with the default parameters.
    pub fn with_spheres(n: usize) -> Self {
        Self { n, ..Self::default() }
    }

    /// `(nx, layers)`: spheres per row and number of layers.
    pub fn lattice(&self) -> (usize, usize) {
        let mut nx = (self.n as f64).cbrt().ceil() as usize;
        while nx * nx * nx < self.n {
            nx += 1;
        }
        while nx > 1 && (nx - 1) * (nx - 1) * (nx - 1) >= self.n {
            nx -= 1;
        }
        let nx = nx.max(1);
        (nx, self.n.div_ceil(nx * nx))
    }

    /// Side `L = 2.2 r nx` of the box.
    pub fn box_side(&self) -> f64 {
        2.2 * self.radius * self.lattice().0 as f64
    }

    /// Mass of a sphere, `ρ 4/3 π r³`.
    pub fn mass(&self) -> f64 {
        self.density * 4.0 / 3.0 * std::f64::consts::PI * self.radius.powi(3)
    }

    /// The initial centres (module documentation).
    pub fn initial_positions(&self) -> Vec<[f64; 3]> {
        let (nx, _) = self.lattice();
        let (r, d) = (self.radius, 2.2 * self.radius);
        let mut state = self.seed;
        (0..self.n)
            .map(|k| {
                let (ix, iy, iz) = (k % nx, (k / nx) % nx, k / (nx * nx));
                let jx = (uniform(&mut state) - 0.5) * 0.1 * r;
                let jy = (uniform(&mut state) - 0.5) * 0.1 * r;
                [(ix as f64 + 0.5) * d + jx, (iy as f64 + 0.5) * d + jy, (iz as f64 + 0.5) * d + 0.1 * r]
            })
            .collect()
    }

    /// The scene, with `options` for the solver and the final time (its `h` and `gravity` are
    /// replaced by the pile's).
    ///
    /// # Errors
    /// [`nonsmooth_kernel::KernelError::InvalidOption`] for non-positive sizes, an empty pile,
    /// or bad options.
    pub fn build(&self, options: SceneOptions) -> Result<Scene, MechanicsError> {
        if self.n == 0 {
            return Err(nonsmooth_kernel::KernelError::InvalidOption { name: "n", reason: "must be at least 1" }.into());
        }
        let material = Material::new(self.friction, self.restitution)?;
        let mut options = options;
        options.h = self.h;
        options.gravity = [0.0, 0.0, -self.gravity];
        let mut builder = SceneBuilder::new().with_options(options);
        let side = self.box_side();
        builder.add_open_box(side, material)?;
        let sphere = BodySpec::new(Shape::sphere(self.radius)?, self.density)?.with_material(material);
        for p in self.initial_positions() {
            builder.add_body(sphere.clone().with_position(p));
        }
        builder.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lattice_holds_the_spheres_apart_inside_the_box() {
        for n in [1, 8, 27, 1000, 1001, 5000] {
            let pile = SpherePile::with_spheres(n);
            let (nx, layers) = pile.lattice();
            assert!(nx * nx * layers >= n && nx * nx * (layers - 1) < n, "n = {n}: {nx} × {nx} × {layers}");
            let p = pile.initial_positions();
            assert_eq!(p.len(), n);
            let (r, side) = (pile.radius, pile.box_side());
            for c in &p {
                assert!(c[0] > r && c[0] < side - r && c[1] > r && c[1] < side - r && c[2] >= 1.1 * r);
            }
            if n <= 1001 {
                for i in 0..n {
                    for j in i + 1..n {
                        let d =
                            ((p[i][0] - p[j][0]).powi(2) + (p[i][1] - p[j][1]).powi(2) + (p[i][2] - p[j][2]).powi(2))
                                .sqrt();
                        assert!(d >= 2.0 * r * 1.05, "{i}, {j}: {d}");
                    }
                }
            }
        }
    }
}
