#!/usr/bin/env bash
# Installs the Debian 12 packages cann-debug builds against. Idempotent; skips apt when all are present.
set -euo pipefail
PACKAGES=(
  cmake g++ ninja-build pkg-config clang-format ccache
  libboost-dev libboost-filesystem-dev libyaml-cpp-dev libfmt-dev libtbb-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev libspdlog-dev
  libsimdjson-dev libzstd-dev libcpp-httplib-dev zlib1g-dev libpugixml-dev
  python3-torch python3-sklearn python3-numpy
  clang libclang-rt-14-dev
  chromium-headless-shell
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
