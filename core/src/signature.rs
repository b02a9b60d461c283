//! Webhook signatures (DESIGN.md §7 "Webhooks"): the `X-Undertone-Signature` scheme
//! (`sha256=` + hex HMAC-SHA256 of the raw body keyed with the secret's bytes, as
//! GitHub signs) and the Standard Webhooks scheme (`v1,` + base64 HMAC-SHA256 of
//! `{id}.{timestamp}.{body}` keyed with the base64-decoded part of `whsec_…`).
//!
//! Pure: the server signs with these and every SDK verifies with them. Verification
//! compares in constant time (the MAC's own comparison).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::{Error, Result, Violation};

type HmacSha256 = Hmac<Sha256>;

/// Prefix of a webhook secret.
pub const SECRET_PREFIX: &str = "whsec_";

fn mac(key: &[u8]) -> HmacSha256 {
    // HMAC takes keys of any length; `new_from_slice` cannot fail for it.
    <HmacSha256 as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
}

/// `X-Undertone-Signature` for `body`: `sha256=<lowercase hex>`, keyed with the
/// secret string's bytes as given.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut m = mac(secret.as_bytes());
    m.update(body);
    let tag = m.finalize().into_bytes();
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256=");
    for b in tag {
        out.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    out
}

/// Whether `header` (`sha256=<hex>`) is the signature of `body` under `secret`.
pub fn verify(secret: &str, body: &[u8], header: &str) -> bool {
    let Some(hex) = header.trim().strip_prefix("sha256=") else {
        return false;
    };
    let Some(tag) = decode_hex(hex) else {
        return false;
    };
    let mut m = mac(secret.as_bytes());
    m.update(body);
    m.verify_slice(&tag).is_ok()
}

/// The Standard Webhooks key: the base64-decoded part of `whsec_…`.
fn standard_key(secret: &str) -> Result<Vec<u8>> {
    secret
        .strip_prefix(SECRET_PREFIX)
        .and_then(|b64| STANDARD.decode(b64).ok())
        .ok_or_else(|| {
            Error::Validation(vec![Violation::new(
                "secret",
                "must be `whsec_` followed by base64",
            )])
        })
}

fn standard_mac(key: &[u8], id: &str, timestamp: i64, body: &[u8]) -> HmacSha256 {
    let mut m = mac(key);
    m.update(id.as_bytes());
    m.update(b".");
    m.update(timestamp.to_string().as_bytes());
    m.update(b".");
    m.update(body);
    m
}

