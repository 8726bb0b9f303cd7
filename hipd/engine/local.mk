# hipd/engine: the protocol engine (public header: engine/engine.h; what its
# subfolders share: engine/engine_int.h)
hipd_libhipd_a_SOURCES += \
	hipd/engine/engine.h hipd/engine/engine_int.h \
	hipd/engine/engine.c hipd/engine/engine_ctl.c hipd/engine/fsm.c \
	hipd/engine/engine_dp.c hipd/engine/engine_reg.c \
	hipd/engine/engine_udp.c hipd/engine/engine_live.c hipd/engine/engine_icmp.c \
	hipd/engine/engine_heap.c hipd/engine/engine_opp.c
# associations, their timers and keys, identities, R1 cache, puzzle thread
hipd_libhipd_a_SOURCES += \
	hipd/engine/assoc/assoc.h \
	hipd/engine/assoc/ha.c hipd/engine/assoc/drop.c hipd/engine/assoc/sa.c \
	hipd/engine/assoc/locators.c \
	hipd/engine/assoc/i1storm.h hipd/engine/assoc/i1storm.c \
	hipd/engine/assoc/hadb.h hipd/engine/assoc/hadb.c \
	hipd/engine/assoc/hidb.h hipd/engine/assoc/hidb.c \
	hipd/engine/assoc/r1cache.h hipd/engine/assoc/r1cache.c \
	hipd/engine/assoc/retx.c hipd/engine/assoc/keys.c \
	hipd/engine/assoc/puzzle_worker.h hipd/engine/assoc/puzzle_worker.c
# the base exchange, CLOSE and NOTIFY
hipd_libhipd_a_SOURCES += \
	hipd/engine/exchange/bex_init.c hipd/engine/exchange/bex_r1.c \
	hipd/engine/exchange/bex_resp.c hipd/engine/exchange/bex_i2.c \
	hipd/engine/exchange/bex_nat.c hipd/engine/exchange/bex_opp.c \
	hipd/engine/exchange/exchange.h \
	hipd/engine/exchange/close.c hipd/engine/exchange/notify.c \
	hipd/engine/exchange/timeout.c hipd/engine/exchange/puzzle_k.c \
	hipd/engine/exchange/i2guard.h hipd/engine/exchange/i2guard.c
# UPDATE: mobility, multihoming, rekeying (RFC 7401 §6.11-6.12, 8046, 8047, 7402 §6)
hipd_libhipd_a_SOURCES += \
	hipd/engine/update/update.h hipd/engine/update/update_int.h \
	hipd/engine/update/update.c hipd/engine/update/update_out.c \
	hipd/engine/update/update_locator.c \
	hipd/engine/update/update_rekey.c hipd/engine/update/update_entry.c \
	hipd/engine/update/update_lsi.c hipd/engine/update/update_keymat.c \
	hipd/engine/update/update_mem.c hipd/engine/update/update_reg.c \
	hipd/engine/update/update_ice.c hipd/engine/update/update_live.c \
	hipd/engine/update/mobility_ctl.h hipd/engine/update/mobility_ctl.c
# registration (RFC 8003) and rendezvous (RFC 8004)
hipd_libhipd_a_SOURCES += \
	hipd/engine/reg/reg.h \
	hipd/engine/reg/reg_learn.c \
	hipd/engine/reg/registrar.c hipd/engine/reg/reg_client.c \
	hipd/engine/reg/reg_allow.c hipd/engine/reg/rvs.c hipd/engine/reg/relay.c \
	hipd/engine/reg/data_relay.c \
	hipd/engine/reg/reg_engine.c
