/* USB identity of the hapbridge board.  1209:0001 is the pid.codes *test*
 * PID: fine for development and CI, not for boards given to others (apply
 * to pid.codes for a PID of our own before that). */
#ifndef USB_IDS_H
#define USB_IDS_H

#define USB_VID 0x1209u
#define USB_PID 0x0001u
#define USB_BCD_DEVICE 0x0001u /* firmware 0.1 */

#define USB_EP0_SIZE 64u
#define USB_EP_BULK_IN 1u  /* board -> host frames */
#define USB_EP_BULK_OUT 2u /* host -> board frames */
#define USB_BULK_SIZE 64u

#endif
