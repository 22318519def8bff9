//! The operator console's files, served by the local stack at `/console/` as a static host
//! would serve them (S3 and CloudFront in production, docs/console.md): `console/public`, the
//! page and its style, and `console.js`, the bundle `npm run console` writes there (the run
//! command does). The console then calls the API on the same origin, so the local stack needs
//! no CORS for it. GET and HEAD only; a name is one path segment, never `..` or hidden. No
//! `config.json` is served: without one the console is the local stack's (a pasted token).

use std::path::PathBuf;

use http::{HeaderValue, Method, StatusCode, header};
use hyper::body::Bytes;

use crate::GatewayResponse;

/// Where the console is served.
pub const CONSOLE_PATH: &str = "/console";

/// The console's folder and how to answer for its files.
pub struct ConsoleFiles {
    dir: PathBuf,
}

impl ConsoleFiles {
    /// The repository's `console/public`.
    pub fn from_repo() -> ConsoleFiles {
        ConsoleFiles {
            dir: leaderboard_devkit::repo_root().join("console/public"),
        }
    }

    /// The answer to `method` on `path` when the path is the console's; `None` otherwise.
    pub fn answer(&self, method: &Method, path: &str) -> Option<GatewayResponse> {
        let rest = path.strip_prefix(CONSOLE_PATH)?;
        if rest.is_empty() {
            // Relative links (style.css, console.js) resolve under the folder.
            return Some(respond(
                StatusCode::PERMANENT_REDIRECT,
                "text/plain; charset=utf-8",
                Bytes::from_static(b"the console is at /console/"),
                Some("/console/"),
            ));
        }
        let name = rest.strip_prefix('/')?;
        if method != Method::GET && method != Method::HEAD {
            return Some(plain(StatusCode::METHOD_NOT_ALLOWED, "GET only"));
        }
        let name = if name.is_empty() { "index.html" } else { name };
        let safe = !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
        let file = match content_type(name) {
            Some(kind) if safe => std::fs::read(self.dir.join(name)).ok().map(|b| (kind, b)),
            _ => None,
        };
        Some(match file {
            Some((kind, body)) => respond(StatusCode::OK, kind, Bytes::from(body), None),
            None => plain(StatusCode::NOT_FOUND, "no such file in the console"),
        })
    }
}

/// The types the console's files have; any other is not served.
fn content_type(name: &str) -> Option<&'static str> {
    Some(match name.rsplit_once('.')?.1 {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        _ => return None,
    })
}

fn plain(status: StatusCode, text: &'static str) -> GatewayResponse {
    respond(
        status,
        "text/plain; charset=utf-8",
        Bytes::from_static(text.as_bytes()),
        None,
    )
}

fn respond(
    status: StatusCode,
    kind: &'static str,
    body: Bytes,
    location: Option<&'static str>,
) -> GatewayResponse {
    let mut resp = http::Response::new(body);
    *resp.status_mut() = status;
    let headers = resp.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // An admin's page: its own scripts and the API on its origin only, and never in a frame
    // (a framing page could trick a click onto Ban or Erase).
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if let Some(to) = location {
        headers.insert(header::LOCATION, HeaderValue::from_static(to));
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The console's files in a folder of this test's own.
    fn files() -> ConsoleFiles {
        let dir = std::env::temp_dir().join(format!("console-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<p>console</p>").unwrap();
        std::fs::write(dir.join("console.js"), "1").unwrap();
        std::fs::write(dir.join("secret.txt"), "no").unwrap();
        ConsoleFiles { dir }
    }

    #[test]
    fn serves_the_console_files_and_nothing_else() {
        let c = files();
        let get = |p: &str| c.answer(&Method::GET, p).map(|r| r.status().as_u16());
        assert_eq!(get("/leaderboards"), None);
        assert_eq!(get("/consoles"), None);
        assert_eq!(get("/console"), Some(308));
        let index = c.answer(&Method::GET, "/console/").unwrap();
        assert_eq!(index.status(), 200);
        assert_eq!(index.body().as_ref(), b"<p>console</p>");
        assert_eq!(index.headers()["x-frame-options"], "DENY");
        assert_eq!(get("/console/console.js"), Some(200));
        // Not a console type, not a plain name, or not there: 404.
        for path in [
            "/console/secret.txt",
            "/console/../Cargo.toml",
            "/console/.hidden.js",
            "/console/a/b.js",
            "/console/config.json",
            "/console/missing.css",
        ] {
            assert_eq!(get(path), Some(404), "{path}");
        }
        let post = c.answer(&Method::POST, "/console/").unwrap();
        assert_eq!(post.status(), 405);
        std::fs::remove_dir_all(&c.dir).unwrap();
    }
}
