/* The port's names for the board's USB identity, derived from the one
 * definition in hapbridge/usb_identity.h (shared with the host). */
#ifndef USB_IDS_H
#define USB_IDS_H

#include "hapbridge/usb_identity.h"

#define USB_EP0_SIZE HB_USB_EP0_SIZE
/* Endpoint numbers (UENUM) of the two bulk endpoints. */
#define USB_EP_BULK_IN (HB_USB_EP_BULK_IN & 0x0Fu)   /* board -> host frames */
#define USB_EP_BULK_OUT (HB_USB_EP_BULK_OUT & 0x0Fu) /* host -> board frames */
#define USB_BULK_SIZE HB_USB_BULK_SIZE

#endif
