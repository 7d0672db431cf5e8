/* usb_identity.h's descriptors as arrays (host side; see usb_descriptors.c). */
#ifndef HAPBRIDGE_USB_DESCRIPTORS_H
#define HAPBRIDGE_USB_DESCRIPTORS_H

#include <stdint.h>

#include "hapbridge/usb_identity.h"

extern const uint8_t hb_usb_device_descriptor[HB_USB_DEVICE_DESCRIPTOR_LEN];
extern const uint8_t hb_usb_configuration_descriptor[HB_USB_CONFIGURATION_DESCRIPTOR_LEN];

#endif
