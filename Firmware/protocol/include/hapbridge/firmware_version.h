/*
 * The firmware's own version: reported in HELLO_REPLY and, as BCD, in the USB
 * device descriptor's bcdDevice (usb_identity.h).  The one definition.
 */
#ifndef HAPBRIDGE_FIRMWARE_VERSION_H
#define HAPBRIDGE_FIRMWARE_VERSION_H

#define HB_FW_VERSION_MAJOR 0u
#define HB_FW_VERSION_MINOR 2u

#endif /* HAPBRIDGE_FIRMWARE_VERSION_H */
