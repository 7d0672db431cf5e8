/* The board's identity from its own memories: the serial number (EEPROM
 * record, else the signature row's unique ID) and the bootloader in the boot
 * section.  Rules in hapbridge/board_identity.h. */
#ifndef IDENTITY_H
#define IDENTITY_H

#include "hapbridge/core.h"

/* The largest boot section the BOOTSZ fuses select (2048 words): scanning it
 * covers the smaller ones, since the application never reaches it (the
 * flash budget keeps it below 24 KiB). */
#define BOOT_SECTION_START 0x7000u
#define BOOT_SECTION_SIZE 0x1000u

/* Fills config's serial and bootloader kind.  Reads ~4 KiB of flash: about
 * 1.5 ms at 16 MHz, once at start-up. */
void identity_read(hb_core_config *config);

#endif
