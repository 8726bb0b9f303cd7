# tests: the Check suites (one per module, tests/unit/), run by `make check`;
# the scenario scripts (netns, system, kernel) are run by tests/run.sh.
check_LIBRARIES += tests/unit/libunit.a
tests_unit_libunit_a_SOURCES = tests/unit/unit.h tests/unit/unit.c
# every suite links the same (unneeded archive members are not pulled in)
LDADD = tests/unit/libunit.a $(HIPD_LIBS) $(CHECK_LIBS)
BEX_HARNESS = tests/unit/bex_harness.h tests/unit/bex_harness.c
CTL_HARNESS = tests/unit/ctl_harness.h tests/unit/ctl_harness.c
ENGINE_CTL = tests/unit/engine_ctl.h tests/unit/engine_ctl.c
BEX_FIXTURE = $(BEX_HARNESS) tests/unit/bex_fixture.h tests/unit/bex_fixture.c
UPDATE_FIXTURE = $(BEX_HARNESS) tests/unit/update_fixture.h tests/unit/update_fixture.c

# libcrypto-wrap, libhipcore
UNIT_TESTS = \
	tests/unit/check_digest tests/unit/check_hmac_hkdf tests/unit/check_cipher \
	tests/unit/check_hostid tests/unit/check_dh tests/unit/check_puzzle \
	tests/unit/check_hit tests/unit/check_checksum tests/unit/check_packet \
	tests/unit/check_parser tests/unit/check_params tests/unit/check_params_misc \
	tests/unit/check_coverage tests/unit/check_state
tests_unit_check_params_SOURCES = tests/unit/check_params.c tests/unit/param_rt.h
tests_unit_check_params_misc_SOURCES = tests/unit/check_params_misc.c tests/unit/param_rt.h
# hipd/base, hipd/net, hipd/control, the daemon
UNIT_TESTS += \
	tests/unit/check_log tests/unit/check_loop tests/unit/check_conf \
	tests/unit/check_ratelimit tests/unit/check_sdnotify \
	tests/unit/check_sock tests/unit/check_hosts tests/unit/check_locset \
	tests/unit/check_addrwatch \
	tests/unit/check_control tests/unit/check_control_cmds tests/unit/check_daemon
tests_unit_check_control_SOURCES = tests/unit/check_control.c $(CTL_HARNESS)
tests_unit_check_control_cmds_SOURCES = tests/unit/check_control_cmds.c $(CTL_HARNESS)
# hipd/engine: two engines in one process, wired back to back
UNIT_TESTS += \
	tests/unit/check_hadb tests/unit/check_r1cache \
	tests/unit/check_bex tests/unit/check_bex_after tests/unit/check_engine \
	tests/unit/check_bexgaps tests/unit/check_puzzle_worker tests/unit/check_update \
	tests/unit/check_update_rekey tests/unit/check_mobility_ctl tests/unit/check_icmp \
	tests/unit/check_restart_heap
tests_unit_check_bex_SOURCES = tests/unit/check_bex.c $(BEX_FIXTURE)
tests_unit_check_bex_after_SOURCES = tests/unit/check_bex_after.c $(BEX_FIXTURE)
tests_unit_check_restart_heap_SOURCES = tests/unit/check_restart_heap.c $(BEX_FIXTURE)
tests_unit_check_engine_SOURCES = tests/unit/check_engine.c $(BEX_HARNESS) $(ENGINE_CTL)
tests_unit_check_bexgaps_SOURCES = tests/unit/check_bexgaps.c $(BEX_HARNESS)
tests_unit_check_puzzle_worker_SOURCES = tests/unit/check_puzzle_worker.c $(BEX_HARNESS)
tests_unit_check_update_SOURCES = tests/unit/check_update.c $(UPDATE_FIXTURE)
tests_unit_check_update_rekey_SOURCES = tests/unit/check_update_rekey.c $(UPDATE_FIXTURE)
tests_unit_check_mobility_ctl_SOURCES = tests/unit/check_mobility_ctl.c $(CTL_HARNESS)
tests_unit_check_icmp_SOURCES = tests/unit/check_icmp.c $(UPDATE_FIXTURE)
# the LSI SA pair (D-22, update_lsi.c)
UNIT_TESTS += tests/unit/check_lsi_pair
tests_unit_check_lsi_pair_SOURCES = tests/unit/check_lsi_pair.c $(UPDATE_FIXTURE)
# ICE restart on mobility (RFC 9028 §4.9, update_ice.c, update_locator.c)
UNIT_TESTS += tests/unit/check_ice_restart
# hipd/engine/reg: registration (RFC 8003), rendezvous (RFC 8004), their hipd.conf keys
UNIT_TESTS += tests/unit/check_reg tests/unit/check_reg_conf tests/unit/check_rvs
# the data relay server and PEER_PERMISSION (RFC 9028 §4.12, reg/data_relay.c, D-29)
UNIT_TESTS += tests/unit/check_data_relay
UNIT_TESTS += tests/unit/check_reg_opp
tests_unit_check_reg_opp_SOURCES = tests/unit/check_reg_opp.c $(BEX_HARNESS) $(ENGINE_CTL)
# opportunistic mode, the Initiator (D-27, bex_opp.c, engine_opp.c): pins, hipconf
UNIT_TESTS += tests/unit/check_opp
tests_unit_check_opp_SOURCES = tests/unit/check_opp.c $(BEX_HARNESS) $(ENGINE_CTL)
# the engine's clock moved on and bex_opp.c's timer known (check_opp.c's header)
tests_unit_check_opp_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=hipd_now_ns \
	-Wl,--wrap=hip_loop_timer_add_at
