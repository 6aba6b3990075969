//! The integration tests: one binary (each extra binary re-links DataFusion).

mod support;

mod cli;
mod dashboard;
mod fuzz;
mod pipeline;
mod report;
mod robustness;
mod rules;
mod traces;
