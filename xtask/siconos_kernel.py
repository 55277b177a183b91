#!/usr/bin/env python3
"""Times Siconos 4.4's time-stepping on the kernel benchmark models of nonsmooth.

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

These use MoreauJeanOSI(theta = 0.5), TimeDiscretisation(0, h) and the kernel's default LCP
(Lemke). The first-order models of ../shared/data/reference/README.md (issue 5), n = 1, use
EulerMoreauOSI(0.5):

* `diode_bridge` (Siconos' DiodeBridge): FirstOrderLinearDS x0 = (10, 0),
  A = [[0, -1/C], [1/L, 0]] with L = 1e-2, C = 1e-6; FirstOrderLinearTIR(C, B) with its D
  (R = 1e3), ComplementarityConditionNSL(4), the default LCP() (Lemke); the double time step
  h = 1e-6 (as Siconos' Python driver), T = 5e-3: 5000 steps.
* `relay` (Siconos' SimpleExampleRelay): FirstOrderLinearDS x0 = (1, -1), A = 0;
  FirstOrderLinearR C = I, B = 2I, D = 0; RelayNSL(2); Relay(SICONOS_RELAY_PGS); h = 1e-3,
  T = 0.8: 800 steps.

The event-driven case (issue 6), n = 1, is Siconos' BouncingBallED:

* `bouncing_ball_ed`: LagrangianLinearTIDS q0 = (1, 0, 0), v0 = 0, M = diag(1, 1, 3/5 m R^2)
  (m = 1, R = 0.1), FExt = (-9.81, 0, 0); LagrangianLinearTIR H = [1, 0, 0] with
  NewtonImpactNSL(0.9); EventDriven(TimeDiscretisation(0, 0.005)) on [0, 8.5] with a LsodarOSI and
  two LCPs (SICONOS_OSNSP_ED_IMPACT, SICONOS_OSNSP_ED_SMOOTH_ACC). Its loop is
  `while s.hasNextEvent(): s.advanceToEvent(); s.processEvents()` and a "step" is an event
  processed: 1744 (1700 grid points, 44 impacts). Active = 1 on a nonsmooth event whose impact
  solve gave lambda(1) > 0 (an impact), else 0, so steps_with_contacts = impacts (also written
  as "impacts"); z_bottom = z_top = sum_z = final x, sum_v = final v.

For every case the script first runs one instrumented, untimed simulation that records the
active contacts of each step (the LCP size `getSizeOutput()` when `hasInteractions()`, else 0:
Siconos skips the LCP, and leaves the size of the previous one, when no interaction is active;
for the first-order cases the number of interactions of the problem, index set 0, i.e. 1) and
the final state. Then it times, on a newly built model each time,
only the loop `while s.hasNextEvent(): s.computeOneStep(); s.nextStep()` (the event-driven
case: its `advanceToEvent(); processEvents()` loop) with
`time.perf_counter`: `--reps` times, stopping early once the loops took `--max-seconds`.
`--quick` keeps N <= 100 and one timed repetition.

One JSON line per case is written to RESULTS.jsonl:

    {"case", "n", "steps", "active_max", "active_mean", "steps_with_contacts", "z_bottom", "z_top",
     "sum_z", "sum_v", "seconds", "seconds_per_step", "times", "reps", "deterministic"}

with the same summary fields as `cargo run -p nonsmooth-benches --bin kernel-summary`
(for the ball n = 1 and z is q[0]; `active_mean` is the mean over all steps; the ball line also
has `steps_with_impulse`, the steps where lambda > 0; for the first-order cases z_bottom, z_top,
sum_z and sum_v are x[0], x[-1], sum(x) and sum(lambda(0)) of the final state). `seconds` is the median loop time,
`deterministic` says whether every timed run ended in the final state of the instrumented run.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np
import siconos.kernel as sk
import siconos.numerics as sn

from siconos_common import repeat_timed

GRAVITY = 9.81
RESTITUTION = 0.9
THETA = 0.5


class Model:
    """A built simulation: the TimeStepping, its LCP, the beads (or the ball) and the interactions."""

    def __init__(self, simulation, lcp, bodies, interactions, nsds, first_order=False):
        self.simulation = simulation
        self.lcp = lcp
        self.bodies = bodies
        self.interactions = interactions
        self.nsds = nsds
        # First-order (EulerMoreauOSI) model: one system x, every interaction in every problem.
        self.first_order = first_order
        # Event-driven model: the loop runs advanceToEvent / processEvents, one event at a time.
        self.event_driven = False


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


def first_order_simulation(nsds, ds, inter, h, osnsp):
    """Euler-Moreau (theta = 0.5) time-stepping of one first-order system and one interaction."""
    osi = sk.EulerMoreauOSI(THETA)
    td = sk.TimeDiscretisation(0.0, h)
    s = sk.TimeStepping(nsds, td, osi, osnsp)
    return Model(s, osnsp, [ds], [inter], nsds, first_order=True)


def diode_bridge():
    """Siconos' DiodeBridge: an LC oscillator feeding a resistor through four ideal diodes."""
    inductance, capacitance, resistance = 1e-2, 1e-6, 1e3
    a = np.zeros((2, 2))
    a[0, 1] = -1.0 / capacitance
    a[1, 0] = 1.0 / inductance
    ds = sk.FirstOrderLinearDS([10.0, 0.0], a)
    c = np.zeros((4, 2))
    c[2, 0] = -1.0
    c[3, 0] = 1.0
    d = np.zeros((4, 4))
    d[0, 0] = d[0, 1] = d[1, 0] = d[1, 1] = 1.0 / resistance
    d[0, 2] = d[1, 3] = -1.0
    d[2, 0] = d[3, 1] = 1.0
    b = np.zeros((2, 4))
    b[0, 2] = -1.0 / capacitance
    b[0, 3] = 1.0 / capacitance
    relation = sk.FirstOrderLinearTIR(c, b)
    relation.setDPtr(d)
    inter = sk.Interaction(sk.ComplementarityConditionNSL(4), relation)
    nsds = sk.NonSmoothDynamicalSystem(0.0, 5e-3)
    nsds.insertDynamicalSystem(ds)
    nsds.link(inter, ds)
    # The double h = 1e-6 (the Python layer cannot build the C++ driver's string "1.0e-6"):
    # T = 5e-3 gives 5000 steps.
    return first_order_simulation(nsds, ds, inter, 1e-6, sk.LCP())


