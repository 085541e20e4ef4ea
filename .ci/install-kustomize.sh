#!/usr/bin/env bash
# kustomize for test/deploy/kubernetes.test.ts, which renders deploy/kubernetes/overlays/*. A kubectl with kustomize
# v4 or later (`kubectl kustomize`) is used where the machine has one. Debian's own kubectl (kubernetes-client, 1.20,
# kustomize v2) is too old for `patches` and autoscaling/v2, so otherwise kustomize v5 is built from the Go module
# proxy (needs Go, which the machines have).
set -euo pipefail
if command -v kubectl >/dev/null && kubectl version --client 2>/dev/null | grep -Eq 'Kustomize Version: v[45]'; then
  exit 0
fi
command -v kustomize >/dev/null && exit 0
GOBIN=/usr/local/bin GOFLAGS=-mod=mod go install sigs.k8s.io/kustomize/kustomize/v5@v5.5.0
command -v kustomize
