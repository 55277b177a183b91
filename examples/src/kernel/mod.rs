//! Models of the kernel examples (Moreau–Jean time-stepping).

pub mod bouncing_ball;
pub mod column_of_beads;
pub mod diode_bridge;
pub mod double_pendulum;
pub mod simple_example_relay;
pub mod woodpecker;
