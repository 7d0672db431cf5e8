/* libusb 1.0 from Debian's libusb-1.0-0-dev (pkg-config libusb-1.0). */
#include <libusb.h>
