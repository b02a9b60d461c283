//! Integration tests for `undertone-http`, linked into one binary.

mod api;
mod cli;
mod durability;
mod raw_http;
mod webhooks;
