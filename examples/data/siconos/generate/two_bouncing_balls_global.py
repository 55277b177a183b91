"""Generator of TwoBouncingBallsGlobal.ref.

Drives Siconos 4.4 (python3-siconos) on the tutorial model of TwoBouncingBallTS-MoreauJeanGOSI:
two balls on a vertical line, the lower one on the ground, the upper one on the lower one,
integrated by MoreauJeanGOSI(0.5) with the global frictional contact problem
GlobalFrictionContact(3, SICONOS_GLOBAL_FRICTION_3D_NSGS_WR), dparam[SICONOS_DPARAM_TOL] = 1e-13
(every other option at its Siconos default).

Model: two LagrangianLinearTIDS q = (x, y, angle), M_i = diag(m_i, m_i, 2/5 m_i R^2), m1 = 1,
m2 = 2, R = 0.1, F_ext,i = (-m_i g, 0, 0), g = 9.81; q0_1 = (0.1, 0, 0), q0_2 = (0.1 + 2R + 0.001,
0, 0), v0 = 0. Interactions, both NewtonImpactFrictionNSL(en = 0.95, et = 0.95, mu = 0.6, 3):
ball-ground LagrangianLinearTIR H = I3; ball-ball LagrangianLinearTIR H = [-I3 I3],
b = (-2R, 0, 0). TimeDiscretisation(0, 0.001), T = 3 (3000 steps).

Output: 3001 rows of 8 columns t, q1[0], v1[0], p1(1)[0], lambda_ground(1)[0], q2[0], v2[0],
p2(1)[0]; row 0 is the initial state, then one row after each computeOneStep. Numbers are
written as C "%.15e " (|x| < DBL_MIN as 0), the format of the Siconos .ref files.

Usage: /usr/bin/python3 -s two_bouncing_balls_global.py OUTPUT_DIR
"""
import os
import sys

import numpy as np
import siconos.kernel as sk
import siconos.numerics as sn

DBL_MIN = 2.2250738585072014e-308


def fmt(x):
    x = float(x)
    return "%.15e " % (0.0 if abs(x) < DBL_MIN else x)


def run():
    t0, T, h, theta = 0.0, 3.0, 0.001, 0.5
    R, m1, m2, g, e, mu = 0.1, 1.0, 2.0, 9.81, 0.95, 0.6
    ball1 = sk.LagrangianLinearTIDS([0.1, 0.0, 0.0], [0.0, 0.0, 0.0],
                                    np.diag([m1, m1, 2.0 / 5.0 * m1 * R * R]))
    ball1.setFExtPtr(np.array([-m1 * g, 0.0, 0.0]))
    ball2 = sk.LagrangianLinearTIDS([0.1 + 2.0 * R + 0.001, 0.0, 0.0], [0.0, 0.0, 0.0],
                                    np.diag([m2, m2, 2.0 / 5.0 * m2 * R * R]))
    ball2.setFExtPtr(np.array([-m2 * g, 0.0, 0.0]))
    law = sk.NewtonImpactFrictionNSL(e, e, mu, 3)
    ground = sk.Interaction(law, sk.LagrangianLinearTIR(np.eye(3)))
    h_bb = np.hstack([-np.eye(3), np.eye(3)])
    contact = sk.Interaction(law, sk.LagrangianLinearTIR(h_bb, np.array([-2.0 * R, 0.0, 0.0])))
    nsds = sk.NonSmoothDynamicalSystem(t0, T)
    nsds.insertDynamicalSystem(ball1)
    nsds.insertDynamicalSystem(ball2)
    nsds.link(ground, ball1)
    nsds.link(contact, ball1, ball2)
    osi = sk.MoreauJeanGOSI(theta)
    td = sk.TimeDiscretisation(t0, h)
    osnspb = sk.GlobalFrictionContact(3, sn.SICONOS_GLOBAL_FRICTION_3D_NSGS_WR)
    osnspb.numericsSolverOptions().dparam[sn.SICONOS_DPARAM_TOL] = 1e-13
    sim = sk.TimeStepping(nsds, td, osi, osnspb)

    def row(t):
        return (t, ball1.q()[0], ball1.velocity()[0], ball1.p(1)[0], ground.lambda_(1)[0],
                ball2.q()[0], ball2.velocity()[0], ball2.p(1)[0])

    rows = [(t0, 0.1, 0.0, 0.0, 0.0, 0.1 + 2.0 * R + 0.001, 0.0, 0.0)]
    while sim.hasNextEvent():
        sim.computeOneStep()
        rows.append(row(sim.nextTime()))
        sim.nextStep()
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: two_bouncing_balls_global.py OUTPUT_DIR")
    rows = run()
    with open(os.path.join(sys.argv[1], "TwoBouncingBallsGlobal.ref"), "w") as f:
        for r in rows:
            f.write("".join(fmt(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
