# bench/peers.sh - the userspace ESP / VPN datapaths a user would pick
# instead of hipd, set up between the namespaces "a" and "b" of a benchmark
# (sourced by bench/esp-throughput.sh after bench/lib.sh; bash).
#
#   strongSwan, userspace ESP: charon with the kernel-libipsec plugin
#     (Debian: strongswan-charon, libcharon-extra-plugins), IKEv2 with a
#     PSK, ESP AES-GCM-128 (aes128gcm16) in tunnel mode (libipsec's only
#     mode) between 10.10.0.1 (a) and 10.10.0.2 (b), carried over the veth
#     (192.0.2.1 <-> .2) in UDP 4500, libipsec's default encapsulation
#     (its raw_esp option made no difference with Debian 12's 5.9.8).
#     Those inner /32 addresses have no route but the one charon installs
#     through its TUN device ipsec0 (table 220), so nothing reaches them in
#     clear. One charon per namespace, each in its own mount namespace with
#     a private tmpfs on /run (charon's pid file is fixed).
#   wireguard-go, userspace WireGuard (ChaCha20-Poly1305, no other choice):
#     built from the Go module proxy once into WG_CACHE; configured with
#     wg(8) from Debian's wireguard-tools. 10.11.0.1 (a) <-> 10.11.0.2 (b)
#     on wg0, UDP 51820 over the veth. Each runs in its own mount namespace
#     with a private /run, where wireguard-go and wg meet (its UAPI socket
#     /run/wireguard/wg0.sock), so nothing is left in the host's /run.
#
# Each peer_*_start prints nothing and returns 0 when the tunnel carries
# traffic, or prints why not and returns 1; peer_*_stop ends it (the
# framework's cleanup kills whatever is left in the namespaces anyway).
# BENCH_RT=1 runs every daemon (hipd too) SCHED_FIFO 10: the same for all.
WG_CACHE=${WG_CACHE:-/var/cache/hipd-bench}
SWAN_CHARON=${SWAN_CHARON:-/usr/lib/ipsec/charon}
SWAN_LIBIPSEC=/usr/lib/ipsec/plugins/libstrongswan-kernel-libipsec.so

peer_rt() { [ "${BENCH_RT:-0}" = 1 ] && echo "chrt -f 10"; }

# ---- strongSwan with kernel-libipsec ---------------------------------------------

swan_libipsec_conf() { # NAME ID(a|b)
	local n=$1 id=$2 other d=$NETNS_TMP/$1/swan me peer
	[ "$id" = a ] && { other=b; me=1; peer=2; } || { other=a; me=2; peer=1; }
	mkdir -p "$d"
	cat >"$d/strongswan.conf" <<-EOF
	charon {
		# kernel-libipsec before kernel-netlink: the first IPsec backend
		# loaded is the one charon uses (kernel-netlink still does routes).
		load = random nonce openssl kdf pem pkcs1 pkcs8 x509 pubkey kernel-libipsec kernel-netlink socket-default vici
		install_routes = yes
		install_virtual_ip = no
		plugins {
			vici {
				socket = unix://$d/charon.vici
			}
		}
		filelog {
			bench {
				path = $d/charon.log
				default = 1
				flush_line = yes
			}
		}
		syslog {
			daemon {
				default = -1
			}
		}
	}
	EOF
	cat >"$d/swanctl.conf" <<-EOF
	connections {
		bench {
			version = 2
			local_addrs = 192.0.2.$me
			remote_addrs = 192.0.2.$peer
			proposals = aes128gcm16-prfsha256-ecp256
			mobike = no
			local {
				auth = psk
				id = $id.bench
			}
			remote {
				auth = psk
				id = $other.bench
			}
			children {
				bench {
					local_ts = 10.10.0.$me/32
					remote_ts = 10.10.0.$peer/32
					mode = tunnel
					esp_proposals = aes128gcm16
					start_action = none
				}
			}
		}
	}
	secrets {
		ike-bench {
			id-a = a.bench
			id-b = b.bench
			secret = "hipd benchmark only $NETNS_ID"
		}
	}
	EOF
}

swanctl_in() { # NAME COMMAND [options]
	local n=$1 cmd=$2; shift 2
	nsx "$n" env STRONGSWAN_CONF="$NETNS_TMP/$n/swan/strongswan.conf" \
		swanctl "$cmd" --uri "unix://$NETNS_TMP/$n/swan/charon.vici" "$@"
}

