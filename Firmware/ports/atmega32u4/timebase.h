/* Timer1 time base: free-running microsecond clock and one-shot compare. */
#ifndef TIMEBASE_H
#define TIMEBASE_H

#include <stdint.h>

/* Timer1 counts F_CPU/8: two ticks per microsecond at 16 MHz. */
#define TIMEBASE_TICK_NS 500u

void timebase_init(void);
uint32_t timebase_now_us(void);
/* Fire TIMER1_COMPA at at_us (or within a few microseconds when already past). */
void timebase_arm(uint32_t at_us);
void timebase_disarm(void);
/* Busy-wait until at_us, which must be less than 16 ms away. */
void timebase_spin_until(uint32_t at_us);

#endif
