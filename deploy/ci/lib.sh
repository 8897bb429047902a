# shellcheck shell=bash
# Shared by the CI checks under deploy/ci/: a Python venv with the pinned tools, and a live
# `toolgate serve` on loopback with a throwaway PostgreSQL (scripts/pg.sh). Source it from the
# repository root, then call the functions; `ci_cleanup` (set as an EXIT trap by `ci_init`) stops
# what was started.

ci_init() {
    CI_DIR="${TOOLGATE_CI_DIR:-${CARGO_TARGET_DIR:-$PWD/target}/ci}"
    mkdir -p "$CI_DIR"
    CI_WORK="$(mktemp -d "$CI_DIR/run.XXXXXX")"
    CI_PIDS=()
    export CI_DIR CI_WORK
    # shellcheck source=scripts/pg.sh
    source scripts/pg.sh
    trap ci_cleanup EXIT
}

ci_cleanup() {
    local pid
    for pid in "${CI_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    toolgate_pg_stop
    rm -rf "${CI_WORK:-/nonexistent}"
}

# The venv with deploy/ci/requirements.txt, under the build directory; reinstalled only when the
# requirements change. Puts its bin/ first on PATH.
ci_venv() {
    local venv="$CI_DIR/venv" stamp
    stamp="$(sha256sum deploy/ci/requirements.txt | cut -c1-16)"
    if [ ! -f "$venv/.stamp-$stamp" ]; then
        echo "==> installing the CI tools into $venv" >&2
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check -r deploy/ci/requirements.txt >&2
        touch "$venv/.stamp-$stamp"
    fi
    export PATH="$venv/bin:$PATH"
}

# Debian's prometheus package (prometheus and promtool), installed with apt-get when missing.
ci_prometheus() {
    if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
        return
    fi
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "==> installing prometheus (promtool) with apt-get" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >&2
    else
        echo "error: prometheus and promtool not found; install Debian's prometheus package" >&2
        return 1
    fi
}

# Polls `command...` every 0.2 s until it succeeds, for at most `seconds`.
ci_wait() { # seconds what command...
    local seconds="$1" what="$2" deadline
    shift 2
    deadline=$(( $(date +%s) + seconds ))
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            echo "error: gave up waiting for $what" >&2
            return 1
        fi
        sleep 0.2
    done
}

# Builds toolgate, starts a throwaway PostgreSQL (unless DATABASE_URL is set) and `toolgate serve`
# with /metrics on its own listener. Exports CI_URL, CI_METRICS_URL, CI_ADMIN_TOKEN,
# CI_AGENT_TOKEN (tenant team-a), CI_AGENT_TOKEN_B (team-b), CI_AUDITOR_TOKEN (global) and
# CI_TOOLGATE (the binary).
ci_start_toolgate() {
    echo "==> building toolgate" >&2
    cargo build --quiet --bin toolgate >&2
    # Where cargo put it: CARGO_TARGET_DIR when set (a shared build directory), else ./target.
    CI_TOOLGATE="${CARGO_TARGET_DIR:-$PWD/target}/debug/toolgate"
    if [ -z "${DATABASE_URL:-}" ]; then
        toolgate_pg_start
    fi
    "$CI_TOOLGATE" migrate >&2
    token() { "$CI_TOOLGATE" token create --role "$1" --tenant "$2" | tail -n 1 | awk '{print $NF}'; }
    CI_AGENT_TOKEN="$(token agent team-a)"
    CI_AGENT_TOKEN_B="$(token agent team-b)"
    CI_AUDITOR_TOKEN="$(token auditor global)"
    CI_ADMIN_TOKEN="tg_ci_admin_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    local port metrics_port
    port="$(toolgate_pg_free_port)"
    metrics_port="$(toolgate_pg_free_port)"
    CI_URL="http://127.0.0.1:$port"
    CI_METRICS_URL="http://127.0.0.1:$metrics_port"
    echo "==> starting toolgate on $CI_URL (metrics on $CI_METRICS_URL)" >&2
    TOOLGATE_ADMIN_TOKEN="$CI_ADMIN_TOKEN" RUST_LOG="${RUST_LOG:-warn}" "$CI_TOOLGATE" serve \
        --listen "127.0.0.1:$port" --metrics-listen "127.0.0.1:$metrics_port" \
        --cache-dir "$CI_WORK/cache" --replica-id ci-replica --poll-interval 1s \
        >"$CI_WORK/toolgate.log" 2>&1 &
    CI_PIDS+=($!)
    if ! ci_wait 60 "toolgate to be ready" curl -fsS "$CI_URL/readyz"; then
        cat "$CI_WORK/toolgate.log" >&2
        return 1
    fi
    export CI_URL CI_METRICS_URL CI_ADMIN_TOKEN CI_AGENT_TOKEN CI_AGENT_TOKEN_B CI_AUDITOR_TOKEN CI_TOOLGATE
}
