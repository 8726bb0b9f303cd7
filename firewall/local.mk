# firewall: hipfw, the HIP-aware firewall on libnetfilter_queue (hipfw(8),
# hipfw.rules(5)). The rules, the packet checks and the verdicts are a
# library of their own so the unit tests and the fuzzer drive them without
# a queue.
noinst_LIBRARIES += firewall/libhipfw.a
firewall_libhipfw_a_SOURCES = \
	firewall/fw_rules.h firewall/fw_rules.c \
	firewall/fw_packet.h firewall/fw_packet.c firewall/fw_verify.c \
	firewall/fw_main.h firewall/fw_verdict.c \
	firewall/fw_track.h firewall/fw_track.c \
	firewall/fw_state.h firewall/fw_state.c \
	firewall/fw_host.h firewall/fw_host.c firewall/fw_esp_rule.c
HIPFW_LIBS = firewall/libhipfw.a $(HIPD_LIBS)

sbin_PROGRAMS += firewall/hipfw
firewall_hipfw_SOURCES = firewall/hipfw.c firewall/fw_ctl.c firewall/fw_client.c \
	firewall/fw_nfq.h firewall/fw_nfq.c firewall/fw_ipt.h firewall/fw_ipt.c \
	firewall/fw_esp.c firewall/fw_runner.c
firewall_hipfw_CFLAGS = $(AM_CFLAGS) $(NFQ_CFLAGS)
firewall_hipfw_LDADD = $(HIPFW_LIBS) $(NFQ_LIBS)
dist_man_MANS += firewall/hipfw.8 firewall/hipfw.rules.5
EXTRA_DIST += firewall/hipfw.rules firewall/hipfw.service
