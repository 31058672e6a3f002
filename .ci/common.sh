# Sourced by the .ci set-up scripts: what they share so that every one of them installs
# packages the same careful way and records what it did for `bash .ci/undo`.
# The caller sets PART (its name, e.g. "setup" or "slurm-setup") before sourcing.
#
# Records live in $LMR_STATE/$PART/ (root's, outside the project folder, so an undo
# works after the clone is gone), one value per line:
#   packages  Debian packages this part installed (dependencies included)
#   users     system users created meanwhile (by us or by a package's scripts)
#   groups    system groups created meanwhile
#   members   USER:GROUP memberships we added
#   daemons   NAME PID STARTTIME: a background process we started
#   units     systemd units we started (never enabled)
#   paths     files and folders we created outside the packages
#   images    Docker images we built
# A step whose result was already there records nothing: undo never removes what a
# machine had before.

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
LMR_STATE=/var/lib/lmr-author-setup
POLICY=/usr/sbin/policy-rc.d
POLICY_SAVED=/usr/sbin/policy-rc.d.lmr-author-saved
POLICY_MARK="# lmr-author set-up: no package starts a service while it installs"

say() { echo "$PART: $*"; }

systemd_is_init() { [ -d /run/systemd/system ]; }

# record KIND VALUE...: appends each value once to this part's record of KIND.
record() {
    local kind="$1" file value
    shift
    file="$LMR_STATE/$PART/$kind"
    $SUDO mkdir -p "$LMR_STATE/$PART"
    for value in "$@"; do
        [ -n "$value" ] || continue
        if ! $SUDO grep -qxF -- "$value" "$file" 2>/dev/null; then
            echo "$value" | $SUDO tee -a "$file" >/dev/null
        fi
    done
}

# record_new_path PATH: records PATH if it does not exist yet (call before creating it).
record_new_path() { [ -e "$1" ] || [ -L "$1" ] || record paths "$1"; }

_installed_packages() {
    dpkg-query -W -f='${db:Status-Abbrev} ${binary:Package}\n' 2>/dev/null \
        | awk '$1 == "ii" { sub(/:.*/, "", $2); print $2 }' | sort -u
}
_names() { getent "$1" | cut -d: -f1 | sort -u; }
# Links that make a unit or an init script start at boot.
_boot_links() {
    {
        find /etc/systemd/system /etc/systemd/user -type l \
            \( -path '*.wants/*' -o -path '*.requires/*' -o -path '*.upholds/*' \) 2>/dev/null
        find /etc/rc2.d /etc/rc3.d /etc/rc4.d /etc/rc5.d -name 'S*' 2>/dev/null
    } | sort -u
}

# While packages install, /usr/sbin/policy-rc.d answers 101 ("action forbidden") to
# their maintainer scripts, which then start no service: invoke-rc.d and
# deb-systemd-invoke (what dh_installsystemd's postinst calls under systemd) both ask
# it first. A policy that already forbids everything (Docker images ship one) is kept.
_forbid_service_starts() {
    if [ -x "$POLICY" ] && ! grep -qF "$POLICY_MARK" "$POLICY"; then
        local answer=0
        "$POLICY" lmr-author-probe start >/dev/null 2>&1 || answer=$?
        [ "$answer" = "101" ] && return 0
        $SUDO mv "$POLICY" "$POLICY_SAVED"
    fi
    printf '#!/bin/sh\n%s\nexit 101\n' "$POLICY_MARK" | $SUDO tee "$POLICY" >/dev/null
    $SUDO chmod 755 "$POLICY"
}
_allow_service_starts() {
    if [ -f "$POLICY" ] && grep -qF "$POLICY_MARK" "$POLICY"; then $SUDO rm -f "$POLICY"; fi
    if [ -e "$POLICY_SAVED" ]; then $SUDO mv "$POLICY_SAVED" "$POLICY"; fi
}

