/* The stops the core makes on its own, and the host's stop requests. */
#include "check.h"
#include "fake_board.h"
#include "hapbridge/drv2605_regs.h"
#include "tests.h"

static fake_board b;

static void drive(uint16_t keepalive_ms, uint16_t max_drive_ms, uint8_t amplitude)
{
    fake_init(&b);
    fake_hello(&b, keepalive_ms, max_drive_ms);
    fake_rtp(&b, b.now_us + 100, amplitude);
    fake_advance(&b, 200);
}

static bool host_silence_stops_the_actuator_and_ends_the_session(void)
{
    drive(50, 0, 0x50);
    CHECK(b.regs[DRV2605_REG_RTP_INPUT] == 0x50);
    fake_advance(&b, 49000);
    CHECK(fake_last_stop_reason(&b) == 0);
    fake_advance(&b, 2000);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_HOST_SILENT && fake_chip_stopped(&b) && !b.core.open);
    fake_rtp(&b, b.now_us + 100, 0x51);
    CHECK(fake_last(&b, HB_T_NAK)->payload[HB_NAK_OFF_REASON] == HB_NAK_NOT_OPEN);
    return true;
}

static bool hello_of_another_major_ends_the_session_and_the_drive(void)
{
    /* Found by the fuzzer: the session closed, the actuator drove on, and
     * the host-silence stop (which watches open sessions) never came. */
    drive(50, 0, 0x52);
    uint8_t p[HB_HELLO_LEN] = {HB_PROTO_VERSION_MAJOR + 1};
    fake_send(&b, HB_T_HELLO, p, sizeof p);
    CHECK(fake_last(&b, HB_T_NAK)->payload[HB_NAK_OFF_REASON] == HB_NAK_VERSION && !b.core.open);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_HOST_REQUEST && fake_chip_stopped(&b));
    return true;
}

static bool any_valid_frame_keeps_the_host_alive(void)
{
    drive(50, 0, 0x50);
    for (int i = 0; i < 10; i++) {
        fake_advance(&b, 40000);
        fake_send(&b, HB_T_KEEPALIVE, NULL, 0);
    }
    CHECK(fake_last_stop_reason(&b) == 0 && b.regs[DRV2605_REG_RTP_INPUT] == 0x50);
    return true;
}

static bool drive_longer_than_the_limit_is_stopped(void)
{
    drive(1000, 30, 0x60);
    uint32_t started = b.now_us;
    fake_advance(&b, 25000);
    fake_rtp(&b, b.now_us + 10, 0x61); /* a new amplitude continues the same drive */
    fake_advance(&b, 10000);
    const fake_frame *f = fake_last(&b, HB_T_EVENT_STOPPED);
    CHECK(f && f->payload[HB_STOPPED_OFF_REASON] == HB_STOP_MAX_DRIVE && fake_chip_stopped(&b));
    uint32_t at = hb_get_u32(&f->payload[HB_STOPPED_OFF_AT_US]);
    CHECK(at - started >= 29800 && at - started <= 30100);
    return true;
}

static bool zero_amplitude_ends_a_drive(void)
{
    drive(1000, 30, 0x60);
    fake_rtp(&b, b.now_us + 20000, 0);
    fake_rtp(&b, b.now_us + 21000, 0x62); /* a new drive starts its own clock */
    fake_advance(&b, 40000);
    CHECK(fake_last_stop_reason(&b) == 0);
    return true;
}

static bool over_current_latches_a_fault_and_refuses_drive_until_cleared(void)
{
    drive(1000, 0, 0x70);
    b.regs[DRV2605_REG_STATUS] |= DRV2605_STATUS_OC_DETECT;
    fake_advance(&b, HB_STATUS_POLL_US + 100);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_FAULT && fake_chip_stopped(&b));
    CHECK(b.core.faults & HB_FAULT_OVER_CURRENT);
    fake_rtp(&b, b.now_us + 100, 0x71);
    CHECK(fake_last(&b, HB_T_NAK)->payload[HB_NAK_OFF_REASON] == HB_NAK_FAULT);
    b.regs[DRV2605_REG_STATUS] &= (uint8_t)~DRV2605_STATUS_OC_DETECT;
    fake_send(&b, HB_T_CLEAR_FAULT, NULL, 0);
    CHECK(fake_last(&b, HB_T_ACK) != NULL && b.core.faults == 0);
    fake_rtp(&b, b.now_us + 100, 0x72);
    fake_advance(&b, 200);
    CHECK(b.regs[DRV2605_REG_RTP_INPUT] == 0x72);
    return true;
}

