//! Contact relations of Newton–Euler bodies with local frames (Siconos' `NewtonEuler3DR` and
//! `NewtonEuler1DR`; Siconos developer notes, chapter "NewtonEulerR: computation of ∇_q H",
//! with its typos corrected: body 2's lever arm is `G₂P`, not `G₁P`).
//!
//! A contact between body 1 and body 2 (or the fixed world) has a unit normal `n` pointing from
//! body 2 towards body 1, contact points `P₁` on body 1 and `P₂` on body 2, and the gap
//! `y = (P₁ − P₂)·n`. Its local frame `(n, t₁, t₂)` comes from `n` as Siconos'
//! `orthoBaseFromVector` builds it. The local velocity `u = (u_N, u_T1, u_T2)` of body 1
//! relative to body 2 at the contact is `u = H v` with, per body (developer notes, "Case FC3D:
//! using the local frame local velocities"),
//!
//! `H₁ = [F | F (S₁ R₁)]`, `H₂ = −[F | F (S₂ R₂)]`, `F = [n; t₁; t₂]` (rows),
//! `Sᵢ = skew(Gᵢ − Pᵢ)`, `Rᵢ` the rotation of body `i`,
//!
//! since the velocity of the material point `Pᵢ` is `v_G + ω × (P − G)` with `ω = R Ω` and
//! `ω × r = skew(G − P)(R Ω)`. `Hᵀλ` is the wrench of the contact impulse `F λ` applied at the
//! contact point (force in the inertial frame, moment in the body frame; ibid., "Case FC3D: using
//! the local frame and momentum"). With a Newton
//! impact + Coulomb friction law of dimension 3 the contacts feed FC3D one-step problems; with
//! the normal row only (`ContactDimension::Normal`), LCPs. A contact is also a
//! [`NewtonEulerRelation`] (the same `y` and `H`).

use faer::Mat;
use nonsmooth_kernel::KernelError;
use nonsmooth_kernel::model::LagrangianRelation;

use crate::MechanicsError;
use crate::geometry::ContactPoint;
use crate::lie::{Mat3, Quaternion, Vec3};
use crate::relation::NewtonEulerRelation;

/// The local frame `[n; t₁; t₂]` (rows) of a normal, as Siconos 4.4's `orthoBaseFromVector`
/// (`numerics/op3x3.h`): `n` normalized; `t₁ = (n_y, −n_x, 0)` when `|n_x|` is the largest
/// entry, `(−n_y, n_x, 0)` when `|n_y|` is, and `(0, −n_z, n_y)` when `|n_z|` is, normalized;
/// `t₂ = n × t₁`. In the last case Siconos writes `(0, −n_z, n_x)`, which is orthogonal to `n`
/// only when `n_x = n_y` (e.g. `n = e_z`); we take the orthogonal vector.
///
/// # Errors
/// [`KernelError::InvalidOption`] for a zero or non-finite normal.
pub fn contact_frame(normal: Vec3) -> Result<Mat3, MechanicsError> {
    let norm = (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]).sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return Err(KernelError::InvalidOption { name: "contact normal", reason: "must be finite and non-zero" }.into());
    }
    let n = [normal[0] / norm, normal[1] / norm, normal[2] / norm];
    let (ax, ay, az) = (n[0].abs(), n[1].abs(), n[2].abs());
    let t = if ax > ay {
        if ax > az { [n[1], -n[0], 0.0] } else { [0.0, -n[2], n[1]] }
    } else if ay > az {
        [-n[1], n[0], 0.0]
    } else {
        [0.0, -n[2], n[1]]
    };
    let tn = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
    let t1 = [t[0] / tn, t[1] / tn, t[2] / tn];
    let t2 = [n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2], n[0] * t1[1] - n[1] * t1[0]];
    Ok([n, t1, t2])
}

