/* The host side of sim-harness --usb: its monotonic clock, the host's command
 * lines on stdin read without blocking the simulation, and waiting for the
 * wall clock to catch up with simulated time.  Apart from usb_serve.c because
 * <unistd.h> and the suite's names (link) cannot meet in one file. */
#ifndef REALTIME_IO_H
#define REALTIME_IO_H

#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in microseconds (what the host's log compares against). */
uint64_t rt_host_us(void);
/* Makes stdin non-blocking (the simulation runs on between commands). */
void rt_stdin_nonblocking(void);
/* Calls handle() for each complete line that arrived on stdin since the last
 * call; false at end of input or when handle() returns false. */
bool rt_read_lines(bool (*handle)(char *line));
/* Longest line either call takes (a 4 KiB transfer as hex, and its words). */
#define RT_MAX_LINE 8256u
/* Waits (up to timeout_ms) for a line starting with `prefix`, while the
 * simulation stands still: the first one is moved into line[RT_MAX_LINE + 1];
 * lines before it stay for rt_read_lines, in order.  False on timeout or end
 * of input. */
bool rt_wait_reply(const char *prefix, char *line, uint32_t timeout_ms);
/* Returns once the wall clock reads host_us, or earlier when stdin has input. */
void rt_wait_until(uint64_t host_us);
/* Asks SCHED_FIFO at this priority for the process, so the simulation keeps up with
 * the wall clock while normal-priority work (builds, other tests) fills the cores;
 * false where that is not permitted (it then stays at normal priority). */
bool rt_request_fifo(int priority);

#endif