def simple_relay():
    """Siconos' SimpleExampleRelay: x' = 2 lambda, y = x, relay law on [-1, 1]."""
    ds = sk.FirstOrderLinearDS([1.0, -1.0], np.zeros((2, 2)))
    relation = sk.FirstOrderLinearR(np.eye(2), 2.0 * np.eye(2))
    relation.setDPtr(np.zeros((2, 2)))
    inter = sk.Interaction(sk.RelayNSL(2), relation)
    nsds = sk.NonSmoothDynamicalSystem(0.0, 0.8)
    nsds.insertDynamicalSystem(ds)
    nsds.link(inter, ds)
    # h = 1e-3, T = 0.8: 800 steps.
    return first_order_simulation(nsds, ds, inter, 1e-3, sk.Relay(sn.SICONOS_RELAY_PGS))


def bouncing_ball_ed():
    """Siconos' BouncingBallED: the ball (rotational inertia 3/5 m R^2) event by event, LSODAR."""
    m, r = 1.0, 0.1
    ball = sk.LagrangianLinearTIDS([1.0, 0.0, 0.0], [0.0, 0.0, 0.0], np.diag([m, m, 3.0 / 5.0 * m * r * r]))
    ball.setFExtPtr(np.array([-m * GRAVITY, 0.0, 0.0]))
    inter = sk.Interaction(sk.NewtonImpactNSL(RESTITUTION), sk.LagrangianLinearTIR(np.array([[1.0, 0.0, 0.0]])))
    nsds = sk.NonSmoothDynamicalSystem(0.0, 8.5)
    nsds.insertDynamicalSystem(ball)
    nsds.link(inter, ball)
    s = sk.EventDriven(nsds, sk.TimeDiscretisation(0.0, 0.005))
    s.insertIntegrator(sk.LsodarOSI())
    impact, acceleration = sk.LCP(), sk.LCP()
    s.insertNonSmoothProblem(impact, sk.SICONOS_OSNSP_ED_IMPACT)
    s.insertNonSmoothProblem(acceleration, sk.SICONOS_OSNSP_ED_SMOOTH_ACC)
    s.initialize()
    model = Model(s, impact, [ball], [inter], nsds)
    model.event_driven = True
    return model


