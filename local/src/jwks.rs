//! RS256 tokens of an identity provider (`LOCAL_JWT_ISSUER`), verified as API Gateway's JWT
//! authorizer verifies them: the signature against the issuer's published keys (a JSON Web Key
//! Set, fetched from `LOCAL_JWKS_URL`), `iss` equal to the issuer, the audience (`aud`, or an
//! access token's `client_id`) one of `LOCAL_JWT_AUDIENCE`, `exp` (required) and `nbf`. So a
//! test can sign a player in through a Cognito emulator and call the local API with the very
//! tokens a deployed game sends.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{RSA_PKCS1_2048_8192_SHA256, RsaPublicKeyComponents};
use serde_json::{Map, Value};

use crate::Error;
use crate::client::ApiClient;
use crate::jwt::{JwtError, JwtKey, Parts, check_times, decode_object};

/// An identity provider the local API trusts as the template's JWT authorizer trusts one.
#[derive(Debug, Clone)]
pub struct IssuerSettings {
    /// Its tokens' `iss`, exactly (`LOCAL_JWT_ISSUER`).
    pub issuer: String,
    /// The audiences the API takes (`LOCAL_JWT_AUDIENCE`, comma-separated): an ID token's
    /// `aud`, an access token's `client_id`.
    pub audiences: Vec<String>,
    /// Where its key set is read at start (`LOCAL_JWKS_URL`, an `http://` address on this
    /// machine; default: the issuer's `/.well-known/jwks.json`).
    pub jwks_url: String,
}

impl IssuerSettings {
    /// From `LOCAL_JWT_ISSUER`, `LOCAL_JWT_AUDIENCE` and `LOCAL_JWKS_URL` through `lookup`:
    /// `None` without an issuer.
    pub fn from_lookup(
        lookup: &impl Fn(&str) -> Option<String>,
    ) -> Result<Option<IssuerSettings>, Error> {
        let Some(issuer) = lookup("LOCAL_JWT_ISSUER") else {
            return Ok(None);
        };
        // As the template refuses JwtIssuer without JwtAudience.
        let audiences: Vec<String> = lookup("LOCAL_JWT_AUDIENCE")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .collect();
        if audiences.is_empty() {
            return Err(Error::Config(
                "LOCAL_JWT_AUDIENCE is required when LOCAL_JWT_ISSUER is set (the API checks both)"
                    .to_owned(),
            ));
        }
        let jwks_url = lookup("LOCAL_JWKS_URL")
            .unwrap_or_else(|| format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/')));
        Ok(Some(IssuerSettings {
            issuer,
            audiences,
            jwks_url,
        }))
    }
}

/// One RSA key of the set.
#[derive(Debug, Clone)]
struct RsaKey {
    kid: String,
    n: Vec<u8>,
    e: Vec<u8>,
}

/// An issuer's keys and the audiences the API takes.
#[derive(Debug, Clone)]
pub struct IssuerKeys {
    issuer: String,
    audiences: Vec<String>,
    keys: Vec<RsaKey>,
}

impl IssuerKeys {
    /// The RSA signing keys of `jwks` (a JSON Web Key Set document) for tokens whose `iss` is
    /// `issuer` and whose audience is one of `audiences`. Keys of other types or uses are
    /// skipped; a set with no RSA key is refused.
    pub fn from_jwks(
        issuer: &str,
        audiences: &[String],
        jwks: &Value,
    ) -> Result<IssuerKeys, String> {
        let keys: Vec<RsaKey> = jwks["keys"]
            .as_array()
            .ok_or("the key set has no `keys` array")?
            .iter()
            .filter(|k| k["kty"] == "RSA" && k.get("use").is_none_or(|u| u == "sig"))
            .filter_map(|k| {
                let part = |name: &str| URL_SAFE_NO_PAD.decode(k[name].as_str()?).ok();
                Some(RsaKey {
                    kid: k["kid"].as_str().unwrap_or_default().to_owned(),
                    n: part("n")?,
                    e: part("e")?,
                })
            })
            .collect();
        if keys.is_empty() {
            return Err("the key set has no RSA signing key".to_owned());
        }
        Ok(IssuerKeys {
            issuer: issuer.to_owned(),
            audiences: audiences.to_vec(),
            keys,
        })
    }

