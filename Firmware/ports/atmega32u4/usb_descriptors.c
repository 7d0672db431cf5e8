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

static const char manufacturer[] PROGMEM = HB_USB_MANUFACTURER;
static const char product[] PROGMEM = HB_USB_PRODUCT;
_Static_assert(sizeof manufacturer - 1u <= HB_SERIAL_MAX_LEN && sizeof product - 1u <= HB_SERIAL_MAX_LEN,
               "string descriptors fit USB_STRING_DESCRIPTOR_MAX");

static const uint8_t *serial;
static uint8_t serial_len;

void usb_descriptors_set_serial(const uint8_t *ascii, uint8_t len)
{
    serial = ascii;
    serial_len = len <= HB_SERIAL_MAX_LEN ? len : HB_SERIAL_MAX_LEN;
}

/* ASCII to a string descriptor: UTF-16LE, each character then a zero. */
static uint8_t string_descriptor(uint8_t *out, const uint8_t *ascii, uint8_t n, bool in_flash)
{
    out[0] = (uint8_t)(2u + 2u * n);
    out[1] = DESC_STRING;
    for (uint8_t i = 0; i < n; i++) {
        out[2u + 2u * i] = in_flash ? pgm_read_byte(&ascii[i]) : ascii[i];
        out[3u + 2u * i] = 0;
    }
    return out[0];
}

bool usb_find_descriptor(uint8_t type, uint8_t index, usb_descriptor_ref *out,
                         uint8_t scratch[USB_STRING_DESCRIPTOR_MAX])
{
    switch (type) {
    /* One device and one configuration descriptor, both index 0: any other index
     * names a descriptor the device lacks, a Request Error (USB 2.0 9.4.3). */
    case DESC_DEVICE:
        if (index != 0) {
            return false;
        }
        *out = (usb_descriptor_ref){device, sizeof device, true};
        return true;
    case DESC_CONFIGURATION:
        if (index != 0) {
            return false;
        }
        *out = (usb_descriptor_ref){configuration, sizeof configuration, true};
        return true;
    case DESC_STRING: {
        uint8_t len;
        switch (index) {
        case 0: /* the supported language IDs */
            scratch[0] = 4;
            scratch[1] = DESC_STRING;
            scratch[2] = HB_USB_LO(HB_USB_LANGID_EN_US);
            scratch[3] = HB_USB_HI(HB_USB_LANGID_EN_US);
            len = 4;
            break;
        case HB_USB_STRING_MANUFACTURER:
            len = string_descriptor(scratch, (const uint8_t *)manufacturer, sizeof manufacturer - 1u, true);
            break;
        case HB_USB_STRING_PRODUCT:
            len = string_descriptor(scratch, (const uint8_t *)product, sizeof product - 1u, true);
            break;
        case HB_USB_STRING_SERIAL:
            len = string_descriptor(scratch, serial, serial_len, false);
            break;
        default:
            return false;
        }
        *out = (usb_descriptor_ref){scratch, len, false};
        return true;
    }
    default:
        return false;
    }
}
