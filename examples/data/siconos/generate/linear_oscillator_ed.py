"""Generator of LinearOscillatorED.ref: the Siconos tutorial `LinearOscillatorED` (a ball on two
springs dropping on the ground, simulated event by event), run by Siconos 4.4 (python3-siconos).

Model (as the tutorial's LinearOscillatorED.cpp): LagrangianLinearTIDS q = (x, y, angle),
m = 1e-3, R = 0.1, M = diag(m, m, 3/5 m R^2), K = diag(kx, ky, 0) with kx = ky = 100, no damping,
F_ext = (-m g, 0, 0) with g = 9.81; q0 = (1, 0.001, 0), v0 = 0. One LagrangianLinearTIR
H = [1 0 0] (y = x, the ground at x = 0) with NewtonImpactNSL(e = 0.9). EventDriven with one
LsodarOSI (default tolerances rtol = 10 eps, atol = 100 eps, jt = 2), LCP() at velocity level
(SICONOS_OSNSP_ED_IMPACT) and at acceleration level (SICONOS_OSNSP_ED_SMOOTH_ACC),
TimeDiscretisation(0, 0.005), T = 8.5.

Rows, as the tutorial writes them (the row of t0 is overwritten by the first event): after each
processEvents(), for a nonsmooth event first a pre-impact row (t, x and v_x from the memories,
p(1)[0], p(2)[0], then 0, 0, 0, 0), then for every event the row
t, x, v_x, p(1)[0], p(2)[0], lambda(1)[0], lambda(2)[0], y, v_y; each number as C "%.15e "
(|x| < DBL_MIN as 0).

Siconos 4.4 stops at t = 0.335: the next advanceToEvent() throws from
LagrangianLinearTIDS::initRhs (SimpleMatrix::Solve: "PLUFactorize failed, the matrix is
singular"), a failure of the kernel's bookkeeping, not of the integration. The script catches it,
keeps the rows computed before it and prints where it stopped.

Usage: /usr/bin/python3 -s linear_oscillator_ed.py OUTPUT_DIR
"""
import os
import sys

import numpy as np
import siconos.kernel as sk

DBL_MIN = 2.2250738585072014e-308


def fmt(x):
    x = float(x)
    return "%.15e " % (0.0 if abs(x) < DBL_MIN else x)


def run():
    m, r, g, kx, ky, e = 1e-3, 0.1, 9.81, 1e2, 1e2, 0.9
    t0, t_end, h = 0.0, 8.5, 0.005
    ball = sk.LagrangianLinearTIDS([1.0, 0.001, 0.0], [0.0, 0.0, 0.0], np.diag([m, m, 3.0 / 5.0 * m * r * r]))
    ball.setKPtr(np.diag([kx, ky, 0.0]))
    ball.setFExtPtr([-m * g, 0.0, 0.0])
    inter = sk.Interaction(sk.NewtonImpactNSL(e), sk.LagrangianLinearTIR(np.array([[1.0, 0.0, 0.0]])))
    nsds = sk.NonSmoothDynamicalSystem(t0, t_end)
    nsds.insertDynamicalSystem(ball)
    nsds.link(inter, ball)
    sim = sk.EventDriven(nsds, sk.TimeDiscretisation(t0, h))
    sim.insertIntegrator(sk.LsodarOSI())
    sim.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_IMPACT)
    sim.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_SMOOTH_ACC)
    events = sim.eventsManager()
    rows = []
    try:
        while sim.hasNextEvent():
            sim.advanceToEvent()
            nonsmooth = events.nextEvent().getType() == 2
            sim.processEvents()
            t = sim.startingTime()
            p1, p2 = ball.p(1)[0], ball.p(2)[0]
            if nonsmooth:
                rows.append([t, ball.qMemory().getSiconosVector(1)[0],
                             ball.velocityMemory().getSiconosVector(1)[0], p1, p2, 0.0, 0.0, 0.0, 0.0])
            q, v = ball.q(), ball.velocity()
            rows.append([t, q[0], v[0], p1, p2, inter.lambda_(1)[0], inter.lambda_(2)[0], q[1], v[1]])
    except Exception as exc:  # Siconos 4.4 throws at t = 0.335 (see the docstring)
        print("Siconos stopped after t = %r (%d rows): %s" % (rows[-1][0] if rows else t0, len(rows), exc))
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: linear_oscillator_ed.py OUTPUT_DIR")
    rows = run()
    with open(os.path.join(sys.argv[1], "LinearOscillatorED.ref"), "w") as f:
        for row in rows:
            f.write("".join(fmt(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
