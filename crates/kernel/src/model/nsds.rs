//! The nonsmooth dynamical system: dynamical systems and interactions in two petgraph graphs,
//! and the index sets (Siconos' `NonSmoothDynamicalSystem` and `Topology`; seed
//! `004_92d6a38d23055e78.txt`, "Topology", and seed `000_b50ea4bc6edb00b3.txt` lines 178-252).
//!
//! - The DS graph has one node per dynamical system and one edge per interaction (a loop for
//!   an interaction on one system).
//! - The interaction graph has one node per interaction and one edge per dynamical system two
//!   interactions share; it gives the off-diagonal blocks of the one-step problems.
//! - Index set 0 is every interaction; index set 1 (the active set) is an ordered subset: an
//!   interaction entering it goes to its end, one leaving it keeps the others' order (as the
//!   graphs of Siconos do).
//!
//! Interactions can be linked and removed between steps (contacts appearing and vanishing).

use faer::Mat;
use petgraph::stable_graph::{NodeIndex, StableUnGraph};
use petgraph::visit::EdgeRef;

use super::ds::SecondOrderDs;
use super::interaction::{Interaction, LEVELS};
use super::law::NonsmoothLaw;
use super::relation::LagrangianRelation;
use crate::KernelError;

/// Handle of a dynamical system (a node of the DS graph). It names its model too: a handle of
/// another [`Nsds`] is refused with [`KernelError::UnknownDs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DsId(pub(crate) NodeIndex, pub(crate) u32);

impl DsId {
    /// The index of the node (dense: below the number of systems ever added).
    pub fn index(self) -> usize {
        self.0.index()
    }
}

/// Handle of an interaction (a node of the interaction graph). It names its model and the
/// generation of its slot: once the interaction is removed, the handle stays unknown even when a
/// later interaction reuses the slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InteractionId(pub(crate) NodeIndex, pub(crate) u32, pub(crate) u32);

/// Source of model identities for handles.
static NEXT_MODEL: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl InteractionId {
    /// The index of the node (dense: below the number of interactions ever linked).
    pub fn index(self) -> usize {
        self.0.index()
    }
}

/// Dynamical systems, interactions, their graphs and index sets.
#[doc(alias = "NonSmoothDynamicalSystem")]
#[doc(alias = "Topology")]
pub struct Nsds {
    ds_graph: StableUnGraph<Box<dyn SecondOrderDs>, InteractionId>,
    interaction_graph: StableUnGraph<Interaction, DsId>,
    /// Index set 1, in Siconos' order.
    pub(crate) active: Vec<InteractionId>,
    /// Incremented when a system or an interaction is added or removed.
    pub(crate) topology_version: u64,
    /// Identity of this model in its handles.
    model: u32,
    /// Generation of each interaction slot (incremented when its interaction is removed).
    generations: Vec<u32>,
}

impl std::fmt::Debug for Nsds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nsds")
            .field("systems", &self.ds_graph.node_count())
            .field("interactions", &self.interaction_graph.node_count())
            .field("active", &self.active.len())
            .finish()
    }
}

impl Default for Nsds {
    fn default() -> Self {
        Self::new()
    }
}

impl Nsds {
    /// An empty model.
    pub fn new() -> Self {
        Self {
            ds_graph: StableUnGraph::default(),
            interaction_graph: StableUnGraph::default(),
            active: Vec::new(),
            topology_version: 0,
            model: NEXT_MODEL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            generations: Vec::new(),
        }
    }

    /// Adds a dynamical system and returns its handle.
    pub fn add_ds(&mut self, ds: impl SecondOrderDs + 'static) -> DsId {
        self.add_boxed_ds(Box::new(ds))
    }

    /// Adds a boxed dynamical system and returns its handle.
    pub fn add_boxed_ds(&mut self, ds: Box<dyn SecondOrderDs>) -> DsId {
        self.topology_version += 1;
        DsId(self.ds_graph.add_node(ds), self.model)
    }

