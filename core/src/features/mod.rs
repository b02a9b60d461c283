//! Signals: named, documented functions of one human turn's text and its context.

pub mod affect;
pub mod context;
pub mod markers;
pub mod similarity;
pub mod text;
