/*
 * prctl(2) is variadic, which Swift cannot call: these name the two calls the
 * real-time threads need.
 */
#ifndef HAPBRIDGE_REALTIME_SHIM_H
#define HAPBRIDGE_REALTIME_SHIM_H

/* PR_SET_TIMERSLACK for the calling thread; 0 on success, else errno. */
int hb_set_timer_slack(unsigned long nanoseconds);

/* PR_GET_TIMERSLACK of the calling thread (ns), or -1 with errno set. */
long hb_timer_slack(void);

#endif
