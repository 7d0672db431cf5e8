/* libftdi1 from Debian's libftdi1-dev (pkg-config libftdi1; it pulls in libusb-1.0). */
#include <ftdi.h>
