#include "enumerate.h"

#include <stdio.h>
#include <string.h>

#include "hapbridge/protocol.h"
#include "hapbridge/usb_identity.h"
#include "usb_host.h"

#define FAIL_UNLESS(cond, ...)                                                                    \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            snprintf(why, why_len, __VA_ARGS__);                                                  \
            return false;                                                                         \
        }                                                                                         \
    } while (0)

/* A string descriptor is `text` (usb_identity.h) as UTF-16LE. */
static bool string_is(sim_board *b, uint8_t index, const char *text, char *why, size_t why_len)
{
    uint8_t buf[256];
    usb_setup get = {0x80, 6, (uint16_t)(0x0300u | index), HB_USB_LANGID_EN_US, 255};
    int n = usb_host_control(b, &get, buf);
    size_t len = strlen(text);
    FAIL_UNLESS(n == (int)(2 + 2 * len) && buf[0] == n && buf[1] == 3, "string %u: %d bytes", index, n);
    for (size_t i = 0; i < len; i++) {
        FAIL_UNLESS(buf[2 + 2 * i] == (uint8_t)text[i] && buf[3 + 2 * i] == 0,
                    "string %u differs from usb_identity.h at %zu", index, i);
    }
    return true;
}

bool usb_enumerate(sim_board *b, uint8_t address, char *why, size_t why_len)
{
    uint8_t buf[256];
    usb_host_bus_reset(b);

    /* Linux asks for 64 bytes first: the reply is the 18-byte descriptor
     * ending in a short packet. */
    usb_setup get_dev64 = {0x80, 6, 0x0100, 0, 64};
    int n = usb_host_control(b, &get_dev64, buf);
    FAIL_UNLESS(n == 18, "64-byte device descriptor request returned %d bytes", n);
    usb_setup get_dev = {0x80, 6, 0x0100, 0, 18};
    n = usb_host_control(b, &get_dev, buf);
    FAIL_UNLESS(n == 18, "device descriptor: %d bytes", n);
    uint16_t vid = hb_get_u16(&buf[8]), pid = hb_get_u16(&buf[10]);
    FAIL_UNLESS(vid == HB_USB_VID && pid == HB_USB_PID, "VID:PID %04x:%04x", vid, pid);
    static const uint8_t want_dev[] = HB_USB_DEVICE_DESCRIPTOR;
    FAIL_UNLESS(memcmp(buf, want_dev, sizeof want_dev) == 0, "device descriptor differs from usb_identity.h");

    usb_setup set_addr = {0x00, 5, address, 0, 0};
    FAIL_UNLESS(usb_host_control(b, &set_addr, buf) == 0, "SET_ADDRESS failed");
    sim_run_us(b, 100); /* the address is applied after the status stage */
    FAIL_UNLESS(b->avr->data[0xE3] == (0x80 | address), "UDADDR 0x%02x after SET_ADDRESS",
                b->avr->data[0xE3]);

    usb_setup get_cfg9 = {0x80, 6, 0x0200, 0, 9};
    n = usb_host_control(b, &get_cfg9, buf);
    FAIL_UNLESS(n == 9 && buf[1] == 2, "config descriptor header: %d bytes", n);
    uint16_t total = hb_get_u16(&buf[2]);
    usb_setup get_cfg = {0x80, 6, 0x0200, 0, total};
    n = usb_host_control(b, &get_cfg, buf);
    FAIL_UNLESS(n == total && total == HB_USB_CONFIGURATION_DESCRIPTOR_LEN,
                "config descriptor: %d of %u bytes", n, total);
    static const uint8_t want_cfg[] = HB_USB_CONFIGURATION_DESCRIPTOR;
    FAIL_UNLESS(memcmp(buf, want_cfg, sizeof want_cfg) == 0,
                "configuration descriptor differs from usb_identity.h");

    static const char manufacturer[] = HB_USB_MANUFACTURER;
    static const char product[] = HB_USB_PRODUCT;
    if (!string_is(b, HB_USB_STRING_MANUFACTURER, manufacturer, why, why_len) ||
        !string_is(b, HB_USB_STRING_PRODUCT, product, why, why_len)) {
        return false;
    }
    /* The serial is the board's own: 1..20 characters of the protocol's set. */
    usb_setup get_serial = {0x80, 6, 0x0300 | HB_USB_STRING_SERIAL, HB_USB_LANGID_EN_US, 255};
    n = usb_host_control(b, &get_serial, buf);
    FAIL_UNLESS(n >= 4 && n <= 2 + 2 * (int)HB_SERIAL_MAX_LEN && n % 2 == 0 && buf[0] == n && buf[1] == 3,
                "serial string: %d bytes", n);
    for (int i = 2; i < n; i += 2) {
        FAIL_UNLESS(hb_serial_char_ok(buf[i]) && buf[i + 1] == 0, "serial string character 0x%02x%02x",
                    buf[i + 1], buf[i]);
    }

    usb_setup set_cfg = {0x00, 9, HB_USB_CONFIGURATION_VALUE, 0, 0};
    FAIL_UNLESS(usb_host_control(b, &set_cfg, buf) == 0, "SET_CONFIGURATION failed");
    usb_setup get_conf = {0x80, 8, 0, 0, 1};
    n = usb_host_control(b, &get_conf, buf);
    FAIL_UNLESS(n == 1 && buf[0] == 1, "GET_CONFIGURATION: %d bytes, value %u", n, buf[0]);
    return true;
}