    /// Links `ds` (one or two distinct systems) through an interaction made of `relation` and
    /// `law`, and returns its handle. The relation sees the systems' positions and velocities
    /// concatenated in the order of `ds`. Outputs are not computed here: the simulation computes
    /// them when it starts or, for an interaction linked between steps, before the next step.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`]; [`KernelError::InvalidModel`] for zero, three or more, or
    /// repeated systems; [`KernelError::DimensionMismatch`] when the law's size differs from
    /// the relation's, or the relation's velocity size from the systems'.
    pub fn link(
        &mut self,
        relation: impl LagrangianRelation + 'static,
        law: NonsmoothLaw,
        ds: &[DsId],
    ) -> Result<InteractionId, KernelError> {
        self.link_boxed(Box::new(relation), law, ds)
    }

    /// [`Nsds::link`] with a boxed relation.
    ///
    /// # Errors
    /// As [`Nsds::link`].
    pub fn link_boxed(
        &mut self,
        relation: Box<dyn LagrangianRelation>,
        law: NonsmoothLaw,
        ds: &[DsId],
    ) -> Result<InteractionId, KernelError> {
        if ds.is_empty() || ds.len() > 2 {
            return Err(KernelError::InvalidModel(format!(
                "an interaction links one or two systems, not {}",
                ds.len()
            )));
        }
        if ds.len() == 2 && ds[0] == ds[1] {
            return Err(KernelError::InvalidModel("an interaction links two distinct systems".into()));
        }
        let mut offsets = Vec::with_capacity(ds.len());
        let (mut nv, mut nq) = (0, 0);
        for &d in ds {
            let system = self.ds(d)?;
            offsets.push(nv);
            nv += system.velocity_size();
            nq += system.position_size();
        }
        let size = relation.size();
        if let Some(law_size) = law.size() {
            crate::error::check_len("nonsmooth law size (relation size)", size, law_size)?;
        }
        if let Some(cols) = relation.velocity_size() {
            crate::error::check_len("relation Jacobian columns (velocity size of the linked systems)", nv, cols)?;
        }
        let zeros = || std::array::from_fn::<_, LEVELS, _>(|_| vec![0.0; size]);
        let interaction = Interaction {
            relation,
            law,
            ds: ds.to_vec(),
            size,
            y: zeros(),
            y_memory: zeros(),
            lambda: zeros(),
            jacobian: Mat::zeros(size, nv),
            h_rows: vec![0.0; size * nv],
            jacobian_constant: false,
            offsets,
            q_work: vec![0.0; nq],
            v_work: vec![0.0; nv],
            h_dot: vec![0.0; size],
            has_h_dot: false,
            active: false,
            ds_edge: Default::default(),
        };
        let node = self.interaction_graph.add_node(interaction);
        if self.generations.len() <= node.index() {
            self.generations.resize(node.index() + 1, 0);
        }
        let id = InteractionId(node, self.model, self.generations[node.index()]);
        // Interaction-graph edges: one per system shared with an existing interaction.
        for &d in ds {
            let neighbours: Vec<InteractionId> = self.ds_graph.edges(d.0).map(|e| *e.weight()).collect();
            for other in neighbours {
                self.interaction_graph.add_edge(id.0, other.0, d);
            }
        }
        let edge = self.ds_graph.add_edge(ds[0].0, ds.last().expect("one or two systems").0, id);
        self.interaction_graph[id.0].ds_edge = edge;
        self.topology_version += 1;
        Ok(id)
    }

    /// Removes an interaction (between steps) and returns it.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`].
    pub fn remove_interaction(&mut self, id: InteractionId) -> Result<Interaction, KernelError> {
        self.interaction(id)?;
        let interaction =
            self.interaction_graph.remove_node(id.0).ok_or(KernelError::UnknownInteraction(id.index()))?;
        self.generations[id.index()] += 1;
        self.ds_graph.remove_edge(interaction.ds_edge);
        self.active.retain(|&a| a != id);
        self.topology_version += 1;
        Ok(interaction)
    }

    /// The dynamical system `id`.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`].
    pub fn ds(&self, id: DsId) -> Result<&dyn SecondOrderDs, KernelError> {
        if id.1 != self.model {
            return Err(KernelError::UnknownDs(id.index()));
        }
        self.ds_graph.node_weight(id.0).map(|b| &**b).ok_or(KernelError::UnknownDs(id.index()))
    }

