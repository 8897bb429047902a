//! Cloud instance metadata services: a request to one from the machine the agent runs on hands
//! out that machine's cloud credentials (`http://169.254.169.254/latest/meta-data/iam/…`), the
//! classic server-side request forgery. Any word of a command that names one as a URL's host
//! or as a host operand, a `/dev/tcp` redirect to one, and a web or MCP tool's URL are denied
//! (`read-cloud-metadata`).

use std::net::{Ipv4Addr, Ipv6Addr};

use super::Cmd;
use crate::packs::Findings;

const RULE: &str = "read-cloud-metadata";

/// The metadata services' names.
const NAMES: &[&str] = &["metadata.google.internal", "metadata.goog", "metadata"];

/// Their IPv4 addresses: AWS, Azure, GCP, Oracle, DigitalOcean and OpenStack
/// (169.254.169.254), AWS's container credentials (169.254.170.2), Alibaba (100.100.100.200).
const V4: &[Ipv4Addr] = &[
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(100, 100, 100, 200),
];

/// AWS's IPv6 endpoint (`fd00:ec2::254`).
const V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);

/// The metadata service a word names: as a URL's host (`http://169.254.169.254/…`, any scheme,
/// with user info or a port), or as a host by itself (`169.254.169.254`, `169.254.169.254/x`),
/// in any spelling of the address (`2852039166`, `0xa9fea9fe`, `[::ffff:169.254.169.254]`).
pub(super) fn named_in(word: &str) -> Option<String> {
    // Every word of every command comes here: the cheap tests go first, and nothing is
    // allocated unless the word names a service.
    let url = word
        .as_bytes()
        .contains(&b':')
        .then(|| word.split_once("://"))
        .flatten();
    let rest = url.map_or(word, |(_, rest)| rest);
    let rest = match rest.bytes().rposition(|byte| byte == b'@') {
        Some(at) => rest.get(at + 1..).unwrap_or(rest),
        None => rest,
    };
    let host = match rest.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or(""),
        // Up to the first character no host name holds (a port, a path, a run-time part).
        None => rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
            .next()
            .unwrap_or(""),
    };
    let host = host.trim_end_matches('.');
    // Only these can name a service: a name starting with `metadata` (all of `NAMES`), an IPv4
    // address (its dotted and one-number forms start with a digit), an IPv6 one (with colons).
    let named = host
        .get(..8)
        .is_some_and(|head| head.eq_ignore_ascii_case("metadata"));
    if !named && !host.starts_with(|c: char| c.is_ascii_digit()) && !host.contains(':') {
        return None;
    }
    // An address as one number (`2852039166`) only where a URL or a path makes it a host.
    let url_like = url.is_some() || rest.contains('/');
    let metadata = NAMES.iter().any(|name| host.eq_ignore_ascii_case(name))
        || ipv4(host, url_like).is_some_and(|ip| V4.contains(&ip))
        || host
            .parse::<Ipv6Addr>()
            .is_ok_and(|ip| ip == V6 || ip.to_ipv4_mapped().is_some_and(|ip| V4.contains(&ip)));
    // A bare `metadata` is a host only in a URL (`http://metadata/…`, GCP's short name).
    let bare_name = host.eq_ignore_ascii_case("metadata") && url.is_none();
    (metadata && !bare_name).then(|| host.to_ascii_lowercase())
}

/// An IPv4 address written as dotted decimal, or, when `numbers`, as one decimal or hex number.
fn ipv4(host: &str, numbers: bool) -> Option<Ipv4Addr> {
    if let Ok(ip) = host.parse::<Ipv4Addr>() {
        return Some(ip);
    }
    if !numbers {
        return None;
    }
    let number = match host.strip_prefix("0x").or_else(|| host.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None if host.bytes().all(|b| b.is_ascii_digit()) => host.parse::<u32>().ok()?,
        None => return None,
    };
    Some(Ipv4Addr::from(number))
}

/// The rule over one shell command: its words and its `/dev/tcp` redirects.
pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    let words = cmd.simple.argv.iter().map(String::as_str);
    let sockets = cmd.simple.redirects.iter().filter_map(|redirect| {
        redirect
            .target
            .strip_prefix("/dev/tcp/")
            .or_else(|| redirect.target.strip_prefix("/dev/udp/"))
    });
    if let Some(host) = words.chain(sockets).find_map(named_in) {
        report(&format!("`{}`", cmd.name()), &host, out);
    }
}

/// The rule over a web or MCP tool's URL.
pub(super) fn check_url(tool: &str, url: &str, out: &mut Findings) {
    if let Some(host) = named_in(url) {
        report(&format!("`{tool}`"), &host, out);
    }
}

fn report(who: &str, host: &str, out: &mut Findings) {
    out.add(
        RULE,
        format!(
            "{who} would ask `{host}`, a cloud instance metadata service, which hands out this \
             machine's cloud credentials"
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_hosts_in_any_spelling() {
        for word in [
            "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
            "169.254.169.254",
            "169.254.169.254/latest/api/token",
            "https://user:pw@169.254.169.254:80/x",
            "http://[fd00:ec2::254]/latest/meta-data/",
            "http://[::ffff:169.254.169.254]/",
            "http://[::ffff:a9fe:a9fe]/",
            "user@metadata.goog",
            "http://2852039166/latest/",
            "http://0xa9fea9fe/latest/",
            "http://0XA9FEA9FE/latest/",
            "http://169.254.170.2/v2/credentials/x",
            "http://169.254.170.2$AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "http://metadata.google.internal/computeMetadata/v1/",
            "METADATA.GOOGLE.INTERNAL.",
            "http://metadata/computeMetadata/v1/",
            "http://100.100.100.200/latest/meta-data/",
        ] {
            assert!(named_in(word).is_some(), "{word}");
        }
        for word in [
            "https://example.com/169.254.169.254",
            "169.254.169.123",
            "metadata",
            "./metadata/x.json",
            "--metadata",
            "http://10.0.0.1/",
            "1234",
            "2852039166",
            "https://api.github.com/",
            "node_modules",
            "a:b",
            "[fd00:ec2::253]",
        ] {
            assert_eq!(named_in(word), None, "{word}");
        }
    }
}
