/* sim-harness --serve: the real firmware ELF under simavr, driven by another
 * program (the Swift SimavrBridgeDevice) over a line protocol on stdin/stdout.
 * The protocol is described at the top of serve.c. */
#ifndef SERVE_H
#define SERVE_H

#include <stdbool.h>
#include <stdint.h>

#define SERVE_DEFAULT_POLL_US 125u

/* Boots, enumerates and serves until "quit" or end of input: 0, or 1 when the
 * firmware could not be loaded, enumerated, or the simulated CPU stopped.
 * chip_on_host: the host answers for the DRV2605 (--chip host, serve.c);
 * accel_addr: an accelerometer the host answers for at that address (--accel;
 * 0: none on the bus). */
int serve_main(const char *elf_path, uint32_t poll_us, bool chip_on_host, uint8_t accel_addr);

#endif
