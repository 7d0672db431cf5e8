/* Descriptor tables of the vendor-class interface: device and configuration
 * bytes in flash, string descriptors built at request time from the ASCII of
 * usb_identity.h and the board's serial number. */
#ifndef USB_DESCRIPTORS_H
#define USB_DESCRIPTORS_H

#include <stdbool.h>
#include <stdint.h>

#include "hapbridge/protocol.h"

/* The longest string descriptor: the 20-character serial as UTF-16LE. */
#define USB_STRING_DESCRIPTOR_MAX (2u + 2u * HB_SERIAL_MAX_LEN)

typedef struct usb_descriptor_ref {
    const uint8_t *data;
    uint8_t len;
    bool in_flash; /* data is in program memory (else RAM) */
} usb_descriptor_ref;

/* The serial number iSerialNumber returns: ASCII, kept by the caller for as
 * long as the device runs (the core's configuration). */
void usb_descriptors_set_serial(const uint8_t *ascii, uint8_t len);

/* type/index from GET_DESCRIPTOR's wValue; false when we have none.  String
 * descriptors are built in scratch. */
bool usb_find_descriptor(uint8_t type, uint8_t index, usb_descriptor_ref *out,
                         uint8_t scratch[USB_STRING_DESCRIPTOR_MAX]);

#endif
