/* Protocol 1.1's version negotiation and the board's identity: the serial
 * from EEPROM or the signature row, and the bootloader kind from the boot
 * section, each on a board powered up with those memories. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"
#include "enumerate.h"
#include "hapbridge/usb_identity.h"
#include "usb_host.h"

/* An Atmel DFU stand-in: its device descriptor, 03EB:2FF4. */
static const uint8_t dfu_image[] = {0x12, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x20, 0xEB,
                                    0x03, 0xF4, 0x2F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t unknown_image[] = {0x0C, 0x94, 0x00, 0x38};

static bool serial_in_reply_is(const link_frame *r, const char *serial)
{
    uint8_t n = r->payload[HB_HELLO_REPLY_OFF_SERIAL_LEN];
    CHECK(n == strlen(serial) && memcmp(&r->payload[HB_HELLO_REPLY_OFF_SERIAL], serial, n) == 0,
          "serial '%.*s', wanted '%s'", n, (const char *)&r->payload[HB_HELLO_REPLY_OFF_SERIAL], serial);
    return true;
}

/* iSerialNumber must say what HELLO_REPLY says. */
static bool usb_serial_string_is(const char *serial)
{
    uint8_t buf[256];
    usb_setup get = {0x80, 6, 0x0300 | HB_USB_STRING_SERIAL, HB_USB_LANGID_EN_US, 255};
    int n = usb_host_control(&board, &get, buf);
    size_t len = strlen(serial);
    CHECK(n == (int)(2 + 2 * len) && buf[0] == n && buf[1] == 3, "serial string descriptor: %d bytes", n);
    for (size_t i = 0; i < len; i++) {
        CHECK(buf[2 + 2 * i] == (uint8_t)serial[i] && buf[3 + 2 * i] == 0, "serial string differs at %zu", i);
    }
    return true;
}

static bool a_1_0_host_still_gets_the_18_byte_reply(void)
{
    link_frame r;
    CHECK(hello_minor(0, 1000, 0, &r), "no HELLO_REPLY");
    CHECK(r.len == HB_HELLO_REPLY_LEN, "reply of %u bytes", r.len);
    CHECK(r.payload[HB_HELLO_REPLY_OFF_MINOR] == 0, "minor %u", r.payload[HB_HELLO_REPLY_OFF_MINOR]);
    return true;
}

static bool hello_reply_carries_the_eeprom_serial_and_the_bootloader(void)
{
    link_frame r;
    if (!hello_1_1(&r) || !serial_in_reply_is(&r, suite_serial) || !usb_serial_string_is(suite_serial)) {
        return false;
    }
    CHECK(r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER] == HB_BOOTLOADER_CATERINA, "bootloader kind %u",
          r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER]);
    uint16_t caps = hb_get_u16(&r.payload[HB_HELLO_REPLY_OFF_CAPS]);
    CHECK((caps & (HB_CAP_RAW_I2C | HB_CAP_REPLACE_FROM | HB_CAP_IDENTITY)) ==
              (HB_CAP_RAW_I2C | HB_CAP_REPLACE_FROM | HB_CAP_IDENTITY),
          "capabilities 0x%04x", caps);
    return true;
}

void run_identity_tests(void)
{
    run_test("a 1.0 host's HELLO still gets the 18-byte reply", a_1_0_host_still_gets_the_18_byte_reply);
    run_test("HELLO_REPLY carries the EEPROM serial and the bootloader kind (and so does iSerialNumber)",
             hello_reply_carries_the_eeprom_serial_and_the_bootloader);
}

/* ---- boards of their own ------------------------------------------------------- */

/* simavr keeps one instance per MCU model, so a board with other memories
 * is the same one powered up again with them. */
static bool boot_and_hello(const char *eeprom_serial, const uint8_t *image, uint32_t len, link_frame *r)
{
    uint32_t boots = board.boots;
    sim_board_set_memories(&board, eeprom_serial, image, len);
    sim_board_reset(&board);
    avr_cycle_count_t reset = board.avr->cycle;
    link_init(&host, &board);
    CHECK(sim_board_boot(&board, BOOT_MAX_US), "no boot within %u us of the reset", BOOT_MAX_US);
    board.boots = boots; /* expected */
    printf("# reset to Timer1 start (identity read: EEPROM, signature row, boot section scan): %.0f us\n",
           (double)(board.timer1_start - reset) / SIM_CYCLES_PER_US);
    if (!usb_enumerate(&board, 7, why, sizeof why)) {
        return false;
    }
    return hello_1_1(r);
}

static bool without_an_eeprom_serial_the_signature_row_gives_it(void)
{
    link_frame r;
    if (!boot_and_hello(NULL, NULL, 0, &r)) {
        return false;
    }
    /* simavr 1.6 does not implement SIGRD: the signature-row read is an LPM
     * of the flash at 0x0E..0x17, so those bytes are the "unique ID" here. */
    char want[HB_SERIAL_MAX_LEN + 1];
    for (uint32_t i = 0; i < 10; i++) {
        snprintf(&want[2 * i], 3, "%02X", board.avr->flash[0x0E + i]);
    }
    CHECK(r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER] == HB_BOOTLOADER_NONE, "bootloader kind %u with a blank boot section",
          r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER]);
    return serial_in_reply_is(&r, want) && usb_serial_string_is(want);
}

static bool an_atmel_dfu_boot_section_is_recognised(void)
{
    link_frame r;
    if (!boot_and_hello("HB-DFU", dfu_image, sizeof dfu_image, &r)) {
        return false;
    }
    CHECK(r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER] == HB_BOOTLOADER_ATMEL_DFU, "bootloader kind %u",
          r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER]);
    return serial_in_reply_is(&r, "HB-DFU");
}

static bool an_unrecognised_boot_section_is_reported_as_such(void)
{
    link_frame r;
    if (!boot_and_hello("HB-X", unknown_image, sizeof unknown_image, &r)) {
        return false;
    }
    CHECK(r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER] == HB_BOOTLOADER_UNKNOWN, "bootloader kind %u",
          r.payload[HB_HELLO_REPLY_OFF_BOOTLOADER]);
    return true;
}

void run_identity_boot_tests(void)
{
    run_test("without an EEPROM serial, the signature row gives it (and a blank boot section: no bootloader)",
             without_an_eeprom_serial_the_signature_row_gives_it);
    run_test("an Atmel DFU boot section is recognised", an_atmel_dfu_boot_section_is_recognised);
    run_test("an unrecognised boot section is reported as such", an_unrecognised_boot_section_is_reported_as_such);
}

