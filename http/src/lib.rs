//! Undertone's service crate: the REST service over `undertone-core` (routes,
//! authentication, rate limits, storage, job queue) and the `undertone` command line.

pub mod api;
pub mod app;
pub mod cli;
pub mod clock;
pub mod keys;
pub mod limits;
pub mod mcp;
pub mod metrics;
pub mod resolver;
pub mod retention;
pub mod service;
pub mod state;
pub mod stopping;
pub mod store;
pub mod transport;
pub mod webhooks;
pub mod worker;