    /// The dynamical system `id`, mutably.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`].
    pub fn ds_mut(&mut self, id: DsId) -> Result<&mut (dyn SecondOrderDs + 'static), KernelError> {
        if id.1 != self.model {
            return Err(KernelError::UnknownDs(id.index()));
        }
        self.ds_graph.node_weight_mut(id.0).map(|b| &mut **b).ok_or(KernelError::UnknownDs(id.index()))
    }

    /// The interaction `id`.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`].
    pub fn interaction(&self, id: InteractionId) -> Result<&Interaction, KernelError> {
        if id.1 != self.model || self.generations.get(id.index()) != Some(&id.2) {
            return Err(KernelError::UnknownInteraction(id.index()));
        }
        self.interaction_graph.node_weight(id.0).ok_or(KernelError::UnknownInteraction(id.index()))
    }

    /// Handles of all dynamical systems, in increasing index order.
    pub fn ds_ids(&self) -> impl Iterator<Item = DsId> + '_ {
        self.ds_graph.node_indices().map(|n| DsId(n, self.model))
    }

    /// Handles of all interactions (index set 0), in increasing index order.
    pub fn interaction_ids(&self) -> impl Iterator<Item = InteractionId> + '_ {
        self.interaction_graph.node_indices().map(|n| InteractionId(n, self.model, self.generations[n.index()]))
    }

    /// Number of dynamical systems.
    pub fn number_of_ds(&self) -> usize {
        self.ds_graph.node_count()
    }

    /// Number of interactions (the size of index set 0).
    pub fn number_of_interactions(&self) -> usize {
        self.interaction_graph.node_count()
    }

    /// Index set 1: the interactions of the last velocity-level problem, in the problem's order.
    pub fn active_interactions(&self) -> &[InteractionId] {
        &self.active
    }

    /// The interactions linked to the system `ds`.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`].
    pub fn interactions_of(&self, ds: DsId) -> Result<Vec<InteractionId>, KernelError> {
        self.ds(ds)?;
        Ok(self.ds_graph.edges(ds.0).map(|e| *e.weight()).collect())
    }

    /// The DS graph (nodes: systems, edges: interactions).
    pub fn ds_graph(&self) -> &StableUnGraph<Box<dyn SecondOrderDs>, InteractionId> {
        &self.ds_graph
    }

    /// The interaction graph (nodes: interactions, edges: shared systems).
    pub fn interaction_graph(&self) -> &StableUnGraph<Interaction, DsId> {
        &self.interaction_graph
    }

    /// Upper bound of DS indices (for per-system workspaces).
    pub(crate) fn ds_bound(&self) -> usize {
        petgraph::visit::NodeIndexable::node_bound(&self.ds_graph)
    }

    /// Upper bound of interaction indices.
    pub(crate) fn interaction_bound(&self) -> usize {
        petgraph::visit::NodeIndexable::node_bound(&self.interaction_graph)
    }

    pub(crate) fn interaction_mut(&mut self, id: InteractionId) -> &mut Interaction {
        &mut self.interaction_graph[id.0]
    }

    pub(crate) fn interaction_ref(&self, id: InteractionId) -> &Interaction {
        &self.interaction_graph[id.0]
    }

    /// The neighbours of `id` in the interaction graph with the shared system.
    pub(crate) fn linked_interactions(&self, id: InteractionId) -> impl Iterator<Item = (InteractionId, DsId)> + '_ {
        self.interaction_graph.edges(id.0).map(move |e| {
            let other = if e.source() == id.0 { e.target() } else { e.source() };
            (InteractionId(other, self.model, self.generations[other.index()]), *e.weight())
        })
    }

    /// Gathers the linked systems' positions and velocities into the interaction's workspaces.
    fn gather(&mut self, id: InteractionId) {
        let inter = &mut self.interaction_graph[id.0];
        let (mut iq, mut iv) = (0, 0);
        for &d in &inter.ds {
            let s = self.ds_graph[d.0].state();
            inter.q_work[iq..iq + s.q.len()].copy_from_slice(&s.q);
            inter.v_work[iv..iv + s.v.len()].copy_from_slice(&s.v);
            iq += s.q.len();
            iv += s.v.len();
        }
    }

    /// Recomputes the Jacobian `H` of interaction `id` at the current positions (once for a
    /// linear time-invariant relation).
    pub(crate) fn update_jacobian(&mut self, id: InteractionId, t: f64) -> Result<(), KernelError> {
        if self.interaction_graph[id.0].jacobian_constant {
            return Ok(());
        }
        self.gather(id);
        let inter = &mut self.interaction_graph[id.0];
        inter.jacobian.fill(0.0);
        inter.relation.jacobian(t, &inter.q_work, &mut inter.jacobian)?;
        let nv = inter.v_work.len();
        for i in 0..inter.size {
            for j in 0..nv {
                inter.h_rows[i * nv + j] = inter.jacobian[(i, j)];
            }
        }
        inter.jacobian_constant = inter.relation.is_linear_time_invariant();
        Ok(())
    }

    /// Computes `y[0] = h(q, t)` and `y[1] = H v + ∂h/∂t` of interaction `id` from the current
    /// state, with `H` at the current positions.
    pub(crate) fn update_output(&mut self, id: InteractionId, t: f64) -> Result<(), KernelError> {
        self.update_jacobian(id, t)?;
        self.gather(id);
        let inter = &mut self.interaction_graph[id.0];
        let Interaction { relation, y, h_rows, q_work, v_work, h_dot, has_h_dot, .. } = inter;
        let nv = v_work.len();
        relation.output(t, q_work, &mut y[0])?;
        *has_h_dot = relation.time_derivative(t, q_work, h_dot)?;
        for (i, yi) in y[1].iter_mut().enumerate() {
            let mut s = 0.0;
            for (j, vj) in v_work.iter().enumerate() {
                s += h_rows[i * nv + j] * vj;
            }
            if *has_h_dot {
                s += h_dot[i];
            }
            *yi = s;
        }
        Ok(())
    }

    /// Copies the outputs into their memories (beginning of a step).
    pub(crate) fn swap_output_memories(&mut self) {
        for inter in self.interaction_graph.node_weights_mut() {
            for level in 0..LEVELS {
                let Interaction { y, y_memory, .. } = inter;
                y_memory[level].copy_from_slice(&y[level]);
            }
        }
    }

    /// The handle of the interaction in slot `i`, when the slot is occupied.
    pub(crate) fn interaction_at(&self, i: usize) -> Option<InteractionId> {
        let node = NodeIndex::new(i);
        self.interaction_graph.contains_node(node).then(|| InteractionId(node, self.model, self.generations[i]))
    }

    /// The handle of the system in slot `i`, when the slot is occupied.
    pub(crate) fn ds_at(&self, i: usize) -> Option<DsId> {
        let node = NodeIndex::new(i);
        self.ds_graph.contains_node(node).then_some(DsId(node, self.model))
    }

    /// The system in slot `i` of the DS graph, when the slot is occupied.
    pub(crate) fn ds_slot_mut(&mut self, i: usize) -> Option<&mut Box<dyn SecondOrderDs>> {
        self.ds_graph.node_weight_mut(NodeIndex::new(i))
    }

    /// `p[1] += Σ_{α active} H_αᵀ λ_α[1]` on the systems of the active interactions.
    pub(crate) fn accumulate_inputs(&mut self) {
        for &id in &self.active {
            let inter = &self.interaction_graph[id.0];
            for (jj, &d) in inter.ds.iter().enumerate() {
                let off = inter.offsets[jj];
                let p = &mut self.ds_graph[d.0].state_mut().p[1];
                for (c, pc) in p.iter_mut().enumerate() {
                    let mut s = 0.0;
                    for (i, l) in inter.lambda[1].iter().enumerate() {
                        s += inter.h(i, off + c) * l;
                    }
                    *pc += s;
                }
            }
        }
    }
}
