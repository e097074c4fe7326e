// SPDX-License-Identifier: LGPL-2.1-or-later
// Progress of long work (`ibnm apply` of a thousand profiles): the library
// never prints; the caller's listener (an IbnmProgressCallback given to
// ibnm_state_apply(); ibnm's CLI on a terminal) hears "phase: done of total".
// The phase is the caller's (settings' apply: writing profiles, taking
// profiles down, configuring the host); the counts are the work's (the
// engine's steps, the store's files).
#pragma once

namespace ibnm::progress {

using Listener = void (*)(const char *phase, unsigned done, unsigned total, void *data);

// The calling thread's listener while it lives (a public call's
// IbnmProgressCallback, for the length of that call); the one before comes
// back after it. None by default.
class Listening {
public:
    Listening(Listener listener, void *data);
    ~Listening();
    Listening(const Listening &) = delete;
    Listening &operator=(const Listening &) = delete;

private:
    Listener previous_;
    void *previousData_;
};

// The phase count() reports under while it lives (the innermost one).
class Phase {
public:
    explicit Phase(const char *name);
    ~Phase();
    Phase(const Phase &) = delete;
    Phase &operator=(const Phase &) = delete;

private:
    const char *previous_;
};

// `done` of `total` of the current phase are finished; nothing without a
// listener or a phase.
void count(unsigned done, unsigned total);

} // namespace ibnm::progress
