// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/progress.hpp"

namespace ibnm::progress {

namespace {

thread_local Listener gListener = nullptr;
thread_local void *gData = nullptr;
thread_local const char *gPhase = nullptr;

} // namespace

Listening::Listening(Listener listener, void *data) : previous_(gListener), previousData_(gData)
{
    gListener = listener;
    gData = data;
}

Listening::~Listening()
{
    gListener = previous_;
    gData = previousData_;
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
