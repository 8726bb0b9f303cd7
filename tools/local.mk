# tools: hipconf (the CLI), and what the tests and benchmarks drive
bin_PROGRAMS += tools/hipconf
tools_hipconf_SOURCES = tools/hipconf.c
tools_hipconf_LDADD = $(HIP_CORE_LIBS)
dist_man_MANS += tools/hipconf.8

# packet generator (tshark checks); bad-input injector and I1 flooder (netns, bench)
noinst_PROGRAMS += tools/hip-pktgen tools/hip-inject
tools_hip_pktgen_SOURCES = tools/hip-pktgen.c
tools_hip_pktgen_LDADD = $(HIP_CORE_LIBS)
tools_hip_inject_SOURCES = tools/hip-inject.c tools/inject_mutate.c tools/inject.h
tools_hip_inject_LDADD = $(HIP_CORE_LIBS)
# two userspace ESP datapaths back to back (tests/unit/check_uesp, netns)
noinst_PROGRAMS += tools/uesp-pair
tools_uesp_pair_SOURCES = tools/uesp-pair.c
tools_uesp_pair_LDADD = $(HIPD_LIBS)

# bench/: crypto primitives, CPU floor of a base exchange, I1 flooder,
# simulated initiators, association table, registrar and rendezvous relay
noinst_PROGRAMS += tools/bench-crypto tools/bench-floor tools/bench-flood \
	tools/bench-initiators tools/bench-hadb tools/bench-reg tools/bench-flood2
tools_bench_crypto_SOURCES = tools/bench-crypto.c tools/bench_common.h tools/bench_common.c
tools_bench_crypto_LDADD = $(HIP_CORE_LIBS)
tools_bench_floor_SOURCES = tools/bench-floor.c tools/bench_common.h tools/bench_common.c
tools_bench_floor_LDADD = $(HIP_CORE_LIBS)
tools_bench_flood_SOURCES = tools/bench-flood.c
tools_bench_flood_LDADD = $(HIP_CORE_LIBS)
tools_bench_initiators_SOURCES = tools/bench-initiators.c tools/bench_i2.h tools/bench_i2.c
tools_bench_initiators_LDADD = $(HIPD_LIBS)
tools_bench_flood2_SOURCES = tools/bench-flood2.c tools/bench_i2.h tools/bench_i2.c
tools_bench_flood2_LDADD = $(HIPD_LIBS)
tools_bench_hadb_SOURCES = tools/bench-hadb.c
tools_bench_hadb_LDADD = $(HIPD_LIBS)
tools_bench_reg_SOURCES = tools/bench-reg.c
tools_bench_reg_LDADD = $(HIPD_LIBS)
# bench/bex-relay.sh DELAY_US: link delay without netem (a netfilter queue)
noinst_PROGRAMS += tools/nfq-delay
tools_nfq_delay_SOURCES = tools/nfq-delay.c
tools_nfq_delay_CFLAGS = $(AM_CFLAGS) $(NFQ_CFLAGS)
tools_nfq_delay_LDADD = $(NFQ_LIBS)
# callgrind cost of one base exchange per side (bench/bex-cost.sh), on the
# unit tests' in-process BEX harness: built by `make check`, not installed
check_PROGRAMS += tools/bench-bex-cost
tools_bench_bex_cost_SOURCES = tools/bench-bex-cost.c tools/bench_common.h \
	tools/bench_common.c $(BEX_HARNESS)
tools_bench_bex_cost_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit
tools_bench_bex_cost_LDADD = $(HIPD_LIBS) $(CHECK_LIBS)

EXTRA_DIST += tools/install-deps.sh tools/cross-build.sh tools/demo.sh \
	tools/kvm/run-in-esp-vm.sh
# bench/nss.sh: getaddrinfo through the NSS module (nss/, D-19)
noinst_PROGRAMS += tools/bench-nss
tools_bench_nss_SOURCES = tools/bench-nss.c
tools_bench_nss_LDADD =
# bench/esp-cost-arch.sh: instructions per MB of userspace ESP seal / open, in
# one process (any architecture, under callgrind); white-box like bench-bex-cost
noinst_PROGRAMS += tools/bench-esp-cost
tools_bench_esp_cost_SOURCES = tools/bench-esp-cost.c
tools_bench_esp_cost_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/hipd/datapath/uesp
tools_bench_esp_cost_LDADD = $(HIPD_LIBS)
