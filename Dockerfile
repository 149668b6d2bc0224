# syntax=docker/dockerfile:1
# crd-apiserver container image: a release build, then a small non-root runtime.
#
#   docker build -t crd-apiserver:0.1.0 .
#
# The runtime image is distroless (glibc, CA certificates, no shell) and runs as the
# unprivileged user 65532; the manifests mount the serving certificate, the CRDs and a
# data volume, so the root filesystem can stay read-only.
#
# For a registry mirror (air-gapped clusters), override the base images:
#   docker build --build-arg BUILD_IMAGE=mirror.example/library/rust \
#                --build-arg RUST_VERSION=1.90 \
#                --build-arg RUNTIME_IMAGE=mirror.example/distroless/cc-debian12:nonroot .
#
# tests/container_image.rs lays out exactly what the build stage's COPY lines name and
# resolves the crate graph there, offline: a COPY that misses a path the build needs
# fails `hack/test.sh`.

ARG BUILD_IMAGE=rust
ARG RUST_VERSION=1
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${BUILD_IMAGE}:${RUST_VERSION}-bookworm AS build
WORKDIR /src
# Manifest and lockfile first, so the dependency download is cached between builds.
COPY Cargo.toml Cargo.lock ./
# etcd-client with its protox build script ([patch.crates-io] in Cargo.toml).
COPY vendor ./vendor
COPY src ./src
COPY benches ./benches
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin crd-apiserver \
    && install -D -m 0755 target/release/crd-apiserver /out/crd-apiserver

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/crd-apiserver /usr/local/bin/crd-apiserver
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/crd-apiserver"]
