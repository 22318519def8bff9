//! HS256 JSON Web Tokens: what the local gateway verifies in place of API Gateway's JWT
//! authorizer, and what it signs for the sample tokens it prints.
//!
//! Verification checks what API Gateway checks that a shared secret can stand in for: the
//! algorithm (`HS256` only, so an `alg: none` token is refused), the signature, `exp` (required)
//! and `nbf` (if present). Issuer and audience are not checked locally. The verified claims are
//! handed to the handler as API Gateway hands them: a map of strings
//! ([`claims_as_strings`]).

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;

/// The secret the local stack uses when `LOCAL_JWT_SECRET` is not set.
pub const DEFAULT_SECRET: &str = "local-dev-secret";

/// Why a token was refused. Every variant is answered with 401.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    /// No token in the `Authorization` header.
    #[error("a bearer token is required")]
    Missing,
    /// Not three base64url parts of JSON objects.
    #[error("the token is malformed")]
    Malformed,
    /// A header that does not say `HS256` (or `RS256`, for an issuer's token).
    #[error("the token's algorithm is not one this API accepts")]
    Algorithm,
    /// The signature does not match.
    #[error("the token's signature is not valid")]
    Signature,
    /// No numeric `exp` claim.
    #[error("the token has no exp claim")]
    NoExpiry,
    /// `exp` is in the past.
    #[error("the token has expired")]
    Expired,
    /// `nbf` is in the future.
    #[error("the token is not valid yet")]
    NotYetValid,
    /// An issuer's token whose `iss` is not that issuer.
    #[error("the token's issuer is not the one this API trusts")]
    Issuer,
    /// An issuer's token for another audience (`aud`, or an access token's `client_id`).
    #[error("the token is not for this API's audience")]
    Audience,
}

/// An HS256 key: signs and verifies tokens.
#[derive(Clone)]
pub struct JwtKey {
    secret: Vec<u8>,
}

impl std::fmt::Debug for JwtKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JwtKey(<redacted>)")
    }
}

impl JwtKey {
    /// A key of this secret.
    pub fn new(secret: impl AsRef<[u8]>) -> JwtKey {
        JwtKey {
            secret: secret.as_ref().to_vec(),
        }
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC takes a key of any length.
        Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC accepts any key length")
    }

    /// A signed token of these claims (a JSON object).
    pub fn sign(&self, claims: &Value) -> String {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
        let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signing_input = format!("{header}.{payload}");
        let mut mac = self.mac();
        mac.update(signing_input.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        format!("{signing_input}.{signature}")
    }

    /// A token for `sub` in `groups` (`cognito:groups`), valid for `ttl_secs` from `now_secs`,
    /// shaped like a Cognito ID token.
    pub fn token_for(&self, sub: &str, groups: &[&str], now_secs: i64, ttl_secs: i64) -> String {
        self.sign(&id_claims(sub, groups, now_secs, ttl_secs))
    }

    /// [`JwtKey::token_for`] a player whose identity provider verified `email`: the claims
    /// `email` and `email_verified: true` an ID token carries, the only proof of an address
    /// `PUT /players/me` takes.
    pub fn token_proving(&self, sub: &str, email: &str, now_secs: i64, ttl_secs: i64) -> String {
        let mut claims = id_claims(sub, &[], now_secs, ttl_secs);
        claims["email"] = json!(email);
        claims["email_verified"] = json!(true);
        self.sign(&claims)
    }

    /// The claims of `token` if it is a valid HS256 token of this key at `now_secs`.
    pub fn verify(&self, token: &str, now_secs: i64) -> Result<Map<String, Value>, JwtError> {
        let parts = Parts::of(token, "HS256")?;
        let mut mac = self.mac();
        mac.update(parts.signing_input.as_bytes());
        // Constant-time comparison.
        mac.verify_slice(&parts.signature)
            .map_err(|_| JwtError::Signature)?;
        let claims = decode_object(parts.payload)?;
        check_times(&claims, now_secs)?;
        Ok(claims)
    }
}

/// A token's three parts, its header read and its algorithm checked: what is verified before
/// its claims are read.
pub(crate) struct Parts<'a> {
    /// `header.payload`, what the signature signs.
    pub signing_input: &'a str,
    /// The header.
    pub header: Map<String, Value>,
    /// The payload, still encoded.
    pub payload: &'a str,
    /// The signature's bytes.
    pub signature: Vec<u8>,
}

impl<'a> Parts<'a> {
    /// The parts of `token`, whose header must name `alg` (so `alg: none`, or a key of one
    /// kind used as another's, is refused before any signature check).
    pub fn of(token: &'a str, alg: &str) -> Result<Parts<'a>, JwtError> {
        let (signing_input, signature) = token.rsplit_once('.').ok_or(JwtError::Malformed)?;
        let (header, payload) = signing_input.split_once('.').ok_or(JwtError::Malformed)?;
        if payload.contains('.') {
            return Err(JwtError::Malformed);
        }
        let header = decode_object(header)?;
        if header.get("alg").and_then(Value::as_str) != Some(alg) {
            return Err(JwtError::Algorithm);
        }
        let signature = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| JwtError::Malformed)?;
        Ok(Parts {
            signing_input,
            header,
            payload,
            signature,
        })
    }
}

