/*
 * The board's identity as HELLO_REPLY and the USB serial string report it:
 * its serial number and the kind of bootloader in its boot section.  The
 * rules are portable (host unit tests pin them); a port supplies the bytes
 * (EEPROM, signature row, boot section) and the simavr harness preloads them
 * through the same layout.
 */
#ifndef HAPBRIDGE_BOARD_IDENTITY_H
#define HAPBRIDGE_BOARD_IDENTITY_H

#include <stdint.h>

#include "hapbridge/protocol.h"

/* The EEPROM serial record's layout (HB_SERIAL_RECORD_*) is the protocol's
 * (protocol.h): `hapbridge flash --serial` writes it through the bootloader. */

/* A factory-unique ID, read as hex when the EEPROM has no serial: on the
 * ATmega32U4 the 10 signature-row bytes at 0x0E..0x17 (the bytes LUFA's
 * internal serial reads on the U4 parts); 20 hex digits fill the serial. */
#define HB_UNIQUE_ID_LEN 10u

/* The serial into out (HB_SERIAL_MAX_LEN bytes): from the EEPROM record when
 * it is valid (magic, 1..20 characters, all hb_serial_char_ok), else from
 * unique_id (NULL when the part has none) unless it reads all 0x00 or all
 * 0xFF (erased or unreadable), else HB_SERIAL_FALLBACK (protocol.h).  Returns the length. */
uint8_t hb_board_serial(const uint8_t record[HB_SERIAL_RECORD_LEN],
                        const uint8_t *unique_id, uint8_t out[HB_SERIAL_MAX_LEN]);

/* ---- Bootloader kind -----------------------------------------------------
 * Judged from the bytes of the boot section (read through read_byte, which
 * the AVR port implements with LPM):
 *   all 0xFF                               HB_BOOTLOADER_NONE (erased)
 *   contains "CATERIN"                     HB_BOOTLOADER_CATERINA: Caterina
 *       answers AVR109's 'S' (software identifier) with "CATERIN", a
 *       string its image holds
 *   contains EB 03 F4 2F                   HB_BOOTLOADER_ATMEL_DFU: the
 *       idVendor/idProduct of a device descriptor for 03EB:2FF4, the VID:PID
 *       Atmel's DFU bootloader for the ATmega32U4 enumerates with
 *   anything else                          HB_BOOTLOADER_UNKNOWN
 */
typedef uint8_t (*hb_read_byte_fn)(void *context, uint16_t offset);
uint8_t hb_bootloader_kind(hb_read_byte_fn read_byte, void *context, uint16_t size);

#endif /* HAPBRIDGE_BOARD_IDENTITY_H */
