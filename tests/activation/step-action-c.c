/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ibnm_step_action_to_string() called as a C program calls it: any int
 * converts to an IbnmStepAction in C, one that names no value too (in C++
 * that conversion is undefined, so apply-api-test.cpp asks through here). */
#include "config.h"

#include "libcore/ibnm-apply.h"

const char *test_step_action_to_string_of_int(int value);

const char *test_step_action_to_string_of_int(int value)
{
    return ibnm_step_action_to_string((IbnmStepAction) value);
}
