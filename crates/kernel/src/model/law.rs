//! Nonsmooth laws: the set-valued relation between an interaction's output `y` and its
//! multiplier `λ` (Siconos' `NonSmoothLaw` classes; Siconos documentation, "Simulation component",
//! "Time discretization of the non-smooth law").

use crate::KernelError;

/// A nonsmooth law (a closed set of kinds, as in Siconos).
///
/// The first component of a friction law is normal, the others tangential. The first-order
/// laws (complementarity, relay, equality, mixed) are declared here for first-order systems.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum NonsmoothLaw {
    /// Newton impact law: for an active contact, `0 ≤ ẏ⁺ + e ẏ⁻ ⊥ λ ≥ 0` componentwise
    /// (Siconos' `NewtonImpactNSL`).
    NewtonImpact {
        /// Restitution coefficient `e ≥ 0`.
        restitution: f64,
    },
    /// Newton impact law in the normal direction with Coulomb friction,
    /// `K_μ ∋ λ ⊥ û ∈ K_μ*` with `û = u + (e_n u_N⁻ + μ‖u_T‖) n` (Siconos'
    /// `NewtonImpactFrictionNSL`), in 2D (one tangent) or 3D (two tangents).
    NewtonImpactFriction {
        /// Normal restitution `e_n ≥ 0`.
        normal_restitution: f64,
        /// Tangential restitution `e_t ≥ 0` (used by Moreau–Jean only when positive).
        tangential_restitution: f64,
        /// Friction coefficient `μ ≥ 0`.
        friction: f64,
        /// 2 or 3.
        dimension: usize,
    },
    /// `0 ≤ y ⊥ λ ≥ 0` (Siconos' `ComplementarityConditionNSL`).
    Complementarity {
        /// Size of `y`.
        size: usize,
    },
    /// `−y ∈ N_[lb, ub](λ)` componentwise (Siconos' `RelayNSL`).
    Relay {
        /// Size of `y`.
        size: usize,
        /// Lower bound.
        lower: f64,
        /// Upper bound (`> lower`).
        upper: f64,
    },
    /// `y = 0` (Siconos' `EqualityConditionNSL`).
    Equality {
        /// Size of `y`.
        size: usize,
    },
    /// The first `equalities` components are equalities, the next `complementarities` obey
    /// `0 ≤ y ⊥ λ ≥ 0` (Siconos' `MixedComplementarityConditionNSL`).
    MixedComplementarity {
        /// Number of equality rows.
        equalities: usize,
        /// Number of complementarity rows.
        complementarities: usize,
    },
}

impl NonsmoothLaw {
    /// Newton impact law with restitution `e` (checked finite and ≥ 0).
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a negative or non-finite `e`.
    pub fn newton_impact(restitution: f64) -> Result<Self, KernelError> {
        non_negative("restitution", restitution)?;
        Ok(Self::NewtonImpact { restitution })
    }

    /// Newton impact law with Coulomb friction in dimension 2 or 3.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a negative or non-finite coefficient or a dimension
    /// other than 2 or 3.
    pub fn newton_impact_friction(
        normal_restitution: f64,
        tangential_restitution: f64,
        friction: f64,
        dimension: usize,
    ) -> Result<Self, KernelError> {
        non_negative("normal restitution", normal_restitution)?;
        non_negative("tangential restitution", tangential_restitution)?;
        non_negative("friction coefficient", friction)?;
        if dimension != 2 && dimension != 3 {
            return Err(KernelError::InvalidOption { name: "friction law dimension", reason: "must be 2 or 3" });
        }
        Ok(Self::NewtonImpactFriction { normal_restitution, tangential_restitution, friction, dimension })
    }

    /// The size of `y` the law fixes, `None` when it fits any size (Newton impact).
    pub fn size(&self) -> Option<usize> {
        match *self {
            NonsmoothLaw::NewtonImpact { .. } => None,
            NonsmoothLaw::NewtonImpactFriction { dimension, .. } => Some(dimension),
            NonsmoothLaw::Complementarity { size }
            | NonsmoothLaw::Relay { size, .. }
            | NonsmoothLaw::Equality { size } => Some(size),
            NonsmoothLaw::MixedComplementarity { equalities, complementarities } => {
                Some(equalities + complementarities)
            }
        }
    }

    /// The normal restitution coefficient of an impact law, `None` for the other laws.
    pub fn normal_restitution(&self) -> Option<f64> {
        match *self {
            NonsmoothLaw::NewtonImpact { restitution } => Some(restitution),
            NonsmoothLaw::NewtonImpactFriction { normal_restitution, .. } => Some(normal_restitution),
            _ => None,
        }
    }

    /// Whether the law is an impact law (used at velocity level by Moreau–Jean).
    pub fn is_impact(&self) -> bool {
        self.normal_restitution().is_some()
    }
}

fn non_negative(name: &'static str, x: f64) -> Result<(), KernelError> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(KernelError::InvalidOption { name, reason: "must be finite and non-negative" })
    }
}
