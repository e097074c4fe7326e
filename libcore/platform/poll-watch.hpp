// SPDX-License-Identifier: LGPL-2.1-or-later
// Platform::watchChanges() of a platform that announces nothing (the
// simulated host): every kind of change, five times a second. Inline: the
// simulator library, outside libibnm, derives from Platform too.
#pragma once

#include "libcore/platform/platform.hpp"

namespace ibnm::platform {

class PollWatch final : public ChangeWatch {
public:
    static constexpr unsigned kIntervalMs = 200;

    PollWatch(GMainContext *context, ChangeCallback onChange)
        : onChange_(std::move(onChange)), timer_(g_timeout_source_new(kIntervalMs))
    {
        g_source_set_callback(timer_.get(), tick, this, nullptr);
        g_source_attach(timer_.get(), context);
    }
    unsigned notified() const override { return 0; }
    unsigned polled() const override { return kChangeAll; }
    unsigned pollMs() const override { return kIntervalMs; }

private:
    static gboolean tick(gpointer self)
    {
        static_cast<PollWatch *>(self)->onChange_(kChangeAll);
        return G_SOURCE_CONTINUE;
    }
    ChangeCallback onChange_;
    GSourcePtr timer_;
};

inline Result<std::unique_ptr<ChangeWatch>> Platform::watchChanges(GMainContext *context, ChangeCallback onChange)
{
    return std::unique_ptr<ChangeWatch>(std::make_unique<PollWatch>(context, std::move(onChange)));
}

} // namespace ibnm::platform
