//! Authentication, scopes and rate limits for every route that needs a key.
//!
//! Order: the key is checked (shape and checksum before any database work, then the
//! digest), then the scope, then every rate-limit window at once. Each response to a
//! request with a valid key carries `X-RateLimit-*` for its most constrained window.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::{ApiError, Code};
use crate::keys::{self, Scope};
use crate::limits::{self, Decision, Quota, Window};
use crate::store::KeyRecord;

/// The request header that makes a session-starting request safe to repeat
/// (`api::submit`); read here too, since such a request may pass a full drift window.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The authenticated key, available to handlers as an extension.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The key record (never the key).
    pub key: Arc<KeyRecord>,
    /// Windows the handler must count the request against when it starts a session
    /// (`POST /drift` counts drift sessions, not requests); `None` when the request
    /// was counted before the handler ran.
    pub deferred: Option<Arc<[Window]>>,
}

/// Marks a request made in-process for an MCP message that was already counted
/// against the key's request windows (`POST /mcp`), so it is not counted twice. Only
/// code can set it: extensions never come from the wire.
#[derive(Debug, Clone, Copy)]
pub struct Precharged;

/// Middleware: 401, 403 or 429 before the handler runs; rate-limit headers after.
///
/// Every request with a valid key counts against the key's request windows (hour and
/// day), whatever its answer (400, 403, 503 …), except a 429 (SPEC.md §8). `POST
/// /drift` also has a drift-session window: checked here, but counted by its handler,
/// in the transaction that starts the session, so a drift request that starts no
/// session (invalid body, full queue) spends a request but no drift session. A
/// [`Precharged`] request was counted at `POST /mcp`: it is checked for scope and, for
/// drift, the drift window, but not counted again.
pub async fn authenticate(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let key = match identify(&state, request.headers()).await {
        Ok(key) => key,
        Err(e) => return e.into_response(),
    };
    let now = state.clock.now().timestamp();
    let method = request.method().clone();
    let is_write = !(method == Method::GET || method == Method::HEAD);
    let is_drift = method == Method::POST && request.uri().path().ends_with("/drift");
    let precharged = request.extensions().get::<Precharged>().is_some();
    let (drift_windows, mut windows): (Vec<Window>, Vec<Window>) =
        limits::windows_for(&key.plan, now, is_drift)
            .into_iter()
            .partition(|w| w.kind == limits::WindowKind::DriftHour);
    if precharged {
        windows.clear();
    }

    // The drift-session window is read, not counted: its session counts when started.
    let drift_used = if drift_windows.is_empty() {
        None
    } else {
        match state.store.usage(&key.id, &drift_windows).await {
            Ok(used) => Some(used),
            Err(e) => return ApiError::from(e).into_response(),
        }
    };
    let drift_quota = drift_used
        .as_ref()
        .map(|used| limits::most_constrained(&drift_windows, used, 0));

    // A method the route does not have is answered 405 by the route, whatever the key
    // may do: "read-only" would name the wrong problem.
    if is_write && key.scope == Scope::ReadOnly && routes_method(&request, &method) {
        // Refused, and counted: a 403 is a request like any other. The headers show
        // the most constrained window, the drift-session window included.
        let counted = match state.store.charge(&key.id, &windows).await {
            Ok(Decision::Allowed(q) | Decision::Refused(q)) => q,
            Err(e) => return ApiError::from(e).into_response(),
        };
        let mut response = ApiError::new(
            Code::Forbidden,
            format!("this key is read-only; {method} needs a read-write key"),
        )
        .into_response();
        set_quota(
            response.headers_mut(),
            limits::tightest([Some(counted), drift_quota].into_iter().flatten()),
        );
        return response;
    }

    // A full drift-session window refuses the request before anything is counted;
    // unless it carries an `Idempotency-Key`, since it may repeat a drift that
    // started a session already, which it is answered with (a new one is refused
    // where the session would be counted, in the same transaction). Such a request
    // is counted once its answer is known, so that its 429 counts nothing either.
    let drift_full =
        drift_used
            .as_ref()
            .and_then(|used| match limits::decide(&drift_windows, used) {
                Decision::Refused(q) => Some(q),
                Decision::Allowed(_) => None,
            });
    let may_repeat = request.headers().contains_key(IDEMPOTENCY_KEY);
    if let Some(q) = drift_full
        && !may_repeat
    {
        return rate_limited(&key, q, now, true);
    }
    let count_after = drift_full.is_some() && !windows.is_empty();
    // Counted at `POST /mcp` when there is nothing to count here: the headers of
    // that inner answer are not sent.
    let request_quota = if windows.is_empty() {
        None
    } else if count_after {
        // Not counted yet; refused now when a request window is full all the same.
        match state.store.usage(&key.id, &windows).await {
            Ok(used) => match limits::decide(&windows, &used) {
                Decision::Refused(q) => return rate_limited(&key, q, now, false),
                Decision::Allowed(_) => None,
            },
            Err(e) => return ApiError::from(e).into_response(),
        }
    } else {
        match charge(&state, &key, &windows, now).await {
            Ok(q) => Some(q),
            Err(refused) => return refused,
        }
    };
    let key_id = key.id.clone();
    let deferred = (!drift_windows.is_empty()).then(|| Arc::from(drift_windows));
    request.extensions_mut().insert(Caller {
        key: Arc::new(key),
        deferred,
    });
    let mut response = next.run(request).await;
    let request_quota = if count_after && response.status() != StatusCode::TOO_MANY_REQUESTS {
        match state.store.charge(&key_id, &windows).await {
            Ok(Decision::Allowed(q) | Decision::Refused(q)) => Some(q),
            Err(e) => {
                tracing::warn!(error = %e, "counting an answered request failed");
                None
            }
        }
    } else {
        request_quota
    };
    // The handler's quota, when it counted a drift session, is the drift window's
    // after counting; the headers show the most constrained window.
    let drift_quota = response
        .extensions()
        .get::<Quota>()
        .copied()
        .or(drift_quota);
    set_quota(
        response.headers_mut(),
        limits::tightest([request_quota, drift_quota].into_iter().flatten()),
    );
    response
}

