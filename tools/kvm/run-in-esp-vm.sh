#!/bin/bash
# run-in-esp-vm.sh - run a command as root under Debian 12's own kernel in a throw-away VM.
#
# Usage:
#   tools/kvm/run-in-esp-vm.sh 'COMMAND'      run COMMAND with `bash -c` inside the VM
#   tools/kvm/run-in-esp-vm.sh PROG ARG...    run PROG with these arguments inside the VM
#   ... [NAME=VALUE...] PROG ARG...           leading NAME=VALUE words set the environment
#   tools/kvm/run-in-esp-vm.sh --probe        exit 0 if the harness can run here; otherwise
#                                             print a one-line reason and exit 77 (skip)
#   tools/kvm/run-in-esp-vm.sh --setup        only prepare the cache (download, extract, build)
#
# Why: the XFRM/ESP tests need ESP BEET SAs, and a kernel without CONFIG_INET{,6}_ESP answers
# "Requested type not found". Debian 12's distribution kernel (linux-image-amd64, with esp4/esp6
# as modules) is booted in qemu instead, under TCG (software emulation) unless a real KVM works.
# The comments below note the pitfalls this recipe ran into.
#
# The guest runs this machine's own userland: the host's / is its root, read-only over 9p under
# an overlay with a tmpfs upper layer (writes there are discarded). $PWD (and $HIPD_VM_RW) are
# shared read-write, so files written there land on the host. COMMAND runs as root in $PWD with
# stdin /dev/null; its stdout and stderr are passed through line by line (stdout on ttyS1 ->
# qemu's stdio, stderr on ttyS0, which is also the kernel console, -> qemu's chardev file; each
# through a FIFO and a relay to our stdout/stderr). Inside the guest stdout/stderr are ttys only
# if ours are; otherwise they are pipes, as in CI.
#
# Cost under TCG on a 2-core host: `true` takes ~3.5-4.5 s when the machine is quiet (kernel boot
# ~2 s), about twice that under load; every process spawned in the guest costs 35-110 ms, so
# tests should batch (`ip -batch -`) and avoid forking loops. The guest clock comes from the
# emulated RTC and may differ from the host's by ~1 s; files on the shares get host timestamps.
#
# Host packages: qemu-system-x86, qemu-system-data (qboot.rom), kmod, xz-utils, cpio, util-linux,
# coreutils, grep, apt/dpkg (see tools/install-deps.sh); with curl or wget, --probe also checks
# that the mirror answers. The guest uses the host's bash, mount and modprobe.
#
# Exit status: COMMAND's; 124 on timeout; 125 on harness failure (guest reported nothing);
# 130/143 when interrupted by SIGINT/SIGTERM (qemu is stopped first).
#
# Cache (flock-guarded; delete it to reset): /var/cache/hipd-esp-vm, or
# ${XDG_CACHE_HOME:-~/.cache}/hipd-esp-vm for non-root. It holds the downloaded (never
# installed) kernel and busybox-static .debs, the extracted kernel tree with its modules.dep, the
# vmlinux ELF taken out of the bzImage, and the initramfs (its name carries a hash of the init
# scripts, so editing them rebuilds it). First use downloads ~72 MB and fills ~510 MB. A cache
# prepared by root can be used read-only by others (HIPD_VM_CACHE=/var/cache/hipd-esp-vm).
#
# Environment knobs:
#   HIPD_VM_TIMEOUT=900       seconds before qemu is killed (exit 124)
#   HIPD_VM_BOOT_TIMEOUT=60   seconds for the guest to start its init; a guest that did not is
#                             restarted once (0: no limit)
#   HIPD_VM_ACCEL=auto        auto|tcg|kvm; auto uses KVM only if /dev/kvm is usable and the
#                             CPU has vmx/svm (the PVM /dev/kvm of some hosts cannot boot a stock
#                             kernel), and falls back to TCG if the guest is not up in 30 s
#   HIPD_VM_MEM=1024          guest RAM in MiB
#   HIPD_VM_SMP=N             vCPUs (default: host cores, at most 4)
#   HIPD_VM_CACHE=DIR         cache directory (see above)
#   HIPD_VM_KERNEL_PKG=PKG    kernel metapackage, or a concrete linux-image-X-amd64 (default
#                             linux-image-amd64, resolved with apt-cache depends)
#   HIPD_VM_REFRESH=1         re-resolve the kernel package and rebuild the cache (the kernel
#                             tree, vmlinux, busybox, initramfs; .debs are downloaded only if
#                             missing); superseded kernels are removed
#   HIPD_VM_RW=DIR[:DIR...]   more host directories to share read-write (besides $PWD)
#   HIPD_VM_MODULES="m ..."   modules to load before COMMAND (default none: the kernel's
#                             module autoloader works in the guest)
#   HIPD_VM_ENV="VAR ..."     more environment variables to pass into the guest (always passed:
#                             PATH HOME LANG LANGUAGE LC_* TZ TERM top_srcdir BUILD and
#                             HIPD_*)
#   HIPD_VM_APPEND="..."      extra kernel command line
#   HIPD_VM_QEMU_ARGS="..."   extra qemu arguments (split on white space)
#   HIPD_VM_CRYPTO_SELFTESTS=1  keep the kernel's crypto self-tests (~2 s under TCG)
#   HIPD_VM_DMESG=1           print the guest's kernel log after the run
#   HIPD_VM_KEEP=1            keep the per-run directory (its path is printed)
#   HIPD_VM_VERBOSE=1         progress and timings on stderr
# Inside the guest HIPD_VM_GUEST=1 is set.

