#include "identity.h"

#include <avr/boot.h>
#include <avr/eeprom.h>
#include <avr/pgmspace.h>

#include "hapbridge/board_identity.h"

_Static_assert(BOOT_SECTION_START + BOOT_SECTION_SIZE - 1u == FLASHEND, "the boot section ends the flash");

static uint8_t read_boot_section(void *context, uint16_t offset)
{
    (void)context;
    return pgm_read_byte(BOOT_SECTION_START + offset);
}

void identity_read(hb_core_config *config)
{
    uint8_t record[HB_SERIAL_RECORD_LEN];
    eeprom_read_block(record, (const void *)HB_SERIAL_RECORD_EEPROM_ADDR, sizeof record);
    /* The ATmega32U4 datasheet does not document these bytes; LUFA reads
     * them as the U4 parts' internal serial.  A part without one reads them
     * erased, which hb_board_serial turns into HB_SERIAL_FALLBACK. */
    uint8_t unique_id[HB_UNIQUE_ID_LEN];
    for (uint8_t i = 0; i < HB_UNIQUE_ID_LEN; i++) {
        unique_id[i] = boot_signature_byte_get(0x0Eu + i);
    }
    config->serial_len = hb_board_serial(record, unique_id, config->serial);
    config->bootloader_kind = hb_bootloader_kind(read_boot_section, 0, BOOT_SECTION_SIZE);
}
