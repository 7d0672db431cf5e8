#include "usb_descriptors.h"

#include <avr/pgmspace.h>

#include "usb_ids.h"

#define DESC_DEVICE 1u
#define DESC_CONFIGURATION 2u
#define DESC_STRING 3u
#define DESC_INTERFACE 4u
#define DESC_ENDPOINT 5u

#define LO(x) ((uint8_t)((x) & 0xFFu))
#define HI(x) ((uint8_t)((x) >> 8))

static const uint8_t device[] PROGMEM = {
    18, DESC_DEVICE,
    LO(0x0200), HI(0x0200), /* bcdUSB 2.0 (full speed) */
    0x00, 0x00, 0x00,       /* class per interface */
    USB_EP0_SIZE,
    LO(USB_VID), HI(USB_VID),
    LO(USB_PID), HI(USB_PID),
    LO(USB_BCD_DEVICE), HI(USB_BCD_DEVICE),
    1, 2, 3, /* manufacturer, product, serial strings */
    1,       /* one configuration */
};

#define CONFIG_TOTAL (9u + 9u + 7u + 7u)

static const uint8_t configuration[] PROGMEM = {
    9, DESC_CONFIGURATION, LO(CONFIG_TOTAL), HI(CONFIG_TOTAL),
    1,    /* interfaces */
    1,    /* bConfigurationValue */
    0,    /* no string */
    0x80, /* bus powered */
    50,   /* 100 mA: the DRV2605 and an LRA stay well under it */

    9, DESC_INTERFACE, 0, 0, 2,
    0xFF, 0x00, 0x00, /* vendor specific: the host finds us by VID:PID */
    0,

    7, DESC_ENDPOINT, 0x80u | USB_EP_BULK_IN, 0x02 /* bulk */, LO(USB_BULK_SIZE), HI(USB_BULK_SIZE), 0,
    7, DESC_ENDPOINT, USB_EP_BULK_OUT, 0x02, LO(USB_BULK_SIZE), HI(USB_BULK_SIZE), 0,
};
_Static_assert(sizeof configuration == CONFIG_TOTAL, "wTotalLength mismatch");

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
