/* Protocol 1.1 on the real ELF: version negotiation, the board's identity
 * (serial from EEPROM or the signature row, bootloader kind from the boot
 * section), untimed I2C, REPLACE_FROM at its timing, and the stack margin
 * that sizes the queue. */
#include <stdio.h>
#include <string.h>

#include "enumerate.h"
#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "hapbridge/usb_identity.h"
#include "suite.h"
#include "usb_host.h"

/* A Caterina image stand-in: code, then the AVR109 software identifier. */
const uint8_t caterina_image[] = {0x0C, 0x94, 0x00, 0x38, 0x0C, 0x94, 0x1A, 0x38, 0x11, 0x24,
                                  'C',  'A',  'T',  'E',  'R',  'I',  'N',  0x00};
const uint32_t caterina_image_len = sizeof caterina_image;
/* An Atmel DFU stand-in: its device descriptor, 03EB:2FF4. */
static const uint8_t dfu_image[] = {0x12, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x20, 0xEB,
                                    0x03, 0xF4, 0x2F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
static const uint8_t unknown_image[] = {0x0C, 0x94, 0x00, 0x38};

/* Stamps later than this fail, as in timing.c: about one I2C byte at 400 kHz. */
#define MAX_STAMP_ERROR_US 20.0

static bool hello_1_1(link_frame *r)
{
    CHECK(hello_minor(1, 1000, 0, r), "no HELLO_REPLY");
    CHECK(r->len == HB_HELLO_REPLY_INTAKE_LEN && r->payload[HB_HELLO_REPLY_OFF_MINOR] == 1,
          "reply of %u bytes, minor %u", r->len, r->payload[HB_HELLO_REPLY_OFF_MINOR]);
    return true;
}

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

static bool i2c(uint8_t type, const uint8_t *payload, uint8_t len, link_frame *result)
{
    uint8_t seq = host.tx_seq;
    CHECK(link_send(&host, type, payload, len), "send failed");
    CHECK(link_wait(&host, HB_T_I2C_RESULT, 5000, result), "no I2C_RESULT");
    CHECK(result->payload[HB_I2C_RESULT_OFF_SEQ] == seq, "result for seq %u, sent %u",
          result->payload[HB_I2C_RESULT_OFF_SEQ], seq);
    return true;
}

static bool i2c_write_then_read_round_trips_through_the_chip(void)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    uint8_t w[] = {DRV2605_I2C_ADDR, DRV2605_REG_RATED_VOLTAGE, 0x3E, 0x8C};
    if (!i2c(HB_T_I2C_WRITE, w, sizeof w, &r)) {
        return false;
    }
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK && r.len == HB_I2C_RESULT_MIN_LEN,
          "write status %u", r.payload[HB_I2C_RESULT_OFF_STATUS]);
    CHECK(chip.regs[DRV2605_REG_RATED_VOLTAGE] == 0x3E && chip.regs[DRV2605_REG_OD_CLAMP] == 0x8C,
          "chip holds 0x%02x 0x%02x", chip.regs[DRV2605_REG_RATED_VOLTAGE], chip.regs[DRV2605_REG_OD_CLAMP]);
    uint8_t rd[] = {DRV2605_I2C_ADDR, DRV2605_REG_STATUS, HB_I2C_MAX_DATA};
    if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
        return false;
    }
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_ACK &&
              r.payload[HB_I2C_RESULT_OFF_COUNT] == HB_I2C_MAX_DATA,
          "read status %u, %u bytes", r.payload[HB_I2C_RESULT_OFF_STATUS], r.payload[HB_I2C_RESULT_OFF_COUNT]);
    const uint8_t *d = &r.payload[HB_I2C_RESULT_OFF_DATA];
    CHECK(d[DRV2605_REG_STATUS] >> DRV2605_STATUS_DEVICE_ID_SHIFT == DRV2605_DEVICE_ID_DRV2605L, "STATUS 0x%02x",
          d[DRV2605_REG_STATUS]);
    CHECK(d[DRV2605_REG_RATED_VOLTAGE] == 0x3E && d[DRV2605_REG_OD_CLAMP] == 0x8C, "read back 0x%02x 0x%02x",
          d[DRV2605_REG_RATED_VOLTAGE], d[DRV2605_REG_OD_CLAMP]);
    return true;
}

