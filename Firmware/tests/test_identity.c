/* Protocol 1.1's version negotiation and the board's identity: the serial
 * number's sources and the bootloader kind. */
#include <string.h>

#include "check.h"
#include "fake_board.h"
#include "hapbridge/board_identity.h"
#include "tests.h"

static fake_board b;

static void init_identified(const char *serial, uint8_t bootloader_kind)
{
    hb_core_config config = {.tick_ns = 1000, .write_spacing_us = 321, .bootloader_kind = bootloader_kind};
    config.serial_len = (uint8_t)strlen(serial);
    memcpy(config.serial, serial, config.serial_len);
    fake_init_with(&b, &config);
}

static bool hello_from_a_1_0_host_gets_the_18_byte_reply_of_minor_0(void)
{
    init_identified("HB-0042", HB_BOOTLOADER_CATERINA);
    fake_hello_minor(&b, 0, 500, 0);
    const fake_frame *r = fake_last(&b, HB_T_HELLO_REPLY);
    CHECK(r && r->len == HB_HELLO_REPLY_LEN);
    CHECK(r->payload[HB_HELLO_REPLY_OFF_MINOR] == 0);
    CHECK(b.core.open);
    return true;
}

static bool hello_from_a_1_1_host_gets_the_serial_and_bootloader_kind(void)
{
    init_identified("HB-0042", HB_BOOTLOADER_CATERINA);
    fake_hello_minor(&b, 1, 500, 0);
    const fake_frame *r = fake_last(&b, HB_T_HELLO_REPLY);
    CHECK(r && r->len == HB_HELLO_REPLY_LATCH_LEN);
    CHECK(r->payload[HB_HELLO_REPLY_OFF_MINOR] == 1);
    uint16_t caps = hb_get_u16(&r->payload[HB_HELLO_REPLY_OFF_CAPS]);
    CHECK((caps & (HB_CAP_RAW_I2C | HB_CAP_REPLACE_FROM | HB_CAP_IDENTITY)) ==
          (HB_CAP_RAW_I2C | HB_CAP_REPLACE_FROM | HB_CAP_IDENTITY));
    CHECK(r->payload[HB_HELLO_REPLY_OFF_BOOTLOADER] == HB_BOOTLOADER_CATERINA);
    CHECK(r->payload[HB_HELLO_REPLY_OFF_SERIAL_LEN] == 7);
    CHECK(memcmp(&r->payload[HB_HELLO_REPLY_OFF_SERIAL], "HB-0042", 7) == 0);
    for (uint8_t i = 7; i < HB_SERIAL_MAX_LEN; i++) {
        CHECK(r->payload[HB_HELLO_REPLY_OFF_SERIAL + i] == 0); /* zero padded */
    }
    return true;
}

static bool hello_from_a_1_1_host_states_the_ports_intake(void)
{
    init_identified("HB-0042", HB_BOOTLOADER_NONE);
    fake_hello_minor(&b, 1, 500, 0);
    const fake_frame *r = fake_last(&b, HB_T_HELLO_REPLY);
    CHECK(r && r->len == HB_HELLO_REPLY_LATCH_LEN);
    CHECK(hb_get_u16(&r->payload[HB_HELLO_REPLY_OFF_WRITE_SPACING_US]) == 321);
    CHECK(hb_board_payload_len_ok(HB_T_HELLO_REPLY, HB_HELLO_REPLY_INTAKE_LEN));
    return true;
}

