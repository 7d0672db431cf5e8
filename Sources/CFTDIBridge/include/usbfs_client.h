/*
 * The few usbfs calls (linux/usbdevice_fs.h) the FT232H's guardian makes on a device
 * node it opened itself, without libusb: the ioctl numbers are macros Swift cannot
 * import.  Each returns what the ioctl returns (a byte count for a transfer), or -1
 * with errno set.
 */
#ifndef HAPBRIDGE_USBFS_CLIENT_H
#define HAPBRIDGE_USBFS_CLIENT_H

#include <stdint.h>

/* USBDEVFS_DISCONNECT_CLAIM with no flags: the interface taken from whatever driver
 * has it, usbfs (another open file of the node, another process) included, and
 * claimed for this file.  The other file's URBs on the interface are killed. */
int hb_usbfs_take_interface(int fd, unsigned int interface);

/* USBDEVFS_RELEASEINTERFACE. */
int hb_usbfs_release_interface(int fd, unsigned int interface);

/* USBDEVFS_CONTROL: one control transfer on endpoint 0. */
int hb_usbfs_control(int fd, uint8_t request_type, uint8_t request, uint16_t value, uint16_t index, void *data,
                     uint16_t length, unsigned int timeout_ms);

/* USBDEVFS_BULK: one bulk transfer (IN when endpoint has bit 7 set). */
int hb_usbfs_bulk(int fd, unsigned int endpoint, void *data, unsigned int length, unsigned int timeout_ms);

#endif
