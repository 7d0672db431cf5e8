/* Descriptor tables (in flash) of the vendor-class interface. */
#ifndef USB_DESCRIPTORS_H
#define USB_DESCRIPTORS_H

#include <stdint.h>

typedef struct usb_descriptor_ref {
    const uint8_t *data; /* program memory */
    uint8_t len;
} usb_descriptor_ref;

/* type/index from GET_DESCRIPTOR's wValue; false when we have none. */
int usb_find_descriptor(uint8_t type, uint8_t index, usb_descriptor_ref *out);

#endif