def cases(quick):
    """(case, n, builder) in report order."""
    sizes = [10, 100] if quick else [10, 100, 1000]
    out = [("bouncing_ball", 1, bouncing_ball)]
    out += [("beads_column", n, lambda n=n: beads_column(n)) for n in sizes]
    out += [("beads_stack", n, lambda n=n: beads_stack(n)) for n in sizes]
    out += [("diode_bridge", 1, diode_bridge), ("relay", 1, simple_relay)]
    out += [("bouncing_ball_ed", 1, bouncing_ball_ed)]
    return out


def final_state(model):
    """(z_bottom, z_top, sum_z, sum_v): the first coordinate of every body's q and v; for a
    first-order model x[0], x[-1], sum(x) and the sum of lambda(0) over the interactions."""
    if model.first_order:
        x = [float(v) for v in model.bodies[0].x()]
        lam = [float(v) for inter in model.interactions for v in inter.lambda_(0)]
        return x[0], x[-1], float(sum(x)), float(sum(lam))
    z = [float(b.q()[0]) for b in model.bodies]
    v = [float(b.velocity()[0]) for b in model.bodies]
    return z[0], z[-1], float(sum(z)), float(sum(v))


def instrumented_event_run(model):
    """Runs the event-driven simulation to its end; per event 1 for an impact (a nonsmooth
    event whose impact LCP gave lambda(1) > 0), else 0."""
    s = model.simulation
    events = s.eventsManager()
    active = []
    while s.hasNextEvent():
        s.advanceToEvent()
        nonsmooth = events.nextEvent().getType() == 2
        s.processEvents()
        impact = nonsmooth and any(float(i.lambda_(1)[0]) > 0.0 for i in model.interactions)
        active.append(1 if impact else 0)
    return active


def instrumented_run(model, count_impulses):
    """Runs the whole simulation, recording the active contacts (LCP size) of every step and,
    with count_impulses, the number of steps where some interaction has lambda > 0."""
    s, lcp = model.simulation, model.lcp
    active, impulse_steps = [], 0
    while s.hasNextEvent():
        s.computeOneStep()
        if model.first_order:
            # Index set 0: every interaction is in every problem (getSizeOutput() would count
            # their components, 4 for the diode bridge).
            k = int(model.nsds.getNumberOfInteractions()) if lcp.hasInteractions() else 0
        else:
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
    if model.event_driven:
        start = time.perf_counter()
        while s.hasNextEvent():
            s.advanceToEvent()
            s.processEvents()
            steps += 1
        seconds = time.perf_counter() - start
        return final_state(model), steps, None, seconds
    start = time.perf_counter()
    while s.hasNextEvent():
        s.computeOneStep()
        s.nextStep()
        steps += 1
    seconds = time.perf_counter() - start
    return final_state(model), steps, None, seconds


def run_case(case, n, build, reps, max_seconds):
    model = build()
    if model.event_driven:
        active, impulse_steps = instrumented_event_run(model), 0
    else:
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
    if model.event_driven:
        record["impacts"] = sum(active)
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
