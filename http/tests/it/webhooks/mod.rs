//! Webhooks end to end: deliveries to real receivers on 127.0.0.1 (retries, timeouts,
//! redirects, huge answers, deduplication, SSRF refusals, signatures checked by an
//! independent implementation), the event kinds a finished session causes, the
//! webhook and deployment routes, and the server process surviving `kill -9`
//! mid-delivery.

mod delivery;
mod events;
mod process;
pub(crate) mod receiver;
mod routes;