/// The `3 × 6` block of body 1 in the contact Jacobian, `[F | F (S R)]` with
/// `S = skew(G − P)` (module documentation; products as row sums from 0.0, `S R` first, the
/// order of Siconos' `NewtonEuler3DR`); body 2's block is its negative at its own point.
pub fn jacobian_block(frame: &Mat3, centre: Vec3, point: Vec3, orientation: Quaternion) -> [[f64; 6]; 3] {
    let g = [centre[0] - point[0], centre[1] - point[1], centre[2] - point[2]];
    let s = [[0.0, -g[2], g[1]], [g[2], 0.0, -g[0]], [-g[1], g[0], 0.0]];
    let r = orientation.to_rotation_matrix();
    let mut sr = [[0.0; 3]; 3];
    for (i, row) in sr.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            let mut acc = 0.0;
            for k in 0..3 {
                acc += s[i][k] * r[k][j];
            }
            *x = acc;
        }
    }
    let mut block = [[0.0; 6]; 3];
    for (i, row) in block.iter_mut().enumerate() {
        row[..3].copy_from_slice(&frame[i]);
        for j in 0..3 {
            let mut acc = 0.0;
            for k in 0..3 {
                acc += frame[i][k] * sr[k][j];
            }
            row[3 + j] = acc;
        }
    }
    block
}

/// Writes the first `rows` rows of `sign · block` at column `offset` through `set(i, j, x)`.
fn write_block(block: &[[f64; 6]; 3], rows: usize, sign: f64, offset: usize, set: &mut impl FnMut(usize, usize, f64)) {
    for (i, row) in block.iter().enumerate().take(rows) {
        for (j, x) in row.iter().enumerate() {
            set(i, offset + j, sign * x);
        }
    }
}

/// Which rows a contact has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactDimension {
    /// The normal row only (Newton impact law, LCP).
    Normal,
    /// Normal and two tangential rows (Newton impact + Coulomb friction, FC3D).
    Friction3d,
}

impl ContactDimension {
    /// Number of rows.
    pub fn rows(self) -> usize {
        match self {
            ContactDimension::Normal => 1,
            ContactDimension::Friction3d => 3,
        }
    }
}

/// A contact between one body and the fixed world, or between two bodies, whose points and
/// normal a detection updates between steps ([`ContactRelation::update`]). Between updates the
/// normal is fixed and each point keeps its offset from its body's centre in the inertial frame
/// (it follows the translation, not the rotation): a rolling sphere's contact point stays at
/// the bottom within a step, so the Jacobian's lever arm does not tilt with `ω h` (a material
/// point would, and the normal constraint on it would then drive the sphere into the ground by
/// `R (ω h)²` per step).
#[derive(Clone, Debug)]
pub struct ContactRelation {
    dimension: ContactDimension,
    two_bodies: bool,
    /// `P₁ − G₁` (inertial frame).
    local1: Vec3,
    /// `P₂ − G₂` (inertial frame), or `P₂` for a one-body contact.
    local2: Vec3,
    frame: Mat3,
}

fn body_pose(q: &[f64]) -> (Vec3, Quaternion) {
    ([q[0], q[1], q[2]], Quaternion::new(q[3], q[4], q[5], q[6]))
}

/// `P − G` for a body at `q`.
fn offset(q: &[f64], point: Vec3) -> Vec3 {
    [point[0] - q[0], point[1] - q[1], point[2] - q[2]]
}

/// `G + offset` for a body at `q`.
fn placed(q: &[f64], offset: Vec3) -> Vec3 {
    [q[0] + offset[0], q[1] + offset[1], q[2] + offset[2]]
}

impl ContactRelation {
    /// A contact of `dimension` rows, one body against the world or two bodies, from a detected
    /// contact point. Body 1 is the body the normal points to (`contact.point_b`'s body, since
    /// [`ContactPoint::normal`] goes from A to B); `q1`, `q2` are the bodies' positions
    /// (`R⁷`) at detection.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a zero normal; [`KernelError::DimensionMismatch`] for
    /// positions that are not in `R⁷`.
    pub fn new(
        dimension: ContactDimension,
        contact: &ContactPoint,
        q1: &[f64],
        q2: Option<&[f64]>,
    ) -> Result<Self, MechanicsError> {
        let mut relation = Self {
            dimension,
            two_bodies: q2.is_some(),
            local1: [0.0; 3],
            local2: [0.0; 3],
            frame: contact_frame(contact.normal)?,
        };
        relation.update(contact, q1, q2)?;
        Ok(relation)
    }

