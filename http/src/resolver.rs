//! The name resolver of the delivery client: it refuses a host name that resolves to a
//! private, loopback, link-local, CGNAT, multicast or reserved address, checked on the
//! addresses the connection will actually use, so a name that was public at
//! registration and points inside later (DNS rebinding) is still refused.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use undertone_core::validate::address::is_public;

/// Resolves names with the system resolver (or fixed answers) and checks every address.
#[derive(Debug, Clone, Default)]
pub struct SafeResolver {
    allow_private: bool,
    fixed: Arc<HashMap<String, Vec<IpAddr>>>,
}

/// Why a name was refused.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The name resolved to an address deliveries may not reach.
    #[error("`{name}` resolves to {ip}, which is not a public address")]
    NotPublic {
        /// The host name.
        name: String,
        /// The first refused address.
        ip: IpAddr,
    },
    /// The name did not resolve.
    #[error("`{name}` does not resolve: {reason}")]
    Unresolved {
        /// The host name.
        name: String,
        /// What the resolver said.
        reason: String,
    },
}

impl SafeResolver {
    /// A resolver that refuses non-public addresses unless `allow_private`.
    pub fn new(allow_private: bool) -> Self {
        Self {
            allow_private,
            fixed: Arc::default(),
        }
    }

    /// The same resolver answering `name` with `ips` instead of asking the system
    /// (tests use this to make a name point at a private address).
    pub fn with_fixed(mut self, name: &str, ips: Vec<IpAddr>) -> Self {
        Arc::make_mut(&mut self.fixed).insert(name.to_ascii_lowercase(), ips);
        self
    }

    /// The addresses of `name`, all public (unless private ones are allowed).
    pub async fn lookup(&self, name: &str) -> Result<Vec<IpAddr>, ResolveError> {
        let key = name.trim_end_matches('.').to_ascii_lowercase();
        let ips: Vec<IpAddr> = match self.fixed.get(&key) {
            Some(ips) => ips.clone(),
            None => tokio::net::lookup_host((key.as_str(), 0))
                .await
                .map_err(|e| ResolveError::Unresolved {
                    name: name.to_owned(),
                    reason: e.to_string(),
                })?
                .map(|a| a.ip())
                .collect(),
        };
        if ips.is_empty() {
            return Err(ResolveError::Unresolved {
                name: name.to_owned(),
                reason: "no addresses".into(),
            });
        }
        if !self.allow_private
            && let Some(&ip) = ips.iter().find(|ip| !is_public(**ip))
        {
            return Err(ResolveError::NotPublic {
                name: name.to_owned(),
                ip,
            });
        }
        Ok(ips)
    }
}

impl Resolve for SafeResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let this = self.clone();
        Box::pin(async move {
            let ips = this.lookup(name.as_str()).await?;
            let addrs: Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn names_pointing_inside_are_refused_unless_allowed() {
        let private: IpAddr = [10, 0, 0, 7].into();
        let public: IpAddr = [93, 184, 215, 14].into();
        let strict = SafeResolver::new(false)
            .with_fixed("inside.example", vec![private])
            .with_fixed("mixed.example", vec![public, private])
            .with_fixed("outside.example", vec![public]);
        let e = strict
            .lookup("inside.example")
            .await
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("`inside.example` resolves to 10.0.0.7, which is not a public address")
        );
        assert!(strict.lookup("mixed.example").await.is_err());
        assert_eq!(
            strict.lookup("Outside.Example.").await.ok(),
            Some(vec![public])
        );
        // localhost goes through the system resolver and is loopback.
        assert!(matches!(
            strict.lookup("localhost").await,
            Err(ResolveError::NotPublic { .. })
        ));
        let relaxed = SafeResolver::new(true).with_fixed("inside.example", vec![private]);
        assert_eq!(
            relaxed.lookup("inside.example").await.ok(),
            Some(vec![private])
        );
    }
}
