/* The firmware as a USB device under the suite's host model: enumeration and
 * endpoint 0's answer to a request it does not support. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"
#include "enumerate.h"
#include "usb_host.h"

static bool enumerates_as_vendor_device(void)
{
    return usb_enumerate(&board, 7, why, sizeof why);
}

static bool unsupported_request_stalls(void)
{
    uint8_t buf[64];
    usb_setup vendor = {0xC0, 0x42, 0, 0, 4};
    int n = usb_host_control(&board, &vendor, buf);
    CHECK(n == USB_HOST_STALL, "vendor request returned %d, not STALL", n);
    usb_setup get_conf = {0x80, 8, 0, 0, 1};
    CHECK(usb_host_control(&board, &get_conf, buf) == 1, "endpoint 0 did not recover");
    return true;
}

void run_usb_device_tests(void)
{
    run_test("enumerates as a vendor-class device", enumerates_as_vendor_device);
    run_test("unsupported control request stalls", unsupported_request_stalls);
}
