//! Webhook URLs: absolute, https (http too where private targets are allowed), with a
//! host written as `scheme://host`, no credentials, and no literal non-public address.

use std::net::IpAddr;

use url::{Host, Url};

use super::Options;
use super::address;
use super::fields::{Collector, Path, ROOT};
use super::wording::quote;
use crate::error::Result;
use crate::schema::limits;

/// Checks that `webhook_url` is an absolute https URL without credentials whose host is
/// not a literal non-public address or `localhost` (host names are resolved and checked
/// again by the server when it connects).
pub fn webhook_url(url: &str, options: &Options) -> Result<String> {
    let mut c = Collector::default();
    check_webhook_url(&mut c, url, ROOT.field("webhook_url"), options).ok_or_else(|| c.into_error())
}

/// Checks the webhook URL `s` at `path`; the URL as it will be stored and called.
pub(super) fn check_webhook_url(
    c: &mut Collector,
    s: &str,
    path: Path<'_>,
    options: &Options,
) -> Option<String> {
    let chars = s.chars().count();
    if chars > limits::URL_MAX_CHARS {
        c.push(
            path,
            format!(
                "must be at most {} characters, got {chars}",
                limits::URL_MAX_CHARS
            ),
        );
        return None;
    }
    let expected = if options.allow_private_webhooks {
        "an absolute http or https URL"
    } else {
        "an absolute https URL"
    };
    let mut url = match Url::parse(s) {
        Ok(url) => url,
        Err(e) => {
            c.push(
                path,
                format!("must be {expected}; {} is not a URL ({e})", quote(s)),
            );
            return None;
        }
    };
    let scheme_ok =
        url.scheme() == "https" || (options.allow_private_webhooks && url.scheme() == "http");
    let problem = if !scheme_ok {
        Some(format!("must be {expected}; got scheme {:?}", url.scheme()))
    } else if url.host().is_none() || !host_written(s, url.scheme()) {
        // A URL parser forgives `https:///h` and `https:\\h` as `https://h/`; what
        // is stored and called must be what the client wrote.
        Some(format!(
            "must be {expected} with a host, written `{}://host/…`",
            url.scheme()
        ))
    } else if url.port() == Some(0) {
        Some("must not use port 0".to_owned())
    } else if !url.username().is_empty() || url.password().is_some() {
        Some("must not carry a user name or password".to_owned())
    } else if !options.allow_private_webhooks && !public_host(url.host()) {
        Some(format!(
            "must point to a public address; {} is private, loopback, link-local or reserved",
            url.host_str().unwrap_or_default()
        ))
    } else {
        None
    };
    match problem {
        Some(p) => {
            c.push(path, p);
            None
        }
        None => {
            // A client never sends the part after `#`: stored with it, the URL would
            // not be the one called.
            url.set_fragment(None);
            Some(url.to_string())
        }
    }
}

/// Whether `written` (a URL with scheme `scheme`) names its host right after
/// `scheme://`, with no further slash or backslash before it.
fn host_written(written: &str, scheme: &str) -> bool {
    // The parser drops leading and trailing spaces and control characters.
    let written = written.trim_matches(|c: char| c <= ' ');
    written
        .get(scheme.len()..)
        .and_then(|rest| rest.strip_prefix("://"))
        .is_some_and(|rest| !rest.starts_with(['/', '\\']))
}

/// False for literal non-public IP addresses and for `localhost` names.
fn public_host(host: Option<Host<&str>>) -> bool {
    match host {
        Some(Host::Ipv4(ip)) => address::is_public(IpAddr::V4(ip)),
        Some(Host::Ipv6(ip)) => address::is_public(IpAddr::V6(ip)),
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name != "localhost" && !name.ends_with(".localhost")
        }
        None => false,
    }
}
