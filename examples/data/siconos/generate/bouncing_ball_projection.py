"""Generator of BouncingBallDirectProjection.ref and BouncingBallCombinedProjection.ref.

Drives Siconos 4.4 (python3-siconos) on the bouncing ball with the two Moreau-Jean projection
schemes:
  direct:   MoreauJeanDirectProjectionOSI(0.5)
            + TimeSteppingDirectProjection(nsds, td, osi, LCP(), MLCPProjectOnConstraints(), 1)
  combined: MoreauJeanCombinedProjectionOSI(0.5)
            + TimeSteppingCombinedProjection(nsds, td, osi, LCP(), MLCPProjectOnConstraints(), 2)
with every tolerance, iteration limit and solver left at its Siconos default (LCP: Lemke;
MLCPProjectOnConstraints: ENUM, alpha = 1).

Model: LagrangianLinearTIDS q = (x, y, angle), M = diag(m, m, 2/5 m R^2), m = 1, R = 0.1,
F_ext = (-m g, 0, 0), g = 9.81, q0 = (1, 0, 0), v0 = 0; LagrangianLinearTIR H = [1 0 0];
NewtonImpactNSL(0.9); TimeDiscretisation(0, 0.005), T = 10.

Output: 2001 rows of 7 columns t, q[0], v[0], p(1)[0], lambda(1)[0], p(0)[0], lambda(0)[0];
row 0 is the initial state (zeros for p and lambda), then one row after each computeOneStep.
Numbers are written as C "%.15e " (|x| < DBL_MIN as 0), the format of the Siconos .ref files.

Usage: /usr/bin/python3 bouncing_ball_projection.py OUTPUT_DIR
"""
import os
import sys

import numpy as np
import siconos.kernel as sk

DBL_MIN = 2.2250738585072014e-308


def fmt(x):
    x = float(x)
    return "%.15e " % (0.0 if abs(x) < DBL_MIN else x)


def run(scheme):
    t0, T, h, e = 0.0, 10.0, 0.005, 0.9
    m, R, g = 1.0, 0.1, 9.81
    ball = sk.LagrangianLinearTIDS([1.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                                   np.diag([m, m, 2.0 / 5.0 * m * R * R]))
    ball.setFExtPtr(np.array([-m * g, 0.0, 0.0]))
    contact = sk.Interaction(sk.NewtonImpactNSL(e),
                             sk.LagrangianLinearTIR(np.array([[1.0, 0.0, 0.0]])))
    nsds = sk.NonSmoothDynamicalSystem(t0, T)
    nsds.insertDynamicalSystem(ball)
    nsds.link(contact, ball)
    td = sk.TimeDiscretisation(t0, h)
    lcp = sk.LCP()
    projection = sk.MLCPProjectOnConstraints()
    if scheme == "direct":
        osi = sk.MoreauJeanDirectProjectionOSI(0.5)
        sim = sk.TimeSteppingDirectProjection(nsds, td, osi, lcp, projection, 1)
    else:
        osi = sk.MoreauJeanCombinedProjectionOSI(0.5)
        sim = sk.TimeSteppingCombinedProjection(nsds, td, osi, lcp, projection, 2)

    rows = [(t0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)]
    while sim.hasNextEvent():
        sim.computeOneStep()
        rows.append((sim.nextTime(), ball.q()[0], ball.velocity()[0],
                     ball.p(1)[0], contact.lambda_(1)[0],
                     ball.p(0)[0], contact.lambda_(0)[0]))
        sim.nextStep()
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bouncing_ball_projection.py OUTPUT_DIR")
    outdir = sys.argv[1]
    for scheme, name in (("direct", "BouncingBallDirectProjection.ref"),
                         ("combined", "BouncingBallCombinedProjection.ref")):
        rows = run(scheme)
        with open(os.path.join(outdir, name), "w") as f:
            for row in rows:
                f.write("".join(fmt(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