peer_swan_start() {
	local n id d rt
	if [ ! -x "$SWAN_CHARON" ] || [ ! -f "$SWAN_LIBIPSEC" ] || ! command -v swanctl >/dev/null; then
		echo "  strongSwan: installing (tools/install-deps.sh --bench)..."
		"$BENCH_ROOT/tools/install-deps.sh" --bench >/dev/null 2>&1
	fi
	[ -x "$SWAN_CHARON" ] && [ -f "$SWAN_LIBIPSEC" ] && command -v swanctl >/dev/null ||
		{ echo "  strongSwan: charon, swanctl or the kernel-libipsec plugin missing"; return 1; }
	rt=$(peer_rt)
	for id in a b; do
		n=$id d=$NETNS_TMP/$id/swan
		nsx "$n" ip addr add "10.10.0.$([ $id = a ] && echo 1 || echo 2)/32" dev "v${id}0"
		swan_libipsec_conf "$n" "$id"
		nsx "$n" sh -c "mount -t tmpfs none /run &&
			STRONGSWAN_CONF=$d/strongswan.conf exec $rt $SWAN_CHARON" >"$d/charon.out" 2>&1 &
		echo $! >"$d/charon.pid"
		wait_for "charon $n vici socket" 10 test -S "$d/charon.vici" ||
			{ echo "  strongSwan: charon did not start in $n:"; tail -5 "$d/charon.out"; return 1; }
		swanctl_in "$n" --load-all --file "$d/swanctl.conf" >"$d/load.out" 2>&1 ||
			{ echo "  strongSwan: swanctl --load-all failed:"; tail -5 "$d/load.out"; return 1; }
	done
	grep -q "kernel-libipsec" "$NETNS_TMP/a/swan/charon.log" ||
		{ echo "  strongSwan: charon did not load kernel-libipsec"; return 1; }
	swanctl_in a --initiate --child bench --timeout 20 >"$NETNS_TMP/a/swan/init.out" 2>&1 ||
		{ echo "  strongSwan: the CHILD_SA was not established:";
		  tail -5 "$NETNS_TMP/a/swan/init.out"; tail -15 "$NETNS_TMP/a/swan/charon.log"; return 1; }
	# The routes through ipsec0 come a moment after the CHILD_SA.
	wait_for "strongSwan route a" 5 eval "nsx a ip route get 10.10.0.2 | grep -q ipsec0" &&
	wait_for "strongSwan route b" 5 eval "nsx b ip route get 10.10.0.1 | grep -q ipsec0" ||
		{ echo "  strongSwan: no route through ipsec0"; return 1; }
	nsx a ping -c 1 -W 5 10.10.0.2 >/dev/null ||
		{ echo "  strongSwan: no ping through the tunnel"; return 1; }
}

# tun_tx DEV: packets a's kernel routed into tunnel device DEV (to the
# daemon), the proof that a measurement went through it.
tun_tx() { nsx a cat "/sys/class/net/$1/statistics/tx_packets" 2>/dev/null || echo 0; }

peer_swan_stop() {
	local id
	for id in a b; do
		[ -f "$NETNS_TMP/$id/swan/charon.pid" ] || continue
		kill "$(cat "$NETNS_TMP/$id/swan/charon.pid")" 2>/dev/null
		wait "$(cat "$NETNS_TMP/$id/swan/charon.pid")" 2>/dev/null
		rm -f "$NETNS_TMP/$id/swan/charon.pid"
		nsx "$id" ip addr del "10.10.0.$([ $id = a ] && echo 1 || echo 2)/32" dev "v${id}0" 2>/dev/null
	done
}

# ---- wireguard-go --------------------------------------------------------------

# go_version GO: "1 23 1" (major minor patch) of a go binary.
go_version() {
	"$1" env GOVERSION 2>/dev/null | sed -E 's/^go([0-9]+)\.([0-9]+)(\.([0-9]+))?.*/\1 \2 \4/'
}

# wg_pick_go: the newest Go found (PATH, /usr/local/go, Debian's
# /usr/lib/go-*), as "PATH MAJOR MINOR PATCH".
wg_pick_go() {
	local g best="" v
	for g in $(command -v go) /usr/local/go/bin/go /usr/lib/go-*/bin/go /usr/lib/go/bin/go; do
		[ -x "$g" ] || continue
		v=$(go_version "$g") || continue
		[ -n "$v" ] && echo "$g $v"
	done | sort -k2,2n -k3,3n -k4,4n | tail -1
}

