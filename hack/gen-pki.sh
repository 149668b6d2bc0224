#!/usr/bin/env bash
# Generates a serving PKI for an install that brings its own serving certificate
# (`--tls-cert-file`/`--tls-private-key-file`, with `--apiservice-ca-file` = ca.crt for
# `--register-apiservices`). The manifests in manifests/ need none of this: the server
# keeps its own serving CA there (`--serving-ca-secret`).
#
#   pki/serving-ca.{crt,key}   the serving CA (kept across runs; its certificate is the caBundle)
#   pki/serving.{crt,key}      the serving certificate for <service>.<namespace>.svc (renewed each run)
#   manifests/serving-pki/     tls.crt, tls.key, ca.crt: for a Secret of your own (e.g. a
#                              kustomize secretGenerator in an overlay).
#
# Only the serving side is made here: the front-proxy CA and the client CA belong to the
# cluster and reach the server through the kube-system/extension-apiserver-authentication
# ConfigMap (see pki/README.md).
#
# Environment: PKI_DIR (default pki/), MANIFESTS_DIR (default manifests/), NAMESPACE and
# SERVICE (default crd-apiserver, matching the manifests), DAYS (leaf validity, default 365).
# Needs openssl (Debian: apt-get install openssl).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pki_dir="${PKI_DIR:-$root/pki}"
manifests_dir="${MANIFESTS_DIR:-$root/manifests}"
namespace="${NAMESPACE:-crd-apiserver}"
service="${SERVICE:-crd-apiserver}"
days="${DAYS:-365}"

if ! command -v openssl >/dev/null 2>&1; then
  echo "gen-pki: openssl is required (Debian: apt-get install openssl)" >&2
  exit 1
fi

mkdir -p "$pki_dir" "$manifests_dir/serving-pki"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
umask 077

ca_crt="$pki_dir/serving-ca.crt"
ca_key="$pki_dir/serving-ca.key"
if [[ ! -s "$ca_crt" || ! -s "$ca_key" ]]; then
  openssl req -x509 -new -nodes -sha256 -days 3650 \
    -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
    -keyout "$ca_key" -out "$ca_crt" \
    -subj "/CN=crd-apiserver-serving-ca" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
  echo "gen-pki: new serving CA in $ca_crt"
fi

fqdn="$service.$namespace.svc"
cat >"$work/leaf.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:$service,DNS:$service.$namespace,DNS:$fqdn,DNS:$fqdn.cluster.local
EXT
openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
  -keyout "$work/serving.key" -out "$work/serving.csr" -subj "/CN=$fqdn" 2>/dev/null
openssl x509 -req -sha256 -days "$days" -in "$work/serving.csr" \
  -CA "$ca_crt" -CAkey "$ca_key" -set_serial "0x$(openssl rand -hex 16)" \
  -extfile "$work/leaf.ext" -out "$work/serving.crt" 2>/dev/null
openssl verify -CAfile "$ca_crt" -purpose sslserver "$work/serving.crt" >/dev/null

install -m 0644 "$work/serving.crt" "$pki_dir/serving.crt"
install -m 0600 "$work/serving.key" "$pki_dir/serving.key"
install -m 0644 "$work/serving.crt" "$manifests_dir/serving-pki/tls.crt"
install -m 0600 "$work/serving.key" "$manifests_dir/serving-pki/tls.key"
install -m 0644 "$ca_crt" "$manifests_dir/serving-pki/ca.crt"
chmod 0644 "$ca_crt"

echo "gen-pki: serving certificate for $fqdn in $pki_dir/serving.crt (valid $days days)"
echo "gen-pki: caBundle and serving Secret inputs in $manifests_dir/serving-pki/; now run: kubectl apply -k $manifests_dir"
