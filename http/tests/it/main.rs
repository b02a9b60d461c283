//! Integration tests for `undertone-http`, linked into one binary.

mod api;
mod cli;
mod durability;
mod real_server;
mod webhooks;
