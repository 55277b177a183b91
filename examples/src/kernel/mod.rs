//! Models of the kernel examples (Moreau–Jean time-stepping).

pub mod bouncing_ball;
