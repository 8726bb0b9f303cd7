# fuzz targets (clang, --enable-fuzz; tests/fuzz.sh runs them)
if ENABLE_FUZZ
noinst_PROGRAMS += fuzz/fuzz_packet fuzz/fuzz_conf fuzz/fuzz_reg_allow
fuzz_fuzz_packet_SOURCES = fuzz/fuzz_packet.c
fuzz_fuzz_packet_LDADD = $(HIP_CORE_LIBS)
fuzz_fuzz_packet_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
# fuzz_conf's daemon and engine (the real hipconf commands) are white-box:
# tests/fuzz/conf_daemon.c, as the targets below.
fuzz_fuzz_conf_SOURCES = fuzz/fuzz_conf.c tests/fuzz/conf_daemon.c tests/fuzz/conf_daemon.h
fuzz_fuzz_conf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/fuzz
fuzz_fuzz_conf_LDADD = $(HIPD_LIBS)
fuzz_fuzz_conf_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_reg_allow_SOURCES = fuzz/fuzz_reg_allow.c
fuzz_fuzz_reg_allow_LDADD = $(HIPD_LIBS)
fuzz_fuzz_reg_allow_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
noinst_PROGRAMS += fuzz/fuzz_icmp
fuzz_fuzz_icmp_SOURCES = fuzz/fuzz_icmp.c
fuzz_fuzz_icmp_LDADD = $(HIPD_LIBS)
fuzz_fuzz_icmp_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
# White-box targets (internal headers of their folders, as the unit suites):
# their sources live in tests/fuzz/, which tools/check-layout.py leaves alone.
noinst_PROGRAMS += fuzz/fuzz_priv fuzz/fuzz_esp fuzz/fuzz_xfrm
fuzz_fuzz_priv_SOURCES = tests/fuzz/fuzz_priv.c
fuzz_fuzz_priv_LDADD = $(HIPD_LIBS)
fuzz_fuzz_priv_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_esp_SOURCES = tests/fuzz/fuzz_esp.c
fuzz_fuzz_esp_LDADD = $(HIPD_LIBS)
fuzz_fuzz_esp_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_xfrm_SOURCES = tests/fuzz/fuzz_xfrm.c
fuzz_fuzz_xfrm_LDADD = $(HIPD_LIBS)
fuzz_fuzz_xfrm_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
# hipfw's rules file and packet checks (firewall/)
noinst_PROGRAMS += fuzz/fuzz_fw
fuzz_fuzz_fw_SOURCES = tests/fuzz/fuzz_fw.c
fuzz_fuzz_fw_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/firewall
fuzz_fuzz_fw_LDADD = $(HIPFW_LIBS)
fuzz_fuzz_fw_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
# hipfw's state file (firewall/fw_state.c, D-21)
noinst_PROGRAMS += fuzz/fuzz_fw_state
fuzz_fuzz_fw_state_SOURCES = tests/fuzz/fuzz_fw_state.c
fuzz_fuzz_fw_state_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/firewall
fuzz_fuzz_fw_state_LDADD = $(HIPFW_LIBS)
fuzz_fuzz_fw_state_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
endif
EXTRA_DIST += fuzz/packet.dict fuzz/corpus tests/fuzz-long.sh
# the hosts file with names and LSIs: hipd's map and the NSS module's scan (D-19)
if ENABLE_FUZZ
noinst_PROGRAMS += fuzz/fuzz_hosts
fuzz_fuzz_hosts_SOURCES = tests/fuzz/fuzz_hosts.c nss/hip_file.c nss/hip_file.h \
	nss/file_cache.c nss/file_cache.h
fuzz_fuzz_hosts_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/nss
fuzz_fuzz_hosts_LDADD = $(HIPD_LIBS)
fuzz_fuzz_hosts_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
endif
# LSIs (D-20): rtnetlink dump replies, lsi_range values, derivation and table
if ENABLE_FUZZ
noinst_PROGRAMS += fuzz/fuzz_lsi
fuzz_fuzz_lsi_SOURCES = tests/fuzz/fuzz_lsi.c
fuzz_fuzz_lsi_LDADD = $(HIPD_LIBS)
fuzz_fuzz_lsi_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
endif
# the default routes followed for ICE re-announcements (hipd/net/defroute.c)
if ENABLE_FUZZ
noinst_PROGRAMS += fuzz/fuzz_route
fuzz_fuzz_route_SOURCES = tests/fuzz/fuzz_route.c
fuzz_fuzz_route_LDADD = $(HIPD_LIBS)
fuzz_fuzz_route_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
endif
# the opportunistic pins, known_hosts (hipd/net/known_hosts.c)
if ENABLE_FUZZ
noinst_PROGRAMS += fuzz/fuzz_known_hosts
fuzz_fuzz_known_hosts_SOURCES = tests/fuzz/fuzz_known_hosts.c
fuzz_fuzz_known_hosts_LDADD = $(HIPD_LIBS)
fuzz_fuzz_known_hosts_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
# IPv4 reassembly before BEET on the userspace datapath (uesp_frag.c, D-22)
noinst_PROGRAMS += fuzz/fuzz_uesp_frag
fuzz_fuzz_uesp_frag_SOURCES = tests/fuzz/fuzz_uesp_frag.c
fuzz_fuzz_uesp_frag_LDADD = $(HIPD_LIBS)
fuzz_fuzz_uesp_frag_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
endif
