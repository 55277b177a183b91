//! The nonsmooth dynamical system: dynamical systems and interactions in two petgraph graphs,
//! and the index sets (Siconos' `NonSmoothDynamicalSystem` and `Topology`; Siconos documentation,
//! "Simulation component", section "Unitary Relations and Index Sets", and Siconos developer
//! documentation, section "OneStepNSProblem formalisation for several interactions").
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

use std::any::Any;

use faer::Mat;
use petgraph::stable_graph::{NodeIndex, StableUnGraph};

use super::ds::SecondOrderDs;
use super::first_order::FirstOrderDs;
use super::first_order_relation::FirstOrderRelation;
pub use super::ids::{DsId, InteractionId};
use super::interaction::{FirstOrderWork, Interaction, LEVELS, Linked, Relation};
use super::law::NonsmoothLaw;
use super::relation::LagrangianRelation;
use crate::KernelError;
use crate::error::{NonFiniteValue, StateQuantity};
use crate::linalg::copy_small;

/// Source of model identities for handles.
static NEXT_MODEL: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A dynamical system of the model: second order (Lagrangian, Newton–Euler) or first order.
pub enum DynamicalSystem {
    /// `q̇ = T(q) v`, `M(q) v̇ = F(t, q, v) + p`.
    SecondOrder(Box<dyn SecondOrderDs>),
    /// `M ẋ = f(x, t) + r`.
    FirstOrder(Box<dyn FirstOrderDs>),
}

impl DynamicalSystem {
    fn second(&self) -> Option<&dyn SecondOrderDs> {
        match self {
            DynamicalSystem::SecondOrder(d) => Some(&**d),
            DynamicalSystem::FirstOrder(_) => None,
        }
    }

    fn second_mut(&mut self) -> Option<&mut Box<dyn SecondOrderDs>> {
        match self {
            DynamicalSystem::SecondOrder(d) => Some(d),
            DynamicalSystem::FirstOrder(_) => None,
        }
    }

    fn first(&self) -> Option<&dyn FirstOrderDs> {
        match self {
            DynamicalSystem::FirstOrder(d) => Some(&**d),
            DynamicalSystem::SecondOrder(_) => None,
        }
    }

    fn first_mut(&mut self) -> Option<&mut Box<dyn FirstOrderDs>> {
        match self {
            DynamicalSystem::FirstOrder(d) => Some(d),
            DynamicalSystem::SecondOrder(_) => None,
        }
    }
}

/// Writes `H` of `relation` at positions `q` into `h_rows` (row-major), through
/// [`LagrangianRelation::jacobian_rows`] or, when the relation does not provide it, through
/// [`LagrangianRelation::jacobian`] into the scratch matrix `jacobian` (`m × nv`).
fn evaluate_jacobian(
    relation: &mut dyn LagrangianRelation,
    t: f64,
    q: &[f64],
    h_rows: &mut [f64],
    jacobian: &mut Mat<f64>,
) -> Result<(), KernelError> {
    if !relation.jacobian_rows(t, q, h_rows)? {
        jacobian.fill(0.0);
        relation.jacobian(t, q, jacobian)?;
        let (m, nv) = (jacobian.nrows(), jacobian.ncols());
        for j in 0..nv {
            for (i, h) in jacobian.col_as_slice(j)[..m].iter().enumerate() {
                h_rows[i * nv + j] = *h;
            }
        }
    }
    Ok(())
}

/// Interactions per batch of [`Nsds::update_lagrangian_outputs`].
const GATHER_BATCH: usize = 16;

/// `y[0] = h(q, t)`, `y[1] = H v + ∂h/∂t` and `H` (unless constant) of a Lagrangian interaction
/// from the gathered positions `q` and velocities `v` of its systems (first-order interactions
/// are left alone); `q` is kept for a relation with `∂h/∂t`.
fn lagrangian_output(inter: &mut Interaction, t: f64, q: &[f64], v: &[f64]) -> Result<(), KernelError> {
    let Interaction { relation, y, h_rows, jacobian, jacobian_constant, q_work, h_dot, has_h_dot, .. } = inter;
    let Relation::Lagrangian(relation) = relation else { return Ok(()) };
    if !*jacobian_constant {
        evaluate_jacobian(&mut **relation, t, q, h_rows, jacobian)?;
        *jacobian_constant = relation.is_linear_time_invariant();
    }
    relation.output(t, q, &mut y[0])?;
    *has_h_dot = relation.time_derivative(t, q, h_dot)?;
    if *has_h_dot {
        q_work.copy_from_slice(q);
    }
    // ẏ = H v + ∂h/∂t, summed over the columns in order, as `update_output` does.
    for (i, (yi, h_row)) in y[1].iter_mut().zip(h_rows.chunks_exact(v.len())).enumerate() {
        let mut s = 0.0;
        for (h, vj) in h_row.iter().zip(v) {
            s += h * vj;
        }
        if *has_h_dot {
            s += h_dot[i];
        }
        *yi = s;
    }
    Ok(())
}

/// `H` of the Lagrangian interaction at node `node` at the gathered positions `q` of its
/// systems (kept for a relation with `∂h/∂t`).
fn jacobian_at_positions(inter: &mut Interaction, node: NodeIndex, t: f64, q: &[f64]) -> Result<(), KernelError> {
    let Interaction { relation, h_rows, jacobian, jacobian_constant, q_work, has_h_dot, .. } = inter;
    let Relation::Lagrangian(relation) = relation else {
        return Err(KernelError::InvalidModel(format!(
            "interaction {} does not link second-order systems",
            node.index()
        )));
    };
    evaluate_jacobian(&mut **relation, t, q, h_rows, jacobian)?;
    *jacobian_constant = relation.is_linear_time_invariant();
    if *has_h_dot {
        q_work.copy_from_slice(q);
    }
    Ok(())
}