    /// Takes the points and normal of a new detection (module documentation).
    ///
    /// # Errors
    /// As [`ContactRelation::new`].
    pub fn update(&mut self, contact: &ContactPoint, q1: &[f64], q2: Option<&[f64]>) -> Result<(), MechanicsError> {
        if q1.len() != 7 {
            return Err(KernelError::DimensionMismatch { what: "body position", expected: 7, found: q1.len() }.into());
        }
        if q2.is_some() != self.two_bodies {
            return Err(KernelError::InvalidModel("a contact keeps its number of bodies".into()).into());
        }
        self.frame = contact_frame(contact.normal)?;
        self.local1 = offset(q1, contact.point_b);
        self.local2 = match q2 {
            Some(q2) => {
                if q2.len() != 7 {
                    return Err(
                        KernelError::DimensionMismatch { what: "body position", expected: 7, found: q2.len() }.into()
                    );
                }
                offset(q2, contact.point_a)
            }
            None => contact.point_a,
        };
        Ok(())
    }

    /// The local frame `[n; t₁; t₂]`.
    pub fn frame(&self) -> &Mat3 {
        &self.frame
    }

    /// Writes every entry of `H = [H₁ | H₂]` at positions `q` through `set(i, j, x)`.
    fn write_jacobian(&self, q: &[f64], mut set: impl FnMut(usize, usize, f64)) {
        let (p1, p2) = self.points(q);
        let rows = self.dimension.rows();
        let (g1, r1) = body_pose(&q[..7]);
        write_block(&jacobian_block(&self.frame, g1, p1, r1), rows, 1.0, 0, &mut set);
        if self.two_bodies {
            let (g2, r2) = body_pose(&q[7..14]);
            write_block(&jacobian_block(&self.frame, g2, p2, r2), rows, -1.0, 6, &mut set);
        }
    }

    /// The contact points `(P₁, P₂)` in the world at positions `q` (`[q₁; q₂]` for two bodies).
    pub fn points(&self, q: &[f64]) -> (Vec3, Vec3) {
        let p1 = placed(&q[..7], self.local1);
        let p2 = if self.two_bodies { placed(&q[7..14], self.local2) } else { self.local2 };
        (p1, p2)
    }

    /// `y = ((P₁ − P₂)·n, 0, 0)` (the first `size` entries).
    fn write_output(&self, q: &[f64], y: &mut [f64]) {
        let (p1, p2) = self.points(q);
        let n = self.frame[0];
        y.fill(0.0);
        y[0] = (p1[0] - p2[0]) * n[0] + (p1[1] - p2[1]) * n[1] + (p1[2] - p2[2]) * n[2];
    }
}

/// The contact as a user-level Newton–Euler relation: the same `y` and `H` as its
/// [`LagrangianRelation`] implementation, which the scenes use directly.
impl NewtonEulerRelation for ContactRelation {
    fn size(&self) -> usize {
        self.dimension.rows()
    }

    fn bodies(&self) -> usize {
        if self.two_bodies { 2 } else { 1 }
    }

    fn output(&mut self, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        self.write_output(q, y);
        Ok(())
    }

    fn jacobian(&mut self, q: &[f64], rows: &mut [f64]) -> Result<(), KernelError> {
        let columns = if self.two_bodies { 12 } else { 6 };
        self.write_jacobian(q, |i, j, x| rows[i * columns + j] = x);
        Ok(())
    }
}

impl LagrangianRelation for ContactRelation {
    fn size(&self) -> usize {
        self.dimension.rows()
    }

    fn velocity_size(&self) -> Option<usize> {
        Some(if self.two_bodies { 12 } else { 6 })
    }

    /// `y = ((P₁ − P₂)·n, 0, 0)`.
    fn output(&mut self, _t: f64, q: &[f64], y: &mut [f64]) -> Result<(), KernelError> {
        self.write_output(q, y);
        Ok(())
    }

    /// `H = [H₁ | H₂]` (module documentation).
    fn jacobian(&mut self, _t: f64, q: &[f64], h: &mut Mat<f64>) -> Result<(), KernelError> {
        self.write_jacobian(q, |i, j, x| h[(i, j)] = x);
        Ok(())
    }

