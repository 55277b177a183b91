//! The pendulum chain (five Newton–Euler links on pivots falling onto a frictional floor,
//! the mixed mechanical one-step problem) against Siconos 4.4 itself
//! (`examples/data/siconos/PendulumChain.ref`, written by
//! `examples/data/siconos/generate/pendulum_chain.py` with `GenericMechanical`).
//!
//! Every row and column within 1e-8 of Siconos over the 2000 steps (impacts without restitution:
//! with `e_n > 0` Siconos' restitution term reads the output `ẏ_k` computed with the contact
//! Jacobian of the last Newton iteration, ours with the Jacobian at `q_k`; see the data README).

use std::path::PathBuf;

use nonsmooth::kernel::io::read_trajectory;
use nonsmooth_examples::mechanics::pendulum_chain::{self, H, LINK_COLUMNS, LINKS, REFERENCE_STEPS};

/// The step of the first impact (link 2's end reaches the floor).
const FIRST_IMPACT: usize = 347;

#[test]
fn pendulum_chain_reproduces_siconos_generic_mechanical() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/siconos/PendulumChain.ref");
    let reference = read_trajectory(&path).expect("readable reference");
    let run = pendulum_chain::simulate(H, REFERENCE_STEPS).expect("the chain runs");
    assert_eq!((run.trajectory.rows(), run.trajectory.columns()), (reference.rows(), reference.columns()));
    assert_eq!(run.trajectory.columns(), 1 + LINKS * LINK_COLUMNS);
    let row_difference =
        |i: usize| run.trajectory.row(i).iter().zip(reference.row(i)).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    let before = (0..FIRST_IMPACT).map(row_difference).fold(0.0, f64::max);
    let after = (FIRST_IMPACT..reference.rows()).map(row_difference).fold(0.0, f64::max);
    let at_end = row_difference(reference.rows() - 1);
    let in_contact = run.contacts.iter().filter(|&&c| c > 0).count();
    println!(
        "PendulumChain: max |difference| {before:.2e} before the first impact (step {FIRST_IMPACT}), \
         {after:.2e} after, {at_end:.2e} at the end; {in_contact} steps with a link on the floor, \
         {} unconverged steps, max joint drift {:.2e}",
        run.summary.unconverged,
        run.max_drift()
    );
    // The first impact is where the reference says: no contact before it.
    assert!(run.contacts[..FIRST_IMPACT - 1].iter().all(|&c| c == 0));
    assert!(run.contacts[FIRST_IMPACT - 1] > 0, "{:?}", &run.contacts[FIRST_IMPACT - 3..FIRST_IMPACT + 3]);
    assert!(before <= 1e-8, "before the first impact: {before:e}");
    assert!(after <= 1e-8, "from the first impact on: {after:e}");
    assert!(run.summary.all_converged(), "{:?}", run.summary);
    assert!(in_contact > 1000, "the chain comes to rest on the floor: {in_contact}");
    assert!(run.max_drift() <= 1e-4, "drift {:e}", run.max_drift());
}
