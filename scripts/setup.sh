#!/usr/bin/env bash
# Install whatever is missing on a fresh Debian machine: system packages, the virtual environment, the
# Python packages and the npm packages. Quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v ffmpeg >/dev/null || missing+=(ffmpeg)
command -v ffprobe >/dev/null || missing+=(ffmpeg)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v redis-server >/dev/null || missing+=(redis-server)
command -v npm >/dev/null || missing+=(nodejs npm)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
# The default model's world draws its subjects from Noto's colour emoji (lab/world/).
[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || missing+=(fonts-noto-color-emoji)
"$PYTHON" -c "import venv, ensurepip" 2>/dev/null || missing+=(python3-venv)
# The deploy/ checks: systemd-analyze verify on the units, nginx -t (and a run) on the site.
command -v systemd-analyze >/dev/null || missing+=(systemd)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v openssl >/dev/null || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

mkdir -p .setup-stamps
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
  rm -f .setup-stamps/requirements  # a new environment has none of the packages a stamp vouches for
  .venv/bin/pip install -q --upgrade pip
fi
if [ ! -f .setup-stamps/requirements ] || [ requirements.txt -nt .setup-stamps/requirements ] \
  || [ requirements/dev.txt -nt .setup-stamps/requirements ]; then
  echo "setup: installing Python packages"
  .venv/bin/pip install -q -r requirements.txt
  touch .setup-stamps/requirements
fi
if [ ! -f .setup-stamps/npm ] || [ package-lock.json -nt .setup-stamps/npm ] || [ ! -d node_modules ]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error
  touch .setup-stamps/npm
fi
