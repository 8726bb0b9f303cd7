# bench/swan.sh - strongSwan IKEv2 between the namespaces "a" and "b" of a
# benchmark (sourced by bench/bex-latency.sh after bench/lib.sh).
#
# ECDSA P-256 certificates from a throw-away CA (pki), IKE proposal
# aes128gcm16-prfsha256-ecp256 (ECDH P-256, as HIP DH group 7); childless
# IKE_SA (RFC 6023), so no kernel SA is installed, as in the HIP benchmark. One charon per namespace: charon's pid file is
# fixed (/run/charon.pid), so each runs in its own mount namespace with a
# private tmpfs on /run (`ip netns exec` already unshares mounts); vici
# sockets and logs live in the benchmark's temporary directory.
#
# swan_run N OUT: N times `swanctl --initiate` then `--terminate`; writes
# one IKE_SA establishment time per line (us) to OUT, from charon's log on
# the Initiator (ms resolution: "initiating IKE_SA" -> "IKE_SA ...
# established") and, with tcpdump and tshark, the wire time in OUT.wire
# (us: IKE_SA_INIT request sent -> IKE_AUTH response received, on a's veth). Returns non-zero
# with a message when strongSwan cannot run here.
SWAN_CHARON=${SWAN_CHARON:-/usr/lib/ipsec/charon}

swan_install() {
	if [ -x "$SWAN_CHARON" ] && command -v swanctl >/dev/null && command -v pki >/dev/null &&
	   [ -f /usr/lib/ipsec/plugins/libstrongswan-openssl.so ]; then
		return 0
	fi
	echo "  installing strongSwan (tools/install-deps.sh --bench)..."
	"$BENCH_ROOT/tools/install-deps.sh" --bench >/dev/null 2>&1 || return 1
	[ -x "$SWAN_CHARON" ] && [ -f /usr/lib/ipsec/plugins/libstrongswan-openssl.so ]
}

