/* The safety stops on the real ELF: a latched chip fault, a drive past its
 * limit, a silent host; and the watchdog behind them. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"

static bool latched_fault_stops_actuator(void)
{
    link_frame r;
    CHECK(hello(1000, 0, &r), "no HELLO_REPLY");
    CHECK(send_rtp(stamp_in(1000), 0x60), "send failed");
    link_pump(&host, 3000);
    CHECK(chip.regs[DRV2605_REG_RTP_INPUT] == 0x60, "drive did not start");
    chip.regs[DRV2605_REG_STATUS] |= DRV2605_STATUS_OC_DETECT;
    double t0 = sim_now_us(&board);
    CHECK(link_wait(&host, HB_T_EVENT_STOPPED, 100000, &r), "no EVENT_STOPPED");
    CHECK(r.payload[HB_STOPPED_OFF_REASON] == HB_STOP_FAULT, "reason %u",
          r.payload[HB_STOPPED_OFF_REASON]);
    CHECK(r.at_us - t0 < 25000, "stop took %.0f us", r.at_us - t0);
    CHECK(chip_stopped(), "chip still driving");
    CHECK(send_rtp(stamp_in(1000), 0x61), "send failed");
    if (!expect_nak(HB_NAK_FAULT, NULL)) {
        return false;
    }
    CHECK(link_send(&host, HB_T_CHIP_STATUS_REQ, NULL, 0), "send failed");
    CHECK(link_wait(&host, HB_T_CHIP_STATUS, 5000, &r), "no CHIP_STATUS");
    CHECK(r.payload[HB_CSTAT_OFF_FAULTS] & HB_FAULT_OVER_CURRENT, "fault not reported");
    chip.regs[DRV2605_REG_STATUS] &= (uint8_t)~DRV2605_STATUS_OC_DETECT;
    CHECK(link_send(&host, HB_T_CLEAR_FAULT, NULL, 0), "send failed");
    CHECK(link_wait(&host, HB_T_ACK, 5000, &r), "CLEAR_FAULT not acknowledged");
    uint32_t mark = chip.count;
    CHECK(send_rtp(stamp_in(1000), 0x62), "send failed");
    link_pump(&host, 3000);
    CHECK(wrote(mark, DRV2605_REG_RTP_INPUT, 0x62), "drive refused after CLEAR_FAULT");
    CHECK(link_send(&host, HB_T_STOP_ALL, NULL, 0), "send failed");
    CHECK(link_wait(&host, HB_T_ACK, 5000, &r) && chip_stopped(), "STOP_ALL did not stop");
    return true;
}

static bool over_long_drive_is_stopped(void)
{
    link_frame r;
    CHECK(hello(1000, 30, &r), "no HELLO_REPLY");
    CHECK(hb_get_u16(&r.payload[HB_HELLO_REPLY_OFF_MAX_DRIVE_MS]) == 30, "limit not taken");
    uint32_t start = stamp_in(1000);
    CHECK(send_rtp(start, 0x70), "send failed");
    for (int i = 0; i < 8 && !link_take(&host, HB_T_EVENT_STOPPED, &r); i++) {
        CHECK(link_send(&host, HB_T_KEEPALIVE, NULL, 0), "send failed");
        link_pump(&host, 10000);
    }
    CHECK(r.len == HB_EVENT_STOPPED_LEN && r.payload[HB_STOPPED_OFF_REASON] == HB_STOP_MAX_DRIVE,
          "no max-drive stop");
    uint32_t at = hb_get_u32(&r.payload[HB_STOPPED_OFF_AT_US]);
    int32_t after = (int32_t)(at - start);
    CHECK(after >= 30000 && after < 31000, "stopped %d us after the drive began", after);
    CHECK(chip_stopped(), "chip still driving");
    return true;
}

static bool host_silence_stops_actuator(void)
{
    link_frame r;
    CHECK(hello(50, 0, &r), "no HELLO_REPLY");
    CHECK(send_rtp(stamp_in(1000), 0x71), "send failed");
    double last_frame = board_now();
    CHECK(link_wait(&host, HB_T_EVENT_STOPPED, 200000, &r), "no stop after silence");
    CHECK(r.payload[HB_STOPPED_OFF_REASON] == HB_STOP_HOST_SILENT, "reason %u",
          r.payload[HB_STOPPED_OFF_REASON]);
    double silent = hb_get_u32(&r.payload[HB_STOPPED_OFF_AT_US]) - last_frame;
    CHECK(silent >= 50000 && silent < 51000, "stopped after %.0f us of silence", silent);
    CHECK(chip_stopped(), "chip still driving: MODE 0x%02x RTP 0x%02x",
          chip.regs[DRV2605_REG_MODE], chip.regs[DRV2605_REG_RTP_INPUT]);
    printf("# host-silence stop after %.0f us of silence (timeout 50000 us)\n", silent);
    CHECK(send_rtp(stamp_in(1000), 0x72), "send failed");
    return expect_nak(HB_NAK_NOT_OPEN, NULL); /* the session ended with the silence */
}

static bool watchdog_runs_at_120_ms(void)
{
    /* WDTCSR (0x60): WDE set, no interrupt mode, WDP = 0b0011 (120 ms) */
    uint8_t wdtcsr = board.avr->data[0x60];
    CHECK((wdtcsr & 0x6Fu) == 0x0Bu, "WDTCSR 0x%02x", wdtcsr);
    return true;
}

void run_safety_stop_tests(void)
{
    run_test("latched fault stops the actuator", latched_fault_stops_actuator);
    run_test("over-long drive is stopped", over_long_drive_is_stopped);
    run_test("host silence stops the actuator", host_silence_stops_actuator);
}

void run_watchdog_tests(void)
{
    run_test("watchdog runs at 120 ms", watchdog_runs_at_120_ms);
}
