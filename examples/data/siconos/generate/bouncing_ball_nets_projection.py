"""Generator of BouncingBallNETSDirectProjection.ref and BouncingBallNETSCombinedProjection.ref.

Drives Siconos 4.4 (python3-siconos) on the Newton-Euler bouncing ball of the Siconos example
BouncingBallNETS with the two Moreau-Jean projection schemes:
  direct:   MoreauJeanDirectProjectionOSI(0.5)
            + TimeSteppingDirectProjection(nsds, td, osi, GenericMechanical(),
                                           MLCPProjectOnConstraints(), 1)
  combined: MoreauJeanCombinedProjectionOSI(0.5)
            + TimeSteppingCombinedProjection(nsds, td, osi, GenericMechanical(),
                                             MLCPProjectOnConstraints(), 2)
Newton tolerance 1e-10, at most 10 Newton iterations (as BouncingBallNETS); every projection
tolerance, iteration limit and solver is left at its Siconos default (MLCPProjectOnConstraints:
ENUM, alpha = 1). With the argument `plain` it also runs MoreauJeanOSI + TimeStepping and checks
the result against the BouncingBallNETS.ref of the Siconos examples (path in NONSMOOTH_DATA, or
../shared/data), which validates this driver.

Model: NewtonEulerDS q = (x, y, z, p0, p1, p2, p3) = (1, 0, 0, 1, 0, 0, 0), twist
(2, 0, 0, 0, 0, 0), m = 1, inertia I3, F_ext = (-9.81, 0, 0); a NewtonEuler3DR whose h sets
y = |x| - R (R = 0.1), normal (1, 0, 0), contact point (|x| - R, y, z);
NewtonImpactFrictionNSL(0.9, 0.9, 0.6, 3); TimeDiscretisation(0, 0.005), T = 10.

In Siconos 4.4 the position-level problem of a Newton-Euler relation is built on the 7-column
Jacobian jachq (matrix jachq jachq^T, correction q += jachq^T lambda(0)) and the quaternion is
normalized after every projection iteration (NewtonEulerDS::normalizeq).

Output: 2001 rows of the 16 columns of BouncingBallNETS.ref: t, x, v_x, p(1)[0], lambda(1)[0],
acos(p0), |contactForce|, q[0..7], v_y, v_z; row 0 is the initial state, then one row after
each computeOneStep. Numbers are written as C "%.15e " (|x| < DBL_MIN as 0).

Usage: /usr/bin/python3 -s bouncing_ball_nets_projection.py OUTPUT_DIR [plain]
"""
import math
import os
import sys

import numpy as np
import siconos.kernel as sk

DBL_MIN = 2.2250738585072014e-308


def fmt(x):
    x = float(x)
    return "%.15e " % (0.0 if abs(x) < DBL_MIN else x)


class BallOnPlane(sk.NewtonEuler3DR):
    """y = |x| - R, normal e_x, contact point (|x| - R, y, z)."""

    def __init__(self, radius):
        self.radius = radius
        sk.NewtonEuler3DR.__init__(self)

    def computeh(self, time, q, y):
        height = abs(q[0]) - self.radius
        y[0] = height
        # setnc/setpc1 crash in the 4.4 wrapper: write through the numpy views instead.
        nc = self.nc()
        nc[0], nc[1], nc[2] = 1.0, 0.0, 0.0
        pc = self.pc1()
        pc[0], pc[1], pc[2] = height, q[1], q[2]


def run(scheme):
    t0, T, h = 0.0, 10.0, 0.005
    ball = sk.NewtonEulerDS([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                            1.0, np.eye(3))
    ball.setFExtPtr([-9.81, 0.0, 0.0])
    relation = BallOnPlane(0.1)
    contact = sk.Interaction(sk.NewtonImpactFrictionNSL(0.9, 0.9, 0.6, 3), relation)
    nsds = sk.NonSmoothDynamicalSystem(t0, T)
    nsds.insertDynamicalSystem(ball)
    nsds.link(contact, ball)
    td = sk.TimeDiscretisation(t0, h)
    velocity_problem = sk.GenericMechanical()
    if scheme == "plain":
        osi = sk.MoreauJeanOSI(0.5)
        sim = sk.TimeStepping(nsds, td, osi, velocity_problem)
    elif scheme == "direct":
        osi = sk.MoreauJeanDirectProjectionOSI(0.5)
        sim = sk.TimeSteppingDirectProjection(nsds, td, osi, velocity_problem,
                                              sk.MLCPProjectOnConstraints(), 1)
    else:
        osi = sk.MoreauJeanCombinedProjectionOSI(0.5)
        sim = sk.TimeSteppingCombinedProjection(nsds, td, osi, velocity_problem,
                                                sk.MLCPProjectOnConstraints(), 2)
    sim.setNewtonTolerance(1e-10)
    sim.setNewtonMaxIteration(10)

    q, v, p, lam = ball.q(), ball.twist(), ball.p(1), contact.lambda_(1)

    def row(t):
        return (t, q[0], v[0], p[0], lam[0], math.acos(q[3]), np.linalg.norm(relation.contactForce()),
                q[0], q[1], q[2], q[3], q[4], q[5], q[6], v[1], v[2])

    rows = [row(t0)]
    while sim.hasNextEvent():
        sim.computeOneStep()
        rows.append(row(sim.nextTime()))
        sim.nextStep()
    return rows


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: bouncing_ball_nets_projection.py OUTPUT_DIR [plain]")
    outdir = sys.argv[1]
    if len(sys.argv) == 3:
        here = os.path.dirname(os.path.abspath(__file__))
        data = os.environ.get("NONSMOOTH_DATA",
                              os.path.join(here, "..", "..", "..", "..", "..", "shared", "data"))
        reference = np.loadtxt(os.path.join(data, "reference", "BouncingBallNETS.ref"))
        diff = np.abs(np.array(run("plain")) - reference).max()
        print("plain Moreau-Jean against BouncingBallNETS.ref: max |difference| = %e" % diff)
        if diff > 1e-12:
            sys.exit("the driver does not reproduce BouncingBallNETS.ref")
    for scheme, name in (("direct", "BouncingBallNETSDirectProjection.ref"),
                         ("combined", "BouncingBallNETSCombinedProjection.ref")):
        rows = run(scheme)
        with open(os.path.join(outdir, name), "w") as f:
            for r in rows:
                f.write("".join(fmt(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
