//! Guest sign-ups' sources: where a request for a guest account came from, as the limit of
//! guest accounts a source may make in an hour counts them, kept without the address itself.
//!
//! A source is the caller's network as the API sees it: an IPv4 address whole, an IPv6
//! address's /64 (a single subscriber's block, which a client can move about in at will). It is
//! stored as its first 64 bits of HMAC-SHA256 under the deployment's erasure secret, so the
//! table never holds an address, and one cannot be recovered from it without the secret, not
//! even by hashing all 2^32 IPv4 addresses.
//!
//! ```
//! use leaderboard_keys::guest::GuestSource;
//!
//! let a = GuestSource::of(b"secret", "203.0.113.7".parse().unwrap());
//! assert_eq!(a.as_str().len(), 16);
//! assert_eq!(a, GuestSource::of(b"secret", "203.0.113.7".parse().unwrap()));
//! assert_ne!(a, GuestSource::of(b"secret", "203.0.113.8".parse().unwrap()));
//! // One IPv6 /64, one source.
//! assert_eq!(
//!     GuestSource::of(b"secret", "2001:db8:1:2::1".parse().unwrap()),
//!     GuestSource::of(b"secret", "2001:db8:1:2:ffff::9".parse().unwrap()),
//! );
//! assert_eq!(GuestSource::parse(a.as_str()).unwrap(), a);
//! ```

use std::net::IpAddr;

use crate::KeyError;
use crate::erasure::{is_lower_hex, keyed_hex};

/// How many hex digits a source is.
const HEX_DIGITS: usize = 16;

/// A guest sign-up's source: 16 lower-case hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GuestSource(String);

impl GuestSource {
    /// The source of a request from `address`, under the erasure secret `secret`.
    pub fn of(secret: &[u8], address: IpAddr) -> GuestSource {
        let network = match address {
            IpAddr::V4(v4) => v4.octets().to_vec(),
            // An IPv4 address written as IPv6 is the IPv4 address.
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => v4.octets().to_vec(),
                None => v6.octets()[..8].to_vec(),
            },
        };
        // Tagged, apart from the pseudonyms made with the same secret.
        GuestSource(keyed_hex(
            secret,
            &[b"guest-source\0", &network],
            HEX_DIGITS,
        ))
    }

    /// Parses a stored source.
    pub fn parse(s: &str) -> Result<GuestSource, KeyError> {
        if is_lower_hex(s, HEX_DIGITS) {
            Ok(GuestSource(s.to_owned()))
        } else {
            Err(KeyError::malformed(
                s,
                "a guest source is 16 lower-case hex digits",
            ))
        }
    }

    /// The source as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for GuestSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
