#include "enumerate.h"

#include <stdio.h>

#include "hapbridge/protocol.h"
#include "usb_host.h"

#define FAIL_UNLESS(cond, ...)                                                                    \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            snprintf(why, why_len, __VA_ARGS__);                                                  \
            return false;                                                                         \
        }                                                                                         \
    } while (0)

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
    FAIL_UNLESS(buf[0] == 18 && buf[1] == 1, "not a device descriptor");
    FAIL_UNLESS(buf[7] == 64, "bMaxPacketSize0 %u", buf[7]);
    uint16_t vid = hb_get_u16(&buf[8]), pid = hb_get_u16(&buf[10]);
    FAIL_UNLESS(vid == 0x1209 && pid == 0x0001, "VID:PID %04x:%04x", vid, pid);

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
    FAIL_UNLESS(n == total && total == 32, "config descriptor: %d of %u bytes", n, total);
    FAIL_UNLESS(buf[9 + 1] == 4 && buf[9 + 5] == 0xFF, "interface is not vendor class");
    FAIL_UNLESS(buf[18 + 2] == 0x81 && buf[18 + 3] == 2 && hb_get_u16(&buf[18 + 4]) == 64,
                "endpoint 1 is not bulk IN 64");
    FAIL_UNLESS(buf[25 + 2] == 0x02 && buf[25 + 3] == 2 && hb_get_u16(&buf[25 + 4]) == 64,
                "endpoint 2 is not bulk OUT 64");

    usb_setup get_product = {0x80, 6, 0x0302, 0x0409, 255};
    n = usb_host_control(b, &get_product, buf);
    FAIL_UNLESS(n == 30 && buf[1] == 3 && buf[2] == 'h', "product string: %d bytes", n);

    usb_setup set_cfg = {0x00, 9, 1, 0, 0};
    FAIL_UNLESS(usb_host_control(b, &set_cfg, buf) == 0, "SET_CONFIGURATION failed");
    usb_setup get_conf = {0x80, 8, 0, 0, 1};
    n = usb_host_control(b, &get_conf, buf);
    FAIL_UNLESS(n == 1 && buf[0] == 1, "GET_CONFIGURATION: %d bytes, value %u", n, buf[0]);
    return true;
}
