//! API keys: `ut_live_<32 base62><6 base62 CRC32>` (DESIGN.md §7).
//!
//! The prefix makes a leaked key findable by secret scanners; the checksum lets the
//! server reject a mistyped key before any database work. Only the SHA-256 digest of a
//! key is stored, with its first [`DISPLAY_LEN`] characters for display.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::limits::Plan;
use crate::store::{KeyRecord, Store, StoreError};

/// Every key starts with this.
pub const PREFIX: &str = "ut_live_";
/// Random base62 characters after the prefix.
const BODY_LEN: usize = 32;
/// Base62 characters of the CRC32 checksum of the random part.
const CHECKSUM_LEN: usize = 6;
/// Length of a whole key.
pub const KEY_LEN: usize = PREFIX.len() + BODY_LEN + CHECKSUM_LEN;
/// Characters of a key kept in the database to tell keys apart in listings.
pub const DISPLAY_LEN: usize = 12;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

pub use crate::store::Scope;

/// Why a presented key was refused before any database lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyFormatError {
    /// Not `ut_live_` followed by 38 base62 characters.
    #[error("the API key is malformed: expected `ut_live_` followed by 38 letters and digits")]
    Malformed,
    /// The last six characters do not match the rest: a typo or a truncated copy.
    #[error("the API key's checksum does not match; check that it was copied whole")]
    Checksum,
}

/// A newly generated key, with what the database keeps of it.
#[derive(Debug, Clone)]
pub struct NewKey {
    /// The full key, shown once.
    pub plaintext: String,
    /// SHA-256 of the key.
    pub digest: [u8; 32],
    /// The key's first characters, for listings.
    pub display: String,
}

/// Generates a key from the operating system's random source.
pub fn generate() -> NewKey {
    let body: String = rand::rng()
        .sample_iter(&Alphanumeric)
        .take(BODY_LEN)
        .map(char::from)
        .collect();
    let plaintext = format!("{PREFIX}{body}{}", checksum(&body));
    NewKey {
        digest: digest(&plaintext),
        display: plaintext[..DISPLAY_LEN].to_owned(),
        plaintext,
    }
}

/// Checks the shape and checksum of a presented key and returns its digest.
pub fn check(key: &str) -> Result<[u8; 32], KeyFormatError> {
    let body_and_sum = key
        .strip_prefix(PREFIX)
        .filter(|rest| rest.len() == BODY_LEN + CHECKSUM_LEN)
        .filter(|rest| rest.bytes().all(|b| b.is_ascii_alphanumeric()))
        .ok_or(KeyFormatError::Malformed)?;
    let (body, sum) = body_and_sum.split_at(BODY_LEN);
    if checksum(body) != sum {
        return Err(KeyFormatError::Checksum);
    }
    Ok(digest(key))
}

/// SHA-256 of a key.
pub fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Compares two digests in constant time.
pub fn digests_equal(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

/// A webhook delivery secret: `whsec_` and the base64 of 32 random bytes.
pub fn generate_secret() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    format!(
        "{}{}",
        undertone_core::signature::SECRET_PREFIX,
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Creates a key for `org`, stores its digest and returns the record and the key
/// itself (the only time the key exists outside the caller's hands).
pub async fn issue(
    store: &Store,
    name: &str,
    org: &str,
    scope: Scope,
    plan: Plan,
    now: DateTime<Utc>,
) -> Result<(KeyRecord, String), StoreError> {
    let (record, plaintext) = mint(name, org, scope, plan, now);
    store.create_key(&record).await?;
    Ok((record, plaintext))
}

/// Issues the database's first key: `None` when it already holds a key (another
/// server started on it at the same moment may have made it).
pub async fn issue_first(
    store: &Store,
    name: &str,
    org: &str,
    scope: Scope,
    plan: Plan,
    now: DateTime<Utc>,
) -> Result<Option<(KeyRecord, String)>, StoreError> {
    let (record, plaintext) = mint(name, org, scope, plan, now);
    Ok(store
        .create_first_key(&record)
        .await?
        .then_some((record, plaintext)))
}

/// A new key and its record, not yet stored.
fn mint(
    name: &str,
    org: &str,
    scope: Scope,
    plan: Plan,
    now: DateTime<Utc>,
) -> (KeyRecord, String) {
    let new = generate();
    let record = KeyRecord {
        id: format!("key_{}", uuid::Uuid::new_v4().simple()),
        org_id: org.to_owned(),
        name: name.to_owned(),
        scope,
        digest: new.digest.to_vec(),
        display_prefix: new.display,
        delivery_secret: generate_secret(),
        plan,
        created_at: now,
        revoked_at: None,
    };
    (record, new.plaintext)
}

/// CRC32 of `body` as six base62 characters, zero-padded.
fn checksum(body: &str) -> String {
    let mut n = crc32fast::hash(body.as_bytes());
    let mut out = [b'0'; CHECKSUM_LEN];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    out.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_pass_their_own_check() {
        let key = generate();
        assert_eq!(key.plaintext.len(), KEY_LEN);
        assert!(key.plaintext.starts_with(PREFIX));
        assert_eq!(check(&key.plaintext), Ok(key.digest));
        assert_eq!(key.display, &key.plaintext[..12]);
    }

    #[test]
    fn checksum_is_crc32_in_base62() {
        // crc32("") = 0 → "000000"; crc32("a") = 0xE8B7BE43 = 3904355907.
        assert_eq!(checksum(""), "000000");
        assert_eq!(checksum("a"), "4GEHKN"); // python: zlib.crc32(b"a") in base62
    }

    #[test]
    fn one_changed_character_fails_the_checksum() {
        let key = generate().plaintext;
        let mut bytes = key.into_bytes();
        bytes[10] = if bytes[10] == b'a' { b'b' } else { b'a' };
        let typo = String::from_utf8(bytes).unwrap();
        assert_eq!(check(&typo), Err(KeyFormatError::Checksum));
    }

    #[test]
    fn wrong_shapes_are_malformed() {
        let key = generate().plaintext;
        for bad in [
            "",
            "ut_live_",
            &key[..KEY_LEN - 1],
            &format!("{key}x"),
            &key.replace("ut_live_", "ut_test_"),
            &format!("{}-{}", &key[..20], &key[21..]),
        ] {
            assert_eq!(check(bad), Err(KeyFormatError::Malformed), "{bad}");
        }
    }

    #[test]
    fn secrets_have_the_documented_shape() {
        let s = generate_secret();
        let raw = base64::engine::general_purpose::STANDARD
            .decode(s.strip_prefix("whsec_").unwrap())
            .unwrap();
        assert_eq!(raw.len(), 32);
    }
}
