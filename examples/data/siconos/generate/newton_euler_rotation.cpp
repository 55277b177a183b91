// Siconos 4.4: free flight of a NewtonEulerDS with rotation (gyroscopic moment and its Jacobian
// in W, Newton loop, quaternion exponential update), for examples/tests/mechanics_reference.rs.
// Usage: newton_euler_rotation SCALE OUTPUT  (SCALE multiplies the initial angular velocity).
// Columns (%.17g): t, q[0..7], v[0..6], Newton iterations, Newton residual.
#include "SiconosKernel.hpp"
#include <cmath>
#include <cstdio>
int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s SCALE OUTPUT\n", argv[0]); return 2; }
  double ws = atof(argv[1]);
  FILE* out = fopen(argv[2], "w");
  if (!out) { perror(argv[2]); return 1; }
  double t0 = 0, T = 2.0, h = 0.005, theta = 0.5;
  SP::SiconosVector q0(new SiconosVector(7));
  (*q0)(0) = 1.0; (*q0)(1) = -0.5; (*q0)(2) = 0.25;
  (*q0)(3) = cos(0.3); (*q0)(4) = sin(0.3) * 0.6; (*q0)(5) = 0.0; (*q0)(6) = sin(0.3) * 0.8;
  SP::SiconosVector v0(new SiconosVector(6));
  (*v0)(0) = 2.0; (*v0)(1) = 0.1; (*v0)(2) = -0.3; (*v0)(3) = 1.0 * ws; (*v0)(4) = -2.0 * ws; (*v0)(5) = 3.0 * ws;
  SP::SimpleMatrix I(new SimpleMatrix(3, 3)); I->zero(); (*I)(0,0) = 0.1; (*I)(1,1) = 0.2; (*I)(2,2) = 0.35;
  SP::NewtonEulerDS ds(new NewtonEulerDS(q0, v0, 2.0, I));
  SP::SiconosVector w(new SiconosVector(3)); (*w)(0) = -2.0 * 9.81;
  ds->setFExtPtr(w);
  SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(t0, T));
  nsds->insertDynamicalSystem(ds);
  SP::MoreauJeanOSI osi(new MoreauJeanOSI(theta));
  SP::TimeDiscretisation td(new TimeDiscretisation(t0, h));
  SP::GenericMechanical osnspb(new GenericMechanical());
  SP::TimeStepping s(new TimeStepping(nsds, td, osi, osnspb));
  s->setNewtonTolerance(1e-10);
  s->setNewtonMaxIteration(10);
  SP::SiconosVector q = ds->q(), v = ds->twist();
  auto pr = [&](double t, int it, double res) {
    fprintf(out, "%.17g", t);
    for (int j = 0; j < 7; j++) fprintf(out, " %.17g", (*q)(j));
    for (int j = 0; j < 6; j++) fprintf(out, " %.17g", (*v)(j));
    fprintf(out, " %d %.17g\n", it, res);
  };
  pr(t0, 0, 0.0);
  while (s->hasNextEvent()) {
    s->advanceToEvent();
    pr(s->nextTime(), s->getNewtonNbIterations(), s->newtonResiduDSMax());
    s->nextStep();
  }
  fclose(out);
  return 0;
}