# apt_install PACKAGE...: installs them without their recommendations, with no service
# of theirs started, and disables what their scripts enabled for the next boot
# (deb-systemd-helper enables a unit whatever policy-rc.d says). Records the packages,
# users and groups that are new.
apt_install() {
    local before_pkgs before_users before_groups before_links link unit name caller_trap
    local -a sysv=()
    before_pkgs="$(_installed_packages)"
    before_users="$(_names passwd)"
    before_groups="$(_names group)"
    before_links="$(_boot_links)"
    # What packages' scripts leave under /run: adduser's lock file (a user or group
    # added), runit-helper's folder (a service with a runit script, e.g. ssh).
    record_new_path /run/adduser
    record_new_path /run/runit
    say "installing $* (and what they depend on)"
    _allow_service_starts # a policy left behind by an interrupted run
    _forbid_service_starts
    caller_trap="$(trap -p EXIT)"
    trap _allow_service_starts EXIT
    $SUDO apt-get update -qq
    # NEEDRESTART_SUSPEND: needrestart's apt hook (where installed) restarts no service.
    $SUDO env DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1 \
        apt-get install -y -qq --no-install-recommends "$@" >/dev/null
    _allow_service_starts
    if [ -n "$caller_trap" ]; then eval "$caller_trap"; else trap - EXIT; fi
    record packages $(comm -13 <(echo "$before_pkgs") <(_installed_packages))
    record users $(comm -13 <(echo "$before_users") <(_names passwd))
    record groups $(comm -13 <(echo "$before_groups") <(_names group))
    # systemctl disable amounts to removing these links; doing it by hand works without
    # systemd too (a container may get systemd later). deb-systemd-helper keeps its
    # record, so a package upgrade sees the unit as disabled and leaves it so.
    for link in $(comm -13 <(echo "$before_links") <(_boot_links)); do
        case "$link" in
            /etc/rc*)
                name="$(basename "$link" | sed 's/^S[0-9]*//')"
                sysv+=("$name")
                ;;
            *)
                unit="$(basename "$link")"
                say "not starting $unit at boot (its package enabled it; disabled)"
                $SUDO rm -f "$link"
                ;;
        esac
    done
    for name in $(printf '%s\n' "${sysv[@]}" | sort -u); do
        say "not starting /etc/init.d/$name at boot (update-rc.d $name disable)"
        $SUDO update-rc.d "$name" disable >/dev/null 2>&1 || true
    done
    if systemd_is_init; then $SUDO systemctl daemon-reload; fi
}

# start_daemon NAME COMMAND...: runs COMMAND in the background as root, detached from
# this shell (log: /var/log/lmr-author/NAME.log), and records it for undo.
start_daemon() {
    local name="$1" log pid
    shift
    log="/var/log/lmr-author/$name.log"
    record_new_path /var/log/lmr-author
    $SUDO mkdir -p /var/log/lmr-author
    # shellcheck disable=SC2016
    pid="$($SUDO sh -c 'log="$1"; shift; cd /; nohup "$@" >"$log" 2>&1 </dev/null & echo $!' \
        sh "$log" "$@")"
    record_daemon "$name" "$pid"
}

# record_daemon NAME PID: records a process we started by its pid and its start time
# (field 22 of /proc/PID/stat), so undo never signals another process that got its pid.
record_daemon() {
    local started
    started="$(sed 's/.*) //' "/proc/$2/stat" | cut -d' ' -f20)"
    record daemons "$1 $2 $started"
}

# record_pidfile NAME PIDFILE: records a daemon that forked into the background itself,
# once its pid file names a running process.
record_pidfile() {
    local pid=""
    for _ in $(seq 1 50); do
        pid="$($SUDO cat "$2" 2>/dev/null || true)"
        if [ -n "$pid" ] && [ -e "/proc/$pid" ]; then
            record_daemon "$1" "$pid"
            return 0
        fi
        sleep 0.2
    done
    echo "$PART: $1 wrote no pid file $2" >&2
    return 1
}

# plan_line TEXT: one line of what a script is about to do (printed before it does it).
plan_line() { echo "  - $*"; }
