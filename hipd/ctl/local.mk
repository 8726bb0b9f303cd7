# hipd/ctl: the control socket server for hipconf (public header: ctl/control.h)
hipd_libhipd_a_SOURCES += \
	hipd/ctl/control.h hipd/ctl/control.c hipd/ctl/control_sock.c hipd/ctl/control_reply.c
