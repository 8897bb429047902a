# syntax=docker/dockerfile:1
# toolgate: a release build in the Rust image, then only the binary in a distroless image (glibc,
# CA certificates, no shell, no package manager, no build tools), run as the non-root user 65532.
#   docker build -t toolgate .
#   docker run -p 8080:8080 -p 9090:9090 -e DATABASE_URL=postgres://... toolgate

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
# The registry and target directories are cache mounts, so a rebuild after a source change
# compiles only toolgate; the binary is copied out of the cache mount.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --features mimalloc --bin toolgate \
    && cp target/release/toolgate /usr/local/bin/toolgate \
    && mkdir -p /out/var/lib/toolgate/cache /out/var/lib/toolgate/spool

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /usr/local/bin/toolgate /usr/local/bin/toolgate
# The policy cache (the last good policies, read at start while the database is away) and the
# audit spool (rows made durable on disk while the database is away): mount volumes there.
COPY --from=build --chown=65532:65532 /out/var/lib/toolgate /var/lib/toolgate
USER 65532:65532
WORKDIR /var/lib/toolgate
ENV TOOLGATE_LISTEN=0.0.0.0:8080 \
    TOOLGATE_METRICS_LISTEN=0.0.0.0:9090 \
    TOOLGATE_CACHE_DIR=/var/lib/toolgate/cache \
    TOOLGATE_AUDIT_SPOOL_DIR=/var/lib/toolgate/spool \
    TOOLGATE_LOG_FORMAT=json
EXPOSE 8080 9090
# /readyz on TOOLGATE_LISTEN (0.0.0.0 read as loopback), so a listen address changed at run time
# (-e TOOLGATE_LISTEN=0.0.0.0:9000) is the one probed.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/toolgate", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/toolgate"]
CMD ["serve"]