/// `exp` (required) is after `now_secs`, and `nbf` (if present) is not.
pub(crate) fn check_times(claims: &Map<String, Value>, now_secs: i64) -> Result<(), JwtError> {
    let exp = claims
        .get("exp")
        .and_then(Value::as_f64)
        .ok_or(JwtError::NoExpiry)?;
    if exp <= now_secs as f64 {
        return Err(JwtError::Expired);
    }
    if let Some(nbf) = claims.get("nbf").and_then(Value::as_f64)
        && nbf > now_secs as f64
    {
        return Err(JwtError::NotYetValid);
    }
    Ok(())
}

/// One base64url part of a token, a JSON object.
pub(crate) fn decode_object(part: &str) -> Result<Map<String, Value>, JwtError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| JwtError::Malformed)?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(JwtError::Malformed),
    }
}

/// The token of an `Authorization` header value: `Bearer <token>` or the bare token (API
/// Gateway accepts both).
pub fn bearer(header: &str) -> Option<&str> {
    let header = header.trim();
    let token = match header.split_once(char::is_whitespace) {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        Some(_) => return None,
        None if header.eq_ignore_ascii_case("bearer") => return None,
        None => header,
    };
    (!token.is_empty()).then_some(token)
}

/// The claims of a Cognito-shaped ID token for `sub` in `groups`.
fn id_claims(sub: &str, groups: &[&str], now_secs: i64, ttl_secs: i64) -> Value {
    let mut claims = json!({
        "sub": sub,
        "iss": "http://127.0.0.1/local",
        "aud": "leaderboard-local",
        "token_use": "id",
        "iat": now_secs,
        "exp": now_secs + ttl_secs,
    });
    if !groups.is_empty() {
        claims["cognito:groups"] = json!(groups);
    }
    claims
}

/// One claim as API Gateway's JWT authorizer passes it: strings as they are, numbers in
/// decimal, booleans as `true`/`false`, arrays as `[a b]`, objects as JSON text.
fn claim_string(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(claim_string).collect();
            format!("[{}]", inner.join(" "))
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The claims as the map of strings that API Gateway puts in
/// `requestContext.authorizer.jwt.claims`.
pub fn claims_as_strings(claims: &Map<String, Value>) -> HashMap<String, String> {
    claims
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), claim_string(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_234_380;

    #[test]
    fn signs_and_verifies() {
        let key = JwtKey::new(DEFAULT_SECRET);
        let token = key.token_for("p_demo", &["admin", "players"], NOW, 60);
        let claims = key.verify(&token, NOW).unwrap();
        assert_eq!(claims["sub"], "p_demo");
        let strings = claims_as_strings(&claims);
        assert_eq!(strings["cognito:groups"], "[admin players]");
        assert_eq!(strings["exp"], (NOW + 60).to_string());
        assert_eq!(strings["sub"], "p_demo");
    }

    #[test]
    fn refuses_bad_tokens() {
        let key = JwtKey::new("k");
        let good = key.token_for("p", &[], NOW, 60);
        assert_eq!(key.verify(&good, NOW + 60), Err(JwtError::Expired));
        assert_eq!(
            JwtKey::new("other").verify(&good, NOW),
            Err(JwtError::Signature)
        );
        assert_eq!(key.verify("abc", NOW), Err(JwtError::Malformed));
        assert_eq!(key.verify("a.b.c.d", NOW), Err(JwtError::Malformed));
        // A payload swapped under a valid signature.
        let other = key.token_for("q", &[], NOW, 60);
        let mut parts: Vec<&str> = good.split('.').collect();
        parts[1] = other.split('.').nth(1).unwrap();
        assert_eq!(key.verify(&parts.join("."), NOW), Err(JwtError::Signature));
        // alg: none is refused whatever the signature.
        let none = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(br#"{"sub":"p","exp":9999999999}"#)
        );
        assert_eq!(key.verify(&none, NOW), Err(JwtError::Algorithm));
        let no_exp = key.sign(&json!({"sub": "p"}));
        assert_eq!(key.verify(&no_exp, NOW), Err(JwtError::NoExpiry));
        let later = key.sign(&json!({"sub": "p", "exp": NOW + 60, "nbf": NOW + 30}));
        assert_eq!(key.verify(&later, NOW), Err(JwtError::NotYetValid));
    }

    #[test]
    fn reads_the_authorization_header() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("abc"), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(bearer(""), None);
    }

    #[test]
    fn claims_in_api_gateway_form() {
        let claims = json!({"a": 1, "b": true, "c": [1, "x"], "d": {"k": 1}, "e": null});
        let s = claims_as_strings(claims.as_object().unwrap());
        assert_eq!(s["a"], "1");
        assert_eq!(s["b"], "true");
        assert_eq!(s["c"], "[1 x]");
        assert_eq!(s["d"], r#"{"k":1}"#);
        assert!(!s.contains_key("e"));
    }
}
