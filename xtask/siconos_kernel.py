#!/usr/bin/env python3
"""Times Siconos 4.4's Moreau-Jean time-stepping on the kernel benchmark models of nonsmooth.

Run by `cargo xtask bench-report` with the system interpreter (`/usr/bin/python3`, which has the
Debian package python3-siconos):

    siconos_kernel.py --out RESULTS.jsonl [--reps 5] [--max-seconds 20] [--quick]

The models are those of ../shared/notes/siconos44.md, section "Kernel (siconos.kernel)
time-stepping - exact set-up" (the same as `benches/benches/kernel.rs`):

* `bouncing_ball`: LagrangianLinearTIDS q0 = (1, 0, 0), v0 = 0, M = diag(1, 1, 2/5 m R^2) with
  m = 1, R = 0.1, FExt = (-9.81, 0, 0); one LagrangianLinearTIR H = [1, 0, 0] with
  NewtonImpactNSL(0.9); h = 0.005, T = 10 (2000 steps).
* `beads_column`: N beads of one dof (M = [1], FExt = [-9.81]), R = 0.1,
  z_i = R + 0.1 + i (2R + 0.01), v = 0; ground LagrangianLinearTIR H = [1], e = [-R] on bead 0,
  neighbours H = [-1, 1], e = [-2R] between beads i-1 and i; NewtonImpactNSL(0.9) everywhere;
  h = 1e-3, 1000 steps.
* `beads_stack`: the same with R = 0.125 and z_i = R + 2R i (every gap exactly 0); 1000 steps,
  but only 100 steps for N = 1000.

Every model uses MoreauJeanOSI(theta = 0.5), TimeDiscretisation(0, h) and the kernel's default
LCP (Lemke). For every case the script first runs one instrumented, untimed simulation that
records the active contacts of each step (the LCP size `getSizeOutput()` when
`hasInteractions()`, else 0: Siconos skips the LCP, and leaves the size of the previous one, when
no interaction is active) and the final state. Then it times, on a newly built model each time,
only the loop `while s.hasNextEvent(): s.computeOneStep(); s.nextStep()` with
`time.perf_counter`: `--reps` times, stopping early once the loops took `--max-seconds`.
`--quick` keeps N <= 100 and one timed repetition.

One JSON line per case is written to RESULTS.jsonl:

    {"case", "n", "steps", "active_max", "active_mean", "steps_with_contacts", "z_bottom", "z_top",
     "sum_z", "sum_v", "seconds", "seconds_per_step", "times", "reps", "deterministic"}

with the same summary fields as `cargo run -p nonsmooth-benches --bin kernel-summary`
(for the ball n = 1 and z is q[0]; `active_mean` is the mean over all steps; the ball line also
has `steps_with_impulse`, the steps where lambda > 0). `seconds` is the median loop time,
`deterministic` says whether every timed run ended in the final state of the instrumented run.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np
import siconos.kernel as sk

from siconos_common import repeat_timed

GRAVITY = 9.81
RESTITUTION = 0.9
THETA = 0.5


class Model:
    """A built simulation: the TimeStepping, its LCP, the beads (or the ball) and the interactions."""

    def __init__(self, simulation, lcp, bodies, interactions, nsds):
        self.simulation = simulation
        self.lcp = lcp
        self.bodies = bodies
        self.interactions = interactions
        self.nsds = nsds


def simulation(nsds, h):
    """Moreau-Jean time-stepping with the kernel's default LCP (Lemke), as siconos44.md says."""
    osi = sk.MoreauJeanOSI(THETA)
    td = sk.TimeDiscretisation(0.0, h)
    lcp = sk.LCP()
    return sk.TimeStepping(nsds, td, osi, lcp), lcp


def bouncing_ball():
    """The ball of Siconos' test_bouncing_ball.py: 3 dofs, one contact with the ground x = 0."""
    m, r = 1.0, 0.1
    ball = sk.LagrangianLinearTIDS([1.0, 0.0, 0.0], [0.0, 0.0, 0.0], np.diag([m, m, 2.0 / 5.0 * m * r * r]))
    ball.setFExtPtr(np.array([-m * GRAVITY, 0.0, 0.0]))
    inter = sk.Interaction(sk.NewtonImpactNSL(RESTITUTION), sk.LagrangianLinearTIR(np.array([[1.0, 0.0, 0.0]])))
    nsds = sk.NonSmoothDynamicalSystem(0.0, 10.0)
    nsds.insertDynamicalSystem(ball)
    nsds.link(inter, ball)
    s, lcp = simulation(nsds, 0.005)
    return Model(s, lcp, [ball], [inter], nsds)


