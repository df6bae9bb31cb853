#!/usr/bin/env bash
# Install, upgrade or remove feltbank as a service on Raspberry Pi OS (Bookworm).
#
#   sudo systemd/install.sh install      # packages, user, /opt/feltbank, venv, udev, service
#   sudo systemd/install.sh upgrade      # new code and venv; config and data stay
#   sudo systemd/install.sh uninstall    # stop and remove; config and data stay
#   sudo systemd/install.sh uninstall --purge   # ... and remove config and data too
#
# Code: /opt/feltbank (venv in /opt/feltbank/.venv, made with --system-site-packages so that
# Debian's OpenCV, picamera2 and lgpio are used). Data and config: /var/lib/feltbank (the
# journal, receipts, calibration profiles, and feltbank.toml, which the dashboard's Settings
# page writes too).
#
# For tests: FELTBANK_ROOT=DIR puts every file under DIR, and FELTBANK_SKIP_SYSTEM=1 skips
# apt, users, the venv, udevadm and systemctl.
set -euo pipefail

ROOT="${FELTBANK_ROOT:-}"
SKIP_SYSTEM="${FELTBANK_SKIP_SYSTEM:-0}"
SRC="$(cd "$(dirname "$0")/.." && pwd)"
APP="$ROOT/opt/feltbank"
DATA="$ROOT/var/lib/feltbank"
CONFIG="$DATA/feltbank.toml"
UNIT="$ROOT/etc/systemd/system/feltbank.service"
UDEV="$ROOT/etc/udev/rules.d/60-feltbank.rules"
USER_NAME=feltbank
PACKAGES=(python3 python3-venv python3-pip python3-numpy python3-opencv python3-picamera2
          python3-lgpio python3-gpiozero python3-usb python3-serial)

say() { printf 'feltbank: %s\n' "$*"; }
system() { if [ "$SKIP_SYSTEM" = 1 ]; then say "(skipped) $*"; else "$@"; fi; }

need_root() {
    if [ "$SKIP_SYSTEM" != 1 ] && [ "$(id -u)" != 0 ]; then
        say "run me with sudo"; exit 1
    fi
}

copy_code() {
    # Replace the code, never the venv's own state or anything outside /opt/feltbank.
    mkdir -p "$APP"
    find "$APP" -mindepth 1 -maxdepth 1 ! -name .venv -exec rm -rf {} +
    (cd "$SRC" && tar --exclude=.venv --exclude=.git --exclude=__pycache__ \
        --exclude='*.egg-info' --exclude=.pytest_cache --exclude=artifacts -cf - .) \
        | tar -C "$APP" -xf -
}

make_venv() {
    if [ "$SKIP_SYSTEM" = 1 ]; then say "(skipped) venv in $APP/.venv"; return; fi
    if [ ! -x "$APP/.venv/bin/python" ]; then
        python3 -m venv --system-site-packages "$APP/.venv"
    fi
    # No [cv] extra: pip's OpenCV (or a second numpy) in this venv would break picamera2.
    # Editable: the code runs from /opt/feltbank, next to its calibration/ profiles.
    "$APP/.venv/bin/pip" install --disable-pip-version-check -q --upgrade -e "$APP"
}

place_files() {
    mkdir -p "$(dirname "$UNIT")" "$(dirname "$UDEV")" "$DATA"
    install -m 644 "$SRC/systemd/feltbank.service" "$UNIT"
    install -m 644 "$SRC/systemd/udev/60-feltbank.rules" "$UDEV"
    if [ ! -e "$CONFIG" ]; then
        install -m 640 "$SRC/systemd/feltbank.toml" "$CONFIG"
        say "wrote $CONFIG (edit it, then: sudo systemctl restart feltbank)"
    else
        say "kept $CONFIG"
    fi
}

add_user() {
    if ! id "$USER_NAME" >/dev/null 2>&1; then
        system useradd --system --home-dir /var/lib/feltbank --shell /usr/sbin/nologin \
            "$USER_NAME"
    fi
    for group in gpio video lp dialout; do
        if getent group "$group" >/dev/null; then
            system usermod -aG "$group" "$USER_NAME"
        fi
    done
}

install_all() {
    need_root
    system apt-get update
    system apt-get install -y "${PACKAGES[@]}"
    add_user
    copy_code
    make_venv
    place_files
    system chown -R "$USER_NAME:$USER_NAME" "$DATA"
    system udevadm control --reload
    system udevadm trigger --subsystem-match=usb
    system systemctl daemon-reload
    system systemctl enable --now feltbank.service
    say "installed; status: systemctl status feltbank; log: journalctl -u feltbank -f"
}

upgrade() {
    need_root
    if [ ! -d "$APP" ]; then say "not installed; run: $0 install"; exit 1; fi
    system systemctl stop feltbank.service
    copy_code
    make_venv
    place_files
    system systemctl daemon-reload
    system systemctl start feltbank.service
    say "upgraded; data and config in $DATA kept"
}

uninstall() {
    need_root
    system systemctl disable --now feltbank.service
    rm -f "$UNIT" "$UDEV"
    rm -rf "$APP"
    system systemctl daemon-reload
    system udevadm control --reload
    if [ "${1:-}" = --purge ]; then
        rm -rf "$DATA"
        system userdel "$USER_NAME"
        say "removed, with data and config"
    else
        say "removed; data and config in $DATA kept (--purge removes them)"
    fi
}

case "${1:-}" in
    install) install_all ;;
    upgrade) upgrade ;;
    uninstall) uninstall "${2:-}" ;;
    *) sed -n '2,9p' "$0"; exit 2 ;;
esac
