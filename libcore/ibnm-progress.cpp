// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-progress-private.h"

#include "libcore/support/progress.hpp"

namespace {

IbnmProgressFunc gFunc = nullptr;

void relay(const char *phase, unsigned done, unsigned total, void *data)
{
    if (gFunc)
        gFunc(phase, done, total, data);
}

} // namespace

void ibnm_set_progress_func_private(IbnmProgressFunc func, gpointer user_data)
{
    gFunc = func;
    ibnm::progress::setListener(func ? relay : nullptr, user_data);
}