# wg_build: wireguard-go at WG_GO (built once per version into WG_CACHE).
# The version follows the Go at hand: the newest wireguard-go (vectorized
# I/O, TUN GSO/GRO) needs Go >= 1.23.1; with Debian 12's Go 1.19 the newest
# that builds is 0.0.20230223, before those (and so slower).
wg_build() {
	local go maj min pat ver
	read -r go maj min pat <<<"$(wg_pick_go)"
	if [ -z "$go" ]; then
		echo "  wireguard-go: no Go; installing golang-go (tools/install-deps.sh --bench)..."
		"$BENCH_ROOT/tools/install-deps.sh" --bench >/dev/null 2>&1
		read -r go maj min pat <<<"$(wg_pick_go)"
		[ -n "$go" ] || { echo "  wireguard-go: no Go toolchain (golang-go)"; return 1; }
	fi
	pat=${pat:-0}
	if [ "$maj" -gt 1 ] || [ "$min" -gt 23 ] || { [ "$min" -eq 23 ] && [ "$pat" -ge 1 ]; }; then
		ver=${WG_VERSION:-v0.0.0-20260522210424-ecfc5a8d5446}
	elif [ "$min" -ge 20 ]; then
		ver=${WG_VERSION:-v0.0.0-20230325221338-052af4a8072b}
	else
		ver=${WG_VERSION:-v0.0.0-20230223181233-21636207a675}
		echo "  wireguard-go: Go $maj.$min is too old for the current wireguard-go; building" \
			"$ver (no vectorized I/O or TUN offloads: a Go >= 1.23.1 gives the fair peer)"
	fi
	WG_GO=$WG_CACHE/wireguard-go-$ver/wireguard
	WG_GO_VERSION=$ver
	[ -x "$WG_GO" ] && return 0
	echo "  wireguard-go: building golang.zx2c4.com/wireguard@$ver with $go (once, into $WG_CACHE)"
	mkdir -p "$WG_CACHE"
	(cd "$WG_CACHE" && GOTOOLCHAIN=local GOPROXY=https://proxy.golang.org GOFLAGS=-mod=mod \
		CGO_ENABLED=0 GOBIN="$WG_CACHE/wireguard-go-$ver" GOCACHE="$WG_CACHE/gocache" \
		GOMODCACHE="$WG_CACHE/gomod" GOPATH="$WG_CACHE/gopath" \
		timeout 600 "$go" install "golang.zx2c4.com/wireguard@$ver") >"$WG_CACHE/build.log" 2>&1 ||
		{ echo "  wireguard-go: build failed:"; tail -5 "$WG_CACHE/build.log"; return 1; }
	[ -x "$WG_GO" ]
}

# wg_ns_start NAME ME PEER PEER_PUBKEY: wireguard-go and its configuration in one shell, in one mount
# namespace with a private /run; prints "ready" (or "failed") into
# NAME/wg/state and then waits for wireguard-go.
wg_ns_start() {
	local n=$1 me=$2 peer=$3 pub=$4 d=$NETNS_TMP/$1/wg rt
	rt=$(peer_rt)
	nsx "$n" sh -c "
		mount -t tmpfs none /run || exit 1
		WG_PROCESS_FOREGROUND=1 LOG_LEVEL=error $rt '$WG_GO' -f wg0 >'$d/wg.out' 2>&1 &
		echo \$! >'$d/wg.pid'
		i=0; until [ -S /run/wireguard/wg0.sock ]; do
			i=\$((i + 1)); [ \$i -lt 200 ] || { echo failed >'$d/state'; exit 1; }; sleep 0.05
		done
		wg set wg0 private-key '$d/key' listen-port 51820 \
			peer '$pub' allowed-ips 10.11.0.$peer/32 endpoint 192.0.2.$peer:51820 &&
		ip addr add 10.11.0.$me/24 dev wg0 && ip link set wg0 up &&
			echo ready >'$d/state' || echo failed >'$d/state'
		wait" >"$d/sh.out" 2>&1 &
	echo $! >"$d/sh.pid"
}

