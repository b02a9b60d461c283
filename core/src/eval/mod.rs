//! Quality measures for the evaluation command: how well scores rank and are calibrated,
//! and reliability diagrams of the calibration.

pub mod dbdc;
pub mod diagram;
pub mod metrics;