/// Counts one request of `key` against `windows`: the quota for the headers, or the
/// answer that refuses it (429, or 500 when the database fails).
pub(crate) async fn charge(
    state: &AppState,
    key: &KeyRecord,
    windows: &[Window],
    now: i64,
) -> Result<Quota, Response> {
    match state.store.charge(&key.id, windows).await {
        Ok(Decision::Allowed(q)) => Ok(q),
        Ok(Decision::Refused(q)) => Err(rate_limited(key, q, now, false)),
        Err(e) => Err(ApiError::from(e).into_response()),
    }
}

/// 429 for the window that refused, with `Retry-After` and the rate-limit headers.
pub(super) fn rate_limited(key: &KeyRecord, q: Quota, now: i64, is_drift: bool) -> Response {
    crate::metrics::rate_limited();
    let wait = u64::try_from(q.reset - now).unwrap_or(1);
    let what = if is_drift && q.limit == key.plan.drift_per_hour {
        "drift sessions"
    } else {
        "requests"
    };
    let mut response = ApiError::new(
        Code::RateLimited,
        format!(
            "rate limit reached: {} {what} per window for this key; retry in {wait} s",
            q.limit
        ),
    )
    .retry_after(wait)
    .into_response();
    set_quota(response.headers_mut(), q);
    response
}

pub(crate) fn set_quota(headers: &mut HeaderMap, q: Quota) {
    headers.insert("x-ratelimit-limit", HeaderValue::from(q.limit));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(q.remaining));
    headers.insert("x-ratelimit-reset", HeaderValue::from(q.reset));
}

fn unauthorized(message: impl Into<String>) -> ApiError {
    ApiError::new(Code::Unauthorized, message)
}

/// The key behind the request's `Authorization` header.
pub(crate) async fn identify(state: &AppState, headers: &HeaderMap) -> Result<KeyRecord, ApiError> {
    let mut given = headers.get_all(header::AUTHORIZATION).iter();
    let value = given
        .next()
        .ok_or_else(|| unauthorized("missing API key: send `Authorization: Bearer ut_live_…`"))?;
    // Which of two keys would be meant is not for the server to guess.
    if given.next().is_some() {
        return Err(unauthorized(
            "more than one Authorization header: send exactly one, `Authorization: Bearer ut_live_…`",
        ));
    }
    let value = value
        .to_str()
        .map_err(|_| unauthorized("the Authorization header is not readable text"))?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(unauthorized(
            "the Authorization header must use the Bearer scheme: `Bearer ut_live_…`",
        ));
    }
    let digest = keys::check(token.trim()).map_err(|e| unauthorized(e.to_string()))?;
    let record = state
        .store
        .find_key(&digest)
        .await?
        .filter(|k| keys::digests_equal(&k.digest, &digest))
        .ok_or_else(|| unauthorized("unknown API key"))?;
    if record.revoked_at.is_some() {
        return Err(unauthorized("this API key has been revoked"));
    }
    Ok(record)
}

/// Whether the route `request` matched has a handler for `method` (as the API's
/// document lists them: the same routes, so the same methods). Unknown when the
/// matched path is not known, which is then taken as yes.
fn routes_method(request: &Request, method: &Method) -> bool {
    static METHODS: LazyLock<HashMap<String, HashSet<Method>>> = LazyLock::new(|| {
        let doc = super::routes(|keyed| keyed).into_openapi();
        doc.paths
            .paths
            .iter()
            .map(|(path, item)| {
                let methods = [
                    (Method::GET, &item.get),
                    (Method::PUT, &item.put),
                    (Method::POST, &item.post),
                    (Method::DELETE, &item.delete),
                    (Method::OPTIONS, &item.options),
                    (Method::HEAD, &item.head),
                    (Method::PATCH, &item.patch),
                    (Method::TRACE, &item.trace),
                ]
                .into_iter()
                .filter_map(|(method, operation)| operation.is_some().then_some(method))
                .collect();
                (path.clone(), methods)
            })
            .collect()
    });
    let Some(path) = request.extensions().get::<MatchedPath>() else {
        return true;
    };
    METHODS
        .get(path.as_str())
        .is_none_or(|methods| methods.contains(method))
}