static bool i2c_read_of_an_absent_address_reports_nack(void)
{
    link_frame r;
    uint8_t rd[] = {0x19, 0x0F, 1}; /* where a LIS3DH would answer */
    if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
        return false;
    }
    CHECK(r.payload[HB_I2C_RESULT_OFF_STATUS] == HB_I2C_STATUS_NACK && r.len == HB_I2C_RESULT_MIN_LEN,
          "status %u, %u bytes", r.payload[HB_I2C_RESULT_OFF_STATUS], r.len);
    return true;
}

/* START of the write that put `value` into RTP_INPUT, on the board clock. */
static bool rtp_start(uint32_t from, uint8_t value, double *start)
{
    for (uint32_t i = from; i < chip.count; i++) {
        const drv_txn *t = &chip.log[i];
        if (!t->is_read && t->reg == DRV2605_REG_RTP_INPUT && t->n >= 1 && t->bytes[0] == value) {
            *start = sim_board_us_at(&board, t->start_cycle);
            return true;
        }
    }
    return false;
}

/* A 1.1 session, then n RTP amplitudes 1, 2, .. stamped `step` apart from
 * `ahead` us on (*t0); *mark is where the chip log stood before them. */
static bool open_and_stream(uint32_t ahead, uint32_t n, uint32_t step, uint32_t *mark, uint32_t *t0)
{
    link_frame r;
    if (!hello_1_1(&r)) {
        return false;
    }
    link_pump(&host, 1000);
    *mark = chip.count;
    *t0 = stamp_in(ahead);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(send_rtp(*t0 + i * step, (uint8_t)(1u + i)), "send failed");
    }
    return true;
}

#define REPLACE_STREAM 20u
#define REPLACE_STEP_US 1000u

static bool replace_from_changes_what_plays_from_its_stamp_on_time(void)
{
    link_frame r;
    uint32_t mark, t0;
    if (!open_and_stream(6000, REPLACE_STREAM, REPLACE_STEP_US, &mark, &t0)) {
        return false;
    }
    uint32_t from = t0 + (REPLACE_STREAM / 2u) * REPLACE_STEP_US;
    uint8_t p[HB_REPLACE_FROM_LEN];
    hb_put_u32(p, from);
    CHECK(link_send(&host, HB_T_REPLACE_FROM, p, sizeof p), "send failed");
    CHECK(link_wait(&host, HB_T_REPLACED, 5000, &r), "no REPLACED");
    CHECK(r.payload[HB_REPLACED_OFF_DISCARDED] == REPLACE_STREAM / 2u, "discarded %u",
          r.payload[HB_REPLACED_OFF_DISCARDED]);
    CHECK(board_now() < t0, "the stream began before REPLACE_FROM was answered");
    for (uint32_t i = 0; i < REPLACE_STREAM / 2u; i++) {
        CHECK(send_rtp(from + i * REPLACE_STEP_US, (uint8_t)(0x80u + i)), "send failed");
    }
    link_pump(&host, (uint32_t)(from + REPLACE_STREAM / 2u * REPLACE_STEP_US - board_now()) + 2000u);
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    double worst = 0, start;
    for (uint32_t i = 0; i < REPLACE_STREAM; i++) {
        bool kept = i < REPLACE_STREAM / 2u;
        CHECK(rtp_start(mark, (uint8_t)(1u + i), &start) == kept, "amplitude %u %s", 1u + i,
              kept ? "never played" : "played after its REPLACE_FROM");
    }
    for (uint32_t i = 0; i < REPLACE_STREAM / 2u; i++) {
        CHECK(rtp_start(mark, (uint8_t)(0x80u + i), &start), "replacement %u never played", i);
        double error = start - (double)(from + i * REPLACE_STEP_US);
        CHECK(error >= 0 && error < MAX_STAMP_ERROR_US, "replacement %u started %.1f us from its stamp", i, error);
        worst = error > worst ? error : worst;
    }
    printf("# REPLACE_FROM: %u discarded, the %u replacements started 0..%.1f us after their stamps\n",
           REPLACE_STREAM / 2u, REPLACE_STREAM / 2u, worst);
    return true;
}

#define NEXT_TO_STREAM 40u
#define NEXT_TO_STEP_US 500u
#define READ_EVERY_US 1700u

/* A 32-byte untimed read holds the bus (and the lock) for its whole
 * transaction: a stamped command falling due meanwhile waits for it, and
 * never shares the bus with it. */
