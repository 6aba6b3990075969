//! The integration tests: one binary (each extra binary re-links DataFusion).

mod support;

/// The command line's clap definitions, compiled here too so tests can walk them.
#[path = "../../src/cli.rs"]
#[allow(dead_code)]
mod hindsight_cli;

mod aidev;
mod aidev_releases;
mod capture;
mod ci_gate;
mod cli;
mod comparisons;
mod coverage_study;
#[cfg(feature = "cluster")]
mod cluster;
mod dashboard;
mod dictionary;
mod export;
mod feedback;
mod first_hour;
mod fuzz;
mod gate;
mod hardening;
mod house;
mod layouts;
mod object_store;
mod packaging;
mod pipeline;
mod promises;
mod quality;
mod rates;
mod readers;
mod reference;
mod real;
mod report;
mod risk;
mod robustness;
mod rules;
mod safety;
mod shell;
mod study_package;
mod survival;
mod synth;
mod slt;
mod sql;
mod sql_duckdb;
mod tasks;
mod traces;
