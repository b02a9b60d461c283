//! The whole service as one router: the REST API under `/api/v1`, the MCP endpoint
//! at `/mcp` and the web app at `/app`, behind the admission budgets and the body
//! timeout.

use axum::Router;
use axum::middleware;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::api::{self, admit, panic_response};
use crate::state::AppState;

/// The whole service as one router: the REST API under `/api/v1` and the MCP
/// endpoint at `/mcp`, whose tool calls go through the REST routes.
pub fn app(state: AppState) -> Router {
    let rest = api::rest(state.clone());
    // Admission and the body timeout wrap the whole service once: the REST calls an
    // MCP tool makes in-process go to `rest` directly and take no second slot.
    let body_timeout = state.config.body_read_timeout;
    rest.clone()
        .merge(
            crate::mcp::router(state.clone(), rest).layer(CatchPanicLayer::custom(panic_response)),
        )
        // The app's errors (a wrong method, an asset it does not have) in the envelope.
        .merge(crate::app::router().layer(middleware::from_fn(api::envelope_for_bare_errors)))
        .layer(RequestBodyTimeoutLayer::new(body_timeout))
        .layer(middleware::from_fn_with_state(state, admit))
}
