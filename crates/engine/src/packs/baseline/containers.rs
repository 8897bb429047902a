//! Containers started with the host's keys (`container-host-access`): `docker`, `podman` or
//! `nerdctl` `run`/`create` given `--privileged`, the host's namespaces, dangerous capabilities,
//! confinement switched off, a disk device, the runtime's API socket or a system directory
//! bind-mounted.
//!
//! The options are read with the runtimes' own grammar ([`crate::argv::container_run`]): up to
//! the image, never the container's command. Bind-mount sources are canonicalised like any
//! other path; what they expose to the secret rules (`-v ~/.ssh:…`) is judged in `reads`.
//!
//! This module must not flag the everyday forms: the project or a cache mounted, ports
//! published, the host's network (`--network host`, common in development), `--userns=keep-id`.

use super::Cmd;
use crate::argv::{Parsed, container_flag, container_run, container_values};
use crate::packs::Findings;
use crate::packs::places;
use crate::paths::{self, PathContext};

const RULE: &str = "container-host-access";

/// What a runtime's API socket is to whoever reaches it.
const SOCKET: &str = "the container runtime's API socket, which is root on the host,";

/// Capabilities that give a container root on the host, or its memory and files.
const CAPABILITIES: &[&str] = &[
    "ALL",
    "SYS_ADMIN",
    "SYS_PTRACE",
    "SYS_MODULE",
    "SYS_RAWIO",
    "DAC_READ_SEARCH",
];

/// Namespace options whose `host` value shares the host's namespace.
const NAMESPACES: &[&str] = &["pid", "ipc", "userns", "uts", "cgroupns"];

/// Host directories that hand the host to a container mounting them (exactly these; their
/// subdirectories are judged by the other rules).
const SYSTEM_DIRS: &[&str] = &[
    "/", "/etc", "/root", "/boot", "/proc", "/sys", "/dev", "/run", "/var/run", "/var", "/usr",
    "/bin", "/sbin", "/lib", "/lib64", "/home", "/Users",
];

/// The API sockets of container runtimes: whoever reaches one starts privileged containers.
const SOCKETS: &[&str] = &[
    "docker.sock",
    "podman.sock",
    "containerd.sock",
    "crio.sock",
    "buildkitd.sock",
    "cri-dockerd.sock",
];

/// A bind mount of a host path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Bind<'a> {
    /// The host path, as written.
    pub source: &'a str,
    /// Mounted read-only (`:ro`, `readonly`).
    pub read_only: bool,
}

/// The bind mounts of host paths: the source of `-v SRC:DST[:opts]` (a path, not a named
/// volume; a lone path is an anonymous volume) or of `--mount type=bind,source=SRC,…`.
pub(super) fn bind_sources<'a>(parsed: &Parsed<'a>) -> Vec<Bind<'a>> {
    let mut sources = Vec::new();
    for volume in container_values(parsed, Some('v'), "volume") {
        // A Windows drive (`C:\src:/src`) keeps its colon.
        let drive = matches!(
            volume.as_bytes(),
            [letter, b':', b'\\' | b'/', ..] if letter.is_ascii_alphabetic()
        );
        let split_from = if drive { 2 } else { 0 };
        let Some(colon) = volume
            .get(split_from..)
            .and_then(|rest| rest.find(':'))
            .map(|at| at + split_from)
        else {
            continue;
        };
        let source = volume.get(..colon).unwrap_or(volume);
        let options = volume
            .get(colon + 1..)
            .unwrap_or("")
            .split(':')
            .nth(1)
            .unwrap_or("");
        let read_only = options.split(',').any(|o| o == "ro" || o == "readonly");
        if drive || source.starts_with(['/', '~', '.', '$']) {
            sources.push(Bind { source, read_only });
        }
    }
    for mount in container_values(parsed, None, "mount") {
        let mut kind = None;
        let mut source = None;
        let mut read_only = false;
        for field in mount.split(',') {
            let field = field.trim_matches(['"', '\'']);
            let (key, value) = field.split_once('=').unwrap_or((field, ""));
            match key.to_ascii_lowercase().as_str() {
                "type" => kind = Some(value),
                "source" | "src" => source = Some(value),
                "readonly" | "ro" => read_only = !matches!(value, "false" | "0"),
                _ => {}
            }
        }
        if let Some(source) = source
            && kind.is_none_or(|kind| kind.eq_ignore_ascii_case("bind"))
        {
            sources.push(Bind { source, read_only });
        }
    }
    sources
}

