//! PLACEHOLDER: replaced by the solver implementation.
#![allow(missing_docs, unreachable_pub, dead_code)]

use super::{LcpProblem, LcpSolver};
use crate::{NumericsError, SolverReport};

#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EnumOptions {
    pub max_iterations: usize,
    pub tolerance: f64,
}

impl Default for EnumOptions {
    fn default() -> Self {
        Self { max_iterations: 10_000, tolerance: 1e-10 }
    }
}

impl EnumOptions {
    pub fn with_tolerance(mut self, t: f64) -> Self {
        self.tolerance = t;
        self
    }
    pub fn with_max_iterations(mut self, k: usize) -> Self {
        self.max_iterations = k;
        self
    }
}

pub struct EnumSolver {
    options: EnumOptions,
}

impl EnumSolver {
    pub fn new(options: EnumOptions) -> Result<Self, NumericsError> {
        Ok(Self { options })
    }
}

impl LcpSolver for EnumSolver {
    fn solve(&mut self, _problem: &LcpProblem, _z: &mut [f64], _w: &mut [f64]) -> Result<SolverReport, NumericsError> {
        todo!()
    }
    fn name(&self) -> &'static str {
        "enumerative"
    }
}
