//! Containers started with the host's keys (`container-host-access`): `docker`, `podman` or
//! `nerdctl` `run`/`create` (and compose's one-off `compose run`) given `--privileged`, the
//! host's namespaces, dangerous capabilities, confinement switched off, a disk device, the
//! runtime's API socket or a system directory bind-mounted; a named volume created as a bind
//! mount of such a directory (`docker volume create -o o=bind -o device=/`); and kubectl's pods
//! with the node's keys ([`pod`]).
//!
//! The options are read with the runtimes' own grammar ([`crate::argv::container_run`],
//! [`crate::argv::compose_run`]): up to the image or service, never the container's command
//! (which the shell analysis judges where it reaches the host through a mount).
//! Bind-mount sources ([`crate::argv::container_binds`]) are canonicalised like any other path;
//! what they expose to the secret rules (`-v ~/.ssh:…`) is judged in `reads` ([`host_binds`]).
//!
//! This module must not flag the everyday forms: the project or a cache mounted, ports
//! published, the host's network (`--network host`, common in development), `--userns=keep-id`.

mod pod;

use super::Cmd;
use crate::argv::{
    ContainerBind as Bind, Parsed, VolumeOptions, compose_run, container_binds, container_flag,
    container_run, container_values, volume_create,
};
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

/// The container a `docker`, `podman` or `nerdctl` command line starts, `run`/`create`, a
/// swarm service's (`docker service create`) or compose's `run` (`docker compose run`,
/// `docker-compose run`), its options parsed.
fn started<'a>(name: &str, args: &'a [String]) -> Option<Parsed<'a>> {
    match name {
        "docker" | "podman" | "nerdctl" => container_run(args)
            .or_else(|| crate::argv::service_create(args))
            .or_else(|| compose_run(name, args)),
        _ => compose_run(name, args),
    }
}

/// The host paths a container runtime's command line mounts: the bind mounts of the container
/// it starts, and the host directory a volume it creates is a bind mount of. The secret rules
/// read these as the command's reads.
pub(super) fn host_binds<'a>(name: &str, args: &'a [String]) -> Vec<Bind<'a>> {
    let mut binds = started(name, args)
        .map(|parsed| container_binds(&parsed))
        .unwrap_or_default();
    if matches!(name, "docker" | "podman" | "nerdctl")
        && let Some(volume) = volume_create(args)
    {
        let options = container_values(&volume, Some('o'), "opt");
        binds.extend(VolumeOptions::read(options).host_bind());
    }
    binds
}

/// What a bind mount of this canonical host path hands the container, if anything: a
/// runtime's socket (or `/run/user/UID`, where rootless runtimes keep theirs), a system
/// directory, the whole home; and, mounted writable, a place where a file runs code later (a
/// shell start-up file, a unit directory, a directory on `PATH`: the container's command may
/// write there under names its words do not give).
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

/// What `--privileged` (or a pod's `privileged: true`) hands a container.
const PRIVILEGED: &str = "it is privileged, with every device and capability of the host";

/// What sharing the host's `namespace` (`pid`, `ipc`, …) hands a container.
fn shared_namespace(namespace: &str) -> String {
    format!("it shares the host's {namespace} namespace")
}

/// The first of these capabilities (`SYS_ADMIN`, `cap_sys_admin`, comma-separated lists) that
/// gives a container the host, said as a finding.
fn dangerous_capability<'a>(capabilities: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let cap = capabilities
        .into_iter()
        .flat_map(|value| value.split(','))
        .map(|cap| {
            let upper = cap.trim().to_ascii_uppercase();
            upper
                .strip_prefix("CAP_")
                .map(str::to_owned)
                .unwrap_or(upper)
        })
        .find(|cap| CAPABILITIES.contains(&cap.as_str()))?;
    Some(format!("it gets the `{cap}` capability"))
}

/// Whether a security option (`seccomp=unconfined`, `apparmor:unconfined`) switches a
/// container's confinement off, said as a finding.
fn unconfined(option: &str) -> Option<String> {
    let option = option.to_ascii_lowercase().replace(':', "=");
    matches!(
        option.as_str(),
        "apparmor=unconfined"
            | "seccomp=unconfined"
            | "label=disable"
            | "systempaths=unconfined"
            | "unmask=all"
    )
    .then(|| format!("its confinement is switched off (`{option}`)"))
}

/// What a host path mounted into a container hands it, if anything, said as a finding.
fn mounted(source: &str, read_only: bool, cmd: &Cmd<'_>) -> Option<String> {
    let resolved = places::resolvable(source)?;
    let canonical = cmd.canonical(&resolved);
    exposes(&canonical, read_only, &cmd.ctx).map(|what| format!("{what} is mounted into it"))
}