    /// The issuer's keys, read from its key set's address (`http://` on this machine: the
    /// local stack reaches nothing else).
    pub async fn fetch(settings: &IssuerSettings) -> Result<IssuerKeys, Error> {
        let url = &settings.jwks_url;
        let refuse = |why: String| Error::Config(format!("LOCAL_JWKS_URL {url:?}: {why}"));
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| refuse("not an http:// address".to_owned()))?;
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let host = host.replace("localhost", "127.0.0.1");
        let addr = host
            .parse()
            .map_err(|_| refuse(format!("{host:?} is not 127.0.0.1:<port>")))?;
        let path = if path.is_empty() { "/" } else { path };
        let resp = ApiClient::new(addr).get(path).await?;
        if resp.status != 200 {
            return Err(refuse(format!("answered {}", resp.status)));
        }
        IssuerKeys::from_jwks(&settings.issuer, &settings.audiences, &resp.body).map_err(refuse)
    }

    /// The claims of `token` if the issuer signed it for one of the audiences and it is valid
    /// at `now_secs`.
    pub fn verify(&self, token: &str, now_secs: i64) -> Result<Map<String, Value>, JwtError> {
        let parts = Parts::of(token, "RS256")?;
        let kid = parts
            .header
            .get("kid")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let key = self
            .keys
            .iter()
            .find(|k| k.kid == kid)
            .ok_or(JwtError::Signature)?;
        RsaPublicKeyComponents {
            n: &key.n,
            e: &key.e,
        }
        .verify(
            &RSA_PKCS1_2048_8192_SHA256,
            parts.signing_input.as_bytes(),
            &parts.signature,
        )
        .map_err(|_| JwtError::Signature)?;
        let claims = decode_object(parts.payload)?;
        if claims.get("iss").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err(JwtError::Issuer);
        }
        // An ID token names its audience in `aud` (a string or a list); a Cognito access
        // token in `client_id`. API Gateway takes either.
        let audience_ok = match (claims.get("aud"), claims.get("client_id")) {
            (Some(Value::String(aud)), _) => self.audiences.contains(aud),
            (Some(Value::Array(auds)), _) => auds.iter().any(|a| {
                a.as_str()
                    .is_some_and(|a| self.audiences.iter().any(|x| x == a))
            }),
            (None, Some(Value::String(client))) => self.audiences.contains(client),
            _ => false,
        };
        if !audience_ok {
            return Err(JwtError::Audience);
        }
        check_times(&claims, now_secs)?;
        Ok(claims)
    }
}

/// What the local gateway verifies tokens with: its own HS256 secret (the tokens it prints and
/// the demo uses), and, when `LOCAL_JWT_ISSUER` is set, that issuer's RS256 tokens too.
#[derive(Debug, Clone)]
pub struct Verifier {
    /// The stack's own key.
    pub key: JwtKey,
    /// The identity provider's keys, if one is configured.
    pub issuer: Option<IssuerKeys>,
}

impl Verifier {
    /// The claims of `token`: by the issuer's keys when its header says RS256 and an issuer is
    /// configured, else by the stack's own key.
    pub fn verify(&self, token: &str, now_secs: i64) -> Result<Map<String, Value>, JwtError> {
        match &self.issuer {
            Some(issuer) if header_alg(token).as_deref() == Some("RS256") => {
                issuer.verify(token, now_secs)
            }
            _ => self.key.verify(token, now_secs),
        }
    }
}

impl From<JwtKey> for Verifier {
    /// The stack's own key only.
    fn from(key: JwtKey) -> Verifier {
        Verifier { key, issuer: None }
    }
}

