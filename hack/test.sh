#!/usr/bin/env bash
# Runs every check CI runs: formatting, clippy with warnings denied, and all tests
# (unit, storage conformance, HTTP and kubectl integration tests against the real binary).
set -euo pipefail
cd "$(dirname "$0")/.."
hack/install-deps.sh
cargo fmt --all -- --check
cargo clippy --all-targets --locked -- -D warnings
cargo test --lib --bins --tests --locked