static bool chip_nack_during_a_command_latches_an_i2c_fault(void)
{
    drive(1000, 0, 0x70);
    fake_rtp(&b, b.now_us + 100, 0x73);
    fake_rtp(&b, b.now_us + 200, 0x74);
    b.nack = true;
    fake_advance(&b, 150);
    b.nack = false;
    fake_advance(&b, 200);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_FAULT && (b.core.faults & HB_FAULT_I2C));
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x74) == 0); /* flushed, never run */
    return true;
}

static bool stop_all_flushes_the_queue_and_stops_at_once(void)
{
    drive(1000, 0, 0x70);
    fake_rtp(&b, b.now_us + 1000, 0x75);
    fake_send(&b, HB_T_STOP_ALL, NULL, 0);
    CHECK(fake_chip_stopped(&b) && hb_queue_count(&b.core.queue) == 0 && fake_last(&b, HB_T_ACK));
    fake_advance(&b, 2000);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x75) == 0);
    return true;
}

static bool bootloader_entry_needs_the_magic_and_stops_first(void)
{
    drive(1000, 0, 0x70);
    uint8_t p[HB_ENTER_BOOTLOADER_LEN];
    hb_put_u32(p, 0);
    fake_send(&b, HB_T_ENTER_BOOTLOADER, p, sizeof p);
    CHECK(b.bootloader_calls == 0 && fake_last(&b, HB_T_NAK)->payload[HB_NAK_OFF_REASON] == HB_NAK_BAD_ARG);
    hb_put_u32(p, HB_BOOT_MAGIC);
    fake_send(&b, HB_T_ENTER_BOOTLOADER, p, sizeof p);
    CHECK(b.bootloader_calls == 1 && fake_chip_stopped(&b) && fake_last(&b, HB_T_ACK));
    return true;
}

static bool status_poll_keeps_off_the_bus_when_a_command_is_due(void)
{
    fake_init(&b);
    fake_hello(&b, 1000, 0);
    uint32_t poll_at = b.core.next_status_poll_us;
    fake_advance(&b, poll_at - b.now_us - 100);
    fake_rtp(&b, poll_at + 50, 0x44); /* due right when the poll would read */
    uint32_t reads = b.read_count;
    fake_advance(&b, 120);
    CHECK(b.read_count == reads); /* deferred */
    fake_advance(&b, 100);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x44) == 1 && b.read_count == reads + 1);
    return true;
}

static bool status_poll_leaves_room_for_the_ports_transaction_overhead(void)
{
    /* A port whose every transaction costs a USB round trip (the hosted
     * FT232H) states it: a poll that fits the 400 kHz guard but not the
     * round trip waits for the command, as the board's own guard would. */
    hb_core_config config = {.tick_ns = 1000, .transaction_overhead_us = 600};
    fake_init_with(&b, &config);
    fake_hello(&b, 1000, 0);
    uint32_t poll_at = b.core.next_status_poll_us;
    fake_advance(&b, poll_at - b.now_us - 100);
    fake_rtp(&b, poll_at + 500, 0x44); /* 500 us of free bus: enough at 400 kHz alone */
    uint32_t reads = b.read_count;
    fake_advance(&b, 300);
    CHECK(b.read_count == reads); /* deferred: the round trip would run into the command */
    fake_advance(&b, 400);
    CHECK(fake_writes_of(&b, DRV2605_REG_RTP_INPUT, 0x44) == 1 && b.read_count == reads + 1);
    return true;
}

/* A port's own STATUS reading (the recent_status hook), as the hosted FT232H
 * takes one in the same transfer as each write. */
static uint8_t port_status;
static bool port_has_status;
static uint32_t asked_max_age_us;

static bool port_recent_status(void *context, uint32_t max_age_us, uint8_t *status)
{
    (void)context;
    asked_max_age_us = max_age_us;
    *status = port_status;
    return port_has_status;
}

