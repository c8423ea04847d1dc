#!/usr/bin/env bash
# Checks the Kubernetes manifests against the API schemas of a pinned Kubernetes release,
# offline, rejecting unknown fields (docs/operations.md, "Kubernetes"). Nothing here runs
# a cluster; this catches a misspelt field or a wrong apiVersion before one does.
set -euo pipefail
cd "$(dirname "$0")"
VALIDATOR_VERSION=1.31.0   # kubernetes-validate from PyPI; it carries the 1.31 schemas
KUBERNETES_VERSION=1.31.0
if [ "$(kubernetes-validate --version 2>/dev/null | awk '{print $NF}')" != "$VALIDATOR_VERSION" ]; then
  python3 -m pip install -q "kubernetes-validate==$VALIDATOR_VERSION"
fi
kubernetes-validate --strict --quiet -k "$KUBERNETES_VERSION" k8s/*.yaml k8s-standby/*.yaml
echo "k8s manifests valid for Kubernetes $KUBERNETES_VERSION: $(ls k8s/*.yaml k8s-standby/*.yaml | tr '\n' ' ')"
