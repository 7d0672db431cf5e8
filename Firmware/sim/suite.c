/* The simavr suite's framework: the board, its chip and the host link every
 * test shares, the runner and its assertions, and the board's set-up. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "suite.h"

sim_board board;
drv_model chip;
drv_model accel;
static uint8_t accel_addr;
static const drv_host *accel_host;

void fit_accel(uint8_t addr, const drv_host *host)
{
    accel_addr = addr;
    accel_host = host;
}

static const uint8_t *eeprom_image;
static uint16_t eeprom_image_len;

void fit_eeprom(const uint8_t *bytes, uint16_t n)
{
    eeprom_image = bytes;
    eeprom_image_len = n;
}
link host;
static int passed, failed;
char why[256];

bool fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return false;
}

void run_test(const char *name, bool (*fn)(void))
{
    why[0] = 0;
    uint32_t boots = board.boots;
    bool ok = fn();
    if (ok && board.boots != boots) {
        ok = fail("firmware rebooted %u time(s) during the test", board.boots - boots);
    }
    if (ok && board.crashed) {
        ok = fail("simulated CPU stopped");
    }
    printf("%s - sim: %s%s%s\n", ok ? "ok" : "not ok", name, ok ? "" : ": ", why);
    fflush(stdout);
    ok ? passed++ : failed++;
}

int suite_summary(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* A Caterina image stand-in: code, then the AVR109 software identifier. */
const uint8_t caterina_image[] = {0x0C, 0x94, 0x00, 0x38, 0x0C, 0x94, 0x1A, 0x38, 0x11, 0x24,
                                  'C',  'A',  'T',  'E',  'R',  'I',  'N',  0x00};
const uint32_t caterina_image_len = sizeof caterina_image;

/* What the main suite's board finds at boot: a serial in EEPROM and a
 * Caterina image in its boot section. */
const char suite_serial[] = "HB-SIM-0001";


bool boot_board(const char *elf_path, const char *eeprom_serial, const uint8_t *boot_image,
                uint32_t boot_image_len)
{
    return boot_board_with_chip(elf_path, eeprom_serial, boot_image, boot_image_len, NULL);
}

bool boot_board_with_chip(const char *elf_path, const char *eeprom_serial, const uint8_t *boot_image,
                          uint32_t boot_image_len, const drv_host *chip_host)
{
    return boot_board_with_application(elf_path, eeprom_serial, boot_image, boot_image_len, chip_host, NULL, 0);
}

bool boot_board_with_application(const char *elf_path, const char *eeprom_serial, const uint8_t *boot_image,
                                 uint32_t boot_image_len, const drv_host *chip_host, const uint8_t *application,
                                 uint32_t application_len)
{
    if (!sim_board_load(&board, elf_path)) {
        return false;
    }
    if (application) {
        if (application_len > SIM_BOOT_SECTION_START) {
            fprintf(stderr, "the application (%u bytes) reaches into the boot section at 0x%04x\n", application_len,
                    SIM_BOOT_SECTION_START);
            return false;
        }
        memset(board.avr->flash, 0xFF, SIM_BOOT_SECTION_START);
        sim_board_preload_flash(&board, 0, application, application_len);
    }
    sim_board_set_memories(&board, eeprom_serial, boot_image, boot_image_len);
    if (eeprom_image) {
        /* The whole EEPROM as a bootloader left it, over the serial record. */
        sim_board_preload_eeprom(&board, 0, eeprom_image, eeprom_image_len);
    }
    if (!sim_board_paint_stack(&board)) {
        fprintf(stderr, "no __bss_end in the ELF\n");
        return false;
    }
    drv_model_attach(&chip, board.avr);
    drv_model_use_host(&chip, chip_host);
    memset(&accel, 0, sizeof accel);
    if (accel_addr) {
        drv_model_attach_at(&accel, board.avr, accel_addr, accel_host);
    }
    link_init(&host, &board);
    return sim_board_boot(&board, BOOT_MAX_US);
}
