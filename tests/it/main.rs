//! The integration tests: one binary (each extra binary re-links DataFusion).

mod support;

mod aidev;
mod capture;
mod ci_gate;
mod cli;
mod dashboard;
mod feedback;
mod fuzz;
mod gate;
mod layouts;
mod pipeline;
mod readers;
mod real;
mod report;
mod risk;
mod robustness;
mod rules;
mod safety;
mod tasks;
mod traces;
