// Preloaded into Siconos 4.4 from Debian (python3-siconos) by the whole-life part of
// `cargo xtask bench-report --only mechanics` (compiled with g++ into the target folder).
//
// Debian builds Siconos without NDEBUG, so every insertion or removal of a vertex or an edge of
// its graphs (SiconosGraph in kernel/src/utils/SiconosTools/SiconosGraph.hpp) asserts three
// consistency checks that each walk the whole graph: a pile's step then costs O(contacts²) in
// bookkeeping. The checks are inline template members, emitted as weak symbols, so the
// definitions below take their place for the two graphs the simulation uses (interactions and
// dynamical systems):
//   * state_assert() and adjacent_vertices_ok() are only called inside assert(); they answer true,
//     which is what a release build amounts to;
//   * adjacent_vertex_exists(vd) is asserted in remove_vertex and remove_edge; in these undirected
//     graphs it says whether vd has an incident edge, answered here by its degree in O(1).
// The answers are those of the originals, so the simulation and its numbers are unchanged.
#include <SiconosConfig.h>
#include <SimulationGraphs.hpp>

namespace {
using Interactions = InteractionsGraph;
using Systems = DynamicalSystemsGraph;
}  // namespace

// The mangled names of SiconosGraph<...>'s members for the two instantiations.
#define SICONOS_IG "_ZNK12SiconosGraphISt10shared_ptrI11InteractionES0_I15DynamicalSystemE21InteractionProperties25DynamicalSystemProperties15GraphPropertiesE"
#define SICONOS_DG "_ZNK12SiconosGraphISt10shared_ptrI15DynamicalSystemES0_I11InteractionE25DynamicalSystemProperties21InteractionProperties15GraphPropertiesE"

extern "C" {
bool interactions_state_assert(const Interactions*) __asm__(SICONOS_IG "12state_assertEv");
bool interactions_adjacent_vertices_ok(const Interactions*) __asm__(SICONOS_IG "20adjacent_vertices_okEv");
bool interactions_adjacent_vertex_exists(const Interactions*, const Interactions::VDescriptor&)
    __asm__(SICONOS_IG "22adjacent_vertex_existsERKPv");
bool systems_state_assert(const Systems*) __asm__(SICONOS_DG "12state_assertEv");
bool systems_adjacent_vertices_ok(const Systems*) __asm__(SICONOS_DG "20adjacent_vertices_okEv");
bool systems_adjacent_vertex_exists(const Systems*, const Systems::VDescriptor&)
    __asm__(SICONOS_DG "22adjacent_vertex_existsERKPv");
}

bool interactions_state_assert(const Interactions*) { return true; }
bool interactions_adjacent_vertices_ok(const Interactions*) { return true; }
bool interactions_adjacent_vertex_exists(const Interactions* g, const Interactions::VDescriptor& v) {
  return boost::out_degree(v, g->storage()) > 0;
}
bool systems_state_assert(const Systems*) { return true; }
bool systems_adjacent_vertices_ok(const Systems*) { return true; }
bool systems_adjacent_vertex_exists(const Systems* g, const Systems::VDescriptor& v) {
  return boost::out_degree(v, g->storage()) > 0;
}