set -u
umask 022
me=run-in-esp-vm.sh
t_start=$EPOCHREALTIME

say() { printf '%s: %s\n' "$me" "$*" >&2; }
verbose() { if [ "${HIPD_VM_VERBOSE:-0}" = 1 ]; then say "$*"; fi; }
# Seconds since start, for the verbose timings (no spawn: it is expanded even when not verbose).
elapsed() {
	local a=${t_start//[.,]/} b=${EPOCHREALTIME//[.,]/} d
	d=$((10#$b - 10#$a))
	printf '%d.%02d' $((d / 1000000)) $((d % 1000000 / 10000))
}

# --- constants -----------------------------------------------------------------------------

meta_pkg=${HIPD_VM_KERNEL_PKG:-linux-image-amd64}
qboot=/usr/share/qemu/qboot.rom
# 9p, virtio and overlay are modules in Debian's kernel, hence the initramfs.
boot_modules="virtio_pci 9pnet_virtio 9p overlay"
p9opts=trans=virtio,version=9p2000.L,msize=512000

if [ "$EUID" = 0 ]; then
	cache=${HIPD_VM_CACHE:-/var/cache/hipd-esp-vm}
	p9sec=passthrough
else
	cache=${HIPD_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hipd-esp-vm}
	p9sec=none	# passthrough needs root on the host
fi

# --- guest init scripts (embedded; their hash names the initramfs) ---------------------------

# Stage 1: PID 1 in the initramfs. The kernel's module autoloader runs
# /proc/sys/kernel/modprobe in PID 1's fs root, so the switch into the host root must be done by
# PID 1 itself (exec switch_root), never in a child.
read -r -d '' stage1 <<'EOF'
#!/bin/busybox sh
# hipd-esp-vm stage 1 (generated by tools/kvm/run-in-esp-vm.sh)
bb=/bin/busybox
o=trans=virtio,version=9p2000.L,msize=512000
fail() {
	echo "hipd-esp-vm stage 1: $*"
	$bb reboot -f
}
$bb modprobe -a virtio_pci 9pnet_virtio 9p overlay || fail "cannot load the boot modules"
$bb mkdir -p /lower /ovl /newroot
$bb mount -t 9p -o $o,ro,cache=loose hostroot /lower || fail "cannot mount the host root"
$bb mount -t tmpfs -o mode=0755 ovl /ovl || fail "cannot mount the overlay tmpfs"
$bb mkdir /ovl/upper /ovl/work
$bb mount -t overlay -o lowerdir=/lower,upperdir=/ovl/upper,workdir=/ovl/work overlay /newroot \
	|| fail "cannot mount the overlay root"
# The host's /run must not show through: its /run/netns may hold other namespaces, which over 9p
# are plain files that `ip netns` would list and refuse to re-create.
$bb mount -t tmpfs -o mode=0755,nosuid,nodev run /newroot/run || fail "cannot mount /run"
$bb mkdir -p /newroot/run/hipd-vm/ctl
$bb mount -t 9p -o $o,cache=mmap hipdctl /newroot/run/hipd-vm/ctl \
	|| fail "cannot mount the control share"
$bb cp -a /bin/busybox /stage2 /devlinks /newroot/run/hipd-vm/ || fail "cannot copy stage 2"
exec $bb switch_root /newroot /run/hipd-vm/busybox sh /run/hipd-vm/stage2
fail "switch_root failed"
EOF

# Stage 2: PID 1 in the host root. Mounts what a normal system has, runs COMMAND, writes its
# status to the control share (never parse the console for it), reboots (qemu -no-reboot exits).
read -r -d '' stage2 <<'EOF'
#!/run/hipd-vm/busybox sh
# hipd-esp-vm stage 2 (generated by tools/kvm/run-in-esp-vm.sh)
bb=/run/hipd-vm/busybox
ctl=/run/hipd-vm/ctl
fail() {
	echo "hipd-esp-vm stage 2: $*"
	$bb sync
	$bb reboot -f
}
$bb mount -t proc proc /proc || fail "cannot mount /proc"
read -r up _ </proc/uptime
echo "stage2 $up" >$ctl/timing
. $ctl/config || fail "no config"
# One util-linux mount for sysfs, devtmpfs, devpts, shm, cgroup2, debugfs, the module tree and
# the read-write shares (each process costs 35-110 ms under TCG).
/bin/mount -a -T $ctl/fstab || fail "mounting the file systems failed"
$bb cp -a /run/hipd-vm/devlinks/. /dev/
$bb ip link set lo up
echo esp-vm >/proc/sys/kernel/hostname
echo /sbin/modprobe >/proc/sys/kernel/modprobe
if [ -n "$HV_MODULES" ]; then
	/sbin/modprobe -a $HV_MODULES || echo "hipd-esp-vm: loading $HV_MODULES failed"
fi
# The tty layer would turn \n into \r\n on the emulated UARTs.
$bb stty -F /dev/ttyS0 -onlcr -echo
$bb stty -F /dev/ttyS1 -onlcr -echo
out=/dev/ttyS1
err=/dev/ttyS0
cats=
if [ "$HV_OUT_TTY" != 1 ]; then
	$bb mkfifo /run/hipd-vm/out
	$bb cat /run/hipd-vm/out >/dev/ttyS1 &
	cats="$cats $!"
	out=/run/hipd-vm/out
fi
if [ "$HV_ERR_TTY" != 1 ]; then
	$bb mkfifo /run/hipd-vm/err
	$bb cat /run/hipd-vm/err >/dev/ttyS0 &
	cats="$cats $!"
	err=/run/hipd-vm/err
fi
read -r up _ </proc/uptime
echo "command $up" >>$ctl/timing
(. $ctl/cmd.sh) </dev/null >$out 2>$err
rc=$?
read -r up _ </proc/uptime
echo "done $up" >>$ctl/timing
# Leftover processes (daemons a test forgot) would keep the output pipes open forever; the
# reboot would kill them anyway. Kernel threads ignore the signal.
for p in /proc/[0-9]*; do
	p=${p#/proc/}
	case " 1 $cats " in
	*" $p "*) ;;
	*) kill -9 $p 2>/dev/null ;;
	esac
done
for p in $cats; do
	wait $p
done
$bb dmesg >$ctl/dmesg
echo $rc >$ctl/rc
$bb sync
echo 0 >/proc/sys/kernel/printk	# no "reboot: Restarting system" on the caller's stderr
$bb reboot -f
EOF

# --- helpers -------------------------------------------------------------------------------

# Single-quote $1 for a POSIX shell.
shquote() {
	local s=${1//\'/\'\"\'\"\'}
	printf "'%s'" "$s"
}

# fstab field: octal escapes for white space and backslash (util-linux decodes them).
fstab_escape() {
	local s=${1//\\/\\134}
	s=${s// /\\040}
	s=${s//	/\\011}
	printf '%s' "$s"
}

need_tools() {
	local t
	for t in qemu-system-x86_64 depmod modprobe xz cpio dpkg-deb apt-get apt-cache flock \
		timeout mkfifo sha256sum grep awk; do
		if ! command -v "$t" >/dev/null 2>&1; then
			echo "$t not found (run tools/install-deps.sh)"
			return 1
		fi
	done
	if [ ! -r "$qboot" ]; then
		echo "$qboot missing (package qemu-system-data; run tools/install-deps.sh)"
		return 1
	fi
	return 0
}

# linux-image-amd64 -> linux-image-6.1.0-NN-amd64. Never hard-code the ABI name: it changes with
# every Debian kernel update.
resolve_kernel_pkg() {
	local p
	case $meta_pkg in
	linux-image-[0-9]*)
		echo "$meta_pkg"
		return 0
		;;
	esac
	p=$(apt-cache depends "$meta_pkg" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$p" ] || return 1
	echo "$p"
}

# apt-get download PKG into $cache/debs; prints the .deb path.
download_deb() {
	local pkg=$1 log=$cache/debs/download.log deb
	deb=$(ls "$cache/debs/${pkg}_"*.deb 2>/dev/null | head -n 1)
	if [ -n "$deb" ]; then
		echo "$deb"
		return 0
	fi
	say "downloading $pkg (once; kept in $cache)"
	mkdir -p "$cache/debs" || return 1
	if ! (cd "$cache/debs" && apt-get download -q "$pkg") >"$log" 2>&1; then
		return 1
	fi
	deb=$(ls "$cache/debs/${pkg}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] && echo "$deb"
}

# Download with one retry after apt-get update (superseded ABI packages vanish from the mirrors).
# Sets kpkg (re-resolved on retry) and deb.
download_kernel() {
	deb=$(download_deb "$kpkg") && return 0
	say "download of $kpkg failed; running apt-get update and retrying"
	if [ "$EUID" = 0 ]; then
		apt-get update -q >"$cache/debs/update.log" 2>&1 ||
			say "apt-get update failed (see $cache/debs/update.log)"
	fi
	kpkg=$(resolve_kernel_pkg) || return 1
	deb=$(download_deb "$kpkg") && return 0
	sed 's/^/  /' "$cache/debs/download.log" >&2
	return 1
}

# Debian's bzImage is xz-compressed (busybox's xz cannot unpack it: no x86 BCJ filter). Take
# the xz stream that starts at the FD 37 7A 58 5A 00 magic and check the result is an ELF.
extract_vmlinux() {
	local bz=$1 out=$2 off
	for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | cut -d: -f1); do
		tail -c +$((off + 1)) "$bz" | xz -dc --single-stream >"$out" 2>/dev/null
		if [ "$(head -c 4 "$out" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			return 0
		fi
	done
	rm -f "$out"
	return 1
}

# Kernel tree: $cache/$kpkg/{root,vmlinux,kver,.ready}.
build_kernel_tree() {
	local dir=$cache/$kpkg tmp kver
	[ -e "$dir/.ready" ] && return 0
	download_kernel || return 1
	dir=$cache/$kpkg
	[ -e "$dir/.ready" ] && return 0
	verbose "extracting $deb"
	tmp=$cache/.tmp-$kpkg
	rm -rf "$tmp" && mkdir -p "$tmp" || return 1
	dpkg-deb -x "$deb" "$tmp/root" || return 1
	kver=$(ls "$tmp/root/lib/modules" | head -n 1)
	[ -n "$kver" ] && [ -e "$tmp/root/boot/vmlinuz-$kver" ] || {
		say "$deb: no kernel found in it"
		return 1
	}
	# The .deb ships no modules.dep.
	depmod -b "$tmp/root" "$kver" || return 1
	extract_vmlinux "$tmp/root/boot/vmlinuz-$kver" "$tmp/vmlinux" || {
		say "cannot extract the vmlinux ELF from vmlinuz-$kver"
		return 1
	}
	echo "$kver" >"$tmp/kver"
	touch "$tmp/.ready"
	rm -rf "$dir" && mv "$tmp" "$dir"
}

build_busybox() {
	local bdeb
	[ -x "$cache/busybox/busybox" ] && return 0
	bdeb=$(download_deb busybox-static) || {
		sed 's/^/  /' "$cache/debs/download.log" >&2
		return 1
	}
	rm -rf "$cache/.tmp-busybox" && mkdir -p "$cache/.tmp-busybox" || return 1
	dpkg-deb -x "$bdeb" "$cache/.tmp-busybox/root" || return 1
	cp "$cache/.tmp-busybox/root/bin/busybox" "$cache/.tmp-busybox/busybox" || return 1
	rm -rf "$cache/.tmp-busybox/root" "$cache/busybox"
	mv "$cache/.tmp-busybox" "$cache/busybox"
}

# The cpio initramfs: static busybox, the boot modules with a modules.dep for busybox modprobe,
# the two init scripts and the /dev symlinks devtmpfs lacks.
build_initramfs() {
	local tmp=$cache/.tmp-initramfs tree=$cache/$kpkg/root mod line
	[ -e "$initramfs" ] && return 0
	verbose "building $initramfs"
	rm -rf "$tmp" && mkdir -p "$tmp/bin" "$tmp/devlinks" "$tmp/lib/modules/$kver" || return 1
	cp "$cache/busybox/busybox" "$tmp/bin/busybox" || return 1
	printf '%s\n' "$stage1" >"$tmp/init"
	printf '%s\n' "$stage2" >"$tmp/stage2"
	chmod 755 "$tmp/init" "$tmp/stage2"
	ln -s /proc/self/fd "$tmp/devlinks/fd"
	ln -s /proc/self/fd/0 "$tmp/devlinks/stdin"
	ln -s /proc/self/fd/1 "$tmp/devlinks/stdout"
	ln -s /proc/self/fd/2 "$tmp/devlinks/stderr"
	# -a: without it the further names are taken as module parameters of the first.
	while read -r line; do
		case $line in
		insmod\ *) ;;
		*) continue ;;
		esac
		mod=${line#insmod }
		mod=${mod%% *}
		mod=${mod#"$tree/lib/modules/$kver/"}
		mkdir -p "$tmp/lib/modules/$kver/${mod%/*}"
		cp "$tree/lib/modules/$kver/$mod" "$tmp/lib/modules/$kver/$mod" || return 1
	done < <(modprobe -d "$tree" -S "$kver" -a --show-depends $boot_modules)
	cp "$tree/lib/modules/$kver/modules.order" "$tree/lib/modules/$kver/modules.builtin" \
		"$tree/lib/modules/$kver/modules.builtin.modinfo" "$tmp/lib/modules/$kver/" || return 1
	depmod -b "$tmp" "$kver" || return 1
	(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) \
		>"$initramfs.tmp" || return 1
	rm -rf "$tmp"
	rm -f "$cache"/initramfs-*.cpio
	mv "$initramfs.tmp" "$initramfs"
}

cache_ready() {
	local k
	[ -z "${HIPD_VM_REFRESH:-}" ] || [ "${HIPD_VM_REFRESH:-}" = 0 ] || return 1
	k=$(cat "$cache/kernel-pkg" 2>/dev/null) || return 1
	[ -e "$cache/$k/.ready" ] && [ -x "$cache/busybox/busybox" ] || return 1
	kpkg=$k
	kver=$(cat "$cache/$k/kver")
	initramfs=$cache/initramfs-$kver-$init_hash.cpio
	[ -e "$initramfs" ]
}

# Fills in kpkg, kver, vmlinux, initramfs, modtree. Holds a shared lock on the cache afterwards
# (until exit), so that a HIPD_VM_REFRESH elsewhere cannot pull the tree away under a running VM.
setup_cache() {
	local old
	case $cache in
	/run | /run/* | /proc/* | /sys/* | /dev/*)
		say "cache $cache is not visible in the guest (fresh /run, /proc, /sys, /dev)"
		return 1
		;;
	esac
	mkdir -p "$cache" || return 1
	# A cache prepared by someone else can be used read-only (flock works on a read-only fd).
	{ exec 9>>"$cache/lock"; } 2>/dev/null || exec 9<"$cache/lock" || return 1
	init_hash=$(printf '%s\n%s\n%s\n' "$stage1" "$stage2" "$boot_modules" |
		sha256sum | cut -c1-12)
	flock -s 9
	if ! cache_ready; then
		if ! flock -n -x 9; then
			say "waiting for the other users of $cache to finish"
			flock -x 9
		fi
		if ! cache_ready; then
			kpkg=
			if [ -z "${HIPD_VM_REFRESH:-}" ] || [ "${HIPD_VM_REFRESH:-}" = 0 ]; then
				kpkg=$(cat "$cache/kernel-pkg" 2>/dev/null)
			fi
			if [ -z "$kpkg" ]; then
				kpkg=$(resolve_kernel_pkg) || {
					say "cannot resolve $meta_pkg with apt-cache depends (apt-get update?)"
					return 1
				}
			fi
			verbose "kernel package: $kpkg"
			if [ -n "${HIPD_VM_REFRESH:-}" ] && [ "${HIPD_VM_REFRESH:-}" != 0 ]; then
				# Rebuilt from the kept .debs (downloaded again if the package changed).
				rm -rf "${cache:?}/$kpkg" "$cache/busybox" "$cache"/initramfs-*.cpio
			fi
			build_kernel_tree || return 1
			build_busybox || return 1
			echo "$kpkg" >"$cache/kernel-pkg.tmp" && mv "$cache/kernel-pkg.tmp" "$cache/kernel-pkg"
			kver=$(cat "$cache/$kpkg/kver")
			initramfs=$cache/initramfs-$kver-$init_hash.cpio
			build_initramfs || return 1
			# Superseded kernels and .debs (only ours: linux-image-*, busybox-static).
			for old in "$cache"/linux-image-* "$cache"/debs/linux-image-*.deb; do
				case $old in
				"$cache/$kpkg" | "$cache/debs/${kpkg}_"*) ;;
				*) [ -e "$old" ] && rm -rf "$old" ;;
				esac
			done
			rm -rf "$cache"/.tmp-*
		fi
		flock -s 9
	fi
	vmlinux=$cache/$kpkg/vmlinux
	modtree=$cache/$kpkg/root/lib/modules/$kver
	verbose "cache ready at $(elapsed) s: $kpkg ($kver), ${initramfs##*/}"
}

probe() {
	local why uri
	why=$(need_tools) || {
		echo "$why"
		exit 77
	}
	if [ -r "$cache/kernel-pkg" ] && [ -e "$cache/$(cat "$cache/kernel-pkg")/.ready" ] &&
		[ -x "$cache/busybox/busybox" ]; then
		exit 0
	fi
	kpkg=$(resolve_kernel_pkg) || {
		echo "cannot resolve $meta_pkg with apt-cache depends (no cache; apt-get update?)"
		exit 77
	}
	uri=$(apt-get download --print-uris "$kpkg" 2>/dev/null | head -n 1 | cut -d"'" -f2)
	case $uri in
	http://* | https://*) ;;
	*)
		echo "no download URI for $kpkg (no cache; apt-get update?)"
		exit 77
		;;
	esac
	if command -v curl >/dev/null 2>&1; then
		curl -fsIL --max-time 20 -o /dev/null "$uri" || {
			echo "cannot reach $uri (no cache, no network?)"
			exit 77
		}
	elif command -v wget >/dev/null 2>&1; then
		wget -q --spider --timeout=20 "$uri" || {
			echo "cannot reach $uri (no cache, no network?)"
			exit 77
		}
	fi
	exit 0
}

# --- per-run state and cleanup -------------------------------------------------------------

work=
qemu_pid=
relay_out=
relay_err=
watch_pid=

stop_qemu() {
	if [ -n "$qemu_pid" ]; then
		kill -TERM "$qemu_pid" 2>/dev/null
		wait "$qemu_pid" 2>/dev/null
		qemu_pid=
	fi
	if [ -n "$watch_pid" ]; then
		kill -TERM "$watch_pid" 2>/dev/null
		wait "$watch_pid" 2>/dev/null
		watch_pid=
	fi
}

# The emulated UARTs reach qemu one byte at a time and qemu writes them so, which would mix
# stdout and stderr mid-line when both go to one file (`>log 2>&1`). A relay per stream reads
# what is there and writes whole lines (an unterminated last line gets a newline).
# $1 = FIFO, $2 = fd to write to. Sets relay_pid.
start_relay() {
	LC_ALL=C grep -a --line-buffered '' <"$1" >&"$2" &
	relay_pid=$!
}

# Let a relay finish: if nobody ever opened its FIFO for writing (qemu did not start), open it
# ourselves so that the relay's open() returns and it reads EOF.
finish_relay() {
	local pid=$1 fifo=$2 fd
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		exec {fd}<>"$fifo" && exec {fd}>&-
	fi
	wait "$pid" 2>/dev/null
}

finish_relays() {
	finish_relay "$relay_out" "$work/out.fifo"
	finish_relay "$relay_err" "$work/err.fifo"
	relay_out=
	relay_err=
}

cleanup() {
	stop_qemu
	finish_relays
	if [ -n "$work" ] && [ -d "$work" ]; then
		if [ "${HIPD_VM_KEEP:-0}" = 1 ]; then
			say "kept $work"
		else
			rm -rf "$work"
		fi
	fi
}

on_signal() {
	trap - INT TERM HUP
	say "interrupted by SIG$1; stopping the VM"
	cleanup
	trap - EXIT
	case $1 in
	INT) exit 130 ;;
	HUP) exit 129 ;;
	*) exit 143 ;;
	esac
}

fail() {
	say "$*"
	exit 125
}

# --- the run -------------------------------------------------------------------------------

# Names of the environment variables passed into the guest.
guest_env_names() {
	local v
	for v in $(compgen -e); do
		case $v in
		PATH | HOME | LANG | LANGUAGE | LC_* | TZ | TERM | top_srcdir | BUILD | HIPD_*)
			[ "$v" = HIPD_VM_GUEST ] || echo "$v"
			;;
		esac
	done
	for v in ${HIPD_VM_ENV:-}; do
		case $v in
		[A-Za-z_]*) [ -n "${!v+set}" ] && echo "$v" ;;
		esac
	done
}

