/*
 * claims: two open files of the board's node, as two processes hold it, and what
 * usbfs lets one do to the other's claim (drivers/usb/core/devio.c): a claimed
 * interface is bound to the driver "usbfs" (GETDRIVER), CLAIMINTERFACE from the
 * other file is EBUSY, and DISCONNECT_CLAIM takes it anyway unless its flags say
 * otherwise, killing the first file's URBs on it (reaped with -ENOENT), after which
 * that file's transfers are EBUSY and its RELEASEINTERFACE EINVAL.  What the
 * FT232H's guardian relies on to take the adapter from a stopped player.
 *
 * One line: "claims key=value ...", each value 0, an errno name or a number.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <linux/usbdevice_fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hapbridge/usb_identity.h"
#include "probe.h"

static const char *result(int r)
{
    static char text[16][32];
    static int next;
    char *t = text[next++ % 16];
    if (r >= 0) {
        snprintf(t, sizeof text[0], "%d", r);
    } else {
        snprintf(t, sizeof text[0], "%s", strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    }
    return t;
}

static int take(int fd, unsigned flags, const char *driver)
{
    struct usbdevfs_disconnect_claim dc;
    memset(&dc, 0, sizeof dc);
    dc.interface = HB_USB_INTERFACE_NUMBER;
    dc.flags = flags;
    snprintf(dc.driver, sizeof dc.driver, "%s", driver);
    return ioctl(fd, USBDEVFS_DISCONNECT_CLAIM, &dc);
}

/* The driver GETDRIVER names for the interface, or the errno's name, into `out`. */
static const char *driver_of(int fd, char *out, size_t size)
{
    struct usbdevfs_getdriver gd;
    memset(&gd, 0, sizeof gd);
    gd.interface = HB_USB_INTERFACE_NUMBER;
    snprintf(out, size, "%s", ioctl(fd, USBDEVFS_GETDRIVER, &gd) == 0 ? gd.driver : result(-1));
    return out;
}

int cmd_claims(libusb_context *ctx)
{
    libusb_device **list;
    ssize_t n = libusb_get_device_list(ctx, &list);
    check((int)n, "libusb_get_device_list");
    char path[64] = "";
    for (ssize_t i = 0; i < n && !path[0]; i++) {
        struct libusb_device_descriptor d;
        if (libusb_get_device_descriptor(list[i], &d) == 0 && d.idVendor == HB_USB_VID && d.idProduct == HB_USB_PID) {
            snprintf(path, sizeof path, "/dev/bus/usb/%03u/%03u", libusb_get_bus_number(list[i]),
                     libusb_get_device_address(list[i]));
        }
    }
    libusb_free_device_list(list, 1);
    if (!path[0]) {
        die("no 1209:0001 board");
    }
    int a = open(path, O_RDWR | O_CLOEXEC), b = open(path, O_RDWR | O_CLOEXEC);
    if (a < 0 || b < 0) {
        die("open %s: %s", path, strerror(errno));
    }
    unsigned ifn = HB_USB_INTERFACE_NUMBER;
    char driver_before[64], driver_claimed[64], driver_released[64];
    driver_of(b, driver_before, sizeof driver_before);
    const char *a_claim = result(ioctl(a, USBDEVFS_CLAIMINTERFACE, &ifn));
    /* A bulk IN pending on a: the board has nothing to say, so it stays pending. */
    unsigned char buffer[64];
    struct usbdevfs_urb urb;
    memset(&urb, 0, sizeof urb);
    urb.type = USBDEVFS_URB_TYPE_BULK;
    urb.endpoint = HB_USB_EP_BULK_IN;
    urb.buffer = buffer;
    urb.buffer_length = sizeof buffer;
    const char *a_submit = result(ioctl(a, USBDEVFS_SUBMITURB, &urb));
    const char *b_claim = result(ioctl(b, USBDEVFS_CLAIMINTERFACE, &ifn));
    driver_of(b, driver_claimed, sizeof driver_claimed);
    const char *except_usbfs = result(take(b, USBDEVFS_DISCONNECT_CLAIM_EXCEPT_DRIVER, "usbfs"));
    const char *if_other = result(take(b, USBDEVFS_DISCONNECT_CLAIM_IF_DRIVER, "ftdi_sio"));
    const char *take_any = result(take(b, 0, ""));
    /* a's URB, killed by the take: reapable at once (a bound guards against a hang). */
    struct usbdevfs_urb *reaped = NULL;
    double deadline = now_us() + GUARD_SECONDS * 1e6;
    int r;
    while ((r = ioctl(a, USBDEVFS_REAPURBNDELAY, &reaped)) < 0 && errno == EAGAIN && now_us() < deadline) {
        usleep(1000);
    }
    const char *a_reap = result(r);
    int a_status = reaped == &urb ? urb.status : 1;
    memset(&urb, 0, sizeof urb);
    urb.type = USBDEVFS_URB_TYPE_BULK;
    urb.endpoint = HB_USB_EP_BULK_IN;
    urb.buffer = buffer;
    urb.buffer_length = sizeof buffer;
    const char *a_submit_after = result(ioctl(a, USBDEVFS_SUBMITURB, &urb));
    const char *a_release = result(ioctl(a, USBDEVFS_RELEASEINTERFACE, &ifn));
    const char *b_release = result(ioctl(b, USBDEVFS_RELEASEINTERFACE, &ifn));
    driver_of(a, driver_released, sizeof driver_released);
    printf("claims driver_before=%s a_claim=%s a_submit=%s b_claim=%s driver_claimed=%s except_usbfs=%s if_other=%s "
           "take=%s a_reap=%s a_urb_status=%d a_submit_after=%s a_release=%s b_release=%s driver_released=%s\n",
           driver_before, a_claim, a_submit, b_claim, driver_claimed, except_usbfs, if_other, take_any, a_reap, a_status,
           a_submit_after, a_release, b_release, driver_released);
    close(a);
    close(b);
    return 0;
}
