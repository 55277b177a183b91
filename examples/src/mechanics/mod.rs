//! Models of the mechanics examples (Newton–Euler rigid bodies, contact detection, scenes).

pub mod bouncing_ball_nets;
pub mod pour;
pub mod rolling_sphere;
pub mod sphere_pile;
