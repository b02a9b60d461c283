//! Quality measures for the evaluation command: how well scores rank and are calibrated.

pub mod metrics;
