"""Siconos 4.4 runs of two event-driven examples, with LsodarOSI (Siconos' defaults).

Usage: /usr/bin/python3 -s event_driven_examples.py OUTPUT_DIR

Writes, in OUTPUT_DIR, with each number as C `%.15e` followed by one space:

* `BouncingBallEDTwoContacts.ref`: a LagrangianLinearTIDS x (mass 1, q0 = 1, v0 = 8, F_ext = -9.81)
  between a floor (LagrangianLinearTIR H = [1]) and a ceiling (H = [-1], b = 1.5), both with
  NewtonImpactNSL(0.9); TimeDiscretisation(0, 0.005), T = 6. 12 columns: t, x, v, p(1), p(2),
  lambda(1) and lambda(2) of the floor, of the ceiling, q[2] (the DS acceleration), y(2) of the
  floor and of the ceiling. One row per processed event; before the row of an impact (an event
  after which a lambda(1) is positive) a pre-impact row: the same time, x and v from the
  memories (qMemory, velocityMemory, entry 1), p(1), p(2), zeros, then the same last three.
* `PendulumED.ref`: a LagrangianLinearTIDS q = (x, z) (M = I, F_ext = (0, -9.81), q0 = (0, -0.99),
  v0 = (6.5, 0)) on a string of length 1: a LagrangianScleronomousR subclass with
  h = 1 - (x^2 + z^2), jachq = (-2x, -2z), dotJachq = (-2 vx, -2 vz); NewtonImpactNSL(0);
  TimeDiscretisation(0, 0.005), T = 2. 13 columns: t, x, z, vx, vz, y(0), lambda(1), lambda(2),
  the sizes of index sets 1 and 2, q[2] (2 columns), y(2). One row per processed event.

Both simulations: EventDriven with LsodarOSI, LCP() for the impact (SICONOS_OSNSP_ED_IMPACT) and
acceleration (SICONOS_OSNSP_ED_SMOOTH_ACC) problems, every option at its default. The models are
those of examples/src/kernel/bouncing_ball_ed_two_contacts.rs and pendulum_ed.rs.
"""
import os
import sys

import numpy as np
import siconos.kernel as sk


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write("".join("%.15e " % (0.0 if abs(x) < sys.float_info.min else x) for x in r) + "\n")


def simulation(nsds, h):
    s = sk.EventDriven(nsds, sk.TimeDiscretisation(0.0, h))
    s.insertIntegrator(sk.LsodarOSI())
    s.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_IMPACT)
    s.insertNonSmoothProblem(sk.LCP(), sk.SICONOS_OSNSP_ED_SMOOTH_ACC)
    return s


def two_contacts():
    T, h, e, H, g = 6.0, 0.005, 0.9, 1.5, 9.81
    ball = sk.LagrangianLinearTIDS([1.0], [8.0], np.array([[1.0]]))
    ball.setFExtPtr(np.array([-g]))
    nsds = sk.NonSmoothDynamicalSystem(0.0, T)
    nsds.insertDynamicalSystem(ball)
    law = sk.NewtonImpactNSL(e)
    floor = sk.Interaction(law, sk.LagrangianLinearTIR(np.array([[1.0]])))
    ceiling = sk.Interaction(law, sk.LagrangianLinearTIR(np.array([[-1.0]]), np.array([H])))
    nsds.link(floor, ball)
    nsds.link(ceiling, ball)
    s = simulation(nsds, h)
    em = s.eventsManager()
    rows = []
    while s.hasNextEvent():
        s.advanceToEvent()
        nonsmooth = em.nextEvent().getType() == 2
        s.processEvents()
        t = s.startingTime()
        p1, p2 = ball.p(1)[0], ball.p(2)[0]
        tail = [ball.acceleration()[0], floor.y(2)[0], ceiling.y(2)[0]]
        if nonsmooth and (floor.lambda_(1)[0] > 0 or ceiling.lambda_(1)[0] > 0):
            q_pre = ball.qMemory().getSiconosVector(1)[0]
            v_pre = ball.velocityMemory().getSiconosVector(1)[0]
            rows.append([t, q_pre, v_pre, p1, p2, 0.0, 0.0, 0.0, 0.0] + tail)
        rows.append([t, ball.q()[0], ball.velocity()[0], p1, p2, floor.lambda_(1)[0], floor.lambda_(2)[0],
                     ceiling.lambda_(1)[0], ceiling.lambda_(2)[0]] + tail)
    return rows


class String(sk.LagrangianScleronomousR):
    """y = l^2 - |q|^2 with l = 1."""

    def __init__(self):
        sk.LagrangianScleronomousR.__init__(self)

    def computeh(self, q, z, y):
        y[0] = 1.0 - (q[0] * q[0] + q[1] * q[1])

    def computeJachq(self, q, z):
        jac = self.jachq()
        jac[0, 0] = -2.0 * q[0]
        jac[0, 1] = -2.0 * q[1]

    def computeDotJachq(self, q, z, qdot):
        djac = self.dotJachq()
        djac[0, 0] = -2.0 * qdot[0]
        djac[0, 1] = -2.0 * qdot[1]


def pendulum():
    T, h, g = 2.0, 0.005, 9.81
    body = sk.LagrangianLinearTIDS([0.0, -0.99], [6.5, 0.0], np.eye(2))
    body.setFExtPtr(np.array([0.0, -g]))
    nsds = sk.NonSmoothDynamicalSystem(0.0, T)
    nsds.insertDynamicalSystem(body)
    relation = String()
    relation.setJachqPtr(np.zeros((1, 2)))
    string = sk.Interaction(sk.NewtonImpactNSL(0.0), relation)
    nsds.link(string, body)
    s = simulation(nsds, h)
    rows = []
    while s.hasNextEvent():
        s.advanceToEvent()
        s.processEvents()
        q, v, a = body.q(), body.velocity(), body.acceleration()
        rows.append([s.startingTime(), q[0], q[1], v[0], v[1], string.y(0)[0], string.lambda_(1)[0],
                     string.lambda_(2)[0], len(s.indexSet(1).interactions()), len(s.indexSet(2).interactions()),
                     a[0], a[1], string.y(2)[0]])
    return rows


if __name__ == "__main__":
    out = sys.argv[1]
    write(os.path.join(out, "BouncingBallEDTwoContacts.ref"), two_contacts())
    write(os.path.join(out, "PendulumED.ref"), pendulum())
