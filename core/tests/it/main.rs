//! Integration tests of undertone-core, in one binary (fast to link).

mod assembly_props;
mod drift;
mod golden;
mod scoring;
mod sdk;
mod stats;
mod validation;
mod validation_props;