/// `webhook-signature` for a delivery: `v1,<base64>`.
pub fn sign_standard(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String> {
    let key = standard_key(secret)?;
    let tag = standard_mac(&key, id, timestamp, body)
        .finalize()
        .into_bytes();
    Ok(format!("v1,{}", STANDARD.encode(tag)))
}

/// Whether any `v1,` signature in `header` (space-separated, as the spec allows
/// several) matches, and `timestamp` is within `tolerance_secs` of `now` (unix
/// seconds; the caller reads the clock) so replays are refused.
pub fn verify_standard(
    secret: &str,
    id: &str,
    timestamp: i64,
    body: &[u8],
    header: &str,
    now: i64,
    tolerance_secs: i64,
) -> bool {
    // Checked: a hostile timestamp (i64::MIN, i64::MAX) is refused, not an overflow.
    match now.checked_sub(timestamp).and_then(i64::checked_abs) {
        Some(skew) if skew <= tolerance_secs => {}
        _ => return false,
    }
    let Ok(key) = standard_key(secret) else {
        return false;
    };
    header.split_whitespace().any(|candidate| {
        candidate
            .strip_prefix("v1,")
            .and_then(|b64| STANDARD.decode(b64).ok())
            .is_some_and(|tag| {
                standard_mac(&key, id, timestamp, body)
                    .verify_slice(&tag)
                    .is_ok()
            })
    })
}

/// How far a Standard Webhooks `webhook-timestamp` may be from now, in seconds, for
/// [`verify_headers`]: five minutes, as the Standard Webhooks spec suggests.
pub const DEFAULT_TOLERANCE_SECS: i64 = 300;

/// Whether a delivery's headers carry a valid signature of `body` under `secret`, the
/// one-call check every SDK offers.
///
/// `headers` are (name, value) pairs, names in any case. Every scheme present must
/// verify, and at least one must be present: `X-Undertone-Signature`, and the
/// Standard Webhooks trio `webhook-id`, `webhook-timestamp`, `webhook-signature`, whose
/// timestamp must be within `tolerance_secs` of `now` (unix seconds; the caller reads
/// the clock). A delivery from Undertone carries both.
pub fn verify_headers<'a>(
    secret: &str,
    body: &[u8],
    headers: impl IntoIterator<Item = (&'a str, &'a str)>,
    now: i64,
    tolerance_secs: i64,
) -> bool {
    let (mut plain, mut id, mut timestamp, mut standard) = (None, None, None, None);
    for (name, value) in headers {
        let slot = match name.to_ascii_lowercase().as_str() {
            "x-undertone-signature" => &mut plain,
            "webhook-id" => &mut id,
            "webhook-timestamp" => &mut timestamp,
            "webhook-signature" => &mut standard,
            _ => continue,
        };
        *slot = Some(value);
    }
    let plain_ok = plain.map(|header| verify(secret, body, header));
    let standard_ok = match (id, timestamp, standard) {
        (None, None, None) => None,
        (Some(id), Some(ts), Some(sig)) => Some(
            ts.trim()
                .parse::<i64>()
                .is_ok_and(|ts| verify_standard(secret, id, ts, body, sig, now, tolerance_secs)),
        ),
        // Part of the trio: tampered with, or not ours.
        _ => Some(false),
    };
    match (plain_ok, standard_ok) {
        (None, None) => false,
        (a, b) => a.unwrap_or(true) && b.unwrap_or(true),
    }
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| char::from(c).to_digit(16).map(|d| d as u8);
    hex.as_bytes()
        .chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GitHub's documented `X-Hub-Signature-256` example ("Validating webhook
    /// deliveries", docs.github.com); recomputed with Python's `hmac`.
    const GITHUB: (&str, &[u8], &str) = (
        "It's a Secret to Everybody",
        b"Hello, World!",
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    );

    /// The signature example of the Standard Webhooks specification
    /// (standard-webhooks/standard-webhooks, spec/standard-webhooks.md); recomputed
    /// with Python's `hmac`.
    const STD_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const STD_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const STD_TS: i64 = 1_614_265_330;
    const STD_BODY: &[u8] = br#"{"test": 2432232314}"#;
    const STD_SIG: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    #[test]
    fn extreme_timestamps_are_refused_without_overflow() {
        for (timestamp, now) in [
            (i64::MIN, 0),
            (i64::MAX, -1),
            (i64::MIN, i64::MAX),
            (0, i64::MIN),
        ] {
            assert!(
                !verify_standard(STD_SECRET, STD_ID, timestamp, STD_BODY, STD_SIG, now, 300),
                "{timestamp} at {now}"
            );
        }
        // The vector itself still verifies at its own time.
        assert!(verify_standard(
            STD_SECRET, STD_ID, STD_TS, STD_BODY, STD_SIG, STD_TS, 300
        ));
    }

    #[test]
    fn github_vector() {
        let (secret, body, expected) = GITHUB;
        assert_eq!(sign(secret, body), expected);
        assert!(verify(secret, body, expected));
        assert!(!verify(secret, b"Hello, World?", expected));
        assert!(!verify("another secret", body, expected));
        assert!(!verify(secret, body, &expected.replace("sha256=", "sha1=")));
        assert!(!verify(secret, body, &expected[..expected.len() - 2]));
        assert!(!verify(secret, body, "sha256=zz"));
    }

    #[test]
    fn standard_webhooks_vector() {
        assert_eq!(
            sign_standard(STD_SECRET, STD_ID, STD_TS, STD_BODY).unwrap(),
            STD_SIG
        );
        assert!(verify_standard(
            STD_SECRET,
            STD_ID,
            STD_TS,
            STD_BODY,
            STD_SIG,
            STD_TS + 10,
            300
        ));
        // Several signatures, one of them right.
        let several = format!("v1,AAAA {STD_SIG}");
        assert!(verify_standard(
            STD_SECRET, STD_ID, STD_TS, STD_BODY, &several, STD_TS, 300
        ));
        // A replay outside the tolerance, a changed id or body, a wrong version.
        assert!(!verify_standard(
            STD_SECRET,
            STD_ID,
            STD_TS,
            STD_BODY,
            STD_SIG,
            STD_TS + 301,
            300
        ));
        assert!(!verify_standard(
            STD_SECRET,
            "msg_other",
            STD_TS,
            STD_BODY,
            STD_SIG,
            STD_TS,
            300
        ));
        assert!(!verify_standard(
            STD_SECRET, STD_ID, STD_TS, b"{}", STD_SIG, STD_TS, 300
        ));
        assert!(!verify_standard(
            STD_SECRET,
            STD_ID,
            STD_TS,
            STD_BODY,
            &STD_SIG.replace("v1,", "v2,"),
            STD_TS,
            300
        ));
    }

    #[test]
    fn a_secret_without_the_prefix_is_a_validation_error() {
        let e = sign_standard("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", STD_ID, STD_TS, STD_BODY)
            .unwrap_err();
        assert_eq!(e.violations()[0].path, "secret");
        assert!(!verify_standard(
            "nope", STD_ID, STD_TS, STD_BODY, STD_SIG, STD_TS, 300
        ));
    }

    #[test]
    fn verify_headers_needs_every_present_scheme() {
        let plain = sign(STD_SECRET, STD_BODY);
        let both = [
            ("X-Undertone-Signature", plain.as_str()),
            ("Webhook-Id", STD_ID),
            ("webhook-timestamp", "1614265330"),
            ("webhook-signature", STD_SIG),
        ];
        let check = |h: &[(&str, &str)], now| {
            verify_headers(
                STD_SECRET,
                STD_BODY,
                h.iter().copied(),
                now,
                DEFAULT_TOLERANCE_SECS,
            )
        };
        assert!(check(&both, STD_TS + 5));
        assert!(check(&both[..1], STD_TS + 5), "the plain scheme alone");
        assert!(check(&both[1..], STD_TS + 5), "Standard Webhooks alone");
        assert!(!check(&both, STD_TS + 301), "a replay fails the timestamp");
        assert!(!check(&both[..3], STD_TS), "part of the trio");
        assert!(!check(&[], STD_TS), "no signature at all");
        let wrong = sign("whsec_other", STD_BODY);
        let mut tampered = both;
        tampered[0].1 = &wrong;
        assert!(!check(&tampered, STD_TS), "one bad scheme fails the whole");
        assert!(!check(
            &[
                ("webhook-id", STD_ID),
                ("webhook-timestamp", "soon"),
                ("webhook-signature", STD_SIG)
            ],
            STD_TS
        ));
    }
}
