//! `dispatch_workflow` (docs/SPEC.md [SPEC-WORKFLOWS]): judged by the run it dispatched;
//! what a person checks, why, and an example are in [`super::shared::workflow_run`].

super::shared::workflow_run::dispatch_rule!(DispatchWorkflow);
