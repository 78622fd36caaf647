#!/usr/bin/env bash
# Screenshots of `xla-layout memory --html` pages in headless Chromium, to
# look at: one per fixture given (default: a TPU and a CPU fixture), as
# PNG files in OUT (default: target/memory-screenshots). Without Chromium
# the script says so and exits 0, so that CI can run it unconditionally.
#
#   tools/memory/screenshot.sh [OUT] [FIXTURE...]
#   tools/memory/screenshot.sh /tmp/shots tpu_train_step tpu_odd_shapes
#
# Install Chromium with `apt-get install -y chromium` (Debian's package).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-target/memory-screenshots}
shift || true
fixtures=("$@")
[ ${#fixtures[@]} -gt 0 ] || fixtures=(tpu_train_step cpu_linalg)
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "skipping: no chromium on PATH (apt-get install -y chromium)"
    exit 0
fi
cargo build --quiet -p xla-layout-cli
bin=${CARGO_TARGET_DIR:-target}/debug/xla-layout
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
for name in "${fixtures[@]}"; do
    page="$out/$name.html"
    "$bin" memory "tests/data/dumps/$name.hlo" --top 25 --html "$page" >/dev/null
    # Everything the page needs is in it: no network, no first-run chrome.
    "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --screenshot="$out/$name.png" --window-size=1400,1600 \
        "file://$(realpath "$page")" >/dev/null 2>&1
    [ -s "$out/$name.png" ] || { echo "no screenshot for $name" >&2; exit 1; }
    echo "$out/$name.png"
done