static bool status_poll_takes_the_ports_recent_reading_without_the_bus(void)
{
    fake_init(&b);
    b.core.hooks.recent_status = port_recent_status;
    fake_hello(&b, 1000, 0);
    fake_rtp(&b, b.now_us + 100, 0x50);
    port_has_status = true;
    port_status = (uint8_t)(DRV2605_DEVICE_ID_DRV2605L << DRV2605_STATUS_DEVICE_ID_SHIFT);
    uint32_t reads = b.read_count;
    fake_advance(&b, 2u * HB_STATUS_POLL_US);
    CHECK(b.read_count == reads && fake_last_stop_reason(&b) == 0); /* polled, no bus read */
    CHECK(asked_max_age_us == HB_STATUS_POLL_US / 2u);
    port_status |= DRV2605_STATUS_OVER_TEMP;
    fake_advance(&b, HB_STATUS_POLL_US + 100);
    CHECK(fake_last_stop_reason(&b) == HB_STOP_FAULT && (b.core.faults & HB_FAULT_OVER_TEMP));
    CHECK(b.read_count == reads);
    return true;
}

static bool status_poll_reads_the_chip_when_the_port_has_no_recent_reading(void)
{
    fake_init(&b);
    b.core.hooks.recent_status = port_recent_status;
    port_has_status = false;
    fake_hello(&b, 1000, 0);
    uint32_t reads = b.read_count;
    fake_advance(&b, HB_STATUS_POLL_US + 100);
    CHECK(b.read_count == reads + 1);
    return true;
}

static bool status_poll_is_not_starved_by_a_dense_stream(void)
{
    fake_init(&b);
    fake_hello(&b, 1000, 0);
    b.regs[DRV2605_REG_STATUS] |= DRV2605_STATUS_OVER_TEMP;
    /* a command every 200 us, ten always queued: never 250 us of free bus */
    uint32_t at = b.now_us;
    for (int i = 0; i < 10; i++) {
        fake_rtp(&b, at += 200, 0x30);
    }
    for (uint32_t t = 0; t < 3u * HB_STATUS_POLL_US && fake_last_stop_reason(&b) == 0; t += 200) {
        fake_rtp(&b, at += 200, 0x30);
        fake_advance(&b, 200);
    }
    CHECK(fake_last_stop_reason(&b) == HB_STOP_FAULT && (b.core.faults & HB_FAULT_OVER_TEMP));
    return true;
}

static bool rom_sequence_drive_ends_when_the_chip_clears_go(void)
{
    fake_init(&b);
    fake_hello(&b, 1000, 40);
    uint8_t p[HB_CMD_ROM_MIN_LEN];
    hb_put_u32(p, b.now_us + 100);
    p[HB_CMD_ROM_OFF_ENTRIES] = 1;
    fake_send(&b, HB_T_CMD_ROM_SEQ, p, sizeof p);
    fake_advance(&b, 200);
    CHECK(b.core.drive == HB_DRIVE_SEQUENCE);
    b.regs[DRV2605_REG_GO] = 0; /* the sequencer finished */
    fake_advance(&b, HB_GO_POLL_US + 100);
    CHECK(b.core.drive == HB_DRIVE_IDLE);
    fake_advance(&b, 50000);
    CHECK(fake_last_stop_reason(&b) == 0);
    return true;
}

const test_case safety_tests[] = {
    {"a HELLO of another major ends the session and the drive", hello_of_another_major_ends_the_session_and_the_drive},
    {"host silence stops the actuator and ends the session", host_silence_stops_the_actuator_and_ends_the_session},
    {"any valid frame keeps the host alive", any_valid_frame_keeps_the_host_alive},
    {"drive longer than the limit is stopped", drive_longer_than_the_limit_is_stopped},
    {"zero amplitude ends a drive", zero_amplitude_ends_a_drive},
    {"over-current latches a fault and refuses drive until cleared", over_current_latches_a_fault_and_refuses_drive_until_cleared},
    {"chip NACK during a command latches an I2C fault", chip_nack_during_a_command_latches_an_i2c_fault},
    {"STOP_ALL flushes the queue and stops at once", stop_all_flushes_the_queue_and_stops_at_once},
    {"bootloader entry needs the magic and stops first", bootloader_entry_needs_the_magic_and_stops_first},
    {"status poll keeps off the bus when a command is due", status_poll_keeps_off_the_bus_when_a_command_is_due},
    {"status poll leaves room for the port's transaction overhead", status_poll_leaves_room_for_the_ports_transaction_overhead},
    {"status poll is not starved by a dense stream", status_poll_is_not_starved_by_a_dense_stream},
    {"status poll takes the port's recent reading without the bus", status_poll_takes_the_ports_recent_reading_without_the_bus},
    {"status poll reads the chip when the port has no recent reading", status_poll_reads_the_chip_when_the_port_has_no_recent_reading},
    {"ROM-sequence drive ends when the chip clears GO", rom_sequence_drive_ends_when_the_chip_clears_go},
    TEST_LIST_END,
};