write_control() {
	local v a i=0 d out_tty=0 err_tty=0
	local ctl=$work/ctl
	[ -t 1 ] && out_tty=1
	[ -t 2 ] && err_tty=1
	mkdir -p "$ctl" || return 1
	{
		echo "# generated by run-in-esp-vm.sh; sourced in a subshell of the guest's PID 1"
		echo "unset HOME TERM"
		for v in $(guest_env_names | sort -u); do
			printf 'export %s=%s\n' "$v" "$(shquote "${!v}")"
		done
		echo "export HIPD_VM_GUEST=1"
		# Leading NAME=VALUE words set the environment, as with env(1).
		while [ "$#" -gt 1 ]; do
			case $1 in
			[A-Za-z_]*=*)
				v=${1%%=*}
				case $v in
				*[!A-Za-z0-9_]*) break ;;
				esac
				printf 'export %s=%s\n' "$v" "$(shquote "${1#*=}")"
				shift
				;;
			*) break ;;
			esac
		done
		printf 'cd -- %s || exit 125\n' "$(shquote "$PWD")"
		if [ "$#" -eq 1 ]; then
			printf 'exec /bin/bash -c %s\n' "$(shquote "$1")"
		else
			printf 'exec'
			for a in "$@"; do
				printf ' %s' "$(shquote "$a")"
			done
			printf '\n'
		fi
	} >"$ctl/cmd.sh" || return 1
	{
		printf 'HV_MODULES=%s\n' "$(shquote "${HIPD_VM_MODULES:-}")"
		printf 'HV_OUT_TTY=%s\n' "$out_tty"
		printf 'HV_ERR_TTY=%s\n' "$err_tty"
	} >"$ctl/config" || return 1
	{
		echo "sysfs /sys sysfs nosuid,nodev,noexec 0 0"
		echo "devtmpfs /dev devtmpfs mode=0755,nosuid 0 0"
		echo "devpts /dev/pts devpts X-mount.mkdir,gid=5,mode=0620,ptmxmode=0666 0 0"
		echo "shm /dev/shm tmpfs X-mount.mkdir,mode=1777,nosuid,nodev 0 0"
		echo "mqueue /dev/mqueue mqueue X-mount.mkdir 0 0"
		echo "cgroup2 /sys/fs/cgroup cgroup2 nsdelegate 0 0"
		echo "debugfs /sys/kernel/debug debugfs 0 0"
		# Module autoloading needs /lib/modules/$(uname -r) in PID 1's root.
		printf '%s /lib/modules/%s none bind,ro,X-mount.mkdir 0 0\n' \
			"$(fstab_escape "$modtree")" "$kver"
		for d in "${rw_dirs[@]}"; do
			printf 'rw%d %s 9p %s,cache=mmap,X-mount.mkdir 0 0\n' \
				"$i" "$(fstab_escape "$d")" "$p9opts"
			i=$((i + 1))
		done
	} >"$ctl/fstab"
}