peer_wg_start() {
	local id
	command -v wg >/dev/null || "$BENCH_ROOT/tools/install-deps.sh" --bench >/dev/null 2>&1
	command -v wg >/dev/null || { echo "  wireguard-go: wg (wireguard-tools) missing"; return 1; }
	wg_build || return 1
	for id in a b; do
		mkdir -p "$NETNS_TMP/$id/wg"
		(umask 077; wg genkey >"$NETNS_TMP/$id/wg/key")
		wg pubkey <"$NETNS_TMP/$id/wg/key" >"$NETNS_TMP/$id/wg/pub"
	done
	wg_ns_start a 1 2 "$(cat "$NETNS_TMP/b/wg/pub")"
	wg_ns_start b 2 1 "$(cat "$NETNS_TMP/a/wg/pub")"
	for id in a b; do
		wait_for "wireguard-go $id" 15 grep -q -e ready -e failed "$NETNS_TMP/$id/wg/state" &&
			grep -q ready "$NETNS_TMP/$id/wg/state" ||
			{ echo "  wireguard-go: wg0 in $id not set up:"; cat "$NETNS_TMP/$id/wg/sh.out" \
				"$NETNS_TMP/$id/wg/wg.out" 2>/dev/null | tail -5; return 1; }
	done
	nsx a ping -c 1 -W 5 10.11.0.2 >/dev/null ||
		{ echo "  wireguard-go: no ping through the tunnel"; return 1; }
}

peer_wg_stop() {
	local id p
	for id in a b; do
		[ -f "$NETNS_TMP/$id/wg/wg.pid" ] || continue
		p=$(cat "$NETNS_TMP/$id/wg/wg.pid")
		# not our child (the shell's): kill, then wait for the shell
		kill "$p" 2>/dev/null
		wait "$(cat "$NETNS_TMP/$id/wg/sh.pid")" 2>/dev/null
		rm -f "$NETNS_TMP/$id/wg/wg.pid"
	done
}

# ---- hipd (the userspace datapath) ---------------------------------------------

# peer_hipd_start SUITE: hipd in a and b (bench/lib.sh), userspace datapath,
# only ESP suite SUITE offered, HITs mapped, a base exchange by a first ping.
# peer_hipd_start SUITE [CONF-LINE...]: both hipd with the extra lines too
peer_hipd_start() {
	local suite=$1
	shift
	BENCH_RT=${BENCH_RT:-0} bench_hipd_start a - "datapath = userspace" "esp_suites = $suite" "$@"
	BENCH_RT=${BENCH_RT:-0} bench_hipd_start b - "datapath = userspace" "esp_suites = $suite" "$@"
	HIT_A=$(bench_hit a) HIT_B=$(bench_hit b)
	[ -n "$HIT_A" ] && [ -n "$HIT_B" ] || { echo "  hipd: no HITs"; return 1; }
	# (a second hipd run in the same directories finds its maps kept)
	hcr a del map "$HIT_B" >/dev/null 2>&1; hcr b del map "$HIT_A" >/dev/null 2>&1
	hcr a add map "$HIT_B" 192.0.2.2 >/dev/null && hcr b add map "$HIT_A" 192.0.2.1 >/dev/null ||
		{ echo "  hipd: hipconf add map failed"; return 1; }
	nsx a ping -6 -c 1 -W 10 "$HIT_B" >/dev/null ||
		{ echo "  hipd: no ping through ESP:"; tail -5 "$NETNS_TMP/a/hipd.log"; return 1; }
}

peer_hipd_stop() {
	local id p
	for id in a b; do
		[ -f "$NETNS_TMP/$id/hipd.pid.launch" ] || continue
		p=$(cat "$NETNS_TMP/$id/hipd.pid.launch")
		kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
		rm -f "$NETNS_TMP/$id/hipd.pid.launch"
		# every process of this hipd (the engine too) gone, and its
		# socket: the next peer must not find this one still answering
		pkill -f "$NETNS_TMP/$id/hipd.conf" 2>/dev/null
		wait_for "hipd $id gone" 10 eval "! pgrep -f '$NETNS_TMP/$id/hipd.conf' >/dev/null" ||
			pkill -9 -f "$NETNS_TMP/$id/hipd.conf" 2>/dev/null
		rm -f "$NETNS_TMP/$id/hipd.sock"
	done
}
