/* The line protocol both serve modes speak on stdout/stdin (serve.c for the
 * Swift SimavrBridgeDevice, usb_serve.c for the USB emulation): one flushed
 * line per reply or event, bytes as lower-case hex. */
#ifndef LINE_IO_H
#define LINE_IO_H

#include <stddef.h>
#include <stdint.h>

/* printf to stdout as one line, flushed at once: the host reads line by line. */
void line_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* n bytes as 2n hex digits and a terminating 0 (out holds 2n + 1). */
void hex_encode(char *out, const uint8_t *bytes, size_t n);

/* An I2C register transaction as the host reads it: the register pointer, then n
 * data bytes, as hex (out holds 2n + 3). */
void hex_encode_register_access(char *out, uint8_t reg, const uint8_t *bytes, size_t n);

/* "chip w SIM_US HEX": a write that reached the host's chip (--chip host) at its
 * STOP, the register pointer then the n data bytes; both serve modes send it.
 * `peer` is the line's first word: "chip" (the DRV2605), "accel" (--accel). */
void line_out_peer_write(const char *peer, double stop_us, uint8_t reg, const uint8_t *bytes, size_t n);

/* Hex text up to its end or a space, to bytes: how many, or -1 when it is not
 * whole bytes of hex or more than cap of them. */
int hex_decode(const char *text, uint8_t *out, size_t cap);

/* --accel ADDR: a 7-bit I2C address as hex ("18", "0x19"), one a device may
 * have (0x08..0x77) and not the DRV2605's 0x5A; -1 otherwise. */
int parse_i2c_address(const char *text);

#endif
