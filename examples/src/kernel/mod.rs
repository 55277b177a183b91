//! Models of the kernel examples (Moreau–Jean time-stepping).

pub mod bouncing_ball;
pub mod column_of_beads;
pub mod double_pendulum;
pub mod woodpecker;