# hipd/datapath (check_xfrm, check_uesp: root and namespaces; they skip otherwise)
UNIT_TESTS += tests/unit/check_xfrm tests/unit/check_esp tests/unit/check_uesp
# IPv4 between LSIs on the userspace datapath (D-22)
UNIT_TESTS += tests/unit/check_uesp_lsi
# IPv4 reassembly before BEET on the userspace datapath (D-22, uesp_frag.c)
UNIT_TESTS += tests/unit/check_uesp_frag
# the kernel datapath's filter for ESP of no SA of ours (xfrm_nosa.c): no privileges
UNIT_TESTS += tests/unit/check_xfrm_nosa
# IPv4 between LSIs on the kernel datapath (D-22): root and namespaces, SAs under ESP
UNIT_TESTS += tests/unit/check_xfrm_lsi
tests_unit_check_xfrm_SOURCES = tests/unit/check_xfrm.c tests/unit/udp_peer_seen.h
# hipd/privsep
UNIT_TESTS += tests/unit/check_caps tests/unit/check_priv
tests_unit_check_priv_SOURCES = tests/unit/check_priv.c tests/unit/udp_peer_seen.h
# hipd/privsep: IPv4 between LSIs (D-22)
UNIT_TESTS += tests/unit/check_priv_lsi

# firewall/: hipfw's rules and packet checks
UNIT_TESTS += tests/unit/check_fw
tests_unit_check_fw_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/firewall
tests_unit_check_fw_LDADD = tests/unit/libunit.a $(HIPFW_LIBS) $(CHECK_LIBS)
# firewall/: hipfw's association tracker (middlebox mode)
UNIT_TESTS += tests/unit/check_fw_track
FW_TRACK_FIXTURE = tests/unit/fw_track_fixture.h tests/unit/fw_track_fixture.c
tests_unit_check_fw_track_SOURCES = tests/unit/check_fw_track.c $(FW_TRACK_FIXTURE)
tests_unit_check_fw_track_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/firewall
tests_unit_check_fw_track_LDADD = tests/unit/libunit.a $(HIPFW_LIBS) $(CHECK_LIBS)
# firewall/: hipfw's state file (D-21), on the tracker's fixture
UNIT_TESTS += tests/unit/check_fw_track_lsi
tests_unit_check_fw_track_lsi_SOURCES = tests/unit/check_fw_track_lsi.c $(FW_TRACK_FIXTURE)
tests_unit_check_fw_track_lsi_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/firewall
tests_unit_check_fw_track_lsi_LDADD = tests/unit/libunit.a $(HIPFW_LIBS) $(CHECK_LIBS)

UNIT_TESTS += tests/unit/check_fw_state
tests_unit_check_fw_state_SOURCES = tests/unit/check_fw_state.c $(FW_TRACK_FIXTURE)
tests_unit_check_fw_state_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/firewall
tests_unit_check_fw_state_LDADD = tests/unit/libunit.a $(HIPFW_LIBS) $(CHECK_LIBS)
# firewall/: hipfw's host mode (rules for the traffic between HITs, fw_host.c)
UNIT_TESTS += tests/unit/check_fw_host
tests_unit_check_fw_host_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/firewall
tests_unit_check_fw_host_LDADD = tests/unit/libunit.a $(HIPFW_LIBS) $(CHECK_LIBS)
# names in the hosts file (D-19) and the NSS module (nss/), its hosts file in the build tree
UNIT_TESTS += tests/unit/check_hosts_names tests/unit/check_nss
tests_unit_check_nss_SOURCES = tests/unit/check_nss.c $(NSS_HIP_SOURCES)
tests_unit_check_nss_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nss \
	-DHIP_NSS_HOSTS_FILE='"$(abs_builddir)/tests/unit/check_nss.hosts"' \
	-DHIP_NSS_LSI_FILE='"$(abs_builddir)/tests/unit/check_nss.lsi"'
# LSIs derived from the HIT, lsi_range, the overlap check (D-20)
UNIT_TESTS += tests/unit/check_lsi
# the default routes hipd follows for ICE re-announcements (hipd/net/defroute.c)
UNIT_TESTS += tests/unit/check_defroute
# the opportunistic pins, known_hosts (hipd/net/known_hosts.c, issue #16)
UNIT_TESTS += tests/unit/check_known_hosts
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
# the layout of the tree (README.md "Module map"): after the objects are built
TESTS += tests/layout.sh
AM_TESTS_ENVIRONMENT = top_srcdir='$(top_srcdir)'; export top_srcdir; CK_DEFAULT_TIMEOUT=120; export CK_DEFAULT_TIMEOUT;

# scenario scripts and their libraries
EXTRA_DIST += tests/run.sh tests/tshark.sh tests/tshark-rvs.sh tests/fuzz.sh tests/layout.sh tools/check-layout.py \
	tests/check-doc-refs.sh \
	tests/netns tests/system tests/kernel tests/lib
