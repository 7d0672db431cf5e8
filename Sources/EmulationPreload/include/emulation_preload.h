/*
 * The library `hapbridge emulate` preloads into COMMAND (and itself) in front of
 * umockdev's: no API, only interposed libc calls (see uevent_socket.c).
 */
#ifndef HAPBRIDGE_EMULATION_PRELOAD_H
#define HAPBRIDGE_EMULATION_PRELOAD_H

/* The prefix of the socket names this library binds under $UMOCKDEV_DIR: "event",
 * then the descriptor, "-", the process id. umockdev's uevent sender finds its
 * listeners by the glob "event[0-9]*" (uevent_sender.c), which these names match. */
#define HB_UEVENT_SOCKET_PREFIX "event"

#endif
