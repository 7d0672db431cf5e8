#include "usb_descriptors.h"

#include <avr/pgmspace.h>

#include "usb_ids.h"

#define DESC_DEVICE 1u
#define DESC_CONFIGURATION 2u
#define DESC_STRING 3u

static const uint8_t device[] PROGMEM = HB_USB_DEVICE_DESCRIPTOR;
static const uint8_t configuration[] PROGMEM = HB_USB_CONFIGURATION_DESCRIPTOR;
_Static_assert(sizeof device == HB_USB_DEVICE_DESCRIPTOR_LEN, "device descriptor length");
_Static_assert(sizeof configuration == HB_USB_CONFIGURATION_DESCRIPTOR_LEN, "wTotalLength mismatch");

static const uint8_t lang[] PROGMEM = {4, DESC_STRING, 0x09, 0x04}; /* en-US */

#define STR2(c) (c), 0
static const uint8_t manufacturer[] PROGMEM = {
    2 + 2 * 9, DESC_STRING,
    STR2('h'), STR2('a'), STR2('p'), STR2('b'), STR2('r'), STR2('i'), STR2('d'), STR2('g'), STR2('e'),
};
static const uint8_t product[] PROGMEM = {
    2 + 2 * 14, DESC_STRING,
    STR2('h'), STR2('a'), STR2('p'), STR2('b'), STR2('r'), STR2('i'), STR2('d'), STR2('g'),
    STR2('e'), STR2(' '), STR2('3'), STR2('2'), STR2('U'), STR2('4'),
};
static const uint8_t serial[] PROGMEM = {
    2 + 2 * 4, DESC_STRING, STR2('0'), STR2('0'), STR2('0'), STR2('1'),
};

int usb_find_descriptor(uint8_t type, uint8_t index, usb_descriptor_ref *out)
{
    switch (type) {
    case DESC_DEVICE:
        *out = (usb_descriptor_ref){device, sizeof device};
        return 1;
    case DESC_CONFIGURATION:
        *out = (usb_descriptor_ref){configuration, sizeof configuration};
        return 1;
    case DESC_STRING: {
        static const usb_descriptor_ref strings[] = {
            {lang, sizeof lang},
            {manufacturer, sizeof manufacturer},
            {product, sizeof product},
            {serial, sizeof serial},
        };
        if (index >= sizeof strings / sizeof strings[0]) {
            return 0;
        }
        *out = strings[index];
        return 1;
    }
    default:
        return 0;
    }
}
