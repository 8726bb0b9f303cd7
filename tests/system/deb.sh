#!/bin/bash
# tests/system/deb.sh - the Debian package, built and installed for real.
#
#  1. dpkg-buildpackage -us -uc -b on a copy of the source (it writes into the
#     parent directory), with autoreconf, the autotools sequence, hardening
#  2. lintian on the .changes: no errors, no warnings
#  3. the package's contents and dependencies
#  4. (HIPD_TEST_CHROOT=0 skips it) in a fresh Debian 12 chroot made by
#     mmdebstrap: install puts everything in place (user hipd, /etc/hip
#     root:hipd 0755, a 0600 key owned by hipd), the installed hipd starts as
#     root and runs as hipd with CAP_NET_ADMIN + CAP_NET_RAW only, remove keeps
#     the conffile, purge leaves the chroot's files exactly as before.
#  5. (with systemd-nspawn) the chroot booted with systemd: hipd.service
#     starts (Type=notify), runs as hipd with the two capabilities and a seccomp
#     filter, reloads (and refuses a broken configuration), stops cleanly, and
#     its journal lines carry the right priorities; hipfw.service starts as
#     user hipfw, and when hipfw is SIGKILLed its ExecStopPost= removes the
#     learnt SPIs' rules at once while the queue rules stay (fail-closed),
#     and systemd restarts it.
#
# Needs root and tools/install-deps.sh --packaging (exit 77 without them).
# Environment: HIPD_DEB_CHECK=1 runs `make check` inside the package build;
# HIPD_DEB_OUT=DIR keeps the built packages there.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHROOT=${HIPD_TEST_CHROOT:-1}

if [ "$(id -u)" -ne 0 ]; then echo "deb: SKIP: needs root"; exit 77; fi
for t in dpkg-buildpackage dh lintian mmdebstrap; do
	command -v $t >/dev/null ||
		{ echo "deb: SKIP: $t missing (tools/install-deps.sh --packaging)"; exit 77; }
done

