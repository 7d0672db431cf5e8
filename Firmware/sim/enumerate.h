/* Enumerates the firmware the way Linux does (device descriptor, address,
 * configuration, strings, SET_CONFIGURATION), checking every answer against
 * the hapbridge identity.  Shared by the test suite and serve mode, so both
 * talk to a device that enumerated exactly the same way. */
#ifndef ENUMERATE_H
#define ENUMERATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_board.h"

/* Bus reset, then the whole sequence; false with the reason in why. */
bool usb_enumerate(sim_board *b, uint8_t address, char *why, size_t why_len);

#endif
