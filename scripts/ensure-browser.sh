#!/usr/bin/env bash
# The browser e2e tests drive Debian's Chromium through playwright-core. Installs it (and a CJK font,
# so screenshots of Chinese reports are readable) when missing; never touches an installed one.
set -euo pipefail

CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ] && dpkg -s fonts-wqy-zenhei >/dev/null 2>&1; then
  exit 0
fi
if [ -n "${CHROMIUM_PATH:-}" ] && [ ! -x "$CHROMIUM_PATH" ]; then
  echo "ensure-browser: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable" >&2
  exit 1
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-browser: install Debian's chromium and fonts-wqy-zenhei (as root: apt-get install chromium fonts-wqy-zenhei), or set CHROMIUM_PATH" >&2
  exit 1
fi
echo "ensure-browser: installing chromium and fonts-wqy-zenhei"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null ||
  { apt-get update >/dev/null && apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null; }
