//! The HTTP client of the command-line tools (`toolgate hook`, `toolgate bundle`,
//! `toolgate healthcheck`).
//!
//! Blocking (ureq): a command makes one or two requests, so an async runtime would only add to
//! its start-up. TLS is set up on the first `https://` request, never for `http://`, so a hook
//! process asking a local server pays for neither. Proxies are taken from the environment
//! (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`), except for a loopback server: a
//! proxy would see the token and every tool input, and would reach its own loopback, not ours.
//! Redirects are never followed: a 3xx is an answer that is not a decision.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

/// Largest answer body read, in bytes.
const MAX_ANSWER_BYTES: u64 = 16 * 1024 * 1024;

/// Size of the read and the write buffer, which also bounds the answer's head.
const BUFFER_BYTES: usize = 16 * 1024;

/// One answer: the status and the whole body.
#[derive(Debug)]
pub struct Answer {
    /// HTTP status.
    pub status: ureq::http::StatusCode,
    /// The body, up to [`MAX_ANSWER_BYTES`].
    pub body: Vec<u8>,
}

/// Why no answer was had.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The server did not answer within the time limit.
    #[error("the server did not answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    /// No connection, or the request could not be sent (the innermost cause).
    #[error("the server is unreachable ({0})")]
    Unreachable(String),
    /// The answer was cut short or is not HTTP.
    #[error("the server's answer was cut short ({0})")]
    CutShort(String),
}

/// A request body and its content type.
pub struct Body<'a> {
    /// `Content-Type`.
    pub content_type: &'a str,
    /// The bytes.
    pub bytes: &'a [u8],
}

/// A blocking HTTP client with one time limit for each whole exchange.
pub struct Http {
    agent: ureq::Agent,
    timeout: Duration,
}

/// The certificate authorities of the PEM file given with `--ca-cert`, if any: the roots an
/// `https://` server's certificate must chain to instead of the built-in (Mozilla) roots. For
/// servers behind an organisation's own CA.
pub fn read_ca_file(path: Option<&Path>) -> Result<Option<Vec<Certificate<'static>>>, String> {
    let Some(path) = path else {
        return Ok(None);
    };
    let pem = std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(cert)) => certs.push(cert),
            Ok(_) => {}
            Err(e) => return Err(format!("`{}` is not valid PEM: {e}", path.display())),
        }
    }
    if certs.is_empty() {
        return Err(format!("`{}` holds no certificate", path.display()));
    }
    Ok(Some(certs))
}

/// Whether `url`'s host is this machine: `localhost` or a loopback address.
fn is_loopback(url: &str) -> bool {
    let Some(host) = url
        .parse::<ureq::http::Uri>()
        .ok()
        .and_then(|uri| uri.host().map(str::to_owned))
    else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// `url` without credentials or a query, to name it in messages (a reason may reach the model).
pub fn display_url(url: &str) -> String {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else {
        return "the given URL".to_owned();
    };
    let host = uri.host().unwrap_or_default();
    let port = uri
        .port_u16()
        .map(|port| format!(":{port}"))
        .unwrap_or_default();
    match uri.scheme_str() {
        Some(scheme) => format!("{scheme}://{host}{port}{}", uri.path()),
        None => format!("{host}{port}{}", uri.path()),
    }
}

impl Http {
    /// A client for the server at `url` whose every exchange (connect, send, answer) must end
    /// within `timeout`, and that trusts `roots` for `https://` (the built-in roots when `None`).
    pub fn new(url: &str, timeout: Duration, roots: Option<&[Certificate<'static>]>) -> Self {
        let roots = roots.map_or(RootCerts::WebPki, RootCerts::new_with_certs);
        let mut config = ureq::Agent::config_builder();
        if is_loopback(url) {
            config = config.proxy(None);
        }
        let config = config
            .tls_config(TlsConfig::builder().root_certs(roots).build())
            .timeout_global(Some(timeout))
            .max_redirects(0)
            // Error answers are answers: the caller reads their JSON envelope.
            .http_status_as_error(false)
            .user_agent(concat!("toolgate/", env!("CARGO_PKG_VERSION")))
            // 128 KiB each by default, zeroed at every start: a hook process sends one event
            // and reads one short answer (larger bodies pass through in pieces).
            .input_buffer_size(BUFFER_BYTES)
            .output_buffer_size(BUFFER_BYTES)
            .max_response_header_size(BUFFER_BYTES)
            .build();
        let agent =
            ureq::Agent::with_parts(config, DefaultConnector::new(), LiteralFirst::default());
        Self { agent, timeout }
    }

    /// `GET url`.
    pub fn get(&self, url: &str, token: Option<&str>) -> Result<Answer, Failure> {
        let mut request = self.agent.get(url);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        self.finish(request.call())
    }

    /// `POST url` with `body` (or an empty body).
    pub fn post(
        &self,
        url: &str,
        token: Option<&str>,
        body: Option<Body<'_>>,
    ) -> Result<Answer, Failure> {
        let mut request = self.agent.post(url);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let sent = match body {
            Some(body) => request
                .header("content-type", body.content_type)
                .send(body.bytes),
            None => request.send_empty(),
        };
        self.finish(sent)
    }

    fn finish(
        &self,
        sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Answer, Failure> {
        let mut response = sent.map_err(|error| self.failure(error))?;
        let status = response.status();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER_BYTES)
            .read_to_vec()
            .map_err(|error| match error {
                ureq::Error::Timeout(_) => Failure::Timeout(self.timeout),
                ureq::Error::Io(io) => Failure::CutShort(io.to_string()),
                other => Failure::CutShort(root_cause(&other)),
            })?;
        Ok(Answer { status, body })
    }

    fn failure(&self, error: ureq::Error) -> Failure {
        match error {
            ureq::Error::Timeout(_) => Failure::Timeout(self.timeout),
            ureq::Error::Protocol(_) => Failure::CutShort(root_cause(&error)),
            ureq::Error::Io(io) => Failure::Unreachable(io.to_string()),
            other => Failure::Unreachable(root_cause(&other)),
        }
    }
}

/// Takes an IP address in the URL as it is, and looks up a name with ureq's own resolver (which,
/// with a time limit, always runs the lookup in a new thread: for `http://127.0.0.1:8080`, a
/// thread for nothing).
#[derive(Debug, Default)]
struct LiteralFirst(DefaultResolver);

impl Resolver for LiteralFirst {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let literal = uri
            .scheme()
            .zip(uri.authority())
            .and_then(|(scheme, authority)| DefaultResolver::host_and_port(scheme, authority))
            .and_then(|address| address.parse::<SocketAddr>().ok());
        match literal {
            Some(address) => {
                let mut addresses = self.empty();
                addresses.push(address);
                Ok(addresses)
            }
            None => self.0.resolve(uri, config, timeout),
        }
    }
}

/// The innermost error's text.
fn root_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_servers_are_told_apart() {
        for url in [
            "http://127.0.0.1:8080",
            "http://127.1.2.3/",
            "http://localhost:8080/x",
            "http://LOCALHOST",
            "http://[::1]:8080",
            // 127.0.0.1 as an IPv4-mapped IPv6 address: no proxy may see the token.
            "http://[::ffff:127.0.0.1]:8080",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "http://10.0.0.1",
            "https://toolgate.example.com",
            "http://[::ffff:10.0.0.1]",
            "nonsense",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
