//! Where MCP tools send their REST calls: into this server's own router (the hosted
//! `/mcp` endpoint), or over HTTP to a base URL (`undertone mcp`, a REST client).
//! Either way a tool call is the REST request it mirrors: the same validation, the
//! same scope check, the same rate limits, the same error envelope.

use async_trait::async_trait;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, header};
use tower::ServiceExt;

use crate::api::{IDEMPOTENCY_KEY, REPLAYED};

/// What a REST call answered.
#[derive(Debug)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body (JSON).
    pub body: Vec<u8>,
    /// `Retry-After`, in seconds, when the answer had one.
    pub retry_after: Option<u64>,
    /// Whether the answer repeats the one to an earlier request with the same
    /// `Idempotency-Key` (`Idempotent-Replayed: true`).
    pub replayed: bool,
}

/// A way to make REST calls with the caller's key.
#[async_trait]
pub trait Backend: Send + Sync {
    /// `method` on `path` (under `/api/v1`, with any query) with an optional JSON body,
    /// and an `Idempotency-Key` header when `idempotency_key` is given (checked by
    /// `api::check_idempotency_key`). `Err` means the API could not be reached.
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        idempotency_key: Option<&str>,
    ) -> Result<Reply, Unreachable>;
}

/// Why a REST call got no answer (an answer, even an error status, is a [`Reply`]).
#[derive(Debug, thiserror::Error)]
pub enum Unreachable {
    /// The in-process request could not be built.
    #[error("could not build the request: {0}")]
    Build(axum::http::Error),
    /// The in-process answer could not be read.
    #[error("could not read the answer: {0}")]
    ReadLocal(axum::Error),
    /// The remote API did not answer.
    #[error("could not reach the Undertone API at {base}: {source}{}", if *.maybe_stored {
        "; the request may have been stored before the connection failed: check \
         (e.g. get_session) before sending it again"
    } else { "" })]
    Connect {
        /// The base URL.
        base: String,
        /// What failed.
        source: reqwest::Error,
        /// A write that may have arrived before the connection failed.
        maybe_stored: bool,
    },
    /// The remote API redirects; its final URL should be the base URL.
    #[error(
        "the Undertone API at {base} redirects (HTTP {status}) to {to}: pass the final URL as --base-url"
    )]
    Redirect {
        /// The base URL.
        base: String,
        /// The redirect status.
        status: u16,
        /// Where it points.
        to: String,
    },
    /// The remote answer could not be read.
    #[error("could not read the answer from {base}: {source}")]
    ReadRemote {
        /// The base URL.
        base: String,
        /// What failed.
        source: reqwest::Error,
    },
}

/// Why `--base-url` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BaseUrlError {
    /// Not a URL.
    #[error("--base-url {0:?}: {1}")]
    Invalid(String, url::ParseError),
    /// Not http or https.
    #[error("--base-url {0:?}: must be an http:// or https:// URL")]
    Scheme(String),
    /// It has a query or fragment.
    #[error("--base-url {0:?}: must not have a query or fragment")]
    QueryOrFragment(String),
    /// The HTTP client could not start.
    #[error("could not start the HTTP client: {0}")]
    Client(reqwest::Error),
}

/// Whether `Idempotent-Replayed: true` came with the answer.
fn replayed(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(REPLAYED)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"))
}

fn retry_after(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// Calls into the server's own REST router, with the `Authorization` header the MCP
/// request came with.
pub struct InProcess {
    /// The REST router (without `/mcp`).
    pub rest: Router,
    /// The caller's `Authorization` header.
    pub authorization: HeaderValue,
}

#[async_trait]
impl Backend for InProcess {
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        idempotency_key: Option<&str>,
    ) -> Result<Reply, Unreachable> {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("/api/v1{path}"))
            .header(header::AUTHORIZATION, self.authorization.clone());
        if body.is_some() {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        if let Some(key) = idempotency_key {
            request = request.header(IDEMPOTENCY_KEY, key);
        }
        let mut request = request
            .body(body.map_or_else(Body::empty, Body::from))
            .map_err(Unreachable::Build)?;
        // The MCP message was counted at `POST /mcp`.
        request.extensions_mut().insert(crate::api::Precharged);
        let response = match self.rest.clone().oneshot(request).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let replayed = replayed(response.headers());
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .map_err(Unreachable::ReadLocal)?;
        Ok(Reply {
            status,
            body: body.to_vec(),
            retry_after,
            replayed,
        })
    }
}

/// Calls a remote Undertone server over HTTP.
pub struct Remote {
    client: reqwest::Client,
    base: String,
    authorization: String,
}

impl Remote {
    /// A client of `base_url` (e.g. `https://undertone.example.com`) using `api_key`.
    pub fn new(base_url: &str, api_key: &str) -> Result<Self, BaseUrlError> {
        let base = base_url.trim_end_matches('/');
        let parsed =
            url::Url::parse(base).map_err(|e| BaseUrlError::Invalid(base.to_owned(), e))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(BaseUrlError::Scheme(base.to_owned()));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(BaseUrlError::QueryOrFragment(base.to_owned()));
        }
        let base = base.strip_suffix("/api/v1").unwrap_or(base).to_owned();
        let client = reqwest::Client::builder()
            .user_agent(concat!("undertone-mcp/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(10))
            .timeout(std::time::Duration::from_secs(300))
            // A redirect would drop the key (across schemes) or turn a POST into a GET:
            // refuse it and name the URL to use instead.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(BaseUrlError::Client)?;
        Ok(Self {
            client,
            base,
            authorization: format!("Bearer {}", api_key.trim()),
        })
    }

    /// The base URL calls go to.
    pub fn base(&self) -> &str {
        &self.base
    }
}

#[async_trait]
impl Backend for Remote {
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        idempotency_key: Option<&str>,
    ) -> Result<Reply, Unreachable> {
        let url = format!("{}/api/v1{path}", self.base);
        let mut request = self
            .client
            .request(method.clone(), &url)
            .header(header::AUTHORIZATION, &self.authorization);
        if let Some(key) = idempotency_key {
            request = request.header(IDEMPOTENCY_KEY, key);
        }
        if let Some(body) = body {
            request = request
                .header(header::CONTENT_TYPE, "application/json")
                .body(body);
        }
        let is_write = method == Method::POST;
        let response = request
            .send()
            .await
            .map_err(|source| Unreachable::Connect {
                base: self.base.clone(),
                maybe_stored: is_write && !source.is_connect(),
                source,
            })?;
        let status = response.status().as_u16();
        if response.status().is_redirection() {
            let to = response
                .headers()
                .get(header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("?");
            return Err(Unreachable::Redirect {
                base: self.base.clone(),
                status,
                to: to.to_owned(),
            });
        }
        let retry_after = retry_after(response.headers());
        let replayed = replayed(response.headers());
        let body = response
            .bytes()
            .await
            .map_err(|source| Unreachable::ReadRemote {
                base: self.base.clone(),
                source,
            })?;
        Ok(Reply {
            status,
            body: body.to_vec(),
            retry_after,
            replayed,
        })
    }
}