/// The index of the first NaN or infinity of `values`.
fn first_non_finite(values: &[f64]) -> Option<usize> {
    values.iter().position(|x| !x.is_finite())
}

/// An interaction links one system or two distinct ones.
fn check_linked_systems(ds: &[DsId]) -> Result<(), KernelError> {
    if ds.is_empty() || ds.len() > 2 {
        return Err(KernelError::InvalidModel(format!("an interaction links one or two systems, not {}", ds.len())));
    }
    if ds.len() == 2 && ds[0] == ds[1] {
        return Err(KernelError::InvalidModel("an interaction links two distinct systems".into()));
    }
    Ok(())
}

fn not_lagrangian(id: InteractionId) -> KernelError {
    KernelError::InvalidModel(format!("interaction {} does not link second-order systems", id.index()))
}

/// Dynamical systems, interactions, their graphs and index sets.
#[doc(alias = "NonSmoothDynamicalSystem")]
#[doc(alias = "Topology")]
pub struct Nsds {
    ds_graph: StableUnGraph<DynamicalSystem, InteractionId>,
    interaction_graph: StableUnGraph<Interaction, DsId>,
    /// Index set 1, in Siconos' order.
    pub(crate) active: Vec<InteractionId>,
    /// Incremented when a system or an interaction is added or removed.
    pub(crate) topology_version: u64,
    /// Bumped by [`Nsds::relation_mut`]: the outputs must be recomputed before the next step.
    pub(crate) relation_version: u64,
    /// Whether [`Nsds::set_priority`] was used: index set 1 is then sorted by priority.
    pub(crate) ordered: bool,
    /// Identity of this model in its handles.
    model: u32,
    /// Generation of each interaction slot (incremented when its interaction is removed).
    generations: Vec<u32>,
    /// Workspaces of [`Nsds::update_lagrangian_outputs`]: positions and velocities of the
    /// systems of a batch of interactions, and the interactions.
    scratch_q: Vec<f64>,
    scratch_v: Vec<f64>,
    scratch_nodes: Vec<NodeIndex>,
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
            relation_version: 0,
            ordered: false,
            model: NEXT_MODEL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            generations: Vec::new(),
            scratch_q: Vec::new(),
            scratch_v: Vec::new(),
            scratch_nodes: Vec::new(),
        }
    }

    /// Adds a dynamical system and returns its handle.
    pub fn add_ds(&mut self, ds: impl SecondOrderDs + 'static) -> DsId {
        self.add_boxed_ds(Box::new(ds))
    }

    /// Adds a boxed dynamical system and returns its handle.
    pub fn add_boxed_ds(&mut self, ds: Box<dyn SecondOrderDs>) -> DsId {
        self.topology_version += 1;
        DsId(self.ds_graph.add_node(DynamicalSystem::SecondOrder(ds)), self.model)
    }

    /// Adds a first-order dynamical system and returns its handle.
    pub fn add_first_order_ds(&mut self, ds: impl FirstOrderDs + 'static) -> DsId {
        self.topology_version += 1;
        DsId(self.ds_graph.add_node(DynamicalSystem::FirstOrder(Box::new(ds))), self.model)
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
        check_linked_systems(ds)?;
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
        let zeros = || std::array::from_fn::<_, LEVELS, _>(|_| smallvec::smallvec![0.0; size]);
        let interaction = Interaction {
            relation: Relation::Lagrangian(relation),
            first_order: None,
            law,
            ds: Linked::from_slice(ds),
            size,
            y: zeros(),
            y_memory: zeros(),
            lambda: zeros(),
            jacobian: Mat::zeros(size, nv),
            h_rows: smallvec::smallvec![0.0; size * nv],
            jacobian_constant: false,
            offsets: Linked::from_slice(&offsets),
            q_work: vec![0.0; nq],
            v_work: vec![0.0; nv],
            h_dot: vec![0.0; size],
            has_h_dot: false,
            active: false,
            priority: 0.0,
            ds_edge: Default::default(),
        };
        Ok(self.insert_interaction(interaction))
    }

    /// Links first-order systems `ds` (one or two distinct ones) through an interaction made of
    /// `relation` and `law` (a first-order law: complementarity, relay, equality, mixed). The
    /// relation sees the systems' states concatenated in the order of `ds`.
    ///
    /// # Errors
    /// As [`Nsds::link`]; [`KernelError::InvalidModel`] when a system is of second order.
    pub fn link_first_order(
        &mut self,
        relation: impl FirstOrderRelation + 'static,
        law: NonsmoothLaw,
        ds: &[DsId],
    ) -> Result<InteractionId, KernelError> {
        check_linked_systems(ds)?;
        let mut offsets = Vec::with_capacity(ds.len());
        let mut n = 0;
        for &d in ds {
            offsets.push(n);
            n += self.first_order_ds(d)?.size();
        }
        let m = relation.size();
        match law.size() {
            Some(law_size) => crate::error::check_len("nonsmooth law size (relation size)", m, law_size)?,
            None => {
                return Err(KernelError::InvalidModel(format!(
                    "the law {law:?} is an impact law, for second-order systems"
                )));
            }
        }
        if let Some(cols) = relation.state_size() {
            crate::error::check_len("relation state size (size of the linked systems)", n, cols)?;
        }
        let zeros = || std::array::from_fn::<_, LEVELS, _>(|_| smallvec::smallvec![0.0; m]);
        let interaction = Interaction {
            relation: Relation::FirstOrder(Box::new(relation)),
            first_order: Some(Box::new(FirstOrderWork {
                c: Mat::zeros(m, n),
                d: Mat::zeros(m, m),
                k: Mat::zeros(n, n),
                b: Mat::zeros(n, m),
                constant: false,
                h_alpha: vec![0.0; m],
                g_alpha: vec![0.0; n],
                x_work: vec![0.0; n],
                x_alpha: vec![0.0; n],
                lambda_alpha: vec![0.0; m],
            })),
            law,
            ds: Linked::from_slice(ds),
            size: m,
            y: zeros(),
            y_memory: zeros(),
            lambda: zeros(),
            jacobian: Mat::zeros(0, 0),
            h_rows: smallvec::SmallVec::new(),
            jacobian_constant: false,
            offsets: Linked::from_slice(&offsets),
            q_work: Vec::new(),
            v_work: Vec::new(),
            h_dot: Vec::new(),
            has_h_dot: false,
            active: false,
            priority: 0.0,
            ds_edge: Default::default(),
        };
        Ok(self.insert_interaction(interaction))
    }

    /// Adds `interaction` to both graphs.
    fn insert_interaction(&mut self, interaction: Interaction) -> InteractionId {
        let ds = interaction.ds.clone();
        let node = self.interaction_graph.add_node(interaction);
        if self.generations.len() <= node.index() {
            self.generations.resize(node.index() + 1, 0);
        }
        let id = InteractionId(node, self.model, self.generations[node.index()]);
        // Interaction-graph edges: one per system shared with an existing interaction.
        for &d in &ds {
            let neighbours: Vec<InteractionId> = self.ds_graph.edges(d.0).map(|e| *e.weight()).collect();
            for other in neighbours {
                self.interaction_graph.add_edge(id.0, other.0, d);
            }
        }
        let edge = self.ds_graph.add_edge(ds[0].0, ds.last().expect("one or two systems").0, id);
        self.interaction_graph[id.0].ds_edge = edge;
        self.topology_version += 1;
        id
    }

    /// Removes an interaction (between steps) and returns it.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`].
    pub fn remove_interaction(&mut self, id: InteractionId) -> Result<Interaction, KernelError> {
        self.interaction(id)?;
        let interaction =
            self.interaction_graph.remove_node(id.0).ok_or_else(|| KernelError::UnknownInteraction(id.index()))?;
        self.generations[id.index()] += 1;
        self.ds_graph.remove_edge(interaction.ds_edge);
        if interaction.active {
            self.active.retain(|&a| a != id);
        }
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
        let node = self.ds_graph.node_weight(id.0).ok_or_else(|| KernelError::UnknownDs(id.index()))?;
        node.second().ok_or_else(|| KernelError::InvalidModel(format!("system {} is of first order", id.index())))
    }

    /// The dynamical system `id`, mutably.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`].
    pub fn ds_mut(&mut self, id: DsId) -> Result<&mut (dyn SecondOrderDs + 'static), KernelError> {
        if id.1 != self.model {
            return Err(KernelError::UnknownDs(id.index()));
        }
        let node = self.ds_graph.node_weight_mut(id.0).ok_or_else(|| KernelError::UnknownDs(id.index()))?;
        match node {
            DynamicalSystem::SecondOrder(d) => Ok(&mut **d),
            DynamicalSystem::FirstOrder(_) => {
                Err(KernelError::InvalidModel(format!("system {} is of first order", id.index())))
            }
        }
    }

    /// The first-order dynamical system `id`.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`]; [`KernelError::InvalidModel`] for a second-order system.
    pub fn first_order_ds(&self, id: DsId) -> Result<&dyn FirstOrderDs, KernelError> {
        if id.1 != self.model {
            return Err(KernelError::UnknownDs(id.index()));
        }
        let node = self.ds_graph.node_weight(id.0).ok_or_else(|| KernelError::UnknownDs(id.index()))?;
        node.first().ok_or_else(|| KernelError::InvalidModel(format!("system {} is of second order", id.index())))
    }

    /// The first-order dynamical system `id`, mutably.
    ///
    /// # Errors
    /// [`KernelError::UnknownDs`]; [`KernelError::InvalidModel`] for a second-order system.
    pub fn first_order_ds_mut(&mut self, id: DsId) -> Result<&mut (dyn FirstOrderDs + 'static), KernelError> {
        if id.1 != self.model {
            return Err(KernelError::UnknownDs(id.index()));
        }
        let node = self.ds_graph.node_weight_mut(id.0).ok_or_else(|| KernelError::UnknownDs(id.index()))?;
        match node {
            DynamicalSystem::FirstOrder(d) => Ok(&mut **d),
            DynamicalSystem::SecondOrder(_) => {
                Err(KernelError::InvalidModel(format!("system {} is of second order", id.index())))
            }
        }
    }

    /// The interaction `id`.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`].
    pub fn interaction(&self, id: InteractionId) -> Result<&Interaction, KernelError> {
        if id.1 != self.model || self.generations.get(id.index()) != Some(&id.2) {
            return Err(KernelError::UnknownInteraction(id.index()));
        }
        self.interaction_graph.node_weight(id.0).ok_or_else(|| KernelError::UnknownInteraction(id.index()))
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
        if ds.1 != self.model || !self.ds_graph.contains_node(ds.0) {
            return Err(KernelError::UnknownDs(ds.index()));
        }
        Ok(self.ds_graph.edges(ds.0).map(|e| *e.weight()).collect())
    }

    /// The DS graph (nodes: systems, edges: interactions).
    pub fn ds_graph(&self) -> &StableUnGraph<DynamicalSystem, InteractionId> {
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

    /// The first non-finite value of the systems' states, in index order: `q` then `v` of a
    /// second-order system, `x` of a first-order one (one pass over the systems, reading each
    /// vector once).
    pub(crate) fn first_non_finite_state(&self) -> Option<NonFiniteValue> {
        use petgraph::visit::IntoNodeReferences;
        for (node, system) in self.ds_graph.node_references() {
            let found = match system {
                DynamicalSystem::SecondOrder(d) => {
                    let s = d.state();
                    first_non_finite(&s.q)
                        .map(|c| (StateQuantity::Position, c))
                        .or_else(|| first_non_finite(&s.v).map(|c| (StateQuantity::Velocity, c)))
                }
                DynamicalSystem::FirstOrder(d) => first_non_finite(&d.state().x).map(|c| (StateQuantity::State, c)),
            };
            if let Some((quantity, component)) = found {
                return Some(NonFiniteValue::System { ds: node.index(), quantity, component });
            }
        }
        None
    }

    /// The first non-finite component of `λ[level]` over the interactions `ids`, in their order
    /// (an interaction removed since the list was made is skipped).
    pub(crate) fn first_non_finite_multiplier(&self, ids: &[InteractionId], level: usize) -> Option<NonFiniteValue> {
        ids.iter().find_map(|&id| {
            let inter = self.interaction_graph.node_weight(id.0)?;
            let component = first_non_finite(&inter.lambda[level])?;
            Some(NonFiniteValue::Multiplier { interaction: id.index(), level, component })
        })
    }

    /// Gathers the linked systems' positions and velocities into the interaction's workspaces.
    fn gather(&mut self, id: InteractionId) {
        let inter = &mut self.interaction_graph[id.0];
        let (mut iq, mut iv) = (0, 0);
        for &d in &inter.ds {
            let s = self.ds_graph[d.0].second().expect("a Lagrangian interaction links second-order systems").state();
            copy_small(&mut inter.q_work[iq..iq + s.q.len()], &s.q);
            copy_small(&mut inter.v_work[iv..iv + s.v.len()], &s.v);
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
        self.jacobian_at_gathered(id, t)
    }

    /// [`Nsds::update_jacobian`] at the positions already gathered in the interaction's
    /// workspace (nothing for a constant Jacobian already evaluated).
    fn jacobian_at_gathered(&mut self, id: InteractionId, t: f64) -> Result<(), KernelError> {
        let inter = &mut self.interaction_graph[id.0];
        if inter.jacobian_constant {
            return Ok(());
        }
        let Interaction { relation, q_work, .. } = inter;
        let Relation::Lagrangian(relation) = relation else {
            return Err(not_lagrangian(id));
        };
        let (h_rows, jacobian) = (&mut inter.h_rows, &mut inter.jacobian);
        evaluate_jacobian(&mut **relation, t, q_work, h_rows, jacobian)?;
        inter.jacobian_constant = relation.is_linear_time_invariant();
        Ok(())
    }

    /// Computes `y[0] = h(q, t)` and `y[1] = H v + ∂h/∂t` of interaction `id` from the current
    /// state, with `H` at the current positions.
    pub(crate) fn update_output(&mut self, id: InteractionId, t: f64) -> Result<(), KernelError> {
        self.gather(id);
        self.jacobian_at_gathered(id, t)?;
        let inter = &mut self.interaction_graph[id.0];
        let Interaction { relation, y, h_rows, q_work, v_work, h_dot, has_h_dot, .. } = inter;
        let Relation::Lagrangian(relation) = relation else {
            return Err(not_lagrangian(id));
        };
        let nv = v_work.len();
        relation.output(t, q_work, &mut y[0])?;
        *has_h_dot = relation.time_derivative(t, q_work, h_dot)?;
        for (i, (yi, h_row)) in y[1].iter_mut().zip(h_rows.chunks_exact(nv)).enumerate() {
            let mut s = 0.0;
            for (h, vj) in h_row.iter().zip(v_work.iter()) {
                s += h * vj;
            }
            if *has_h_dot {
                s += h_dot[i];
            }
            *yi = s;
        }
        Ok(())
    }

    /// [`Nsds::update_output`] of every interaction of second-order systems, by slot.
    ///
    /// The outputs and `H` are those of [`Nsds::update_output`]; the positions and velocities
    /// are read from the systems without being kept in the interactions' workspaces (the
    /// positions are kept for a relation with `∂h/∂t`, which the velocity-level problem
    /// re-evaluates at them). The interactions go by batches whose systems' states are
    /// gathered first: these independent reads, scattered in memory, then overlap.
    pub(crate) fn update_lagrangian_outputs(&mut self, t: f64) -> Result<(), KernelError> {
        let mut nodes = std::mem::take(&mut self.scratch_nodes);
        nodes.clear();
        nodes.extend(self.interaction_graph.node_indices().filter(|&n| !self.interaction_graph[n].is_first_order()));
        let result = nodes.chunks(GATHER_BATCH).enumerate().try_for_each(|(c, chunk)| {
            // The hints pay for themselves only when later batches are there to hint.
            if nodes.len() > GATHER_BATCH {
                self.prefetch_batches(&nodes, c, true);
            }
            let (ends_q, ends_v) = self.gather_batch(chunk, true);
            let Nsds { interaction_graph, scratch_q, scratch_v, .. } = self;
            let (mut q0, mut v0) = (0, 0);
            for (k, &node) in chunk.iter().enumerate() {
                let (q, v) = (&scratch_q[q0..ends_q[k]], &scratch_v[v0..ends_v[k]]);
                (q0, v0) = (ends_q[k], ends_v[k]);
                lagrangian_output(&mut interaction_graph[node], t, q, v)?;
            }
            Ok(())
        });
        self.scratch_nodes = nodes;
        result
    }

    /// Re-evaluates the Jacobians `H` of the interactions `ids` at the current positions of their
    /// systems (the positions are kept for a relation with `∂h/∂t`), in the order of `ids`, by
    /// batches as [`Nsds::update_lagrangian_outputs`] (constant Jacobians are skipped).
    pub(crate) fn update_jacobians_at_positions(&mut self, ids: &[InteractionId], t: f64) -> Result<(), KernelError> {
        let mut nodes = std::mem::take(&mut self.scratch_nodes);
        nodes.clear();
        nodes.extend(ids.iter().map(|id| id.0).filter(|&n| !self.interaction_graph[n].jacobian_constant));
        let result = nodes.chunks(GATHER_BATCH).enumerate().try_for_each(|(c, chunk)| {
            if nodes.len() > GATHER_BATCH {
                self.prefetch_batches(&nodes, c, false);
            }
            let (ends_q, _) = self.gather_batch(chunk, false);
            let Nsds { interaction_graph, scratch_q, .. } = self;
            let mut q0 = 0;
            for (k, &node) in chunk.iter().enumerate() {
                let q = &scratch_q[q0..ends_q[k]];
                q0 = ends_q[k];
                jacobian_at_positions(&mut interaction_graph[node], node, t, q)?;
            }
            Ok(())
        });
        self.scratch_nodes = nodes;
        result
    }

    /// The cache hints of the batched passes ([`crate::cache::prefetch`]), before batch `c` of
    /// `nodes` (batches of [`GATHER_BATCH`]): the lines of the interactions two batches ahead,
    /// the relations (every line of each boxed object, [`crate::cache::prefetch_object`]) and
    /// the state records of the systems of the next batch (whose interactions' lines were hinted
    /// one batch earlier), and the positions (and with `velocities`, the velocities) of the
    /// systems of batch `c` (whose records were hinted one batch earlier). Each level's address
    /// is read from the level before, which has arrived by then.
    fn prefetch_batches(&self, nodes: &[NodeIndex], c: usize, velocities: bool) {
        use crate::cache::prefetch;
        let batch = |b: usize| nodes.chunks(GATHER_BATCH).nth(b).unwrap_or(&[]);
        for &node in batch(c + 2) {
            self.interaction_graph[node].prefetch_all();
        }
        for &node in batch(c + 1) {
            let inter = &self.interaction_graph[node];
            if let Relation::Lagrangian(relation) = &inter.relation {
                crate::cache::prefetch_object(relation.as_ref());
            }
            for &d in &inter.ds {
                if let Some(ds) = self.ds_graph[d.0].second() {
                    prefetch(ds.state());
                }
            }
        }
        for &node in batch(c) {
            for &d in &self.interaction_graph[node].ds {
                if let Some(ds) = self.ds_graph[d.0].second() {
                    let s = ds.state();
                    for values in [&s.q, &s.v].into_iter().take(if velocities { 2 } else { 1 }) {
                        crate::cache::prefetch_ends(values);
                    }
                }
            }
        }
    }

    /// Gathers the positions (and with `velocities`, the velocities) of the systems of the
    /// interactions `chunk` into `scratch_q` (`scratch_v`), one interaction after the other;
    /// returns where each interaction's data ends.
    fn gather_batch(
        &mut self,
        chunk: &[NodeIndex],
        velocities: bool,
    ) -> ([usize; GATHER_BATCH], [usize; GATHER_BATCH]) {
        let Nsds { interaction_graph, ds_graph, scratch_q, scratch_v, .. } = self;
        scratch_q.clear();
        scratch_v.clear();
        let (mut ends_q, mut ends_v) = ([0; GATHER_BATCH], [0; GATHER_BATCH]);
        for (k, &node) in chunk.iter().enumerate() {
            for &d in &interaction_graph[node].ds {
                let s = ds_graph[d.0].second().expect("a Lagrangian interaction links second-order systems").state();
                scratch_q.extend_from_slice(&s.q);
                if velocities {
                    scratch_v.extend_from_slice(&s.v);
                }
            }
            (ends_q[k], ends_v[k]) = (scratch_q.len(), scratch_v.len());
        }
        (ends_q, ends_v)
    }

    /// Copies the outputs into their memories (beginning of a step).
    pub(crate) fn swap_output_memories(&mut self) {
        for inter in self.interaction_graph.node_weights_mut() {
            inter.swap_output_memories();
        }
    }

    /// The relation of a Lagrangian interaction, mutably (to update its data between steps,
    /// e.g. the contact points of a detection; [`Nsds::relation_mut_as`] gives it with its
    /// type). The next step recomputes every output before its activation test.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`] for a stale or foreign handle;
    /// [`KernelError::InvalidModel`] for a first-order interaction.
    pub fn relation_mut(&mut self, id: InteractionId) -> Result<&mut dyn LagrangianRelation, KernelError> {
        self.interaction(id)?;
        self.relation_version += 1;
        let inter = &mut self.interaction_graph[id.0];
        inter.jacobian_constant = false;
        match &mut inter.relation {
            Relation::Lagrangian(r) => Ok(r.as_mut()),
            Relation::FirstOrder(_) => Err(not_lagrangian(id)),
        }
    }

    /// [`Nsds::relation_mut`] as the relation's own type `R`, e.g. a contact relation whose
    /// points a detection updates. Nothing changes when the call fails.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`] for a stale or foreign handle;
    /// [`KernelError::InvalidModel`] for a first-order interaction or a relation of another
    /// type than `R`.
    pub fn relation_mut_as<R: LagrangianRelation>(&mut self, id: InteractionId) -> Result<&mut R, KernelError> {
        self.interaction(id)?;
        let inter = &mut self.interaction_graph[id.0];
        let Relation::Lagrangian(relation) = &mut inter.relation else {
            return Err(not_lagrangian(id));
        };
        // `relation.as_mut()`, not the box: a `Box<dyn LagrangianRelation>` is `Any` too.
        let relation: &mut dyn Any = relation.as_mut();
        let Some(relation) = relation.downcast_mut::<R>() else {
            return Err(KernelError::InvalidModel(format!(
                "the relation of interaction {} is not a {}",
                id.index(),
                std::any::type_name::<R>()
            )));
        };
        inter.jacobian_constant = false;
        self.relation_version += 1;
        Ok(relation)
    }

    /// Sets the rank of an interaction in index set 1, which then lists the interactions by
    /// increasing priority (ties in activation order) instead of activation order. The order of
    /// the unknowns is the Gauss–Seidel sweep order of NSGS-type solvers: for a pile under
    /// gravity, sweeping the contacts from the top down (priority `−height`) passes the weight
    /// of the upper layers down within one sweep.
    ///
    /// # Errors
    /// [`KernelError::UnknownInteraction`] for a stale or foreign handle;
    /// [`KernelError::NonFinite`] for a NaN priority.
    pub fn set_priority(&mut self, id: InteractionId, priority: f64) -> Result<(), KernelError> {
        self.interaction(id)?;
        if priority.is_nan() {
            return Err(KernelError::NonFinite { what: "interaction priority" });
        }
        self.ordered = true;
        self.interaction_graph[id.0].priority = priority;
        Ok(())
    }

    /// A cache hint only: asks for the lines of interaction `id`'s record that
    /// [`Nsds::relation_mut`] and [`Nsds::set_priority`] read and write.
    ///
    /// For a pass that updates many relations in a scattered order (a contact detection):
    /// issued a few interactions ahead, the misses overlap the current work. Nothing for a
    /// stale handle.
    #[doc(hidden)]
    pub fn prefetch_interaction(&self, id: InteractionId) {
        use crate::cache::prefetch;
        if let Ok(inter) = self.interaction(id) {
            prefetch(&inter.relation);
            prefetch(&inter.jacobian_constant);
            prefetch(&inter.priority);
        }
    }

    /// A cache hint only: asks for every line of interaction `id`'s relation object.
    ///
    /// It reads the interaction's record: hint the record first
    /// ([`Nsds::prefetch_interaction`]), a few interactions earlier. Nothing for a stale handle
    /// or a first-order interaction.
    #[doc(hidden)]
    pub fn prefetch_relation(&self, id: InteractionId) {
        if let Ok(Interaction { relation: Relation::Lagrangian(relation), .. }) = self.interaction(id) {
            crate::cache::prefetch_object(relation.as_ref());
        }
    }

    /// The handle of the interaction in slot `i`, when the slot is occupied.
    pub(crate) fn interaction_at(&self, i: usize) -> Option<InteractionId> {
        let node = NodeIndex::new(i);
        self.interaction_graph.contains_node(node).then(|| InteractionId(node, self.model, self.generations[i]))
    }

    /// The handle of the system in slot `i`, known to be occupied (a slot of a linked system).
    pub(crate) fn ds_id_at(&self, i: usize) -> DsId {
        DsId(NodeIndex::new(i), self.model)
    }

    /// The handle of the system in slot `i`, when the slot is occupied.
    pub(crate) fn ds_at(&self, i: usize) -> Option<DsId> {
        let node = NodeIndex::new(i);
        self.ds_graph.contains_node(node).then_some(DsId(node, self.model))
    }

    /// The system in slot `i` of the DS graph, when the slot is occupied.
    pub(crate) fn ds_slot_mut(&mut self, i: usize) -> Option<&mut Box<dyn SecondOrderDs>> {
        self.ds_graph.node_weight_mut(NodeIndex::new(i)).and_then(DynamicalSystem::second_mut)
    }

    /// The second-order system in slot `i` of the DS graph, when the slot holds one.
    fn second_order_at(&self, i: usize) -> Option<&dyn SecondOrderDs> {
        self.ds_graph.node_weight(NodeIndex::new(i)).and_then(DynamicalSystem::second)
    }

    /// The cache hints for the state record of the second-order system in slot `i` (every
    /// line of it; nothing for another slot), the first level of [`Nsds::prefetch_input_at`]'s
    /// and [`Nsds::prefetch_vectors_at`]'s two.
    pub(crate) fn prefetch_state_at(&self, i: usize) {
        use crate::cache::prefetch;
        if let Some(ds) = self.second_order_at(i) {
            let s = ds.state();
            prefetch(&s.q);
            prefetch(&s.v);
            prefetch(&s.q_memory);
            prefetch(&s.v_memory);
            prefetch(&s.p);
            prefetch(&s.p[2]);
            prefetch(&s.forces_memory);
        }
    }

    /// The cache hints for the vectors the integrators' passes over the systems read and write
    /// (`q`, `v`, their memories, `p[1]`, the forces' memory) of the second-order system in
    /// slot `i` (nothing for another slot). It reads the system's state record: hint that
    /// first ([`Nsds::prefetch_state_at`]), some systems earlier.
    pub(crate) fn prefetch_vectors_at(&self, i: usize) {
        use crate::cache::prefetch_ends;
        if let Some(ds) = self.second_order_at(i) {
            let s = ds.state();
            for values in [&s.q, &s.v, &s.q_memory, &s.v_memory, &s.p[1], &s.forces_memory] {
                prefetch_ends(values);
            }
        }
    }

    /// The cache hints for the input `p[level]` of the second-order system in slot `i`
    /// (nothing for another slot). It reads the system's state record: hint that first
    /// ([`Nsds::prefetch_state_at`]), some items earlier.
    pub(crate) fn prefetch_input_at(&self, i: usize, level: usize) {
        if let Some(ds) = self.second_order_at(i) {
            crate::cache::prefetch_ends(&ds.state().p[level]);
        }
    }

    /// The first-order system in slot `i` of the DS graph, when the slot holds one.
    pub(crate) fn first_order_slot_mut(&mut self, i: usize) -> Option<&mut Box<dyn FirstOrderDs>> {
        self.ds_graph.node_weight_mut(NodeIndex::new(i)).and_then(DynamicalSystem::first_mut)
    }

    /// `p[level] += Σ_{α ∈ ids} H_αᵀ λ_α[level]` on the systems of the interactions `ids`.
    pub(crate) fn accumulate_inputs_at(&mut self, ids: &[InteractionId], level: usize) {
        for &id in ids {
            let inter = &self.interaction_graph[id.0];
            let nv = inter.v_work.len();
            let lambda = &inter.lambda[level];
            for (jj, &d) in inter.ds.iter().enumerate() {
                let off = inter.offsets[jj];
                let system =
                    self.ds_graph[d.0].second_mut().expect("a Lagrangian interaction links second-order systems");
                let p = &mut system.state_mut().p[level];
                let h = &inter.h_rows[off..];
                for (c, pc) in p.iter_mut().enumerate() {
                    let mut s = 0.0;
                    for (i, l) in lambda.iter().enumerate() {
                        s += h[i * nv + c] * l;
                    }
                    *pc += s;
                }
            }
        }
    }

    /// Gathers the current states of the systems of first-order interaction `id` into its
    /// `x_work`.
    fn gather_first_order(&mut self, id: InteractionId) {
        let inter = &mut self.interaction_graph[id.0];
        let work = inter.first_order.as_mut().expect("a first-order interaction");
        let mut off = 0;
        for &d in &inter.ds {
            let x = &self.ds_graph[d.0].first().expect("a first-order interaction links first-order systems").state().x;
            work.x_work[off..off + x.len()].copy_from_slice(x);
            off += x.len();
        }
    }

    /// `y[0] = h(x, λ[0], t)` of first-order interaction `id` at the current states.
    pub(crate) fn first_order_output(&mut self, id: InteractionId, t: f64) -> Result<(), KernelError> {
        self.gather_first_order(id);
        let inter = &mut self.interaction_graph[id.0];
        let work = inter.first_order.as_ref().expect("a first-order interaction");
        let Relation::FirstOrder(relation) = &mut inter.relation else { unreachable!("first-order relation") };
        let [y0, ..] = &mut inter.y;
        relation.output(t, &work.x_work, &inter.lambda[0], y0)
    }

    /// Linearizes first-order interaction `id` at the current states and `λ[0]`: `x^α`, `λ^α`,
    /// `h(x^α, λ^α)`, `g(x^α, λ^α)` and the Jacobians `C, D, K, B` (once for time-invariant
    /// relations).
    pub(crate) fn linearize_first_order(&mut self, id: InteractionId, t: f64) -> Result<(), KernelError> {
        self.gather_first_order(id);
        let inter = &mut self.interaction_graph[id.0];
        let work = inter.first_order.as_mut().expect("a first-order interaction");
        let Relation::FirstOrder(relation) = &mut inter.relation else { unreachable!("first-order relation") };
        work.x_alpha.copy_from_slice(&work.x_work);
        work.lambda_alpha.copy_from_slice(&inter.lambda[0]);
        if !work.constant {
            work.c.fill(0.0);
            work.d.fill(0.0);
            relation.output_jacobians(t, &work.x_alpha, &work.lambda_alpha, &mut work.c, &mut work.d)?;
            work.k.fill(0.0);
            work.b.fill(0.0);
            relation.input_jacobians(t, &work.x_alpha, &work.lambda_alpha, &mut work.k, &mut work.b)?;
            work.constant = relation.is_time_invariant();
        }
        relation.output(t, &work.x_alpha, &work.lambda_alpha, &mut work.h_alpha)?;
        relation.input(t, &work.x_alpha, &work.lambda_alpha, &mut work.g_alpha)?;
        Ok(())
    }

    /// `r = Σ_α g_α` on every first-order system: `B λ` for linear relations, the linearized
    /// `g(x^α, λ^α) + B(λ − λ^α)` otherwise (the Newton linearization of Euler–Moreau).
    pub(crate) fn accumulate_first_order_inputs(&mut self, ids: &[InteractionId]) {
        for node in self.ds_graph.node_weights_mut() {
            if let DynamicalSystem::FirstOrder(d) = node {
                d.state_mut().r.fill(0.0);
            }
        }
        for &id in ids {
            let inter = &self.interaction_graph[id.0];
            let work = inter.first_order.as_ref().expect("a first-order interaction");
            let Relation::FirstOrder(relation) = &inter.relation else { unreachable!("first-order relation") };
            let linear = relation.kind() == super::first_order_relation::FirstOrderRelationKind::Linear;
            let lambda = &inter.lambda[0];
            let mut off = 0;
            for &d in &inter.ds {
                let system = match &mut self.ds_graph[d.0] {
                    DynamicalSystem::FirstOrder(s) => s,
                    DynamicalSystem::SecondOrder(_) => unreachable!("first-order systems"),
                };
                let r = &mut system.state_mut().r;
                for (c, rc) in r.iter_mut().enumerate() {
                    let row = off + c;
                    let mut s = 0.0;
                    if linear {
                        for (l, lv) in lambda.iter().enumerate() {
                            s += work.b[(row, l)] * lv;
                        }
                    } else {
                        for (l, lv) in lambda.iter().enumerate() {
                            s += work.b[(row, l)] * (lv - work.lambda_alpha[l]);
                        }
                        s += work.g_alpha[row];
                    }
                    *rc += s;
                }
                off += r.len();
            }
        }
    }

    /// `Σ_α K_α` per first-order system slot, for the relations with a `K` (None elsewhere).
    pub(crate) fn first_order_k_terms(&self, ids: &[InteractionId]) -> Vec<Option<Mat<f64>>> {
        let mut out: Vec<Option<Mat<f64>>> = vec![None; self.ds_bound()];
        for &id in ids {
            let inter = &self.interaction_graph[id.0];
            let Relation::FirstOrder(relation) = &inter.relation else { continue };
            if relation.kind() != super::first_order_relation::FirstOrderRelationKind::NonLinear {
                continue;
            }
            let work = inter.first_order.as_ref().expect("a first-order interaction");
            let mut off = 0;
            for &d in &inter.ds {
                let n = self.ds_graph[d.0].first().expect("first-order systems").size();
                let slot = out[d.index()].get_or_insert_with(|| Mat::zeros(n, n));
                for c in 0..n {
                    for r in 0..n {
                        slot[(r, c)] += work.k[(off + r, off + c)];
                    }
                }
                off += n;
            }
        }
        out
    }

    /// `g(x^α, λ^α) − B λ^α`, the slice of system number `j` of interaction `id` (for the
    /// partial state of nonlinear relations).
    pub(crate) fn first_order_partial_term(&self, id: InteractionId, j: usize) -> Vec<f64> {
        let inter = &self.interaction_graph[id.0];
        let work = inter.first_order.as_ref().expect("a first-order interaction");
        let off: usize = inter.ds[..j].iter().map(|&d| self.ds_graph[d.0].first().expect("first order").size()).sum();
        let n = self.ds_graph[inter.ds[j].0].first().expect("first order").size();
        (0..n)
            .map(|c| {
                let row = off + c;
                let bl: f64 = (0..inter.size).map(|l| work.b[(row, l)] * work.lambda_alpha[l]).sum();
                work.g_alpha[row] - bl
            })
            .collect()
    }

    /// Newton residuals of the relations of first-order interactions `ids`, after
    /// [`Nsds::linearize_first_order`] at the new iterate: `max_DS ‖r − Σ_α g_α(x, λ)‖₂` and
    /// `max_α ‖y_lin − h(x, λ)‖₂`, `y_lin` being the one-step problem's `w` (Siconos'
    /// `_newtonResiduRMax` and `_newtonResiduYMax`).
    pub(crate) fn first_order_relation_residuals(&self, ids: &[InteractionId], y_lin: &[Vec<f64>]) -> (f64, f64) {
        let mut sums: Vec<Option<Vec<f64>>> = vec![None; self.ds_bound()];
        let mut residual_y = 0.0f64;
        for (k, &id) in ids.iter().enumerate() {
            let inter = &self.interaction_graph[id.0];
            let work = inter.first_order.as_ref().expect("a first-order interaction");
            let mut off = 0;
            for &d in &inter.ds {
                let n = self.ds_graph[d.0].first().expect("first-order systems").size();
                let sum = sums[d.index()].get_or_insert_with(|| vec![0.0; n]);
                for (c, sc) in sum.iter_mut().enumerate() {
                    *sc += work.g_alpha[off + c];
                }
                off += n;
            }
            if let Some(y) = y_lin.get(k) {
                let e: f64 = y.iter().zip(&work.h_alpha).map(|(a, b)| (a - b) * (a - b)).sum();
                residual_y = residual_y.max(e.sqrt());
            }
        }
        let mut residual_r = 0.0f64;
        for (i, sum) in sums.iter().enumerate() {
            if let (Some(sum), Some(node)) = (sum, self.ds_graph.node_weight(NodeIndex::new(i))) {
                let r = &node.first().expect("first-order systems").state().r;
                let e: f64 = r.iter().zip(sum).map(|(a, b)| (a - b) * (a - b)).sum();
                residual_r = residual_r.max(e.sqrt());
            }
        }
        (residual_r, residual_y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LagrangianLinearTids, LagrangianLinearTir, LagrangianScleronomousR};

    #[test]
    fn a_relation_is_given_with_its_own_type_and_only_with_it() -> Result<(), KernelError> {
        let mut nsds = Nsds::new();
        let ball = nsds.add_ds(LagrangianLinearTids::new(vec![1.0], vec![0.0], faer::mat![[1.0]])?);
        let id = nsds.link(LagrangianLinearTir::new(faer::mat![[1.0]])?, NonsmoothLaw::newton_impact(0.5)?, &[ball])?;
        let version = nsds.relation_version;

        let wrong = nsds.relation_mut_as::<LagrangianScleronomousR>(id);
        assert!(matches!(wrong, Err(KernelError::InvalidModel(ref m)) if m.contains("LagrangianScleronomousR")));
        assert_eq!(nsds.relation_version, version, "a failed call changes nothing");

        let relation = nsds.relation_mut_as::<LagrangianLinearTir>(id)?;
        assert_eq!(relation.h().nrows(), 1);
        assert_eq!(nsds.relation_version, version + 1);

        nsds.remove_interaction(id)?;
        assert!(matches!(nsds.relation_mut_as::<LagrangianLinearTir>(id), Err(KernelError::UnknownInteraction(_))));
        Ok(())
    }
}
