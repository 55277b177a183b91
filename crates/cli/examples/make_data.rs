//! Writes the small problem files shipped in `crates/nonsmooth/data/` (used by the README's
//! command-line examples, the facade's doctest and the command-line tests).
//!
//! `cargo run --release -p nonsmooth-cli --example make_data [-- DIR]` (default `DIR`:
//! `crates/nonsmooth/data`). Every file comes from one model of ours: a pile of
//! [`PILE_SPHERES`] spheres dropped into a box ([`SpherePile`], Moreau–Jean time stepping with
//! frictional contact, `h = 1 ms`), stepped for [`SETTLE_STEPS`] steps until it rests. The
//! velocity-level one-step problem of the next step is then assembled from the active contacts,
//! as the kernel poses it (Acary & Brogliato 2008):
//!
//! ```text
//! W = H M⁻¹ Hᵀ,   q = H (v + h M⁻¹ f_ext),   u = W r + q
//! ```
//!
//! with `H` the contacts' Jacobians (rows: normal, two tangents, in the contact frame), `M` the
//! bodies' Newton–Euler masses (`diag(m I₃, I)`), `v` their twists and `f_ext` gravity; the
//! restitution is zero, so `q` has no impact term. The files are:
//!
//! - `pile_fc3d.dat`: that FC3D problem, `W` stored sparse-block (3 × 3 blocks), `μ` per contact;
//! - `pile_fc2d.dat`: the FC2D problem of the normal and first tangent rows and columns
//!   (a principal submatrix of `W`, so still symmetric positive semidefinite);
//! - `pile_lcp.dat`: the LCP of the normal rows and columns alone, `w = W_NN z + q_N`
//!   (frictionless contact), `W_NN` dense.
//!
//! The program is deterministic (the pile's jitter is seeded), so it rewrites the same files.

use std::collections::HashMap;
use std::path::PathBuf;

use nonsmooth::kernel::model::law::NonsmoothLaw;
use nonsmooth::mechanics::pile::SpherePile;
use nonsmooth::mechanics::scene::SceneOptions;
use nonsmooth::numerics::faer::Mat;
use nonsmooth::numerics::fc::{Fc2dProblem, Fc3dProblem};
use nonsmooth::numerics::io::{Problem, write_problem};
use nonsmooth::numerics::lcp::LcpProblem;
use nonsmooth::numerics::matrix::{NumericsMatrix, SparseBlockMatrix};

/// Number of spheres of the pile: 3 × 3 on the ground, 5 on top.
const PILE_SPHERES: usize = 14;

/// Steps of 1 ms before the problem is taken: the pile has come to rest by then.
const SETTLE_STEPS: usize = 1000;

/// Writes the small problem files of `crates/nonsmooth/data/` (pile_fc3d.dat, pile_fc2d.dat,
/// pile_lcp.dat): the one-step problem of a resting pile of 14 spheres, W = H M⁻¹ Hᵀ and
/// q = H (v + h M⁻¹ f_ext) from its active contacts, as FC3D, FC2D (normal and first tangent
/// rows) and LCP (normal rows). Deterministic: it rewrites the same bytes.
#[derive(clap::Parser, Debug)]
#[command(name = "make_data", verbatim_doc_comment)]
struct Args {
    /// The folder to write the files into (created if missing) [default: crates/nonsmooth/data].
    dir: Option<PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = <Args as clap::Parser>::parse();
    let dir = args.dir.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../nonsmooth/data"));
    std::fs::create_dir_all(&dir)?;

    let pile = SpherePile::with_spheres(PILE_SPHERES);
    let mut options = SceneOptions::default();
    options.t_end = pile.h * (SETTLE_STEPS as f64 + 0.5);
    let mut scene = pile.build(options)?;
    for _ in 0..SETTLE_STEPS {
        scene.step()?;
    }

    // Body number of each system, and each body's inverse mass and inverse inertia (a solid
    // sphere: I = 2/5 m r², the same about every axis, so the body frame does not matter).
    let bodies = scene.number_of_bodies();
    let mut body_of = HashMap::new();
    for i in 0..bodies {
        body_of.insert(scene.body_ds(i)?, i);
    }
    let mass = pile.mass();
    let inverse_mass = [1.0 / mass; 3];
    let inverse_inertia = [1.0 / (0.4 * mass * pile.radius * pile.radius); 3];
    let inverse_m: Vec<f64> = inverse_mass.iter().chain(&inverse_inertia).copied().collect();

