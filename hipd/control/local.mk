# hipd/control: the control socket server for hipconf (public header: ctl/control.h)
hipd_libhipd_a_SOURCES += \
	hipd/control/control.h hipd/control/control.c hipd/control/control_sock.c hipd/control/control_reply.c
