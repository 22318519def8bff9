#!/usr/bin/env bash
# Runs bench/probes/local_write_cost.py against a DynamoDB Local of its own (see the script).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
install_dynamodb_local >/dev/null
start_dynamodb_local 0
python3 bench/probes/local_write_cost.py "$DYNAMODB_ENDPOINT" "$DYNAMODB_LOCAL_PID"
