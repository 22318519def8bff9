//! The HTTP client of every SDK client the functions build.
//!
//! It is the SDK's own hyper and rustls client (connection pool, timeouts), with two changes:
//! - ring's cryptography instead of aws-lc-rs, which is most of the difference in size between
//!   the two builds (issue 9: leaderboard-api 10.35 MB stripped with aws-lc-rs, 8.11 MB with
//!   ring, both at opt-level 3);
//! - the roots it trusts. By default only Amazon Trust Services' five roots, embedded, which sign
//!   every AWS service endpoint's certificate. The SDK's default reads the system's whole store
//!   at init: on this project's CI machine that is 146 files and about 4 ms of a 6.5 ms init.
//!   `LEADERBOARD_TLS_ROOTS=system` goes back to the system's store, for an endpoint with
//!   another certificate (`AWS_ENDPOINT_URL` at a proxy or an emulator over HTTPS).

use aws_sdk_dynamodb::config::SharedHttpClient;
use aws_smithy_http_client::tls::{self, TlsContext, TrustStore};

use crate::ground::error::StoreError;

/// Amazon Root CA 1 to 4 and Starfield Services Root CA G2, PEM, from Debian's ca-certificates
/// (Mozilla's root program). The tests check each one's SHA-256 fingerprint.
pub const AMAZON_ROOTS_PEM: &str = include_str!("../../certs/amazon-trust-services.pem");

/// The environment variable that chooses the trusted roots: `amazon` (the default, also when
/// unset or empty) or `system`.
pub const TLS_ROOTS_VAR: &str = "LEADERBOARD_TLS_ROOTS";

/// Which root certificates the HTTPS client trusts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TlsRoots {
    /// Amazon Trust Services' roots only ([`AMAZON_ROOTS_PEM`]).
    #[default]
    Amazon,
    /// The operating system's store (`SSL_CERT_FILE` / `SSL_CERT_DIR`, else the platform's).
    System,
}

impl TlsRoots {
    /// The choice in [`TLS_ROOTS_VAR`]; an unknown value is a configuration error, not a
    /// silent default.
    pub fn from_env() -> Result<TlsRoots, StoreError> {
        Self::parse(std::env::var(TLS_ROOTS_VAR).ok().as_deref())
    }

    /// The choice a value of [`TLS_ROOTS_VAR`] makes.
    pub fn parse(value: Option<&str>) -> Result<TlsRoots, StoreError> {
        match value.map(str::trim) {
            None | Some("") | Some("amazon") => Ok(TlsRoots::Amazon),
            Some("system") => Ok(TlsRoots::System),
            Some(other) => Err(StoreError::Config(format!(
                "{TLS_ROOTS_VAR} must be \"amazon\" or \"system\", not {other:?}"
            ))),
        }
    }

    fn trust_store(self) -> TrustStore {
        match self {
            TlsRoots::Amazon => TrustStore::empty()
                .with_native_roots(false)
                .with_pem_certificate(AMAZON_ROOTS_PEM.as_bytes()),
            TlsRoots::System => TrustStore::default(),
        }
    }
}

/// The HTTPS client trusting `roots`. Credential providers that need HTTP (containers, STS) use
/// it too.
pub fn http_client(roots: TlsRoots) -> Result<SharedHttpClient, StoreError> {
    let context = TlsContext::builder()
        .with_trust_store(roots.trust_store())
        .build()
        .map_err(|e| StoreError::Config(format!("TLS settings: {e}")))?;
    Ok(aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .tls_context(context)
        .build_https())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    use sha2::{Digest, Sha256};

    /// From `openssl x509 -fingerprint -sha256` of Debian's copies, and amazontrust.com.
    const FINGERPRINTS: [&str; 5] = [
        "8ECDE6884F3D87B1125BA31AC3FCB13D7016DE7F57CC904FE1CB97C6AE98196E", // Amazon Root CA 1
        "1BA5B2AA8C65401A82960118F80BEC4F62304D83CEC4713A19C39C011EA46DB4", // Amazon Root CA 2
        "18CE6CFE7BF14E60B2E347B8DFE868CB31D02EBB3ADA271569F50343B46DB3A4", // Amazon Root CA 3
        "E35D28419ED02025CFA69038CD623962458DA5C695FBDEA3C22B0BFB25897092", // Amazon Root CA 4
        "568D6905A2C88708A4B3025190EDCFEDB1974A606A13C6E5290FCB2AE63EDAB5", // Starfield Services G2
    ];

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02X}")).collect()
    }

    #[test]
    fn the_embedded_roots_are_amazon_trust_services_five_roots() {
        let ders = CertificateDer::pem_slice_iter(AMAZON_ROOTS_PEM.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .expect("valid PEM");
        let fingerprints: Vec<String> = ders
            .iter()
            .map(|d| hex(&Sha256::digest(d.as_ref())))
            .collect();
        assert_eq!(fingerprints, FINGERPRINTS);
        // Each is a trust anchor rustls accepts: the SDK's client parses them with `expect`,
        // which with panic = "abort" would end the process at init.
        let mut store = rustls::RootCertStore::empty();
        let (added, refused) = store.add_parsable_certificates(ders);
        assert_eq!((added, refused), (5, 0));
    }

    #[test]
    fn the_variable_chooses_the_roots_and_refuses_other_values() {
        assert_eq!(TlsRoots::parse(None).unwrap(), TlsRoots::Amazon);
        assert_eq!(TlsRoots::parse(Some("")).unwrap(), TlsRoots::Amazon);
        assert_eq!(TlsRoots::parse(Some("amazon")).unwrap(), TlsRoots::Amazon);
        assert_eq!(TlsRoots::parse(Some(" system ")).unwrap(), TlsRoots::System);
        let e = TlsRoots::parse(Some("Mozilla")).unwrap_err().to_string();
        assert!(
            e.contains("LEADERBOARD_TLS_ROOTS") && e.contains("Mozilla"),
            "{e}"
        );
    }
}
