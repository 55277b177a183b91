// Generator of BouncingBallSchatzmanPaoli.ref: the bouncing ball integrated by Siconos 4.4's
// SchatzmanPaoliOSI (C++ only: the class is not wrapped in python3-siconos 4.4).
//
// Model: LagrangianLinearTIDS, q = (x, y, angle), M = diag(m, m, 2/5 m R^2) with m = 1, R = 0.1,
// F_ext = (-m g, 0, 0), g = 9.81, q0 = (1, 0, 0), v0 = 0; LagrangianLinearTIR H = [1 0 0] (y = x);
// NewtonImpactNSL(e = 0.9). Simulation: TimeStepping, SchatzmanPaoliOSI(theta = 0.5),
// TimeDiscretisation(0, 0.005), T = 10, one-step problem LCP() with its default solver (Lemke).
//
// Output (argv[1]): 2001 rows of 5 columns t, q[0], v[0], p(0)[0], lambda(0)[0];
// row 0 is the state before the first computeOneStep (q0, v0, zeros), then one row per step.
// Numbers are written as "%.15e " (|x| < DBL_MIN as 0), the format of the Siconos .ref files.
#include "SiconosKernel.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>

namespace {

void put(std::FILE* out, double x) {
  std::fprintf(out, "%.15e ", std::fabs(x) < DBL_MIN ? 0.0 : x);
}

void put_row(std::FILE* out, double t, double q, double v, double p, double lambda) {
  put(out, t);
  put(out, q);
  put(out, v);
  put(out, p);
  put(out, lambda);
  std::fputc('\n', out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.ref\n", argv[0]);
    return 2;
  }
  const double t0 = 0.0, T = 10.0, h = 0.005, theta = 0.5, e = 0.9;
  const double m = 1.0, R = 0.1, g = 9.81;
  const unsigned int ndof = 3;

  SP::SiconosVector q0(new SiconosVector(ndof));
  SP::SiconosVector v0(new SiconosVector(ndof));
  q0->zero();
  v0->zero();
  (*q0)(0) = 1.0;
  SP::SiconosMatrix mass(new SimpleMatrix(ndof, ndof));
  mass->zero();
  (*mass)(0, 0) = m;
  (*mass)(1, 1) = m;
  (*mass)(2, 2) = 2.0 / 5.0 * m * R * R;
  SP::LagrangianLinearTIDS ball(new LagrangianLinearTIDS(q0, v0, mass));
  SP::SiconosVector fext(new SiconosVector(ndof));
  fext->zero();
  (*fext)(0) = -m * g;
  ball->setFExtPtr(fext);

  SP::SimpleMatrix H(new SimpleMatrix(1, ndof));
  H->zero();
  (*H)(0, 0) = 1.0;
  SP::NonSmoothLaw law(new NewtonImpactNSL(e));
  SP::Relation relation(new LagrangianLinearTIR(H));
  SP::Interaction contact(new Interaction(law, relation));

  SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(t0, T));
  nsds->insertDynamicalSystem(ball);
  nsds->link(contact, ball);

  SP::SchatzmanPaoliOSI osi(new SchatzmanPaoliOSI(theta));
  SP::TimeDiscretisation td(new TimeDiscretisation(t0, h));
  SP::LCP lcp(new LCP());
  SP::TimeStepping sim(new TimeStepping(nsds, td, osi, lcp));

  std::FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::perror(argv[1]);
    return 1;
  }
  // Row 0: the initial state (SchatzmanPaoliOSI shifts q to q0 + h v0 only at initialisation,
  // which happens inside the first computeOneStep).
  put_row(out, t0, (*q0)(0), (*v0)(0), 0.0, 0.0);
  SP::SiconosVector q = ball->q();
  SP::SiconosVector v = ball->velocity();
  while (sim->hasNextEvent()) {
    sim->computeOneStep();
    put_row(out, sim->nextTime(), (*q)(0), (*v)(0), (*ball->p(0))(0), (*contact->lambda(0))(0));
    sim->nextStep();
  }
  std::fclose(out);
  return 0;
}
