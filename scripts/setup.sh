#!/usr/bin/env bash
# Installs what building and testing aclnn-cpu needs on a fresh Debian 12
# machine (only the packages that are missing). Run as root, or with sudo.
set -euo pipefail

packages=(cmake g++ make pkg-config libgtest-dev libgmock-dev)
if [[ "${ACLNN_CPU_WITH_TORCH:-1}" == 1 ]]; then
  # PyTorch for the cross-check test (tests/torch) and the Python package tests
  # (tests/python, pytest); Debian's builds are for /usr/bin/python3.
  packages+=(python3-torch python3-numpy python3-pytest)
fi
if [[ "${ACLNN_CPU_WITH_PEERS:-0}" == 1 ]]; then
  # oneDNN for the peer benchmark (bench/peers/run.sh asks for it).
  packages+=(libdnnl-dev)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