# Read-write shares: $PWD and $HIPD_VM_RW, parents before children.
collect_rw_dirs() {
	local d list=() IFS=:
	list=("$PWD")
	for d in ${HIPD_VM_RW:-}; do
		[ -n "$d" ] || continue
		[ -d "$d" ] || fail "HIPD_VM_RW: $d is not a directory"
		list+=("$(cd "$d" && pwd -P)")
	done
	IFS=$'\n'
	rw_dirs=()
	for d in $(printf '%s\n' "${list[@]}" | awk '!seen[$0]++ { print length($0) "\t" $0 }' |
		sort -n | cut -f2-); do
		case $d in
		/) fail "refusing to share / read-write (run from a project directory)" ;;
		*$'\n'* | *,*) fail "cannot share a path with a newline or comma: $d" ;;
		esac
		rw_dirs+=("$d")
	done
}

choose_accel() {
	accel=${HIPD_VM_ACCEL:-auto}
	case $accel in
	auto)
		if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
			accel=kvm
		else
			accel=tcg
		fi
		;;
	kvm | tcg) ;;
	*) fail "HIPD_VM_ACCEL must be auto, kvm or tcg" ;;
	esac
}

# Runs qemu once; sets qemu_rc. $1 = accel, $2 = boot watchdog seconds (0: none).
run_qemu() {
	local acc=$1 watchdog=$2 smp mem append i=0 d
	local -a args
	smp=${HIPD_VM_SMP:-$(nproc)}
	[ "$smp" -gt 4 ] && [ -z "${HIPD_VM_SMP:-}" ] && smp=4
	mem=${HIPD_VM_MEM:-1024}
	# console=ttyS0 is the command's stderr too; loglevel=1 keeps kernel messages out of it.
	append="console=ttyS0 loglevel=1 panic=-1 oops=panic"
	[ "${HIPD_VM_CRYPTO_SELFTESTS:-0}" = 1 ] || append="$append cryptomgr.notests=1"
	append="$append ${HIPD_VM_APPEND:-}"
	args=(-machine q35 -nodefaults -no-user-config -display none -no-reboot
		-smp "$smp" -m "$mem" -bios "$qboot"
		-kernel "$vmlinux" -initrd "$initramfs" -append "$append"
		-chardev "file,id=con,path=$work/err.fifo" -serial chardev:con
		-serial stdio
		-fsdev "local,id=hostroot,path=/,readonly=on,security_model=$p9sec,multidevs=remap"
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
		-fsdev "local,id=hipdctl,path=$work/ctl,security_model=$p9sec,multidevs=remap"
		-device virtio-9p-pci,fsdev=hipdctl,mount_tag=hipdctl)
	for d in "${rw_dirs[@]}"; do
		args+=(-fsdev "local,id=rw$i,path=$d,security_model=$p9sec,multidevs=remap"
			-device "virtio-9p-pci,fsdev=rw$i,mount_tag=rw$i")
		i=$((i + 1))
	done
	if [ "$acc" = kvm ]; then
		args+=(-accel kvm -cpu host)
	else
		args+=(-accel tcg,thread=multi -cpu max)
	fi
	# shellcheck disable=SC2206
	args+=(${HIPD_VM_QEMU_ARGS:-})

	rm -f "$work/out.fifo" "$work/err.fifo" "$work/ctl/rc" "$work/ctl/timing" "$work/ctl/dmesg"
	mkfifo "$work/out.fifo" "$work/err.fifo" || return 1
	start_relay "$work/out.fifo" 1
	relay_out=$relay_pid
	start_relay "$work/err.fifo" 2
	relay_err=$relay_pid
	verbose "starting qemu ($acc, $smp vCPUs, $mem MiB) at $(elapsed) s"
	timeout -k 5 "$timeout_s" qemu-system-x86_64 "${args[@]}" \
		</dev/null >"$work/out.fifo" 2>>"$work/qemu.log" &
	qemu_pid=$!
	if [ "$watchdog" -gt 0 ]; then
		(
			sleep "$watchdog" &
			trap 'kill $! 2>/dev/null; exit 0' TERM
			wait $!
			if [ ! -e "$work/ctl/timing" ]; then
				echo "guest not up after $watchdog s" >"$work/watchdog"
				kill -TERM "$qemu_pid" 2>/dev/null
			fi
		) &
		watch_pid=$!
	fi
	# 2>/dev/null: no "Aborted" job notice from bash when qemu dies of a signal.
	wait "$qemu_pid" 2>/dev/null
	qemu_rc=$?
	# A trapped signal interrupts wait with a status > 128; on_signal does the rest.
	qemu_pid=
	if [ -n "$watch_pid" ]; then
		kill -TERM "$watch_pid" 2>/dev/null
		wait "$watch_pid" 2>/dev/null
		watch_pid=
	fi
	finish_relays
	verbose "qemu exited ($qemu_rc) at $(elapsed) s"
}