    // The free twists v + h M⁻¹ f_ext: gravity acts on the linear velocity only.
    let mut v_free = Vec::with_capacity(6 * bodies);
    for i in 0..bodies {
        let (_, v) = scene.body_state(i)?;
        let mut twist = v.to_vec();
        twist[2] -= pile.h * pile.gravity;
        v_free.extend(twist);
    }

    // Each active contact: its bodies, its rows of H (3 × 6 per body), μ.
    let nsds = scene.simulation().nsds();
    let mut contacts = Vec::new();
    for &id in nsds.active_interactions() {
        let inter = nsds.interaction(id)?;
        let friction = match *inter.law() {
            NonsmoothLaw::NewtonImpactFriction(law) if law.dimension() == 3 => law.friction(),
            _ => return Err(format!("interaction {id:?} is not a 3D frictional contact").into()),
        };
        let h = inter.jacobian();
        let mut blocks = Vec::new();
        for (k, ds) in inter.ds().iter().enumerate() {
            let body = *body_of.get(ds).ok_or("a contact on a system that is not a body")?;
            let block: Vec<[f64; 6]> = (0..3).map(|r| std::array::from_fn(|c| h[(r, 6 * k + c)])).collect();
            blocks.push((body, block));
        }
        contacts.push((blocks, friction));
    }
    let nc = contacts.len();
    if nc == 0 {
        return Err("the pile has no active contact".into());
    }

    // W = H M⁻¹ Hᵀ (a block for each pair of contacts sharing a body) and q = H v_free.
    let n = 3 * nc;
    let mut w = Mat::<f64>::zeros(n, n);
    let mut q = vec![0.0; n];
    for (a, (blocks_a, _)) in contacts.iter().enumerate() {
        for (body, rows) in blocks_a {
            for (r, row) in rows.iter().enumerate() {
                q[3 * a + r] += (0..6).map(|c| row[c] * v_free[6 * body + c]).sum::<f64>();
            }
        }
        for (b, (blocks_b, _)) in contacts.iter().enumerate() {
            for (body_a, rows_a) in blocks_a {
                for (body_b, rows_b) in blocks_b {
                    if body_a != body_b {
                        continue;
                    }
                    for (r, row_a) in rows_a.iter().enumerate() {
                        for (s, row_b) in rows_b.iter().enumerate() {
                            w[(3 * a + r, 3 * b + s)] +=
                                (0..6).map(|c| row_a[c] * inverse_m[c] * row_b[c]).sum::<f64>();
                        }
                    }
                }
            }
        }
    }
    let mu: Vec<f64> = contacts.iter().map(|(_, mu)| *mu).collect();

    // FC3D: W sparse-block with 3 × 3 blocks.
    let ends3: Vec<usize> = (1..=nc).map(|c| 3 * c).collect();
    let w3 = SparseBlockMatrix::from_dense(w.as_ref(), &ends3, &ends3)?;
    let fc3d = Fc3dProblem::new(NumericsMatrix::SparseBlock(w3), q.clone(), mu.clone())?;
    let path = dir.join("pile_fc3d.dat");
    write_problem(&path, &Problem::Fc3d(fc3d))?;
    println!("{}: FC3D, {nc} contacts, {bodies} spheres", path.display());

    // FC2D: rows and columns (normal, first tangent) of every contact.
    let keep2: Vec<usize> = (0..nc).flat_map(|c| [3 * c, 3 * c + 1]).collect();
    let w2 = Mat::<f64>::from_fn(2 * nc, 2 * nc, |i, j| w[(keep2[i], keep2[j])]);
    let ends2: Vec<usize> = (1..=nc).map(|c| 2 * c).collect();
    let w2 = SparseBlockMatrix::from_dense(w2.as_ref(), &ends2, &ends2)?;
    let q2: Vec<f64> = keep2.iter().map(|&i| q[i]).collect();
    let fc2d = Fc2dProblem::new(NumericsMatrix::SparseBlock(w2), q2, mu)?;
    let path = dir.join("pile_fc2d.dat");
    write_problem(&path, &Problem::Fc2d(fc2d))?;
    println!("{}: FC2D, {nc} contacts", path.display());

    // LCP: the normal rows and columns, dense.
    let normal = Mat::<f64>::from_fn(nc, nc, |i, j| w[(3 * i, 3 * j)]);
    let qn: Vec<f64> = (0..nc).map(|c| q[3 * c]).collect();
    let lcp = LcpProblem::new(NumericsMatrix::Dense(normal), qn)?;
    let path = dir.join("pile_lcp.dat");
    write_problem(&path, &Problem::Lcp(lcp))?;
    println!("{}: LCP, n = {nc}", path.display());
    Ok(())
}