/// Judges a container runtime's or kubectl's command line: the container or pod it starts,
/// the volume it creates.
pub(super) fn check(cmd: &Cmd<'_>, out: &mut Findings) {
    let name = cmd.name();
    if matches!(name, "kubectl" | "oc") {
        pod::check(cmd, out);
        return;
    }
    if let Some(parsed) = started(name, cmd.args()) {
        for what in container_reach(&parsed, cmd) {
            out.add(
                RULE,
                format!("`{name}` would start a container that reaches the host: {what}"),
            );
        }
    }
    for words in crate::argv::podman_compose_run_args(name, cmd.args()) {
        for what in container_reach(&crate::argv::run_options(&words), cmd) {
            out.add(
                RULE,
                format!("`{name}` would start containers that reach the host: {what}"),
            );
        }
    }
    if matches!(name, "docker" | "podman" | "nerdctl")
        && let Some(volume) = volume_create(cmd.args())
    {
        for what in volume_reach(&volume, cmd) {
            out.add(
                RULE,
                format!("`{name}` would create a volume that reaches the host: {what}"),
            );
        }
    }
}

/// What a container started with these options reaches of the host.
fn container_reach(parsed: &Parsed<'_>, cmd: &Cmd<'_>) -> Vec<String> {
    let mut found = Vec::new();
    if container_flag(parsed, "privileged") {
        found.push(PRIVILEGED.to_owned());
    }
    for namespace in NAMESPACES {
        if container_values(parsed, None, namespace)
            .iter()
            .any(|value| value.eq_ignore_ascii_case("host"))
        {
            found.push(shared_namespace(namespace));
        }
    }
    found.extend(dangerous_capability(container_values(
        parsed, None, "cap-add",
    )));
    found.extend(
        container_values(parsed, None, "security-opt")
            .into_iter()
            .filter_map(unconfined),
    );
    for device in container_values(parsed, None, "device") {
        let host = device.split(':').next().unwrap_or(device);
        if is_disk_device(&paths::canonicalize(host, &cmd.ctx)) {
            found.push("it gets a disk or the memory of the host as a device".into());
        }
    }
    if container_flag(parsed, "use-api-socket") {
        found.push(format!("{SOCKET} is mounted into it"));
    }
    for bind in container_binds(parsed) {
        found.extend(mounted(bind.source, bind.read_only, cmd));
    }
    found
}

/// What a volume created with these options (`docker volume create -o …`) reaches of the
/// host: the directory it is a bind mount of, or a disk it mounts.
fn volume_reach(volume: &Parsed<'_>, cmd: &Cmd<'_>) -> Vec<String> {
    let options = VolumeOptions::read(container_values(volume, Some('o'), "opt"));
    let mut found = Vec::new();
    if let Some(bind) = options.host_bind() {
        found.extend(mounted(bind.source, bind.read_only, cmd));
    } else if let Some(device) = options.device
        && is_disk_device(&paths::canonicalize(device, &cmd.ctx))
    {
        found.push("a disk of the host is mounted into it".into());
    }
    found
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
        let sources: Vec<&str> = container_binds(&parsed).iter().map(|b| b.source).collect();
        assert_eq!(sources, ["/var/run/docker.sock", "/", r"C:\src", "/etc"]);
    }

    #[test]
    fn volume_options() {
        let bind =
            |options: &[&'static str]| VolumeOptions::read(options.iter().copied()).host_bind();
        assert_eq!(
            bind(&["type=none", "o=bind", "device=/"]),
            Some(Bind {
                source: "/",
                target: None,
                read_only: false
            })
        );
        assert_eq!(
            bind(&["device=/etc", "o=rbind,ro"]),
            Some(Bind {
                source: "/etc",
                target: None,
                read_only: true
            })
        );
        assert_eq!(
            bind(&["type=none", "device=/srv"]),
            Some(Bind {
                source: "/srv",
                target: None,
                read_only: false
            })
        );
        for options in [
            &["type=tmpfs", "device=tmpfs"][..],
            &["type=nfs", "o=addr=10.0.0.1,rw", "device=:/exports"],
            &["type=ext4", "device=/dev/sdb1"],
            &["o=bind"],
        ] {
            assert_eq!(bind(options), None, "{options:?}");
        }
    }

    #[test]
    fn volume_mounts_that_bind() {
        let args: Vec<String> = [
            "run",
            "--mount",
            "type=volume,dst=/h,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=/sys,ro",
            "--mount",
            "type=volume,src=data,dst=/data",
            "alpine",
        ]
        .iter()
        .map(|word| (*word).to_owned())
        .collect();
        let parsed = container_run(&args).unwrap_or_default();
        assert_eq!(
            container_binds(&parsed),
            [Bind {
                source: "/sys",
                target: Some("/h"),
                read_only: true
            }]
        );
    }
}
