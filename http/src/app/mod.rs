//! The web pages: the app a team signs in to at `/app`, and the offline report
//! (`undertone score FILE --format html`). Both draw results with the same
//! `http/app/render.js`; the assets are compiled into the binary, so the app works
//! offline and from the same origin as the API.
//!
//! Everything a page shows from a caller (conversation text, ids, metadata, URLs) is
//! set as text by the renderers, and a strict Content-Security-Policy forbids inline
//! scripts and styles everywhere except the report's own hashed inline script.

pub mod report;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;

/// The pages' stylesheet.
pub const CSS: &str = include_str!("../../app/app.css");
/// The shared renderers (summary, charts, transcripts).
pub const RENDER_JS: &str = include_str!("../../app/render.js");
/// The app: sign-in, routing and the pages that call the API.
const APP_JS: &str = include_str!("../../app/app.js");
/// The app's one HTML document.
const INDEX_HTML: &str = include_str!("../../app/index.html");

/// The policy of every app response: scripts, styles, images and API calls from this
/// origin only; no inline script or style, no framing, no plugins.
pub const APP_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The routes under `/app`; `/app` itself and every page path answer the document
/// (pages are routed in the browser by the URL's fragment).
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/app",
            get(|| async { page(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route("/app/", get(|| async { Redirect::permanent("/app") }))
        .route("/app/assets/{file}", get(asset))
}

/// An asset by the last segment of the path as sent (not percent-decoded: no asset's
/// name needs it, so one that does is no asset). Anything else is a bare 404, which
/// the service gives the error envelope.
async fn asset(uri: Uri) -> Response {
    match uri.path().rsplit('/').next().unwrap_or("") {
        "app.css" => page(CSS, "text/css; charset=utf-8"),
        "render.js" => page(RENDER_JS, "text/javascript; charset=utf-8"),
        "app.js" => page(APP_JS, "text/javascript; charset=utf-8"),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn page(body: &str, content_type: &'static str) -> Response {
    let mut response = body.to_owned().into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(APP_CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
