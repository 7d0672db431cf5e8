#include "realtime_shim.h"

#include <errno.h>
#include <sys/prctl.h>

int hb_set_timer_slack(unsigned long nanoseconds)
{
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0) == 0 ? 0 : errno;
}

long hb_timer_slack(void)
{
    return prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}
