/* sim-harness --usb: the real firmware ELF under simavr, paced to real time, as
 * the device behind `hapbridge emulate bridge --firmware elf`: raw USB traffic
 * over a line protocol on stdin/stdout (described at the top of usb_serve.c). */
#ifndef USB_SERVE_H
#define USB_SERVE_H

#include <stdint.h>

#define USB_SERVE_DEFAULT_POLL_US 125u

/* sim-harness --usb FIRMWARE.elf [--serial S] [--poll-us N] [--fifo-priority N]:
 * boots the board the suite boots (its serial record in EEPROM, Caterina in the
 * boot section), resets the bus and serves until "quit" or end of input.  0, 1 when the
 * firmware could not be loaded or the simulated CPU stopped, 2 for bad usage. */
int usb_serve_command(int argc, char **argv);

#endif
