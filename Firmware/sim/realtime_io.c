#define _GNU_SOURCE /* ppoll */
#include "realtime_io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINE 8256u /* a control or bulk transfer of 4 KiB as hex, and its words */

uint64_t rt_host_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void rt_stdin_nonblocking(void) { fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK); }

bool rt_read_lines(bool (*handle)(char *line))
{
    static char buf[MAX_LINE + 1];
    static size_t have;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf + have, MAX_LINE - have);
        if (n == 0) {
            return false;
        }
        if (n < 0) {
            return errno == EAGAIN || errno == EINTR;
        }
        have += (size_t)n;
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', have - (size_t)(start - buf)))) {
            *nl = 0;
            if (nl > start && nl[-1] == '\r') {
                nl[-1] = 0;
            }
            if (!handle(start)) {
                return false;
            }
            start = nl + 1;
        }
        have -= (size_t)(start - buf);
        memmove(buf, start, have);
        if (have == MAX_LINE) {
            printf("err line longer than %u characters dropped\n", MAX_LINE);
            fflush(stdout);
            have = 0;
        }
    }
}

void rt_wait_until(uint64_t host_us)
{
    uint64_t t = rt_host_us();
    if (t >= host_us) {
        return;
    }
    uint64_t wait = host_us - t;
    struct timespec timeout = {.tv_sec = (time_t)(wait / 1000000u), .tv_nsec = (long)(wait % 1000000u) * 1000};
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    ppoll(&p, 1, &timeout, NULL);
}

bool rt_request_fifo(int priority)
{
    struct sched_param p = {.sched_priority = priority};
    return sched_setscheduler(0, SCHED_FIFO, &p) == 0;
}