T=$(mktemp -d /tmp/hipd-deb.XXXXXX)
C=$T/chroot
hipd_pid=""
cleanup() {
	[ -z "$hipd_pid" ] || kill -9 "$hipd_pid" 2>/dev/null
	mountpoint -q "$C/proc" 2>/dev/null && umount "$C/proc"
	mountpoint -q "$C/dev/net/tun" 2>/dev/null && umount "$C/dev/net/tun"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
CHECK_DIR=$T
. "$ROOT/tests/system/lib.sh"

# ---- 1. build ----
mkdir -p "$T/src"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	# the working tree as it is (tracked and new files), without build output
	(cd "$ROOT" && git ls-files -z -co --exclude-standard | grep -zv '^\.notes/' |
		tar --null -cf - -T -) | tar -xf - -C "$T/src"
else
	tar -C "$ROOT" --exclude='./build*' --exclude=./autom4te.cache -cf - . | tar -xf - -C "$T/src"
fi
opts="parallel=$(nproc)"
[ "${HIPD_DEB_CHECK:-0}" = 1 ] || opts="$opts nocheck"
t0=$(now)
(cd "$T/src" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
rc=$?
echo "# dpkg-buildpackage: $(($(now) - t0)) s"
if [ $rc -ne 0 ]; then
	not_ok "dpkg-buildpackage -us -uc -b (rc $rc)"; tail -40 "$T/build.log"
	summary deb; exit 1
fi
ok "dpkg-buildpackage -us -uc -b"
check "autoreconf ran (dh_autoreconf)" grep -q '^   dh_autoreconf' "$T/build.log"
ARCH=$(dpkg --print-architecture)
VERSION=$(cd "$T/src" && dpkg-parsechangelog -S Version)
DEB=$T/hipd_${VERSION}_$ARCH.deb
DEBFW=$T/hipfw_${VERSION}_$ARCH.deb
CHANGES=$T/hipd_${VERSION}_$ARCH.changes

# ---- 2. lintian ----
lintian --fail-on error,warning --display-info "$CHANGES" >"$T/lintian.out" 2>&1
rc=$?
grep -v 'running with root privileges' "$T/lintian.out" | sed 's/^/# lintian: /'
expect "lintian: no errors, no warnings" "0 0" \
	"$(grep -c '^E: ' "$T/lintian.out") $(grep -c '^W: ' "$T/lintian.out")"
expect "lintian exit status" 0 "$rc"

# ---- 3. contents ----
dpkg-deb -c "$DEB" | awk '{ print $1, $2, $6 }' | sed 's|\./|/|' >"$T/contents"
for want in "-rwxr-xr-x root/root /usr/sbin/hipd" "-rwxr-xr-x root/root /usr/bin/hipconf" \
	"-rw-r--r-- root/root /lib/systemd/system/hipd.service" \
	"-rw-r--r-- root/root /etc/hip/hipd.conf" \
	"-rw-r--r-- root/root /usr/share/man/man8/hipd.8.gz" \
	"-rw-r--r-- root/root /usr/share/man/man8/hipconf.8.gz" \
	"-rw-r--r-- root/root /usr/share/man/man5/hipd.conf.5.gz" \
	"-rw-r--r-- root/root /usr/share/man/man5/hip-hosts.5.gz" \
	"-rw-r--r-- root/root /usr/share/doc/hipd/copyright"; do
	check "package holds ${want##* }" grep -qxF -- "$want" "$T/contents"
done
check "hipfw is not in the hipd package" sh -c "! grep -q hipfw '$T/contents'"
# hipfw: a package of its own (issue 15), its unit installed, not enabled
dpkg-deb -c "$DEBFW" | awk '{ print $1, $2, $6 }' | sed 's|\./|/|' >"$T/contents-fw"
for want in "-rwxr-xr-x root/root /usr/sbin/hipfw" \
	"-rw-r--r-- root/root /lib/systemd/system/hipfw.service" \
	"-rw-r--r-- root/root /etc/hip/hipfw.rules" \
	"-rw-r--r-- root/root /usr/share/man/man8/hipfw.8.gz" \
	"-rw-r--r-- root/root /usr/share/man/man5/hipfw.rules.5.gz" \
	"-rw-r--r-- root/root /usr/share/doc/hipfw/copyright"; do
	check "hipfw package holds ${want##* }" grep -qxF -- "$want" "$T/contents-fw"
done
expect "hipfw conffiles" "/etc/hip/hipfw.rules" \
	"$(dpkg-deb --ctrl-tarfile "$DEBFW" | tar -xOf - ./conffiles)"
fwdeps=$(dpkg-deb -f "$DEBFW" Depends)
for d in adduser iptables libc6 libssl3 libnetfilter-queue1; do
	check "hipfw Depends: $d" sh -c "echo '$fwdeps' | grep -q '\\b$d\\b'"
done
check "hipfw's unit: user hipfw, two ambient capabilities" sh -c \
	"grep -qx 'User=hipfw' '$T/src/debian/hipfw/lib/systemd/system/hipfw.service' &&
	 grep -qx 'AmbientCapabilities=CAP_NET_ADMIN CAP_NET_RAW' '$T/src/debian/hipfw/lib/systemd/system/hipfw.service'"
# libnss-hip (issue 16, D-19): the NSS module in the multiarch directory, no
# maintainer script that could touch nsswitch.conf (only dpkg's ldconfig trigger)
DEBNSS=$T/libnss-hip_${VERSION}_$ARCH.deb
dpkg-deb -c "$DEBNSS" | awk '{ print $1, $2, $6 }' | sed 's|\./|/|' >"$T/contents-nss"
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for want in "-rw-r--r-- root/root /usr/lib/$MA/libnss_hip.so.2" \
	"-rwxr-xr-x root/root /usr/sbin/hip-nsswitch" \
	"-rw-r--r-- root/root /usr/share/man/man8/hip-nsswitch.8.gz"; do
	check "libnss-hip holds ${want##* }" grep -qxF -- "$want" "$T/contents-nss"
done
expect "libnss-hip has no maintainer scripts" "" \
	"$(dpkg-deb --ctrl-tarfile "$DEBNSS" | tar -t | grep -E 'inst$|rm$')"
expect "conffiles" "/etc/hip/hipd.conf" "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - ./conffiles)"
deps=$(dpkg-deb -f "$DEB" Depends)
for d in adduser openssl libc6 libssl3 libcap2; do
	check "Depends: $d (shlibs for the libraries)" sh -c "echo '$deps' | grep -q '\\b$d\\b'"
done
check "the unit's ExecStart= is the packaged hipd" \
	grep -qx 'ExecStart=/usr/sbin/hipd --log-stderr' "$T/src/debian/hipd/lib/systemd/system/hipd.service"
mkdir -p "$T/x" && dpkg-deb -x "$DEB" "$T/x" && dpkg-deb -x "$DEBFW" "$T/x"
# hardening=+all (debian/rules): PIE, full RELRO + BIND_NOW, fortified calls
for b in usr/sbin/hipd usr/bin/hipconf usr/sbin/hipfw; do
	check "$b: PIE" sh -c "readelf -h '$T/x/$b' | grep -q 'Type:.*DYN'"
	check "$b: RELRO, BIND_NOW" sh -c "readelf -lW '$T/x/$b' | grep -q GNU_RELRO &&
		readelf -dW '$T/x/$b' | grep -q 'FLAGS.*NOW'"
	check "$b: _FORTIFY_SOURCE" sh -c "readelf --dyn-syms -W '$T/x/$b' | grep -q '__[a-z]*_chk'"
done
echo "# sizes: hipd_${VERSION}_$ARCH.deb $(stat -c %s "$DEB") bytes," \
	"installed $(dpkg-deb -f "$DEB" Installed-Size) KiB;" \
	"hipd $(stat -c %s "$T/x/usr/sbin/hipd"), hipconf $(stat -c %s "$T/x/usr/bin/hipconf") bytes (stripped)"
[ -z "${HIPD_DEB_OUT:-}" ] || { mkdir -p "$HIPD_DEB_OUT" && cp "$T"/*.deb "$T"/*.changes "$HIPD_DEB_OUT"/; }

# ---- 4. a clean Debian 12 ----
if [ "$CHROOT" != 1 ]; then
	echo "# chroot install test skipped (HIPD_TEST_CHROOT=$CHROOT)"
	summary deb; exit
fi
t0=$(now)
sources=/etc/apt/sources.list
[ -s "$sources" ] || sources=/etc/apt/sources.list.d/debian.sources
# The package's dependencies come from the mirror now, so dpkg -i needs no
# network later; systemd is there for step 5 (booted by systemd-nspawn), it is
# not running during step 4's install and purge.
pkgdeps=$( (dpkg-deb -f "$DEB" Depends; echo ,; dpkg-deb -f "$DEBFW" Depends) | tr ',' '\n' |
	sed 's/(.*)//; s/|.*//; s/[[:space:]]//g' | grep -v '^$' | sort -u | paste -sd, -)
if ! mmdebstrap --quiet --variant=minbase \
	--include="$pkgdeps,init-system-helpers,systemd,systemd-sysv" \
	bookworm "$C" "$sources" >"$T/mmdebstrap.log" 2>&1; then
	not_ok "mmdebstrap bookworm"; tail -20 "$T/mmdebstrap.log"
	summary deb; exit 1
fi
echo "# mmdebstrap: $(($(now) - t0)) s"
in_c() { chroot "$C" "$@"; }
# Every file but the package manager's own records and logs, the backups
# the shadow tools keep of the account files (passwd- ...), adduser's lock
# (/run/adduser) and ldconfig's cache (libnss-hip's ldconfig trigger): not
# ours, and the account files themselves are compared.
snapshot() {
	(cd "$C" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./sys -o -path ./tmp \
		-o -path ./var/lib/dpkg -o -path ./var/log -o -path ./var/cache/debconf \
		-o -path ./run/adduser -o -path ./var/cache/ldconfig \
		-o -regex '\./etc/\(passwd\|group\|shadow\|gshadow\)-' \) \
		-prune -o -printf '%p %y %u:%g %m\n' | sort)
	# the account databases must be back byte for byte
	(cd "$C/etc" && sha256sum passwd group shadow gshadow)
}
snapshot >"$T/before"
cp "$DEB" "$C/tmp/"
in_c dpkg -i "/tmp/${DEB##*/}" >"$T/install.log" 2>&1
rc=$?
expect "dpkg -i in a clean bookworm" 0 $rc
[ $rc -eq 0 ] || cat "$T/install.log"
expect "dpkg status" "install ok installed" "$(in_c dpkg-query -W -f='${Status}' hipd)"
uid=$(in_c getent passwd hipd | cut -d: -f3)
check "system user hipd (uid $uid < 1000, no login shell)" sh -c \
	"[ -n '$uid' ] && [ '$uid' -lt 1000 ] && chroot '$C' getent passwd hipd | grep -q ':/usr/sbin/nologin$'"
check "group hipd" sh -c "chroot '$C' getent group hipd >/dev/null"
expect "/etc/hip root:hipd 0755" "root:hipd 755" "$(in_c stat -c '%U:%G %a' /etc/hip)"
expect "key hipd:hipd 0600" "hipd:hipd 600" "$(in_c stat -c '%U:%G %a' /etc/hip/hip_host_key.pem)"
check "key is a PKCS#8 private key" grep -q 'BEGIN PRIVATE KEY' "$C/etc/hip/hip_host_key.pem"
for f in /usr/sbin/hipd /usr/bin/hipconf /lib/systemd/system/hipd.service /etc/hip/hipd.conf \
	/usr/share/man/man8/hipd.8.gz /etc/systemd/system/multi-user.target.wants/hipd.service; do
	check "installed: $f" chroot "$C" test -e "$f"
done
check "hipd -t accepts the packaged configuration" sh -c "chroot '$C' /usr/sbin/hipd -t >/dev/null"

# the packaged defaults, started as root by hand: user hipd, two capabilities
mount -t proc proc "$C/proc"
if [ -e /dev/net/tun ]; then mkdir -p "$C/dev/net" && touch "$C/dev/net/tun" &&
	mount --bind /dev/net/tun "$C/dev/net/tun"; fi
unshare -n chroot "$C" /usr/sbin/hipd --foreground --log-stderr >"$T/hipd.log" 2>&1 &
hipd_pid=$!
if wait_for "packaged hipd: running" 30 grep -q 'running as uid' "$T/hipd.log"; then
	expect "packaged hipd: Uid" "$uid" "$(awk '$1 == "Uid:" { print $3 }' /proc/$hipd_pid/status)"
	expect "packaged hipd: CapEff" 0000000000003000 "$(awk '$1 == "CapEff:" { print $2 }' /proc/$hipd_pid/status)"
	expect "packaged hipd: CapBnd" 0000000000003000 "$(awk '$1 == "CapBnd:" { print $2 }' /proc/$hipd_pid/status)"
	check "packaged hipd: hipconf show hi" sh -c "chroot '$C' hipconf show hi | grep -q '^2001:'"
	kill -TERM "$hipd_pid"; wait "$hipd_pid"
	expect "packaged hipd: clean stop" 0 $?
else
	not_ok "packaged hipd started"; cat "$T/hipd.log"; kill -9 "$hipd_pid"
fi
hipd_pid=""
umount "$C/proc"
mountpoint -q "$C/dev/net/tun" && umount "$C/dev/net/tun" && rm -f "$C/dev/net/tun" && rmdir "$C/dev/net"

# hipfw beside hipd: its own user, in group hipd (its rules are in /etc/hip),
# the unit installed but not enabled, the packaged rules accepted as user hipfw
cp "$DEBFW" "$C/tmp/"
in_c dpkg -i "/tmp/${DEBFW##*/}" >"$T/install-fw.log" 2>&1
rc=$?
expect "dpkg -i hipfw" 0 $rc
[ $rc -eq 0 ] || cat "$T/install-fw.log"
check "system user hipfw, member of group hipd" sh -c \
	"chroot '$C' id -nG hipfw | tr ' ' '\n' | grep -qx hipd"
check "installed: /lib/systemd/system/hipfw.service" chroot "$C" test -e /lib/systemd/system/hipfw.service
check "hipfw.service not enabled by the package" \
	chroot "$C" test ! -e /etc/systemd/system/multi-user.target.wants/hipfw.service
check "hipfw --check-config as user hipfw reads /etc/hip/hipfw.rules" \
	chroot --userspec=hipfw:hipfw --groups=hipd "$C" /usr/sbin/hipfw --check-config
in_c dpkg -P hipfw >"$T/purge-fw.log" 2>&1
expect "dpkg -P hipfw" 0 $?
check "purge hipfw: user gone" sh -c "! chroot '$C' getent passwd hipfw >/dev/null"
check "purge hipfw: rules gone" test ! -e "$C/etc/hip/hipfw.rules"
rm -f "$C/tmp/${DEBFW##*/}"

# libnss-hip beside hipd (D-19): a HIP name resolves for any user, not only
# for root and group hipd (/etc/hip is 0755; else the name went to DNS)
cp "$DEBNSS" "$C/tmp/"
in_c dpkg -i "/tmp/${DEBNSS##*/}" >"$T/install-nss.log" 2>&1
rc=$?
expect "dpkg -i libnss-hip" 0 $rc
[ $rc -eq 0 ] || cat "$T/install-nss.log"
printf '2001:2f::42 192.0.2.42 name=tablet\n' >"$C/etc/hip/hosts"
check "hip-nsswitch enable" sh -c "chroot '$C' hip-nsswitch enable >/dev/null"
expect "getent as user nobody: tablet is its HIT" "2001:2f::42" \
	"$(chroot --userspec=nobody:nogroup "$C" getent ahostsv6 tablet | awk 'NR == 1 { print $1 }')"
check "hip-nsswitch disable" sh -c "chroot '$C' hip-nsswitch disable >/dev/null"
rm -f "$C/etc/hip/hosts"
in_c dpkg -P libnss-hip >"$T/purge-nss.log" 2>&1
expect "dpkg -P libnss-hip" 0 $?
rm -f "$C/tmp/${DEBNSS##*/}"

in_c dpkg -r hipd >"$T/remove.log" 2>&1
expect "dpkg -r" 0 $?
check "remove: program gone" test ! -e "$C/usr/sbin/hipd"
check "remove: conffile kept" test -e "$C/etc/hip/hipd.conf"
in_c dpkg -P hipd >"$T/purge.log" 2>&1
expect "dpkg -P" 0 $?
rm -f "$C/tmp/${DEB##*/}"
snapshot >"$T/after"
if diff "$T/before" "$T/after" >"$T/diff"; then
	ok "purge leaves nothing behind (files, owners, modes, accounts)"
else
	not_ok "purge left differences:"; sed 's/^/  /' "$T/diff"
fi
echo "# chroot test: $(($(now) - t0)) s"

# ---- 5. the unit under a real systemd (the chroot booted by systemd-nspawn) ----
# Type=notify readiness, the sandbox (seccomp, Protect*=, capabilities) with
# the real hipd, reload (also a refused one), stop, journal priorities.
if ! command -v systemd-nspawn >/dev/null; then
	echo "# systemd-nspawn missing (systemd-container): unit not booted"
	summary deb; exit
fi
t0=$(now)
cp "$DEB" "$DEBFW" "$C/tmp/" &&
	in_c dpkg -i "/tmp/${DEB##*/}" "/tmp/${DEBFW##*/}" >"$T/install2.log" 2>&1 ||
	{ not_ok "reinstall for the boot test"; cat "$T/install2.log"; }
cat >"$C/root/probe.sh" <<'PROBE'
#!/bin/sh
# one "key value" line per observation, in /root/probe.out; then power off
out=/root/probe.out
say() { echo "$*" >>$out; }
say enabled "$(systemctl is-enabled hipd)"
timeout 60 systemctl start hipd; say start $?
journalctl -u hipd -o cat -n 20 >/root/hipd-journal.txt 2>&1
say active "$(systemctl is-active hipd)"
pid=$(systemctl show -p MainPID --value hipd)
for k in Uid CapInh CapPrm CapEff CapBnd CapAmb NoNewPrivs Seccomp; do
	say "$k" "$(awk -v k="$k:" '$1 == k { print $2 }' /proc/$pid/status)"
done
say user "$(stat -c %U /proc/$pid)"
# the engine (priv's child) and its puzzle thread: the engine's own filter
# on each (seccomp(2) with TSYNC, allowed by the unit)
e=$(cat /proc/$pid/task/$pid/children | cut -d' ' -f1)
say engine_threads "$(ls /proc/$e/task | wc -l)"
say engine_threads_filtered "$(grep -l '^Seccomp:[[:space:]]*2' /proc/$e/task/*/status | wc -l)"
say engine_threads_wanted "$([ "$(nproc)" -ge 2 ] && echo 2 || echo 1)"
hipconf show hi | grep -q '^2001:'; say hipconf $?
timeout 60 systemctl reload hipd; say reload $?
cp /etc/hip/hipd.conf /root/hipd.conf.good
echo "nope = 1" >>/etc/hip/hipd.conf
timeout 60 systemctl reload hipd; say reload_bad $?
say active_after_bad "$(systemctl is-active hipd)"
cp /root/hipd.conf.good /etc/hip/hipd.conf
say same_pid "$([ "$(systemctl show -p MainPID --value hipd)" = "$pid" ] && echo yes)"
timeout 60 systemctl stop hipd; say stop $?
say result "$(systemctl show -p Result --value hipd)"
journalctl -u hipd -o cat -p notice | grep -q 'running as uid'; say journal_notice $?
journalctl -u hipd -o cat -p warning | grep -q 'running as uid'; say journal_notice_not_warning $?
journalctl -u hipd -o cat -p err | grep -q 'reload failed'; say journal_err $?
# hipfw killed (hipfw(8) RESTARTS, issue 15): ExecStopPost= removes the
# learnt SPIs' fast-path rules at once, the queue rules stay (ESP of those
# SPIs dropped, fail-closed), Restart= brings hipfw back after RestartSec=
ipt() { iptables-legacy -w "$@"; }
espspi_rules() { ipt -S HIPFW_ESP 2>/dev/null | grep -c -- '--espspi 4660'; }
timeout 60 systemctl start hipfw; say fw_start $?
journalctl -u hipfw -o cat -n 20 >/root/hipfw-journal.txt 2>&1
say fw_active "$(systemctl is-active hipfw)"
fpid=$(systemctl show -p MainPID --value hipfw)
say fw_user "$(stat -c %U /proc/$fpid)"
# a learnt SPI's rule, as hipfw writes one (firewall/fw_esp_rule.c)
ipt -I HIPFW_ESP 1 -s 192.0.2.1/32 -d 192.0.2.2/32 -p esp -m esp --espspi 4660 -j ACCEPT
say fw_rule_before "$(espspi_rules)"
kill -9 "$fpid"
i=0
while [ $i -lt 100 ] && [ "$(espspi_rules)" != 0 ]; do sleep 0.05; i=$((i + 1)); done
say fw_rule_after_kill "$(espspi_rules)"
say fw_queue_after_kill "$(ipt -S HIPFW_ESP 2>/dev/null | grep -c -- '-j NFQUEUE')"
case $(systemctl show -p SubState --value hipfw) in
stop-post|auto-restart|dead|failed) say fw_down_at_flush yes;;
*) say fw_down_at_flush "no: $(systemctl show -p SubState --value hipfw)";;
esac
i=0
while [ $i -lt 200 ]; do
	np=$(systemctl show -p MainPID --value hipfw)
	[ "$(systemctl is-active hipfw)" = active ] && [ "$np" != 0 ] && [ "$np" != "$fpid" ] && break
	sleep 0.05; i=$((i + 1))
