/* Streams stamped commands the way a host would (clock sync, look-ahead),
 * then matches every bus transaction to its command and reports the error
 * between stamp and bus START in simulated microseconds. */
#ifndef TIMING_H
#define TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drv_model.h"
#include "link.h"
#include "sim_board.h"

void timing_set_commands(uint32_t n);
uint32_t timing_commands(void);
bool timing_stream(sim_board *b, drv_model *chip, link *host, char *why, size_t why_len);

#endif
