#ifndef TESTS_H
#define TESTS_H

#include "check.h"

extern const test_case frame_tests[];
extern const test_case drv2605_tests[];
extern const test_case core_tests[];
extern const test_case safety_tests[];
extern const test_case identity_tests[];
extern const test_case untimed_i2c_tests[];
extern const test_case replace_from_tests[];
extern const test_case protocol_doc_tests[];
extern const test_case latch_tests[];
extern const test_case accel_tests[];

#endif
