//! Nonsmooth laws: the set-valued relation between an interaction's output `y` and its
//! multiplier `λ` (Siconos' `NonSmoothLaw` classes; Siconos documentation, "Simulation component",
//! "Time discretization of the non-smooth law"; Acary & Brogliato, *Numerical Methods for
//! Nonsmooth Dynamical Systems*, Springer 2008, ch. 3 and 10).
//!
//! A law is built only by the constructors of [`NonsmoothLaw`], which check its coefficients: each
//! variant carries a value type whose fields are private, so a law cannot be written around the
//! checks. Kernel code matches on the variants and reads the coefficients by accessors.
//!
//! ```compile_fail
//! use nonsmooth_kernel::model::NonsmoothLaw;
//! // The variants hold validated values, not raw coefficients: this does not compile.
//! let law = NonsmoothLaw::NewtonImpact { restitution: -1.0 };
//! ```
//!
//! ```compile_fail
//! use nonsmooth_kernel::model::{NewtonImpactNsl, NonsmoothLaw};
//! // Nor can the value type be written from its fields, which are private.
//! let law = NonsmoothLaw::NewtonImpact(NewtonImpactNsl { restitution: -1.0 });
//! ```
//!
//! ```
//! use nonsmooth_kernel::KernelError;
//! use nonsmooth_kernel::model::NonsmoothLaw;
//! let law = NonsmoothLaw::newton_impact(0.9)?;
//! assert_eq!(law.normal_restitution(), Some(0.9));
//! assert!(matches!(NonsmoothLaw::newton_impact(1.5), Err(KernelError::InvalidParameter { .. })));
//! # Ok::<(), KernelError>(())
//! ```

use crate::KernelError;

/// A nonsmooth law (a closed set of kinds, as in Siconos), built by its constructors
/// ([`NonsmoothLaw::newton_impact`], [`NonsmoothLaw::newton_impact_friction`],
/// [`NonsmoothLaw::complementarity`], [`NonsmoothLaw::relay`], [`NonsmoothLaw::equality`],
/// [`NonsmoothLaw::mixed_complementarity`]), which check its coefficients.
///
/// The first component of a friction law is normal, the others tangential. The first-order
/// laws (complementarity, relay, equality, mixed) are declared here for first-order systems.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
#[doc(alias = "NonSmoothLaw")]
pub enum NonsmoothLaw {
    /// Newton impact law: for an active contact, `0 ≤ ẏ⁺ + e ẏ⁻ ⊥ λ ≥ 0` componentwise
    /// (Siconos' `NewtonImpactNSL`).
    NewtonImpact(NewtonImpactNsl),
    /// Newton impact law in the normal direction with Coulomb friction,
    /// `K_μ ∋ λ ⊥ û ∈ K_μ*` with `û = u + (e_n u_N⁻ + μ‖u_T‖) n` (Siconos'
    /// `NewtonImpactFrictionNSL`), in 2D (one tangent) or 3D (two tangents).
    NewtonImpactFriction(NewtonImpactFrictionNsl),
    /// `0 ≤ y ⊥ λ ≥ 0` (Siconos' `ComplementarityConditionNSL`).
    Complementarity(ComplementarityNsl),
    /// `−y ∈ N_[lb, ub](λ)` componentwise (Siconos' `RelayNSL`).
    Relay(RelayNsl),
    /// `y = 0` (Siconos' `EqualityConditionNSL`).
    Equality(EqualityNsl),
    /// The first `equalities` components are equalities, the next `complementarities` obey
    /// `0 ≤ y ⊥ λ ≥ 0` (Siconos' `MixedComplementarityConditionNSL`).
    MixedComplementarity(MixedComplementarityNsl),
}

/// The coefficient of a Newton impact law (Siconos' `NewtonImpactNSL`): the restitution
/// `e ∈ [0, 1]`. Built by [`NonsmoothLaw::newton_impact`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "NewtonImpactNSL")]
pub struct NewtonImpactNsl {
    restitution: f64,
}

impl NewtonImpactNsl {
    /// The restitution coefficient `e ∈ [0, 1]`.
    pub fn restitution(&self) -> f64 {
        self.restitution
    }
}

/// The coefficients of a Newton impact law with Coulomb friction (Siconos'
/// `NewtonImpactFrictionNSL`): restitutions `e_n, e_t ∈ [0, 1]`, friction `μ ≥ 0`, dimension 2
/// or 3. Built by [`NonsmoothLaw::newton_impact_friction`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "NewtonImpactFrictionNSL")]
pub struct NewtonImpactFrictionNsl {
    normal_restitution: f64,
    tangential_restitution: f64,
    friction: f64,
    dimension: usize,
}