static bool hello_from_a_1_1_host_states_the_latch_lead(void)
{
    /* spin 60 + lead to START 8 + a MODE write and the carrying write, 82 each */
    hb_core_config config = {.tick_ns = 500, .exec_lead_us = 8, .write_us = 82, .spin_us = 60};
    fake_init_with(&b, &config);
    fake_hello_minor(&b, 1, 500, 0);
    const fake_frame *r = fake_last(&b, HB_T_HELLO_REPLY);
    CHECK(r && r->len == HB_HELLO_REPLY_LATCH_LEN);
    CHECK(hb_get_u16(&r->payload[HB_HELLO_REPLY_OFF_LATCH_LEAD_US]) == 60 + 8 + 2 * 82);
    /* A board whose I2C takes no board time (the simulated one) needs none. */
    init_identified("X", HB_BOOTLOADER_NONE);
    fake_hello_minor(&b, 1, 500, 0);
    r = fake_last(&b, HB_T_HELLO_REPLY);
    CHECK(r && hb_get_u16(&r->payload[HB_HELLO_REPLY_OFF_LATCH_LEAD_US]) == 0);
    return true;
}

static bool hello_from_a_later_minor_is_answered_at_the_boards_minor(void)
{
    init_identified("X", HB_BOOTLOADER_NONE);
    fake_hello_minor(&b, 9, 500, 0);
    const fake_frame *r = fake_last(&b, HB_T_HELLO_REPLY);
    CHECK(r && r->payload[HB_HELLO_REPLY_OFF_MINOR] == HB_PROTO_VERSION_MINOR);
    CHECK(r->len == HB_HELLO_REPLY_LATCH_LEN);
    return true;
}

static bool board_reply_lengths_follow_the_negotiated_minor(void)
{
    /* 1.0 hosts need exactly 18; 1.1 hosts take 40 or more (later minors
     * may append); nothing between. */
    CHECK(hb_board_payload_len_ok(HB_T_HELLO_REPLY, HB_HELLO_REPLY_LEN));
    CHECK(!hb_board_payload_len_ok(HB_T_HELLO_REPLY, HB_HELLO_REPLY_LEN + 1));
    CHECK(!hb_board_payload_len_ok(HB_T_HELLO_REPLY, HB_HELLO_REPLY_1_1_LEN - 1));
    CHECK(hb_board_payload_len_ok(HB_T_HELLO_REPLY, HB_HELLO_REPLY_1_1_LEN));
    CHECK(hb_board_payload_len_ok(HB_T_HELLO_REPLY, HB_FRAME_MAX_PAYLOAD));
    CHECK(hb_board_payload_len_ok(HB_T_I2C_RESULT, HB_I2C_RESULT_MIN_LEN));
    CHECK(hb_board_payload_len_ok(HB_T_I2C_RESULT, HB_I2C_RESULT_MIN_LEN + HB_I2C_MAX_DATA));
    CHECK(!hb_board_payload_len_ok(HB_T_I2C_RESULT, HB_I2C_RESULT_MIN_LEN + HB_I2C_MAX_DATA + 1));
    CHECK(hb_board_payload_len_ok(HB_T_REPLACED, HB_REPLACED_LEN));
    CHECK(hb_host_payload_len_ok(HB_T_I2C_READ, HB_I2C_READ_LEN));
    CHECK(!hb_host_payload_len_ok(HB_T_I2C_WRITE, HB_I2C_WRITE_MIN_LEN - 1));
    CHECK(hb_host_payload_len_ok(HB_T_I2C_WRITE, HB_I2C_WRITE_MAX_LEN));
    CHECK(!hb_host_payload_len_ok(HB_T_I2C_WRITE, HB_I2C_WRITE_MAX_LEN + 1));
    CHECK(hb_host_payload_len_ok(HB_T_REPLACE_FROM, HB_REPLACE_FROM_LEN));
    return true;
}

/* ---- serial number --------------------------------------------------------- */

static uint8_t serial_of(const uint8_t *record, const uint8_t *unique_id, char *text)
{
    uint8_t out[HB_SERIAL_MAX_LEN];
    uint8_t n = hb_board_serial(record, unique_id, out);
    memcpy(text, out, n);
    text[n] = 0;
    return n;
}

