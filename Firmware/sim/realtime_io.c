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

#define MAX_LINE RT_MAX_LINE

uint64_t rt_host_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void rt_stdin_nonblocking(void) { fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK); }

/* What arrived on stdin and is not handled yet: whole lines, then part of one.
 * A line is taken out before it is handled, so a handler may wait for a
 * reply (rt_wait_reply) that reads on into the same buffer. */
/* Room for several whole lines: while a chip read waits for its answer, the
 * host's next commands (a 4 KiB bulk OUT as hex, a control transfer) queue here. */
#define BUFFER (8u * (MAX_LINE + 1u))
static char buf[BUFFER];
static size_t have;

/* Moves the first whole line starting with `prefix` (any line for "") out of
 * the buffer into line[MAX_LINE + 1], keeping the others in order. */
static bool take_line(const char *prefix, char *line)
{
    size_t plen = strlen(prefix);
    for (char *start = buf, *nl; (nl = memchr(start, '\n', have - (size_t)(start - buf))); start = nl + 1) {
        if (strncmp(start, prefix, plen) != 0) {
            continue;
        }
        size_t len = (size_t)(nl - start);
        memcpy(line, start, len);
        line[len] = 0;
        if (len && line[len - 1] == '\r') {
            line[len - 1] = 0;
        }
        memmove(start, nl + 1, have - (size_t)(nl + 1 - buf));
        have -= len + 1;
        return true;
    }
    return false;
}

/* One read(): 1 bytes came, 0 none for now, -1 end of input. */
static int read_more(void)
{
    if (have == BUFFER) {
        return 0; /* full of whole lines: they are handled first */
    }
    ssize_t n = read(STDIN_FILENO, buf + have, BUFFER - have);
    if (n == 0) {
        return -1;
    }
    if (n < 0) {
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    }
    have += (size_t)n;
    /* The unfinished line at the end: one longer than any command is dropped. */
    char *last = memrchr(buf, '\n', have);
    size_t tail = last ? have - (size_t)(last + 1 - buf) : have;
    if (tail > MAX_LINE) {
        printf("err line longer than %u characters dropped\n", MAX_LINE);
        fflush(stdout);
        have -= tail;
    }
    return 1;
}

bool rt_read_lines(bool (*handle)(char *line))
{
    static char line[MAX_LINE + 1];
    for (;;) {
        while (take_line("", line)) {
            if (!handle(line)) {
                return false;
            }
        }
        int r = read_more();
        if (r <= 0) {
            return r == 0;
        }
    }
}

bool rt_wait_reply(const char *prefix, char *line, uint32_t timeout_ms)
{
    uint64_t deadline = rt_host_us() + (uint64_t)timeout_ms * 1000u;
    for (;;) {
        if (take_line(prefix, line)) {
            return true;
        }
        uint64_t t = rt_host_us();
        if (t >= deadline) {
            return false;
        }
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        uint64_t wait = deadline - t;
        struct timespec timeout = {.tv_sec = (time_t)(wait / 1000000u), .tv_nsec = (long)(wait % 1000000u) * 1000};
        ppoll(&p, 1, &timeout, NULL);
        if (read_more() < 0) {
            return false;
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