impl NewtonImpactFrictionNsl {
    /// The normal restitution `e_n ∈ [0, 1]`.
    pub fn normal_restitution(&self) -> f64 {
        self.normal_restitution
    }

    /// The tangential restitution `e_t ∈ [0, 1]` (used by Moreau–Jean only when positive).
    pub fn tangential_restitution(&self) -> f64 {
        self.tangential_restitution
    }

    /// The friction coefficient `μ ≥ 0` (finite).
    pub fn friction(&self) -> f64 {
        self.friction
    }

    /// The dimension: 2 (one tangent) or 3 (two tangents).
    pub fn dimension(&self) -> usize {
        self.dimension
    }
}

/// The size of a complementarity law (Siconos' `ComplementarityConditionNSL`), at least 1.
/// Built by [`NonsmoothLaw::complementarity`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(alias = "ComplementarityConditionNSL")]
pub struct ComplementarityNsl {
    size: usize,
}

impl ComplementarityNsl {
    /// The size of `y` (at least 1).
    pub fn size(&self) -> usize {
        self.size
    }
}

/// The size and bounds of a relay law (Siconos' `RelayNSL`): finite bounds with
/// `lower ≤ upper`, the same for every component. Built by [`NonsmoothLaw::relay`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "RelayNSL")]
pub struct RelayNsl {
    size: usize,
    lower: f64,
    upper: f64,
}

impl RelayNsl {
    /// The size of `y` (at least 1).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The lower bound `lb` of `λ` (finite).
    pub fn lower(&self) -> f64 {
        self.lower
    }

    /// The upper bound `ub ≥ lb` of `λ` (finite).
    pub fn upper(&self) -> f64 {
        self.upper
    }
}

/// The size of an equality law (Siconos' `EqualityConditionNSL`), at least 1. Built by
/// [`NonsmoothLaw::equality`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(alias = "EqualityConditionNSL")]
pub struct EqualityNsl {
    size: usize,
}

impl EqualityNsl {
    /// The size of `y` (at least 1).
    pub fn size(&self) -> usize {
        self.size
    }
}

/// The split of a mixed complementarity law (Siconos' `MixedComplementarityConditionNSL`):
/// equality rows first, then complementarity rows, at least one row in all. Built by
/// [`NonsmoothLaw::mixed_complementarity`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(alias = "MixedComplementarityConditionNSL")]
pub struct MixedComplementarityNsl {
    equalities: usize,
    complementarities: usize,
}

impl MixedComplementarityNsl {
    /// The number of equality rows (the first ones).
    pub fn equalities(&self) -> usize {
        self.equalities
    }

    /// The number of complementarity rows (after the equalities).
    pub fn complementarities(&self) -> usize {
        self.complementarities
    }
}

impl NonsmoothLaw {
    /// Newton impact law with restitution `e ∈ [0, 1]` (Siconos' `NewtonImpactNSL`).
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming `restitution` for `e` outside `[0, 1]` or NaN.
    pub fn newton_impact(restitution: f64) -> Result<Self, KernelError> {
        unit_interval("restitution", restitution)?;
        Ok(Self::NewtonImpact(NewtonImpactNsl { restitution }))
    }

    /// Newton impact law with Coulomb friction in dimension 2 or 3 (Siconos'
    /// `NewtonImpactFrictionNSL`): restitutions `e_n, e_t ∈ [0, 1]`, friction `μ ≥ 0` finite.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming the coefficient for a restitution outside
    /// `[0, 1]`, a negative or non-finite `μ`, or a dimension other than 2 or 3.
    pub fn newton_impact_friction(
        normal_restitution: f64,
        tangential_restitution: f64,
        friction: f64,
        dimension: usize,
    ) -> Result<Self, KernelError> {
        unit_interval("normal restitution", normal_restitution)?;
        unit_interval("tangential restitution", tangential_restitution)?;
        if !friction.is_finite() || friction < 0.0 {
            return Err(KernelError::InvalidParameter {
                name: "friction coefficient",
                value: friction,
                reason: "must be finite and non-negative",
            });
        }
        if dimension != 2 && dimension != 3 {
            return Err(KernelError::InvalidParameter {
                name: "friction law dimension",
                value: dimension as f64,
                reason: "must be 2 or 3",
            });
        }
        Ok(Self::NewtonImpactFriction(NewtonImpactFrictionNsl {
            normal_restitution,
            tangential_restitution,
            friction,
            dimension,
        }))
    }

