#!/usr/bin/env bash
# The SDK as an out-of-tree author meets it: install the build tree into a fresh prefix, scaffold one
# plugin of every kind with the installed `cann-debug new-plugin`, build each against the installed SDK
# (find_package(CannDebugSDK)), run its own test, and load it into the installed host through
# CANN_DEBUG_PLUGIN_PATH; the sampler, reader and sink also run their sample pipelines.
#   scaffold_test.sh BUILD_DIR [KIND...]
set -euo pipefail
build=$(cd "$1" && pwd)
shift
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(sampler reader extractor engine analyzer advisor sink)
work=$(mktemp -d "${TMPDIR:-/tmp}/cann-debug-scaffold.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "install"; }
host=$prefix/bin/cann-debug
[ -x "$host" ] || fail "no installed host at $host"
[ -f "$prefix/lib/cmake/CannDebugSDK/CannDebugSDKConfig.cmake" ] || fail "no CMake package installed"
[ -f "$prefix/include/cann_debug/sampler.hpp" ] || fail "cann_debug/sampler.hpp not installed"
pc=$prefix/lib/pkgconfig/cann-debug-sdk.pc
grep -q -- "-lcann_debug_sdk" "$pc" || fail "pkg-config file lacks the library"
# Without CMake: a program built with the pkg-config flags alone.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ -f "$(pkg-config --variable=includedir cann-debug-sdk)/cann_debug/sampler.hpp" ] \
  || fail "pkg-config does not point at the installed headers"
cat > "$work/pc.cpp" <<'CPP'
#include "cann_debug/sampler.hpp"
int main() { return cann_debug::check_manifest(cann_debug::sampler::sampler_manifest("pc_probe", "x")).empty() ? 0 : 1; }
CPP
# shellcheck disable=SC2046
c++ "$work/pc.cpp" -o "$work/pc" $(pkg-config --cflags --libs cann-debug-sdk) || fail "pkg-config build"
"$work/pc" || fail "pkg-config program: sampler_manifest() fails check_manifest()"

# The refusals: a bad name, an existing folder.
if "$host" new-plugin --kind sampler Bad-Name --dir "$work/bad" 2> "$work/err"; then fail "accepted a bad name"; fi
grep -q "not a valid component type" "$work/err" || fail "bad name: unclear error: $(cat "$work/err")"

for kind in "${kinds[@]}"; do
  name=my_$kind
  dir=$work/$name
  "$host" new-plugin --kind "$kind" "$name" --dir "$dir" > "$work/$name.new.log"
  if "$host" new-plugin --kind "$kind" "$name" --dir "$dir" 2> "$work/err"; then fail "$kind: overwrote $dir"; fi
  cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE= \
    > "$work/$name.cfg.log" 2>&1 || { cat "$work/$name.cfg.log"; fail "$kind: configure"; }
  cmake --build "$dir/build" > "$work/$name.build.log" 2>&1 || { cat "$work/$name.build.log"; fail "$kind: build"; }
  ctest --test-dir "$dir/build" --output-on-failure > "$work/$name.test.log" 2>&1 \
    || { cat "$work/$name.test.log"; fail "$kind: its own test"; }
  export CANN_DEBUG_PLUGIN_PATH=$dir/build/plugins
  "$host" plugins --json > "$work/$name.plugins.json"
  python3 - "$work/$name.plugins.json" "$name" "$kind" <<'PY' || fail "$kind: not loaded by the installed host"
import json, sys
doc = json.load(open(sys.argv[1]))
mine = [c for c in doc["components"] if c["type"] == sys.argv[2]]
assert mine, f"{sys.argv[2]} not listed; refused: {doc['refused']}"
assert mine[0]["kind"] == sys.argv[3], mine[0]
assert mine[0]["available"], mine[0]
# The installed host loads its own packages from its prefix, never from a build tree.
foreign = [c["path"] for c in doc["components"] if c["path"].endswith(".so") and c["type"] != sys.argv[2]
           and "/prefix/lib/cann-debug/plugins/" not in c["path"]]
assert not foreign, foreign[:3]
PY
  "$host" validate "$dir/pipelines/$name.yaml" --input "$work" --output "$work/out_$name" \
    --var graphs="$prefix/share/cann-debug/pipelines/graphs" > "$work/$name.validate.log" 2>&1 \
    || { cat "$work/$name.validate.log"; fail "$kind: its sample pipeline does not validate"; }
  case $kind in
    sampler)
      "$host" run "$dir/pipelines/$name.yaml" --output "$work/out_$name" --set "$name/local.interval=10ms" \
        > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "sampler: pipeline run"; }
      [ "$(grep -c host.load.1m "$work/out_$name/$name.jsonl")" -eq 10 ] || fail "sampler: expected 10 samples"
      ;;
    reader)
      printf 'step=0 loss=2.5\nstep=1 loss=2.0\nstep=2 loss=1.5\n' > "$work/train.log"
      "$host" run "$dir/pipelines/$name.yaml" --input "$work" --output "$work/out_$name" > "$work/run.log" 2>&1 \
        || { cat "$work/run.log"; fail "reader: pipeline run"; }
      grep -q '"loss":1.5' "$work/out_$name/records.jsonl" || fail "reader: records not written"
      ;;
    sink)
      "$host" run "$dir/pipelines/$name.yaml" --output "$work/out_$name" --set procfs/host.interval=10ms \
        > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "sink: pipeline run"; }
      grep -q '^[0-9]*,host\.' "$work/out_$name/metrics.csv" || fail "sink: no rows in metrics.csv"
      ;;
  esac
  echo "ok: $kind ($(grep -cv '^\s*\(//.*\)\?$' "$dir/$name.cpp") lines of component code)"
done
