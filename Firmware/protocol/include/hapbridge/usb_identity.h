/*
 * USB identity of the hapbridge bridge board: the single definition shared by
 * the firmware (its descriptors), the simavr harness (its enumeration
 * checks), the emulations and the Swift host (discovery by VID:PID, the
 * endpoints it claims).  Plain C11 macros only, so Swift imports the numbers
 * and strings unchanged.
 *
 * 1209:0001 is the pid.codes *test* PID: fine for development and CI, not for
 * boards given to others (apply to pid.codes for a PID of our own before that).
 */
#ifndef HAPBRIDGE_USB_IDENTITY_H
#define HAPBRIDGE_USB_IDENTITY_H

#include "hapbridge/firmware_version.h"

#define HB_USB_VID 0x1209u
#define HB_USB_PID 0x0001u
/* bcdDevice: the firmware version as BCD, 0xJJNN for major JJ, minor NN
 * (each 0..99). */
#define HB_USB_BCD(x) ((((x) / 10u) << 4) | ((x) % 10u))
#define HB_USB_BCD_DEVICE ((HB_USB_BCD(HB_FW_VERSION_MAJOR) << 8) | HB_USB_BCD(HB_FW_VERSION_MINOR))

/* String descriptors, ASCII (sent as UTF-16LE, built at request time from
 * these).  The serial number is each board's own: HELLO_REPLY carries the
 * same string (protocol.h, HB_SERIAL_MAX_LEN). */
#define HB_USB_MANUFACTURER "hapbridge"
#define HB_USB_PRODUCT "hapbridge 32U4"
#define HB_USB_STRING_MANUFACTURER 1u
#define HB_USB_STRING_PRODUCT 2u
#define HB_USB_STRING_SERIAL 3u
#define HB_USB_LANGID_EN_US 0x0409u

/* One configuration, one vendor-class interface with two bulk endpoints. */
#define HB_USB_CONFIGURATION_VALUE 1u
#define HB_USB_INTERFACE_NUMBER 0u
#define HB_USB_INTERFACE_CLASS 0xFFu /* vendor specific: found by VID:PID */
#define HB_USB_MAX_POWER_MA 200u     /* covers the worst case (Hardware/boards/README.md, SupplyCurrentTests) */
#define HB_USB_EP0_SIZE 64u
#define HB_USB_EP_BULK_IN 0x81u  /* board -> host frames (address, direction bit set) */
#define HB_USB_EP_BULK_OUT 0x02u /* host -> board frames */
#define HB_USB_BULK_SIZE 64u     /* full speed bulk */
/* The ATmega32U4 port's bulk IN ring: frames the board sends wait here for the
 * endpoint's one 64-byte bank, and a frame that does not fit whole is dropped (a
 * gap in the board's sequence numbers).  A power of two, at most 128.  The core
 * emulation models the same ring, so what works there works on a board. */
#define HB_USB_IN_RING_BYTES 128u
/* The port takes a bulk OUT packet only while its IN ring has room for every NAK
 * the packet's stamped commands can draw: the shortest is a stamped STOP
 * (HB_CMD_STOP_LEN + HB_FRAME_OVERHEAD = 10 bytes), so at most 7 frames end in one
 * 64-byte packet, and 7 NAKs take 70 bytes. A refusal is then never dropped for
 * want of room, and the host can account for every command it sent: until there
 * is room the packet stays in the bank and the host controller retries it (USB's
 * own flow control; a board holds it for as long as its host leaves bulk IN
 * unread). Larger replies to a packet full of requests (QUEUE_STATUS, HELLO_REPLY)
 * can still outgrow the ring: a host asks one at a time. */
#define HB_USB_OUT_REPLY_ROOM 70u /* usb.c checks the sum above */

/* ---- Descriptor bytes, as initialiser lists: each side stores them its own
 * way (program memory on the AVR, a plain array on the host). ------------ */
#define HB_USB_LO(x) ((x) & 0xFFu)
#define HB_USB_HI(x) (((x) >> 8) & 0xFFu)

#define HB_USB_DEVICE_DESCRIPTOR_LEN 18u
#define HB_USB_DEVICE_DESCRIPTOR                                                                   \
    {                                                                                              \
        HB_USB_DEVICE_DESCRIPTOR_LEN, 1u,       /* bLength, DEVICE */                              \
        HB_USB_LO(0x0200u), HB_USB_HI(0x0200u), /* bcdUSB 2.0 (full speed) */                      \
        0x00u, 0x00u, 0x00u,                    /* class per interface */                          \
        HB_USB_EP0_SIZE,                                                                           \
        HB_USB_LO(HB_USB_VID), HB_USB_HI(HB_USB_VID),                                              \
        HB_USB_LO(HB_USB_PID), HB_USB_HI(HB_USB_PID),                                              \
        HB_USB_LO(HB_USB_BCD_DEVICE), HB_USB_HI(HB_USB_BCD_DEVICE),                                \
        HB_USB_STRING_MANUFACTURER, HB_USB_STRING_PRODUCT, HB_USB_STRING_SERIAL,                   \
        1u, /* one configuration */                                                                \
    }

#define HB_USB_CONFIGURATION_DESCRIPTOR_LEN (9u + 9u + 7u + 7u)
#define HB_USB_CONFIGURATION_DESCRIPTOR                                                            \
    {                                                                                              \
        9u, 2u, HB_USB_LO(HB_USB_CONFIGURATION_DESCRIPTOR_LEN),                                    \
        HB_USB_HI(HB_USB_CONFIGURATION_DESCRIPTOR_LEN),                                            \
        1u, /* interfaces */                                                                       \
        HB_USB_CONFIGURATION_VALUE,                                                                \
        0u,                       /* no string */                                                  \
        0x80u,                    /* bus powered */                                                \
        HB_USB_MAX_POWER_MA / 2u, /* in 2 mA units */                                              \
                                                                                                   \
        9u, 4u, HB_USB_INTERFACE_NUMBER, 0u, 2u, /* INTERFACE 0, alt 0, two endpoints */           \
        HB_USB_INTERFACE_CLASS, 0x00u, 0x00u, 0u,                                                  \
                                                                                                   \
        7u, 5u, HB_USB_EP_BULK_IN, 0x02u /* bulk */, HB_USB_LO(HB_USB_BULK_SIZE),                  \
        HB_USB_HI(HB_USB_BULK_SIZE), 0u,                                                           \
        7u, 5u, HB_USB_EP_BULK_OUT, 0x02u, HB_USB_LO(HB_USB_BULK_SIZE),                            \
        HB_USB_HI(HB_USB_BULK_SIZE), 0u,                                                           \
    }

#endif /* HAPBRIDGE_USB_IDENTITY_H */