    /// `0 ≤ y ⊥ λ ≥ 0` on `size ≥ 1` components (Siconos' `ComplementarityConditionNSL`).
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming `size` for a size 0.
    pub fn complementarity(size: usize) -> Result<Self, KernelError> {
        positive_size("complementarity law size", size)?;
        Ok(Self::Complementarity(ComplementarityNsl { size }))
    }

    /// `−y ∈ N_[lower, upper](λ)` on `size ≥ 1` components (Siconos' `RelayNSL`), with finite
    /// bounds `lower ≤ upper`.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming the size or the bound for a size 0, a
    /// non-finite bound, or `lower > upper` (the value given is then `lower`).
    pub fn relay(size: usize, lower: f64, upper: f64) -> Result<Self, KernelError> {
        positive_size("relay law size", size)?;
        for (name, value) in [("relay lower bound", lower), ("relay upper bound", upper)] {
            if !value.is_finite() {
                return Err(KernelError::InvalidParameter { name, value, reason: "must be finite" });
            }
        }
        if lower > upper {
            return Err(KernelError::InvalidParameter {
                name: "relay lower bound",
                value: lower,
                reason: "must not exceed the upper bound",
            });
        }
        Ok(Self::Relay(RelayNsl { size, lower, upper }))
    }

    /// `y = 0` on `size ≥ 1` components (Siconos' `EqualityConditionNSL`).
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming `size` for a size 0.
    pub fn equality(size: usize) -> Result<Self, KernelError> {
        positive_size("equality law size", size)?;
        Ok(Self::Equality(EqualityNsl { size }))
    }

    /// `equalities` equality rows, then `complementarities` rows with `0 ≤ y ⊥ λ ≥ 0`
    /// (Siconos' `MixedComplementarityConditionNSL`); at least one row in all.
    ///
    /// # Errors
    /// [`KernelError::InvalidParameter`] naming the size when both counts are 0.
    pub fn mixed_complementarity(equalities: usize, complementarities: usize) -> Result<Self, KernelError> {
        positive_size("mixed complementarity law size", equalities.saturating_add(complementarities))?;
        Ok(Self::MixedComplementarity(MixedComplementarityNsl { equalities, complementarities }))
    }

    /// The size of `y` the law fixes, `None` when it fits any size (Newton impact).
    pub fn size(&self) -> Option<usize> {
        match self {
            NonsmoothLaw::NewtonImpact(_) => None,
            NonsmoothLaw::NewtonImpactFriction(law) => Some(law.dimension),
            NonsmoothLaw::Complementarity(law) => Some(law.size),
            NonsmoothLaw::Relay(law) => Some(law.size),
            NonsmoothLaw::Equality(law) => Some(law.size),
            NonsmoothLaw::MixedComplementarity(law) => Some(law.equalities + law.complementarities),
        }
    }

    /// The normal restitution coefficient of an impact law, `None` for the other laws.
    pub fn normal_restitution(&self) -> Option<f64> {
        match self {
            NonsmoothLaw::NewtonImpact(law) => Some(law.restitution),
            NonsmoothLaw::NewtonImpactFriction(law) => Some(law.normal_restitution),
            _ => None,
        }
    }

    /// The friction coefficient `μ` of a frictional law, `None` for the other laws.
    pub fn friction(&self) -> Option<f64> {
        match self {
            NonsmoothLaw::NewtonImpactFriction(law) => Some(law.friction),
            _ => None,
        }
    }

    /// Whether the law is an impact law (used at velocity level by Moreau–Jean).
    pub fn is_impact(&self) -> bool {
        self.normal_restitution().is_some()
    }
}

/// Checks `x ∈ [0, 1]` (NaN refused).
fn unit_interval(name: &'static str, value: f64) -> Result<(), KernelError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(KernelError::InvalidParameter { name, value, reason: "must lie in [0, 1]" })
    }
}

/// Checks `size ≥ 1`.
fn positive_size(name: &'static str, size: usize) -> Result<(), KernelError> {
    if size >= 1 {
        Ok(())
    } else {
        Err(KernelError::InvalidParameter { name, value: size as f64, reason: "must be at least 1" })
    }
}