static void make_record(uint8_t *record, const char *serial)
{
    memset(record, 0xFF, HB_SERIAL_RECORD_LEN);
    memcpy(record, HB_SERIAL_RECORD_MAGIC, HB_SERIAL_RECORD_MAGIC_LEN);
    record[HB_SERIAL_RECORD_OFF_LEN] = (uint8_t)strlen(serial);
    memcpy(&record[HB_SERIAL_RECORD_OFF_TEXT], serial, strlen(serial));
}

static const uint8_t unique_id[HB_UNIQUE_ID_LEN] = {0x59, 0x36, 0x33, 0x31, 0x30, 0x17, 0x0E, 0x10, 0x0A, 0xFF};

static bool serial_comes_from_a_valid_eeprom_record(void)
{
    uint8_t record[HB_SERIAL_RECORD_LEN];
    char text[HB_SERIAL_MAX_LEN + 1];
    make_record(record, "bench-7_A.1");
    CHECK(serial_of(record, unique_id, text) == 11 && strcmp(text, "bench-7_A.1") == 0);
    make_record(record, "ABCDEFGHIJKLMNOPQRST"); /* the longest: 20 */
    CHECK(serial_of(record, unique_id, text) == 20);
    return true;
}

static bool an_invalid_eeprom_record_is_ignored(void)
{
    uint8_t record[HB_SERIAL_RECORD_LEN];
    char text[HB_SERIAL_MAX_LEN + 1];
    make_record(record, "ok");
    record[0] = 'X'; /* magic */
    CHECK(serial_of(record, unique_id, text) == 20 && strcmp(text, "5936333130170E100AFF") == 0);
    make_record(record, "has space");
    CHECK(serial_of(record, unique_id, text) == 20);
    make_record(record, "ok");
    record[HB_SERIAL_RECORD_OFF_LEN] = 0;
    CHECK(serial_of(record, unique_id, text) == 20);
    record[HB_SERIAL_RECORD_OFF_LEN] = HB_SERIAL_MAX_LEN + 1;
    CHECK(serial_of(record, unique_id, text) == 20);
    memset(record, 0xFF, sizeof record); /* erased EEPROM */
    CHECK(serial_of(record, unique_id, text) == 20);
    return true;
}

static bool without_a_record_the_unique_id_gives_twenty_hex_digits(void)
{
    uint8_t record[HB_SERIAL_RECORD_LEN];
    char text[HB_SERIAL_MAX_LEN + 1];
    memset(record, 0xFF, sizeof record);
    CHECK(serial_of(record, unique_id, text) == 2 * HB_UNIQUE_ID_LEN);
    CHECK(strcmp(text, "5936333130170E100AFF") == 0);
    return true;
}

static bool without_record_or_readable_unique_id_the_serial_says_unset(void)
{
    uint8_t record[HB_SERIAL_RECORD_LEN], blank[HB_UNIQUE_ID_LEN];
    char text[HB_SERIAL_MAX_LEN + 1];
    memset(record, 0xFF, sizeof record);
    CHECK(serial_of(record, NULL, text) == 5 && strcmp(text, HB_SERIAL_FALLBACK) == 0);
    memset(blank, 0xFF, sizeof blank);
    CHECK(serial_of(record, blank, text) == 5 && strcmp(text, HB_SERIAL_FALLBACK) == 0);
    memset(blank, 0x00, sizeof blank);
    CHECK(serial_of(record, blank, text) == 5 && strcmp(text, HB_SERIAL_FALLBACK) == 0);
    return true;
}

static bool core_clamps_an_overlong_configured_serial(void)
{
    hb_core_config config = {.tick_ns = 1000, .serial_len = 200};
    fake_init_with(&b, &config);
    CHECK(b.core.config.serial_len == HB_SERIAL_MAX_LEN);
    return true;
}

/* ---- bootloader kind ------------------------------------------------------- */

static uint8_t image[4096];

static uint8_t read_image(void *context, uint16_t offset)
{
    (void)context;
    return image[offset];
}