def beads(n, radius, z_of, steps, h=1e-3):
    """N one-dof beads on a vertical line above the ground, bead i at height z_of(i), at rest."""
    nsds = sk.NonSmoothDynamicalSystem(0.0, steps * h)
    bodies = []
    for i in range(n):
        bead = sk.LagrangianLinearTIDS([z_of(i)], [0.0], np.array([[1.0]]))
        bead.setFExtPtr(np.array([-GRAVITY]))
        nsds.insertDynamicalSystem(bead)
        bodies.append(bead)
    ground = sk.Interaction(
        sk.NewtonImpactNSL(RESTITUTION), sk.LagrangianLinearTIR(np.array([[1.0]]), np.array([-radius]))
    )
    nsds.link(ground, bodies[0])
    interactions = [ground]
    for i in range(1, n):
        pair = sk.Interaction(
            sk.NewtonImpactNSL(RESTITUTION),
            sk.LagrangianLinearTIR(np.array([[-1.0, 1.0]]), np.array([-2.0 * radius])),
        )
        nsds.link(pair, bodies[i - 1], bodies[i])
        interactions.append(pair)
    s, lcp = simulation(nsds, h)
    return Model(s, lcp, bodies, interactions, nsds)


def beads_column(n):
    """Falling column: R = 0.1, the bottom bead 0.1 above the ground, gaps 0.01."""
    r = 0.1
    return beads(n, r, lambda i: r + 0.1 + i * (2.0 * r + 0.01), 1000)


def beads_stack(n):
    """Resting stack: R = 0.125, every gap exactly 0; 100 steps for N = 1000, else 1000."""
    r = 0.125
    return beads(n, r, lambda i: r + 2.0 * r * i, 100 if n >= 1000 else 1000)


def cases(quick):
    """(case, n, builder) in report order."""
    sizes = [10, 100] if quick else [10, 100, 1000]
    out = [("bouncing_ball", 1, bouncing_ball)]
    out += [("beads_column", n, lambda n=n: beads_column(n)) for n in sizes]
    out += [("beads_stack", n, lambda n=n: beads_stack(n)) for n in sizes]
    return out


def final_state(model):
    """(z_bottom, z_top, sum_z, sum_v): the first coordinate of every body's q and v."""
    z = [float(b.q()[0]) for b in model.bodies]
    v = [float(b.velocity()[0]) for b in model.bodies]
    return z[0], z[-1], float(sum(z)), float(sum(v))


def instrumented_run(model, count_impulses):
    """Runs the whole simulation, recording the active contacts (LCP size) of every step and,
    with count_impulses, the number of steps where some interaction has lambda > 0."""
    s, lcp = model.simulation, model.lcp
    active, impulse_steps = [], 0
    while s.hasNextEvent():
        s.computeOneStep()
        k = int(lcp.getSizeOutput()) if lcp.hasInteractions() else 0
        active.append(k)
        if count_impulses and k > 0 and any(float(i.lambda_(1)[0]) > 0.0 for i in model.interactions):
            impulse_steps += 1
        s.nextStep()
    return active, impulse_steps


def timed_run(build):
    """Builds a new model (untimed) and times its whole stepping loop; returns
    (final state, steps, None, seconds) for repeat_timed."""
    model = build()
    s = model.simulation
    steps = 0
    start = time.perf_counter()
    while s.hasNextEvent():
        s.computeOneStep()
        s.nextStep()
        steps += 1
    seconds = time.perf_counter() - start
    return final_state(model), steps, None, seconds


def run_case(case, n, build, reps, max_seconds):
    model = build()
    active, impulse_steps = instrumented_run(model, case == "bouncing_ball")
    z_bottom, z_top, sum_z, sum_v = final_state(model)
    steps = len(active)
    (state, timed_steps, _, _), times = repeat_timed(lambda: timed_run(build), reps, max_seconds)
    seconds = statistics.median(times)
    record = {
        "case": case,
        "n": n,
        "steps": steps,
        "active_max": max(active) if active else 0,
        "active_mean": float(np.mean(active)) if active else 0.0,
        "steps_with_contacts": sum(1 for k in active if k > 0),
        "z_bottom": z_bottom,
        "z_top": z_top,
        "sum_z": sum_z,
        "sum_v": sum_v,
        "seconds": seconds,
        "seconds_per_step": seconds / steps if steps else None,
        "times": times,
        "reps": len(times),
        # Siconos is deterministic on one thread: the last timed run ends where the instrumented one did.
        "deterministic": timed_steps == steps and state == (z_bottom, z_top, sum_z, sum_v),
    }
    if case == "bouncing_ball":
        record["steps_with_impulse"] = impulse_steps
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions per case (default 5)")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=20.0,
        help="stop repeating a case once its timed loops took this long (default 20)",
    )
    parser.add_argument("--quick", action="store_true", help="N <= 100 and one timed repetition")
    args = parser.parse_args()
    reps = 1 if args.quick else max(args.reps, 1)
    with open(args.out, "w") as out:
        for case, n, build in cases(args.quick):
            record = run_case(case, n, build, reps, args.max_seconds)
            out.write(json.dumps(record) + "\n")
            out.flush()
            print(
                f"siconos {case}/{n}: {record['steps']} steps, {record['seconds_per_step']:.3e} s/step "
                f"(median of {record['reps']}), active max {record['active_max']} "
                f"mean {record['active_mean']:.1f}, z_top {record['z_top']:.6g}",
                file=sys.stderr,
            )


if __name__ == "__main__":
    main()
