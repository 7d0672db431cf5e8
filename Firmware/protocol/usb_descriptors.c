/* The descriptor bytes of usb_identity.h as plain arrays, for host code that
 * answers USB requests on the board's behalf (the emulations) or checks what a
 * board returned.  The AVR port stores the same initialisers in flash. */
#include "hapbridge/usb_descriptors.h"

const uint8_t hb_usb_device_descriptor[HB_USB_DEVICE_DESCRIPTOR_LEN] = HB_USB_DEVICE_DESCRIPTOR;
const uint8_t hb_usb_configuration_descriptor[HB_USB_CONFIGURATION_DESCRIPTOR_LEN] =
    HB_USB_CONFIGURATION_DESCRIPTOR;