static uint8_t kind_with(const uint8_t *bytes, size_t n, uint16_t at)
{
    memset(image, 0xFF, sizeof image);
    if (n) {
        memcpy(&image[at], bytes, n);
    }
    return hb_bootloader_kind(read_image, NULL, sizeof image);
}

static bool blank_boot_section_means_no_bootloader(void)
{
    CHECK(kind_with(NULL, 0, 0) == HB_BOOTLOADER_NONE);
    return true;
}

static bool caterina_is_found_by_its_avr109_identifier(void)
{
    /* Caterina answers AVR109 'S' with "CATERIN": its image holds the string,
     * here after a false start ("CACATERIN"). */
    static const uint8_t code[] = {0x0C, 0x94, 'C', 'A', 'C', 'A', 'T', 'E', 'R', 'I', 'N', 0};
    CHECK(kind_with(code, sizeof code, 0x0E00) == HB_BOOTLOADER_CATERINA);
    static const uint8_t almost[] = {'C', 'A', 'T', 'E', 'R', 'I', 'X'};
    CHECK(kind_with(almost, sizeof almost, 0x10) == HB_BOOTLOADER_UNKNOWN);
    return true;
}

static bool atmel_dfu_is_found_by_its_device_descriptor(void)
{
    /* bLength, DEVICE, bcdUSB, class, subclass, protocol, EP0 size, then
     * idVendor 0x03EB, idProduct 0x2FF4 little-endian. */
    static const uint8_t descriptor[] = {0x12, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x20,
                                         0xEB, 0x03, 0xF4, 0x2F, 0x00, 0x00};
    CHECK(kind_with(descriptor, sizeof descriptor, 0x0FF0) == HB_BOOTLOADER_ATMEL_DFU);
    return true;
}

static bool anything_else_in_the_boot_section_is_unknown(void)
{
    static const uint8_t code[] = {0x0C, 0x94, 0x34, 0x00};
    CHECK(kind_with(code, sizeof code, 0) == HB_BOOTLOADER_UNKNOWN);
    return true;
}

const test_case identity_tests[] = {
    {"a 1.0 host's HELLO gets the 18-byte reply of minor 0", hello_from_a_1_0_host_gets_the_18_byte_reply_of_minor_0},
    {"a 1.1 host's HELLO gets the serial and bootloader kind (44 bytes with the intake and latch lead)",
     hello_from_a_1_1_host_gets_the_serial_and_bootloader_kind},
    {"a 1.1 HELLO_REPLY states the port's intake (least us between stamped writes)",
     hello_from_a_1_1_host_states_the_ports_intake},
    {"a 1.1 HELLO_REPLY states the latch lead (spin + lead to START + a MODE write + the write)",
     hello_from_a_1_1_host_states_the_latch_lead},
    {"a later minor's HELLO is answered at the board's minor", hello_from_a_later_minor_is_answered_at_the_boards_minor},
    {"reply length tables follow the negotiated minor", board_reply_lengths_follow_the_negotiated_minor},
    {"serial comes from a valid EEPROM record", serial_comes_from_a_valid_eeprom_record},
    {"an invalid EEPROM record is ignored", an_invalid_eeprom_record_is_ignored},
    {"without a record the unique ID gives 20 hex digits", without_a_record_the_unique_id_gives_twenty_hex_digits},
    {"without record or readable unique ID the serial says UNSET",
     without_record_or_readable_unique_id_the_serial_says_unset},
    {"the core clamps an over-long configured serial", core_clamps_an_overlong_configured_serial},
    {"a blank boot section means no bootloader", blank_boot_section_means_no_bootloader},
    {"Caterina is found by its AVR109 identifier", caterina_is_found_by_its_avr109_identifier},
    {"Atmel DFU is found by its device descriptor", atmel_dfu_is_found_by_its_device_descriptor},
    {"anything else in the boot section is unknown", anything_else_in_the_boot_section_is_unknown},
    TEST_LIST_END,
};
