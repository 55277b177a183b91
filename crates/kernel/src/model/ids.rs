//! Handles of the systems and interactions of a model.

use petgraph::stable_graph::NodeIndex;

/// Handle of a dynamical system (a node of the DS graph). It names its model too: a handle of
/// another [`Nsds`](super::Nsds) is refused with [`KernelError::UnknownDs`](crate::KernelError::UnknownDs).
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

impl InteractionId {
    /// The index of the node (dense: below the number of interactions ever linked).
    pub fn index(self) -> usize {
        self.0.index()
    }
}
