/*
 * Every libudev monitor under umockdev gets a uevent socket of its own, whatever
 * else runs at the same moment.
 *
 * umockdev's preload (libumockdev-preload.c, 0.17) turns a libudev monitor's
 * netlink socket (AF_NETLINK, NETLINK_KOBJECT_UEVENT) into an AF_UNIX datagram
 * socket, and its bind() into unlink() + bind() of "$UMOCKDEV_DIR/event<fd>":
 * the name depends on nothing but the descriptor's number.  Two processes that
 * start together (two lsusb, a test suite's parallel clients) have the same
 * descriptor there, so the path is fought over:
 *
 *   A: unlink(event6) -> 0        B: unlink(event6) -> ENOENT
 *   B: bind(event6)   -> 0        A: bind(event6)   -> EADDRINUSE
 *
 * and A's udev_monitor_enable_receiving() fails, so libusb_init() fails
 * (LIBUSB_ERROR_OTHER; lsusb: "unable to initialize libusb: -99").  Or B's
 * unlink() comes after A's bind() and takes A's name away: both start, and A
 * never hears a uevent again (no hotplug: an unplug or a re-plug is never seen).
 * The kernel's netlink has no such names: any number of monitors listen at once.
 *
 * Loaded in front of umockdev's preload, this bind() sees the call first.  For a
 * socket umockdev made (the caller binds an AF_NETLINK address, the socket is
 * AF_UNIX: nothing else is), it binds "$UMOCKDEV_DIR/event<fd>-<pid>" itself: a
 * name no other live process can want.  umockdev's sender globs "event[0-9]*"
 * (uevent_sender.c) and sends every uevent to each listener it finds, so nothing
 * else changes; a listener whose process has gone is unlinked by the sender when
 * its connect() is refused, as before.  Every other bind() goes on to umockdev's
 * (and so to libc's) unchanged.
 */
#define _GNU_SOURCE
#include "emulation_preload.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

/* A socket umockdev's preload made in place of a uevent netlink socket. */
static int is_wrapped_uevent_socket(int fd, const struct sockaddr *addr, socklen_t len)
{
    if (addr == NULL || len < (socklen_t)sizeof(sa_family_t) || addr->sa_family != AF_NETLINK) {
        return 0;
    }
    int domain = 0;
    socklen_t size = sizeof domain;
    return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size) == 0 && domain == AF_UNIX;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
    const char *root = getenv("UMOCKDEV_DIR");
    if (root != NULL && is_wrapped_uevent_socket(fd, addr, len)) {
        struct sockaddr_un name;
        memset(&name, 0, sizeof name);
        name.sun_family = AF_UNIX;
        int n = snprintf(name.sun_path, sizeof name.sun_path, "%s/" HB_UEVENT_SOCKET_PREFIX "%d-%ld", root, fd, (long)getpid());
        if (n < 0 || (size_t)n >= sizeof name.sun_path) {
            errno = ENAMETOOLONG;
            return -1;
        }
        /* Only this process (an earlier bind of the same descriptor, or a process
         * of the same id long gone) can have left this name behind. */
        unlink(name.sun_path);
        /* The system call itself: umockdev's bind() would rename it event<fd>. */
        return (int)syscall(SYS_bind, fd, (const struct sockaddr *)&name, (socklen_t)sizeof name);
    }
    /* Looked up once; threads racing here store the same pointer. */
    static bind_fn next;
    bind_fn found = __atomic_load_n(&next, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        found = (bind_fn)dlsym(RTLD_NEXT, "bind");
        if (found == NULL) {
            errno = ENOSYS;
            return -1;
        }
        __atomic_store_n(&next, found, __ATOMIC_RELEASE);
    }
    return found(fd, addr, len);
}