fn header_alg(token: &str) -> Option<String> {
    let header = decode_object(token.split('.').next()?).ok()?;
    header.get("alg")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::rand::SystemRandom;
    use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
    use serde_json::json;

    const NOW: i64 = 1_795_234_380;
    const ISSUER: &str = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_test";

    /// A 2048-bit RSA key made for these tests only (PKCS#1 DER, base64): it signs nothing else.
    const TEST_KEY: &str = concat!(
        "MIIEogIBAAKCAQEA0ah4HBty7amSCMTsxUdQ0TsUK90cGyaDzAxInfEH1z60YCILVydDnyIXrjchsard+pRyxwPt",
        "XRImUCHv2MrVP/NH04xR0u2wJRTek5mXswpr6Fxg4+4IFEbTid7KyNvfnNTaJDlVfdMggGJxVE8YEI/H1LSoXvuT",
        "z/434Pb/aFq0V1SOzdZln6vdsBLgfJv4km6VeVy9oszjcAau0jItCXcgE7utndgC2KAIGkm/nh6pomrAOlonyWL/",
        "LF11lyJQpICYYjXz8Le+QUKUjsWrs0zrWqBHY2D/u7ZK9U8OGoejTa6ovy+35APMe3C83k9S1l/z7zAWbSEPhu/e",
        "sgEFtQIDAQABAoIBABTwvHRkOnWp6OPW1WY74gLP4YsjBb5hear89BjQXO3e/bGXXOYazhp8E3zrVUJzVEIFpzQg",
        "/Il9+VUqGpRe5+8/+4XR309Pvbbqb3OzFM+FZDM8XNIPMX/i9hhwZ/UpXtuBd/tDvbn4RygDjRm0X60xyy3/0ExS",
        "WNhephKiYO65aDVmSQpRGO7v4qeeug/b2w4PW1iKEx4rYZNiS3dtD7oKfBcwI2Y72oiZdlBRtSftNHOsjIo/otgP",
        "ci2R3lO/owcjCyCxgiwqEQgItbExY890/mgkv5VQPoGp74u8UoG2F2jbBvHlMVb1ToY9ADRYsj02jqsQ8ZuT6OSi",
        "h8wax4ECgYEA8ZqXA2sih8v45YDPBoqkKB6sTW/AdIks6ZxTMDZF/RBvxl72lPGG+2oQOhzuMt6iqJzODURVG0Ar",
        "LVmwZhU91BgoyNdlWXKNMrG9ilvmKMJO/38Qn3THGZUx0Frxqwbq3du2OyeaCLAAKc+X+4u1AwV5qDkXXtRkOFi3",
        "HvDe7oECgYEA3iaUj2trKYgRl0f/HoymEb+f7XHejNj1J/60+g8Rt3QMdXUNRO4qsQCHGzC3lbfkkU0QmdxY6lPD",
        "h0eo98hye1M7FZZszTr/DsS/c1kW6OVJSlSoPLOaCH3332QOjXrHbNDSpYCBOxTloSTtocv2hLwIbt2kOSK+e/nO",
        "8PzhJTUCgYAm4MuAP1M1KvuIYuvtj43O7vCnHV6I4jIZ/Y/daD5m9Kgn8cwYN62S84Rc9Z7XDMB8BY+azu4rDm5k",
        "Q9SA+NYUNTcK6q5icG6MQ9HOW+9zi6EOuDHClxYa5ck4UAonjVtqDBsM9dhxoXDFSaSZU+fy7oSfL2C1X9QoxQ3i",
        "qrwVAQKBgAYZ+SqXQLI7UoBdMdyc8FK8eKAE6J/ltZYLoNzdXRc00MLJHDwwbmu+H/fXNrOeAWEcRMB1FNwawNwO",
        "U826a6qHdq/5GbPpUugM71UztTVgVsr72EMSi8B/9TblgKDSJngOpDp3dRUyVbw/T2eKOpMatwCUhdYr5h9xlQV5",
        "bJWhAoGANXREClBhywwgRwwkFR350OiVolI+h9b+OcKJfR8Pt6g4TkxIq7sAC75EqVkDJ0rdvJMD9EV8ICIn7bqx",
        "TN1MR98H6OBHKsRKCZ76h4VvXmDaAfbMbI9ofSGu3gX3qpa6VakMXsOGUG8cbJUpfl2Z8IniOIPFZRaXNQRiwcmi",
        "2lg=",
    );

    fn pair() -> RsaKeyPair {
        let der = base64::engine::general_purpose::STANDARD
            .decode(TEST_KEY)
            .unwrap();
        RsaKeyPair::from_der(&der).unwrap()
    }

    fn jwks(kid: &str) -> Value {
        let public = RsaPublicKeyComponents::<Vec<u8>>::from(pair().public());
        json!({"keys": [
            {"kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"},
            {"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
             "n": URL_SAFE_NO_PAD.encode(&public.n), "e": URL_SAFE_NO_PAD.encode(&public.e)},
        ]})
    }

    fn sign(header: &Value, claims: &Value) -> String {
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let pair = pair();
        let mut signature = vec![0; pair.public().modulus_len()];
        pair.sign(
            &RSA_PKCS1_SHA256,
            &SystemRandom::new(),
            input.as_bytes(),
            &mut signature,
        )
        .unwrap();
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature))
    }

    fn id_token(claims: Value) -> String {
        sign(&json!({"alg": "RS256", "kid": "k1"}), &claims)
    }

    fn claims() -> Value {
        json!({"iss": ISSUER, "sub": "u-1", "aud": "client-a", "token_use": "id",
               "exp": NOW + 60, "cognito:groups": ["admin"]})
    }

    fn keys() -> IssuerKeys {
        IssuerKeys::from_jwks(
            ISSUER,
            &["client-a".to_owned(), "client-b".to_owned()],
            &jwks("k1"),
        )
        .unwrap()
    }

    #[test]
    fn takes_the_issuers_id_and_access_tokens_for_its_audiences() {
        let keys = keys();
        let got = keys.verify(&id_token(claims()), NOW).unwrap();
        assert_eq!(got["sub"], "u-1");
        assert_eq!(got["cognito:groups"], json!(["admin"]));
        // An access token names its client in `client_id`, and has no `aud`.
        let mut access = claims();
        access.as_object_mut().unwrap().remove("aud");
        access["client_id"] = json!("client-b");
        assert!(keys.verify(&id_token(access), NOW).is_ok());
        // `aud` as a list, one of them ours.
        let mut listed = claims();
        listed["aud"] = json!(["other", "client-a"]);
        assert!(keys.verify(&id_token(listed), NOW).is_ok());
    }

    #[test]
    fn refuses_another_issuer_audience_key_or_time() {
        let keys = keys();
        let mut other = claims();
        other["iss"] = json!("https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other");
        assert_eq!(keys.verify(&id_token(other), NOW), Err(JwtError::Issuer));
        let mut foreign = claims();
        foreign["aud"] = json!("client-z");
        assert_eq!(
            keys.verify(&id_token(foreign), NOW),
            Err(JwtError::Audience)
        );
        let mut neither = claims();
        neither.as_object_mut().unwrap().remove("aud");
        assert_eq!(
            keys.verify(&id_token(neither), NOW),
            Err(JwtError::Audience)
        );
        let unknown_kid = sign(&json!({"alg": "RS256", "kid": "k2"}), &claims());
        assert_eq!(keys.verify(&unknown_kid, NOW), Err(JwtError::Signature));
        // A payload swapped under a valid signature.
        let good = id_token(claims());
        let mut changed = claims();
        changed["sub"] = json!("u-2");
        let swapped = id_token(changed);
        let mut parts: Vec<&str> = good.split('.').collect();
        parts[1] = swapped.split('.').nth(1).unwrap();
        assert_eq!(keys.verify(&parts.join("."), NOW), Err(JwtError::Signature));
        assert_eq!(keys.verify(&good, NOW + 60), Err(JwtError::Expired));
        let hs = sign(&json!({"alg": "HS256", "kid": "k1"}), &claims());
        assert_eq!(keys.verify(&hs, NOW), Err(JwtError::Algorithm));
        assert!(IssuerKeys::from_jwks(ISSUER, &[], &json!({"keys": []})).is_err());
    }

    #[test]
    fn the_stack_takes_its_own_tokens_and_the_issuers() {
        let own = JwtKey::new("s");
        let verifier = Verifier {
            key: own.clone(),
            issuer: Some(keys()),
        };
        assert_eq!(
            verifier
                .verify(&own.token_for("p", &[], NOW, 60), NOW)
                .unwrap()["sub"],
            "p"
        );
        assert_eq!(
            verifier.verify(&id_token(claims()), NOW).unwrap()["sub"],
            "u-1"
        );
        // Without an issuer, an RS256 token is refused by the stack's own key.
        let own_only = Verifier {
            key: own,
            issuer: None,
        };
        assert_eq!(
            own_only.verify(&id_token(claims()), NOW),
            Err(JwtError::Algorithm)
        );
    }
}
