#include "twi_bus.h"

#include <string.h>

#include <avr_twi.h>
#include <sim_cycle_timers.h>
#include <sim_io.h>

/* ATmega32U4 data-space addresses and TWCR bits (datasheet 20.9). */
#define ADDR_TWBR 0xB8u
#define ADDR_TWSR 0xB9u
#define ADDR_TWCR 0xBCu
#define TWCR_TWINT 0x80u
#define TWCR_TWSTA 0x20u
#define TWCR_TWSTO 0x10u
#define TWCR_TWEN 0x04u
#define TWSR_TWPS_MASK 0x03u

typedef struct twi_bus {
    avr_t *avr;
    avr_twi_t *twi;
    avr_io_write_t simavr_write; /* simavr's TWCR handler, called first */
    void *simavr_param;
    avr_cycle_count_t start_cycle, stop_cycle;
    avr_cycle_count_t free_at;    /* a new START may begin from this cycle */
    avr_cycle_count_t twint_at;   /* TWINT of the step in flight; SCL held low from it */
    avr_cycle_count_t held;       /* SCL held low so far in this transaction */
} twi_bus;

/* simavr makes one ATmega32U4 per process (sim_board.h), so one bus. */
static twi_bus bus;

uint32_t twi_bus_scl_period_cycles(const avr_t *avr)
{
    uint32_t prescale = 1u << (2u * (avr->data[ADDR_TWSR] & TWSR_TWPS_MASK));
    return 16u + 2u * avr->data[ADDR_TWBR] * prescale;
}

avr_cycle_count_t twi_bus_start_cycle(void) { return bus.start_cycle; }
avr_cycle_count_t twi_bus_stop_cycle(void) { return bus.stop_cycle; }
avr_cycle_count_t twi_bus_held_cycles(void) { return bus.held; }

void twi_bus_reset(void)
{
    bus.start_cycle = bus.stop_cycle = bus.free_at = bus.twint_at = bus.held = 0;
}

static avr_cycle_count_t tbuf_cycles(const avr_t *avr, uint32_t period)
{
    /* SCL above 100 kHz (a period under 10 us) is fast mode */
    uint64_t period_ns = (uint64_t)period * 1000000000u / avr->frequency;
    uint32_t ns = period_ns < 10000u ? TWI_TBUF_FAST_NS : TWI_TBUF_STANDARD_NS;
    return ((avr_cycle_count_t)ns * avr->frequency + 999999999u) / 1000000000u;
}

/* simavr's pending "set TWSR and TWINT" timer: the only cycle timer whose
 * parameter is the TWI. */
static avr_cycle_timer_slot_p pending_completion(void)
{
    for (avr_cycle_timer_slot_p t = bus.avr->cycle_timers.timer; t; t = t->next) {
        if (t->param == bus.twi) {
            return t;
        }
    }
    return NULL;
}

static avr_cycle_count_t release_twsto(avr_t *avr, avr_cycle_count_t when, void *param)
{
    (void)when;
    (void)param;
    avr->data[ADDR_TWCR] &= (uint8_t)~TWCR_TWSTO;
    return 0;
}

static void on_twcr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    (void)param;
    uint8_t old = avr->data[ADDR_TWCR];
    bool enabled = v & TWCR_TWEN;
    bool start = enabled && (v & TWCR_TWSTA) && !(old & TWCR_TWSTA);
    bool stop = enabled && (v & TWCR_TWSTO) && !(old & TWCR_TWSTO);
    bool repeated = bus.twi->state & TWI_COND_START;
    avr_cycle_count_t now = avr->cycle, half = twi_bus_scl_period_cycles(avr) / 2u;

    /* When the bus will have done what this write asks (TWINT, for all but a
     * STOP).  The STOP's instant is set before simavr runs: its STOP message
     * reaches the peers during the call. */
    avr_cycle_count_t done_in = (avr_cycle_count_t)TWI_HALF_PERIODS_BYTE * half;
    if (start && !repeated) {
        bus.held = 0;
    } else if (bus.twint_at && now > bus.twint_at) {
        bus.held += now - bus.twint_at; /* the master stretched SCL while it handled TWINT */
    }
    bus.twint_at = 0;
    if (stop) {
        bus.stop_cycle = now + TWI_HALF_PERIODS_STOP * half;
        bus.free_at = bus.stop_cycle + tbuf_cycles(avr, (uint32_t)(2u * half));
    } else if (start && repeated) {
        done_in = TWI_HALF_PERIODS_REP_START * half; /* the transaction keeps its first START */
    } else if (start) {
        avr_cycle_count_t begin = bus.free_at > now ? bus.free_at : now;
        bus.start_cycle = begin;
        done_in = begin - now + TWI_HALF_PERIODS_START * half;
    }

    /* Only a completion this write scheduled is moved; one already pending
     * (a write that starts nothing on the bus) keeps its time. */
    avr_cycle_timer_slot_p before = pending_completion();
    avr_cycle_count_t before_when = before ? before->when : 0;
    bus.simavr_write(avr, addr, v, bus.simavr_param);

    if (stop) {
        /* simavr clears TWSTO at once; the hardware clears it once the STOP
         * has been sent, and the firmware waits for that. */
        avr->data[ADDR_TWCR] |= TWCR_TWSTO;
        avr_cycle_timer_register(avr, bus.stop_cycle - now, release_twsto, &bus);
        return;
    }
    avr_cycle_timer_slot_p t = pending_completion();
    if (t && !(before && t->when == before_when)) {
        avr_cycle_timer_t fn = t->timer;
        avr_cycle_timer_register(avr, done_in, fn, bus.twi); /* replaces simavr's */
        bus.twint_at = now + done_in;
    }
}

bool twi_bus_attach(avr_t *avr)
{
    memset(&bus, 0, sizeof bus);
    bus.avr = avr;
    for (avr_io_t *io = avr->io_port; io; io = io->next) {
        if (io->kind && strcmp(io->kind, "twi") == 0) {
            bus.twi = (avr_twi_t *)io;
        }
    }
    if (!bus.twi || bus.twi->r_twcr != ADDR_TWCR) {
        return false;
    }
    avr_io_addr_t a = AVR_DATA_TO_IO(ADDR_TWCR);
    bus.simavr_write = avr->io[a].w.c;
    bus.simavr_param = avr->io[a].w.param;
    avr->io[a].w.c = on_twcr_write;
    avr->io[a].w.param = &bus;
    return bus.simavr_write != NULL;
}