    /// `H = [H₁ | H₂]` row-major (the values of [`ContactRelation::jacobian`]).
    fn jacobian_rows(&mut self, _t: f64, q: &[f64], rows: &mut [f64]) -> Result<bool, KernelError> {
        let columns = if self.two_bodies { 12 } else { 6 };
        self.write_jacobian(q, |i, j, x| rows[i * columns + j] = x);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siconos_frame_of_the_x_axis() -> Result<(), MechanicsError> {
        let f = contact_frame([1.0, 0.0, 0.0])?;
        let close = |a: [f64; 3], b: [f64; 3]| (0..3).all(|k| (a[k] - b[k]).abs() < 1e-15);
        assert!(close(f[1], [0.0, -1.0, 0.0]) && close(f[2], [0.0, 0.0, -1.0]));
        for n in [[0.3, -0.2, 0.9], [0.0, 1.0, 0.0], [-0.6, 0.8, 0.0], [0.0, 0.0, -1.0]] {
            let f = contact_frame(n)?;
            for i in 0..3 {
                for j in 0..3 {
                    let d: f64 = (0..3).map(|k| f[i][k] * f[j][k]).sum();
                    let expected = if i == j { 1.0 } else { 0.0 };
                    assert!((d - expected).abs() < 1e-15);
                }
            }
            // Right-handed: t₂ = n × t₁.
            let c = [
                f[0][1] * f[1][2] - f[0][2] * f[1][1],
                f[0][2] * f[1][0] - f[0][0] * f[1][2],
                f[0][0] * f[1][1] - f[0][1] * f[1][0],
            ];
            assert!((0..3).all(|k| (c[k] - f[2][k]).abs() < 1e-15));
        }
        assert!(contact_frame([0.0; 3]).is_err());
        Ok(())
    }

    /// `H v` is the relative velocity of the two material points in the local frame: compare
    /// with `d/dt (P₁ − P₂)` along the exact rigid motions.
    #[test]
    fn jacobian_gives_the_relative_velocity_of_the_contact_points() -> Result<(), MechanicsError> {
        let p1 = Quaternion::from_axis_angle([0.3, 1.0, -0.2], 0.7)?;
        let p2 = Quaternion::from_axis_angle([-1.0, 0.2, 0.5], 1.3)?;
        let q = [0.1, 0.2, 0.3, p1.w, p1.x, p1.y, p1.z, -0.4, 0.1, 0.05, p2.w, p2.x, p2.y, p2.z];
        let contact = ContactPoint {
            point_a: [0.0, 0.15, 0.2],
            point_b: [0.02, 0.16, 0.21],
            normal: [0.6, 0.0, 0.8],
            distance: 0.0,
        };
        let mut rel = ContactRelation::new(ContactDimension::Friction3d, &contact, &q[..7], Some(&q[7..]))?;
        let v = [0.5, -0.3, 0.2, 1.0, -2.0, 0.7, -0.1, 0.4, 0.9, 0.3, 0.8, -1.5];
        let mut h = Mat::zeros(3, 12);
        LagrangianRelation::jacobian(&mut rel, 0.0, &q, &mut h)?;
        // Material point velocities: v_G + ω × (P − G), ω = R Ω.
        let point_velocity = |x: &[f64], vv: &[f64], arm: Vec3| -> Vec3 {
            let r = Quaternion::new(x[3], x[4], x[5], x[6]).to_rotation_matrix();
            let w = [
                r[0][0] * vv[3] + r[0][1] * vv[4] + r[0][2] * vv[5],
                r[1][0] * vv[3] + r[1][1] * vv[4] + r[1][2] * vv[5],
                r[2][0] * vv[3] + r[2][1] * vv[4] + r[2][2] * vv[5],
            ];
            let c = [w[1] * arm[2] - w[2] * arm[1], w[2] * arm[0] - w[0] * arm[2], w[0] * arm[1] - w[1] * arm[0]];
            [vv[0] + c[0], vv[1] + c[1], vv[2] + c[2]]
        };
        let u1 = point_velocity(&q[..7], &v[..6], rel.local1);
        let u2 = point_velocity(&q[7..], &v[6..], rel.local2);
        let frame = *rel.frame();
        for i in 0..3 {
            let expected: f64 = (0..3).map(|k| frame[i][k] * (u1[k] - u2[k])).sum();
            let got: f64 = (0..12).map(|j| h[(i, j)] * v[j]).sum();
            assert!((expected - got).abs() < 1e-14, "row {i}: {expected} vs {got}");
        }
        // The gap at detection is the contact's signed distance along n.
        let mut y = [0.0f64; 3];
        LagrangianRelation::output(&mut rel, 0.0, &q, &mut y)?;
        let expected = (0.02 * 0.6 + 0.01 * 0.0 + 0.01 * 0.8) / 1.0;
        assert!((y[0] - expected).abs() < 1e-15);
        Ok(())
    }
}
