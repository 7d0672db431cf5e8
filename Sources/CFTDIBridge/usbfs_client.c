#include "usbfs_client.h"

#include <linux/usbdevice_fs.h>
#include <string.h>
#include <sys/ioctl.h>

int hb_usbfs_take_interface(int fd, unsigned int interface)
{
    struct usbdevfs_disconnect_claim claim;
    memset(&claim, 0, sizeof claim);
    claim.interface = interface;
    claim.flags = 0; /* neither IF_DRIVER nor EXCEPT_DRIVER: whoever has it */
    return ioctl(fd, USBDEVFS_DISCONNECT_CLAIM, &claim);
}

int hb_usbfs_release_interface(int fd, unsigned int interface)
{
    return ioctl(fd, USBDEVFS_RELEASEINTERFACE, &interface);
}

int hb_usbfs_control(int fd, uint8_t request_type, uint8_t request, uint16_t value, uint16_t index, void *data,
                     uint16_t length, unsigned int timeout_ms)
{
    struct usbdevfs_ctrltransfer t = {
        .bRequestType = request_type,
        .bRequest = request,
        .wValue = value,
        .wIndex = index,
        .wLength = length,
        .timeout = timeout_ms,
        .data = data,
    };
    return ioctl(fd, USBDEVFS_CONTROL, &t);
}

int hb_usbfs_bulk(int fd, unsigned int endpoint, void *data, unsigned int length, unsigned int timeout_ms)
{
    struct usbdevfs_bulktransfer t = {
        .ep = endpoint,
        .len = length,
        .timeout = timeout_ms,
        .data = data,
    };
    return ioctl(fd, USBDEVFS_BULK, &t);
}
