//! Undertone's service crate: the `undertone` command line now, the REST service later.

pub mod cli;
