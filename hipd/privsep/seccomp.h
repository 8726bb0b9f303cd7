/*
 * seccomp.h - the engine's system call allow-list (DESIGN.md "Processes").
 * The engine parses every untrusted byte; after start it needs no more
 * than its event loop, its already open sockets, the TUN device, memory,
 * the clock, randomness and the few files it rewrites (R1 counters, a
 * reloaded configuration). Anything else fails with EPERM: a compromised
 * engine can send on the sockets it holds but not open new ones, exec,
 * ptrace or load anything.
 */
#ifndef HIPD_SECCOMP_H
#define HIPD_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

/* Install the filter (no_new_privs must be set): on every thread of the
 * process when all_threads (seccomp(2) with TSYNC, which a service
 * manager's own filter may refuse: -EPERM), else on the calling thread
 * (prctl). 0; or -ENOTSUP with the reason in why (an architecture without a
 * list here, a sanitizer build, or, by prctl, a kernel without seccomp
 * filters); other -errno (all_threads: whatever seccomp(2) said). */
int seccomp_engine_install(bool all_threads, char *why, size_t whylen);

/* The number of system calls on the list (for the log). */
size_t seccomp_engine_count(void);

#endif
