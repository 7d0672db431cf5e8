/* USB host side of simavr's 32U4 USB model: control transfers and bulk
 * packets through AVR_IOCTL_USB_*, retrying NAKs by running the CPU. */
#ifndef USB_HOST_H
#define USB_HOST_H

#include <stdint.h>

#include "sim_board.h"

#define USB_HOST_OK 0
#define USB_HOST_STALL -3
#define USB_HOST_TIMEOUT -100
#define USB_HOST_DETACHED -101

typedef struct usb_setup {
    uint8_t bm_request_type, b_request;
    uint16_t w_value, w_index, w_length;
} usb_setup;

void usb_host_bus_reset(sim_board *b);
/* Control transfer; IN data goes to buf.  Returns bytes read (>= 0) or an error. */
int usb_host_control(sim_board *b, const usb_setup *s, uint8_t *buf);
/* One bulk OUT packet (<= 64 bytes); retries NAKs. */
int usb_host_bulk_out(sim_board *b, uint8_t ep, const uint8_t *data, uint8_t len);
/* Called between the retries of a NAKed transfer.  A host controller goes on
 * polling the device's other endpoints meanwhile, and the board holds a bulk OUT
 * packet until its host has read enough of bulk IN (usb_identity.h,
 * HB_USB_OUT_REPLY_ROOM): a host that reads IN only between its sends would wait
 * on itself.  NULL: none. */
void usb_host_set_wait_hook(void (*hook)(void *ctx), void *ctx);
/* One bulk IN packet, 0 when the device has nothing. */
/* One bulk OUT attempt without retrying or running the CPU: the packet's
 * length, AVR_IOCTL_USB_NAK while the bank is full, or another error. */
int usb_host_bulk_out_once(sim_board *b, uint8_t ep, const uint8_t *data, uint8_t len);
int usb_host_bulk_in(sim_board *b, uint8_t ep, uint8_t *buf64);

#endif
