/* REPLACE_FROM on the real ELF: what plays from its stamp on is the
 * replacement, on time. */
#include <stdio.h>
#include <string.h>

#include "hapbridge/drv2605_regs.h"
#include "hapbridge/protocol.h"
#include "suite.h"

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
        CHECK(rtp_latch(mark, (uint8_t)(1u + i), &start) == kept, "amplitude %u %s", 1u + i,
              kept ? "never played" : "played after its REPLACE_FROM");
    }
    for (uint32_t i = 0; i < REPLACE_STREAM / 2u; i++) {
        CHECK(rtp_latch(mark, (uint8_t)(0x80u + i), &start), "replacement %u never played", i);
        double error = start - (double)(from + i * REPLACE_STEP_US);
        CHECK(error >= -LATCH_EARLY_US && error < MAX_STAMP_ERROR_US, "replacement %u latched %.1f us from its stamp", i, error);
        worst = error > worst ? error : worst;
    }
    printf("# REPLACE_FROM: %u discarded, the %u replacements latched (STOP of the RTP write) at most %.1f us after their stamps\n",
           REPLACE_STREAM / 2u, REPLACE_STREAM / 2u, worst);
    return true;
}

void run_replace_from_tests(void)
{
    run_test("REPLACE_FROM changes what plays from its stamp on, on time",
             replace_from_changes_what_plays_from_its_stamp_on_time);
}
