// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/progress.hpp"

namespace ibnm::progress {

namespace {

Listener gListener = nullptr;
void *gData = nullptr;
thread_local const char *gPhase = nullptr;

} // namespace

void setListener(Listener listener, void *data)
{
    gListener = listener;
    gData = data;
}

Phase::Phase(const char *name) : previous_(gPhase)
{
    gPhase = name;
}

Phase::~Phase()
{
    gPhase = previous_;
}

void count(unsigned done, unsigned total)
{
    if (gListener && gPhase)
        gListener(gPhase, done, total, gData);
}

} // namespace ibnm::progress
