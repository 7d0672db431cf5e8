/* A tiny test harness: each test is a function returning bool; CHECK
 * records the first failure with its location and returns false. */
#ifndef CHECK_H
#define CHECK_H

#include <stdbool.h>
#include <stdio.h>

extern char check_failure[256];

#define CHECK(cond)                                                                               \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            snprintf(check_failure, sizeof check_failure, "%s:%d: %s", __FILE__, __LINE__, #cond); \
            return false;                                                                         \
        }                                                                                         \
    } while (0)

typedef struct test_case {
    const char *name;
    bool (*fn)(void);
} test_case;

#define TEST_LIST_END {0, 0}

#endif