# swan_host NAME ID PEER_IP: config and start charon in namespace NAME.
swan_host() {
	local n=$1 id=$2 peer=$3 d=$NETNS_TMP/$1/swan other
	[ "$id" = a ] && other=b || other=a
	mkdir -p "$d"
	cat >"$d/strongswan.conf" <<-EOF
	charon {
		load = random nonce openssl kdf pem pkcs1 pkcs8 x509 pubkey constraints kernel-netlink socket-default vici
		install_routes = no
		install_virtual_ip = no
		plugins {
			vici {
				socket = unix://$d/charon.vici
			}
		}
		filelog {
			bench {
				path = $d/charon.log
				time_format = %s
				time_add_ms = yes
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
			local_addrs = $([ "$id" = a ] && echo 192.0.2.1 || echo 192.0.2.2)
			remote_addrs = $peer
			proposals = aes128gcm16-prfsha256-ecp256
			# The IKE_SA alone (RFC 6023): like the HIP base exchange here it
			# installs no kernel SA (this kernel may lack ESP/XFRM support).
			childless = force
			mobike = no
			local {
				auth = pubkey
				certs = $id.crt
				id = $id.bench
			}
			remote {
				auth = pubkey
				id = $other.bench
				cacerts = ca.crt
			}
		}
	}
	EOF
	# swanctl loads keys and certificates from beside its swanctl.conf.
	mkdir -p "$d/ecdsa" "$d/x509" "$d/x509ca"
	cp "$NETNS_TMP/swanpki/$id.key" "$d/ecdsa/"
	cp "$NETNS_TMP/swanpki/$id.crt" "$d/x509/"
	cp "$NETNS_TMP/swanpki/ca.crt" "$d/x509ca/"
	# Same scheduling as hipd in the benchmark (bench/lib.sh BENCH_RT).
	local rt=""
	[ "${BENCH_RT:-1}" = 1 ] && rt="chrt -f 10"
	nsx "$n" sh -c "mount -t tmpfs none /run && STRONGSWAN_CONF=$d/strongswan.conf exec $rt $SWAN_CHARON" \
		>"$d/charon.out" 2>&1 &
	wait_for "charon $n vici socket" 10 test -S "$d/charon.vici" || { tail "$d/charon.out"; return 1; }
	swanctl_ns "$n" --load-all --file "$d/swanctl.conf" >"$d/load.out" 2>&1 ||
		{ cat "$d/load.out"; return 1; }
}

# swanctl_ns NAME COMMAND [options]: swanctl against NAME's charon.
swanctl_ns() {
	local n=$1 cmd=$2; shift 2
	nsx "$n" env STRONGSWAN_CONF="$NETNS_TMP/$n/swan/strongswan.conf" \
		swanctl "$cmd" --uri "unix://$NETNS_TMP/$n/swan/charon.vici" "$@"
}

swan_pki() {
	local p=$NETNS_TMP/swanpki h
	mkdir -p "$p"
	pki --gen --type ecdsa --size 256 --outform pem >"$p/ca.key" 2>/dev/null || return 1
	pki --self --ca --lifetime 7 --in "$p/ca.key" --type ecdsa --dn "CN=hipd bench CA" \
		--outform pem >"$p/ca.crt" 2>/dev/null || return 1
	for h in a b; do
		pki --gen --type ecdsa --size 256 --outform pem >"$p/$h.key" 2>/dev/null || return 1
		pki --pub --in "$p/$h.key" --type ecdsa 2>/dev/null |
			pki --issue --lifetime 7 --cacert "$p/ca.crt" --cakey "$p/ca.key" \
				--dn "CN=$h.bench" --san "$h.bench" --outform pem >"$p/$h.crt" 2>/dev/null ||
			return 1
	done
}

swan_run() {
	local n=$1 out=$2 i cap=$NETNS_TMP/a/swan/ike.pcap tpid=""
	swan_install || { echo "  strongSwan: cannot install strongswan-charon/swanctl/pki"; return 1; }
	swan_pki || { echo "  strongSwan: generating certificates with pki failed"; return 1; }
	swan_host b b 192.0.2.1 || { echo "  strongSwan: charon in namespace b did not start"; return 1; }
	swan_host a a 192.0.2.2 || { echo "  strongSwan: charon in namespace a did not start"; return 1; }
	# Warm-up, then the measured runs.
	swanctl_ns a --initiate --ike bench --timeout 10 >"$NETNS_TMP/a/swan/init.out" 2>&1 ||
		{ echo "  strongSwan: the first IKE_SA failed:"; tail -5 "$NETNS_TMP/a/swan/init.out";
		  tail -20 "$NETNS_TMP/a/swan/charon.log"; return 1; }
	swanctl_ns a --terminate --ike bench --timeout 10 >/dev/null 2>&1
	if command -v tcpdump >/dev/null; then
		nsx a tcpdump -i va0 -U -s 128 -w "$cap" udp port 500 or udp port 4500 >/dev/null 2>&1 &
		tpid=$!
		sleep 0.5
	fi
	: >"$NETNS_TMP/a/swan/charon.log.mark"
	local start_line
	start_line=$(wc -l <"$NETNS_TMP/a/swan/charon.log")
	for i in $(seq 1 "$n"); do
		swanctl_ns a --initiate --ike bench --timeout 10 >/dev/null 2>&1 ||
			{ echo "  strongSwan: IKE_SA $i failed"; return 1; }
		swanctl_ns a --terminate --ike bench --timeout 10 >/dev/null 2>&1
	done
	[ -n "$tpid" ] && { sleep 0.2; kill "$tpid"; wait "$tpid" 2>/dev/null; }
	tail -n +"$((start_line + 1))" "$NETNS_TMP/a/swan/charon.log" |
		awk '/initiating IKE_SA bench\[/ { t0 = $1 }
		     /IKE_SA bench\[[0-9]+\] established/ { if (t0) printf "%.0f\n", ($1 - t0) * 1e6; t0 = 0 }' \
		>"$out"
	[ -s "$out" ] || { echo "  strongSwan: no IKE_SA times in charon's log"; return 1; }
	if [ -n "$tpid" ] && [ -s "$cap" ]; then
		# exchange type 34 = IKE_SA_INIT, 35 = IKE_AUTH; flag_r = response
		tshark -r "$cap" -T fields -e frame.time_epoch -e isakmp.exchangetype \
			-e isakmp.flag_r 2>/dev/null | python3 -c '
import sys
t0 = None
for line in sys.stdin:
    f = line.split()
    if len(f) < 3:
        continue
    resp = f[2] in ("1", "True")
    if f[1] == "34" and not resp:
        t0 = float(f[0])
    elif f[1] == "35" and resp and t0 is not None:
        print("%.1f" % ((float(f[0]) - t0) * 1e6))
        t0 = None' >"$out.wire"
	fi
	return 0
}