/// What a bind mount of this canonical host path hands the container, if anything: a
/// runtime's socket (or `/run/user/UID`, where rootless runtimes keep theirs), a system
/// directory, the whole home; and, mounted writable, a place where a file runs code later (a
/// shell start-up file, a unit directory, a directory on `PATH`: the container's command,
/// which is not judged, may write there).
fn exposes(canonical: &str, read_only: bool, ctx: &PathContext<'_>) -> Option<String> {
    let name = places::basename(canonical);
    if SOCKETS.contains(&name)
        || canonical
            .strip_prefix("/run/user/")
            .is_some_and(|uid| !uid.contains('/'))
    {
        return Some(SOCKET.into());
    }
    if SYSTEM_DIRS.contains(&canonical) {
        return Some(format!("the host's `{canonical}`"));
    }
    if ctx
        .home
        .is_some_and(|home| home.trim_end_matches('/') == canonical)
    {
        return Some("the whole home directory".into());
    }
    if read_only {
        return None;
    }
    if places::is_path_dir(canonical, ctx) {
        return Some(format!("a directory on `PATH` (`{canonical}`), writable,"));
    }
    // The place itself, or a directory of such places (`~/.config/systemd/user`).
    let place = places::persistence(canonical, ctx)
        .or_else(|| places::persistence(&format!("{canonical}/file"), ctx))?;
    Some(format!("{} (`{canonical}`), writable,", place.what))
}

/// Whether a device path names a disk or the machine's memory.
fn is_disk_device(path: &str) -> bool {
    let Some(device) = path.strip_prefix("/dev/") else {
        return false;
    };
    const PREFIXES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "dm-", "mapper/", "disk/", "md",
    ];
    matches!(device, "mem" | "kmem" | "port")
        || PREFIXES.iter().any(|prefix| device.starts_with(prefix))
}

pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    let name = cmd.name();
    if !matches!(name, "docker" | "podman" | "nerdctl") {
        return;
    }
    let Some(parsed) = container_run(cmd.args()) else {
        return;
    };
    let mut add = |what: &str| {
        out.add(
            RULE,
            format!("`{name}` would start a container that reaches the host: {what}"),
        );
    };
    if container_flag(&parsed, "privileged") {
        add("`--privileged` gives it every device and capability");
    }
    for namespace in NAMESPACES {
        if container_values(&parsed, None, namespace)
            .iter()
            .any(|value| value.eq_ignore_ascii_case("host"))
        {
            add(&format!("it shares the host's {namespace} namespace"));
        }
    }
    let capabilities = container_values(&parsed, None, "cap-add");
    let dangerous = capabilities
        .iter()
        .flat_map(|value| value.split(','))
        .map(|cap| {
            let upper = cap.trim().to_ascii_uppercase();
            upper
                .strip_prefix("CAP_")
                .map(str::to_owned)
                .unwrap_or(upper)
        })
        .find(|cap| CAPABILITIES.contains(&cap.as_str()));
    if let Some(cap) = dangerous {
        add(&format!("it gets the `{cap}` capability"));
    }
    for option in container_values(&parsed, None, "security-opt") {
        let option = option.to_ascii_lowercase().replace(':', "=");
        let unconfined = matches!(
            option.as_str(),
            "apparmor=unconfined"
                | "seccomp=unconfined"
                | "label=disable"
                | "systempaths=unconfined"
                | "unmask=all"
        );
        if unconfined {
            add(&format!("its confinement is switched off (`{option}`)"));
        }
    }
    for device in container_values(&parsed, None, "device") {
        let host = device.split(':').next().unwrap_or(device);
        if is_disk_device(&paths::canonicalize(host, &cmd.ctx)) {
            add("it gets a disk or the memory of the host as a device");
        }
    }
    if container_flag(&parsed, "use-api-socket") {
        add(&format!("{SOCKET} is mounted into it"));
    }
    for bind in bind_sources(&parsed) {
        let Some(resolved) = places::resolvable(bind.source) else {
            continue;
        };
        let canonical = cmd.canonical(&resolved);
        if let Some(what) = exposes(&canonical, bind.read_only, &cmd.ctx) {
            add(&format!("{what} is mounted into it"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_devices() {
        for device in ["/dev/sda", "/dev/nvme0n1", "/dev/mem", "/dev/mapper/root"] {
            assert!(is_disk_device(device), "{device}");
        }
        for device in [
            "/dev/fuse",
            "/dev/dri",
            "/dev/snd",
            "/dev/net/tun",
            "/dev/kvm",
        ] {
            assert!(!is_disk_device(device), "{device}");
        }
    }

    #[test]
    fn bind_mount_sources() {
        let args: Vec<String> = [
            "run",
            "-v",
            "/var/run/docker.sock:/var/run/docker.sock",
            "-v=named:/data",
            "-v",
            "/anonymous",
            "-v",
            "/:/host",
            "--volume",
            r"C:\src:/src",
            "--mount",
            "target=/h,src=/etc,type=bind",
            "--mount",
            "type=volume,source=/etc,target=/v",
            "alpine",
        ]
        .iter()
        .map(|word| (*word).to_owned())
        .collect();
        let parsed = container_run(&args).unwrap_or_default();
        let sources: Vec<&str> = bind_sources(&parsed).iter().map(|b| b.source).collect();
        assert_eq!(sources, ["/var/run/docker.sock", "/", r"C:\src", "/etc"]);
    }
}
