//! Integration tests for `undertone-http`, linked into one binary.

mod api;
mod cli;
mod durability;
mod hardening;
mod layers;
mod pg;
mod real_server;
mod scale;
mod store;
mod webhooks;