static bool untimed_reads_next_to_a_stream_delay_it_by_at_most_one_transaction(void)
{
    link_frame r;
    uint32_t mark, t0;
    if (!open_and_stream(4000, NEXT_TO_STREAM, NEXT_TO_STEP_US, &mark, &t0)) {
        return false;
    }
    uint32_t end = t0 + NEXT_TO_STREAM * NEXT_TO_STEP_US;
    uint32_t reads = 0;
    uint8_t rd[] = {DRV2605_I2C_ADDR, DRV2605_REG_STATUS, HB_I2C_MAX_DATA};
    while ((int32_t)(stamp_in(0) - end) < 0) {
        link_pump(&host, READ_EVERY_US);
        if (!i2c(HB_T_I2C_READ, rd, sizeof rd, &r)) {
            return false;
        }
        CHECK(r.payload[HB_I2C_RESULT_OFF_COUNT] == HB_I2C_MAX_DATA &&
                  r.payload[HB_I2C_RESULT_OFF_DATA + DRV2605_REG_OD_CLAMP] == chip.regs[DRV2605_REG_OD_CLAMP],
              "read %u came back wrong", reads);
        reads++;
    }
    link_pump(&host, 2000);
    CHECK(!link_take(&host, HB_T_NAK, &r), "NAK reason %u", r.payload[HB_NAK_OFF_REASON]);
    double longest_read = 0, worst = 0, start;
    for (uint32_t i = mark; i < chip.count; i++) {
        const drv_txn *t = &chip.log[i];
        double us = (double)(t->stop_cycle - t->start_cycle) / SIM_CYCLES_PER_US;
        if (t->is_read && us > longest_read) {
            longest_read = us;
        }
    }
    for (uint32_t i = 0; i < NEXT_TO_STREAM; i++) {
        CHECK(rtp_start(mark, (uint8_t)(1u + i), &start), "amplitude %u never played", 1u + i);
        double error = start - (double)(t0 + i * NEXT_TO_STEP_US);
        CHECK(error >= 0, "amplitude %u started %.1f us early", 1u + i, -error);
        worst = error > worst ? error : worst;
    }
    printf("# untimed 32-byte read: %.1f us on simavr's bus (~%.0f us at 400 kHz); %u reads next to %u "
           "stamped commands delayed them by at most %.1f us\n",
           longest_read, (3.0 + HB_I2C_MAX_DATA) * 9.0 / 0.4, reads, NEXT_TO_STREAM, worst);
    CHECK(worst < longest_read + MAX_STAMP_ERROR_US, "a stamped command waited %.1f us, longer than a read", worst);
    return true;
}

/* The queue takes what RAM the stack leaves: what the deepest stack of the
 * whole suite so far left unused above .bss must stay this large. */
#define STACK_MARGIN_MIN 256u

bool stack_keeps_its_margin(void)
{
    uint32_t data_bytes, free = sim_board_stack_free(&board, &data_bytes);
    uint32_t ram = board.avr->ramend - board.avr->ioend;
    printf("# RAM: %u bytes data+bss (queue of %u), stack at most %u bytes deep, %u bytes never touched\n",
           data_bytes, EXPECTED_QUEUE_CAPACITY, ram - data_bytes - free, free);
    CHECK(free >= STACK_MARGIN_MIN, "only %u bytes between .bss and the deepest stack", free);
    return true;
}

void run_protocol_1_1_tests(void)
{
    run_test("a 1.0 host's HELLO still gets the 18-byte reply", a_1_0_host_still_gets_the_18_byte_reply);
    run_test("HELLO_REPLY carries the EEPROM serial and the bootloader kind (and so does iSerialNumber)",
             hello_reply_carries_the_eeprom_serial_and_the_bootloader);
    run_test("I2C_WRITE then I2C_READ round-trip through the chip", i2c_write_then_read_round_trips_through_the_chip);
    run_test("I2C_READ of an absent address reports NACK", i2c_read_of_an_absent_address_reports_nack);
    run_test("REPLACE_FROM changes what plays from its stamp on, on time",
             replace_from_changes_what_plays_from_its_stamp_on_time);
    run_test("untimed reads next to a stream delay it by at most one transaction",
             untimed_reads_next_to_a_stream_delay_it_by_at_most_one_transaction);
}

/* ---- boards of their own ------------------------------------------------------- */

#define BOOT_MAX_US 100000u

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