done
say fw_restarted "$([ "$(systemctl is-active hipfw)" = active ] && [ "$np" != "$fpid" ] && echo yes)"
say fw_nrestarts "$(systemctl show -p NRestarts --value hipfw)"
journalctl -u hipfw -o cat | grep -q 'ESP fast path flushed: 1 rules removed'; say fw_flush_journal $?
timeout 60 systemctl stop hipfw; say fw_stop $?
say fw_chain_after_stop "$(ipt -S HIPFW >/dev/null 2>&1 && echo present || echo gone)"
say done 1
systemctl poweroff
PROBE
chmod 755 "$C/root/probe.sh"
cat >"$C/etc/systemd/system/hipd-probe.service" <<'UNIT'
[Unit]
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/root/probe.sh
UNIT
ln -sf /etc/systemd/system/hipd-probe.service "$C/etc/systemd/system/multi-user.target.wants/"
# systemd-nspawn wants /run on tmpfs (not so in some containers)
nspawn_mnt=""
if [ "$(stat -f -c %T /run)" != tmpfs ] && ! mountpoint -q /run/systemd/nspawn; then
	mkdir -p /run/systemd/nspawn && mount -t tmpfs tmpfs /run/systemd/nspawn && nspawn_mnt=1
fi
timeout 180 systemd-nspawn --quiet --register=no --keep-unit --private-network -D "$C" -b \
	--console=pipe >"$T/boot.log" 2>&1 </dev/null
