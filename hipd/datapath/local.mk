# hipd/datapath: the ESP datapaths behind one interface (datapath/datapath.h):
# the kernel's XFRM over netlink (xfrm/) and the userspace one (uesp/), and
# the hip0 TUN device both use (its address and routes through libnl-route)
hipd_libhipd_a_SOURCES += \
	hipd/datapath/datapath.h hipd/datapath/tun.h hipd/datapath/tun.c
hipd_libhipd_a_CPPFLAGS += $(LIBNL_CFLAGS) $(LIBNL_ROUTE_CFLAGS)
HIPD_LIBS += $(LIBNL_ROUTE_LIBS) $(LIBNL_LIBS)
hipd_libhipd_a_SOURCES += \
	hipd/datapath/xfrm/xfrm.h hipd/datapath/xfrm/xfrm_int.h \
	hipd/datapath/xfrm/xfrm.c hipd/datapath/xfrm/xfrm_msg.c hipd/datapath/xfrm/xfrm_nl.c \
	hipd/datapath/xfrm/xfrm_event.c hipd/datapath/xfrm/xfrm_replace.c \
	hipd/datapath/xfrm/xfrm_nosa.c
hipd_libhipd_a_SOURCES += \
	hipd/datapath/uesp/esp.h hipd/datapath/uesp/esp.c hipd/datapath/uesp/esp_replay.c \
	hipd/datapath/uesp/uesp.h hipd/datapath/uesp/uesp_int.h \
	hipd/datapath/uesp/uesp.c hipd/datapath/uesp/uesp_csum.h hipd/datapath/uesp/uesp_io.c \
	hipd/datapath/uesp/uesp_sa.c \
	hipd/datapath/uesp/uesp_udp.c \
	hipd/datapath/uesp/uesp_frag.h hipd/datapath/uesp/uesp_frag.c