report_guest_log() {
	local show=$1
	[ -s "$work/ctl/dmesg" ] || return 0
	if [ "$show" = 1 ]; then
		say "guest kernel log:"
		sed 's/^/  /' "$work/ctl/dmesg" >&2
	elif grep -qE 'WARNING:|BUG:|Oops|Call Trace' "$work/ctl/dmesg"; then
		say "guest kernel log has warnings (HIPD_VM_DMESG=1 shows all):"
		grep -E 'WARNING:|BUG:|Oops|Call Trace' "$work/ctl/dmesg" | head -n 20 | sed 's/^/  /' >&2
	fi
}

main() {
	local rc watchdog tcg_runs=0
	case ${1:-} in
	--probe)
		probe
		;;
	--setup)
		need_tools >/dev/null || fail "$(need_tools)"
		setup_cache || fail "cache setup failed"
		exit 0
		;;
	--help | -h)
		sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	'')
		say "usage: $me 'COMMAND' | PROG ARG... | --probe | --setup"
		exit 125
		;;
	esac
	timeout_s=${HIPD_VM_TIMEOUT:-900}
	boot_timeout=${HIPD_VM_BOOT_TIMEOUT:-60}
	case $timeout_s:$boot_timeout in
	*[!0-9:]* | :* | *:) fail "HIPD_VM_TIMEOUT and HIPD_VM_BOOT_TIMEOUT are numbers of seconds" ;;
	esac
	need_tools >/dev/null || fail "$(need_tools)"
	choose_accel
	collect_rw_dirs
	setup_cache || fail "cache setup failed (delete $cache to start over)"

	trap cleanup EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	work=$(mktemp -d "${TMPDIR:-/tmp}/hipd-esp-vm.XXXXXX") || fail "mktemp failed"
	write_control "$@" || fail "cannot write the control directory $work"

	# A guest that has not started its init in time is restarted once (nothing has run yet); a
	# KVM that cannot boot it (see HIPD_VM_ACCEL) falls back to TCG.
	while :; do
		if [ "$accel" = kvm ]; then
			watchdog=30
		else
			watchdog=$boot_timeout
			tcg_runs=$((tcg_runs + 1))
		fi
		run_qemu "$accel" "$watchdog"
		[ -e "$work/watchdog" ] || break
		if [ "$accel" = kvm ] && [ "${HIPD_VM_ACCEL:-auto}" = auto ]; then
			say "the KVM guest did not come up in $watchdog s; falling back to TCG"
			accel=tcg
		elif [ "$accel" = tcg ] && [ "$tcg_runs" -lt 2 ]; then
			say "the guest did not come up in $watchdog s; restarting it once"
		else
			break
		fi
		rm -f "$work/watchdog"
		: >"$work/qemu.log"
	done

	if [ -r "$work/ctl/rc" ]; then
		rc=$(cat "$work/ctl/rc")
		report_guest_log "${HIPD_VM_DMESG:-0}"
	elif [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
		say "timed out after $timeout_s s (HIPD_VM_TIMEOUT); VM killed"
		rc=124
	else
		say "the guest reported no exit status (qemu exit status $qemu_rc)"
		[ -e "$work/watchdog" ] && say "$(cat "$work/watchdog")"
		[ -s "$work/qemu.log" ] && sed 's/^/  qemu: /' "$work/qemu.log" >&2
		report_guest_log 1
		rc=125
	fi
	if [ "${HIPD_VM_VERBOSE:-0}" = 1 ] && [ -r "$work/ctl/timing" ]; then
		say "guest uptime at: $(tr '\n' ' ' <"$work/ctl/timing")"
	fi
	verbose "total $(elapsed) s"
	exit "$rc"
}

main "$@"
