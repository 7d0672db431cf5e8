/* What the probe's command files share: finding a board, frames over bulk
 * OUT / IN, and how failures end the run (probe.c). */
#ifndef USB_EMULATION_PROBE_H
#define USB_EMULATION_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include <libusb-1.0/libusb.h>

/* Guards against a hang only: nothing waits for them to pass. */
#define TIMEOUT_MS 5000u
#define GUARD_SECONDS 20.0

/* Bytes read from bulk IN and not yet taken as frames. */
typedef struct rx {
    uint8_t bytes[4096];
    int len;
} rx;

/* The next host sequence number send_frame uses. */
extern uint8_t host_seq;

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
double now_us(void);
/* Dies naming `what` when a libusb call failed. */
void check(int r, const char *what);
/* Opens the first board, or the one with this serial; claims its interface. */
libusb_device_handle *open_board(libusb_context *ctx, const char *serial);
void send_frame(libusb_device_handle *h, uint8_t type, const uint8_t *payload, uint8_t len);
/* The first whole, valid frame in r (removed): its type, or -1 when none is whole. */
int take_frame(rx *r, uint8_t *payload, uint8_t *len);
int next_frame(libusb_device_handle *h, rx *r, uint8_t *payload, uint8_t *len, double deadline, const char *what);
void wait_frame(libusb_device_handle *h, rx *r, uint8_t type, uint8_t *payload, uint8_t *len);
/* HELLO with this keep-alive; the reply's payload into `reply`, its length returned. */
uint8_t hello(libusb_device_handle *h, rx *r, uint16_t keepalive_ms, uint8_t *reply);

/* claims.c: two files of the node and usbfs's claims (DISCONNECT_CLAIM, GETDRIVER). */
int cmd_claims(libusb_context *ctx);

/* wire.c: the USB conversation both backings must answer alike. */
int cmd_chapter9(libusb_context *ctx);
int cmd_halt_rounds(libusb_context *ctx, int rounds);
int cmd_halt_pending(libusb_context *ctx);
int cmd_burst(libusb_context *ctx, uint8_t type, int count);

#endif