[ -z "$nspawn_mnt" ] || umount /run/systemd/nspawn
if ! grep -q '^done 1' "$C/root/probe.out" 2>/dev/null; then
	echo "# systemd-nspawn could not boot the chroot here: unit not booted"
	grep -v 'Failed to add rule\|is not known' "$T/boot.log" | tail -5 | sed 's/^/#   /'
else
	probe() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$C/root/probe.out"; }
	expect "systemd: enabled on install" enabled "$(probe enabled)"
	expect "systemd: start returns (READY=1 received)" 0 "$(probe start)"
	[ "$(probe start)" = 0 ] || sed 's/^/#   journal: /' "$C/root/hipd-journal.txt"
	expect "systemd: active" active "$(probe active)"
	expect "systemd: runs as user hipd" hipd "$(probe user)"
	for k in CapEff CapPrm CapBnd; do
		expect "systemd: $k" 0000000000003000 "$(probe $k)"
	done
	for k in CapInh CapAmb; do
		expect "systemd: $k" 0000000000000000 "$(probe $k)"
	done
	expect "systemd: NoNewPrivs" 1 "$(probe NoNewPrivs)"
	expect "systemd: seccomp filter (SystemCallFilter=)" 2 "$(probe Seccomp)"
	expect "systemd: engine threads (puzzle thread with 2+ CPUs)" \
		"$(probe engine_threads_wanted)" "$(probe engine_threads)"
	expect "systemd: every engine thread filtered" "$(probe engine_threads)" \
		"$(probe engine_threads_filtered)"
	expect "systemd: hipconf show hi" 0 "$(probe hipconf)"
	expect "systemd: systemctl reload" 0 "$(probe reload)"
	check "systemd: a broken hipd.conf makes systemctl reload fail" \
		test "$(probe reload_bad)" != 0
	expect "systemd: ... and hipd keeps running" active "$(probe active_after_bad)"
	expect "systemd: ... as the same process" yes "$(probe same_pid)"
	expect "systemd: systemctl stop" 0 "$(probe stop)"
	expect "systemd: stopped cleanly (Result=success)" success "$(probe result)"
	expect "journal: notices at priority notice" 0 "$(probe journal_notice)"
	expect "journal: ... not at warning" 1 "$(probe journal_notice_not_warning)"
	expect "journal: the failed reload at priority err" 0 "$(probe journal_err)"
	expect "systemd: hipfw.service starts (READY=1 received)" 0 "$(probe fw_start)"
	[ "$(probe fw_start)" = 0 ] || sed 's/^/#   journal: /' "$C/root/hipfw-journal.txt"
	expect "systemd: hipfw active, as user hipfw" "active hipfw" \
		"$(probe fw_active) $(probe fw_user)"
	expect "hipfw: a learnt SPI's fast-path rule in place" 1 "$(probe fw_rule_before)"
	expect "hipfw SIGKILLed: ExecStopPost= removed the fast-path rule" 0 \
		"$(probe fw_rule_after_kill)"
	expect "... while hipfw was down (before RestartSec=)" yes "$(probe fw_down_at_flush)"
	expect "... the ESP queue rule stays (fail-closed)" 1 "$(probe fw_queue_after_kill)"
	expect "... its journal says so" 0 "$(probe fw_flush_journal)"
	expect "systemd restarted hipfw (Restart=on-failure), once" "yes 1" \
		"$(probe fw_restarted) $(probe fw_nrestarts)"
	expect "systemctl stop hipfw: its chains gone" "0 gone" \
		"$(probe fw_stop) $(probe fw_chain_after_stop)"
fi
echo "# systemd-nspawn boot test: $(($(now) - t0)) s"
summary deb
