/* Host unit tests of the portable core: one "ok"/"not ok" line per test and
 * a last line "N passed, N failed". */
#include <stdio.h>

#include "tests.h"

char check_failure[256];

int main(void)
{
    const test_case *suites[] = {frame_tests,    drv2605_tests,     core_tests,        safety_tests,
                                 identity_tests, untimed_i2c_tests, replace_from_tests, protocol_doc_tests,
                                 latch_tests,    accel_tests};
    int passed = 0, failed = 0;
    for (unsigned s = 0; s < sizeof suites / sizeof suites[0]; s++) {
        for (const test_case *t = suites[s]; t->name; t++) {
            check_failure[0] = 0;
            if (t->fn()) {
                printf("ok - unit: %s\n", t->name);
                passed++;
            } else {
                printf("not ok - unit: %s: %s\n", t->name, check_failure);
                failed++;
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
