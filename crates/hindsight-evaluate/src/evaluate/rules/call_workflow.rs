//! `call_workflow` (a gh-aw type the specification's tables do not list: docs/SPEC.md
//! [SPEC-EXTRA-TYPES]): judged by the run it dispatched; what a person checks, why, and an
//! example are in [`super::shared::workflow_run`].

super::shared::workflow_run::dispatch_rule!(CallWorkflow);
