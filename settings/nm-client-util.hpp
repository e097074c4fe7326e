// SPDX-License-Identifier: LGPL-2.1-or-later
// What the code that talks to NetworkManager through libnm's NMClient
// shares (nm-backend.cpp: the profiles; nm-activation.cpp: activating and
// deactivating them): a private main context that only ibnm iterates,
// waiting on it with a deadline, and NetworkManager's errors as ibnm's.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <NetworkManager.h>

#include <string>

namespace ibnm::settings {

// Makes `ctx` the thread-default main context for the scope: NMClient and
// its async calls dispatch there, and only ibnm iterates it.
class ContextScope {
public:
    explicit ContextScope(GMainContext *ctx) : ctx_(ctx) { g_main_context_push_thread_default(ctx_); }
    ~ContextScope() { g_main_context_pop_thread_default(ctx_); }
    ContextScope(const ContextScope &) = delete;
    ContextScope &operator=(const ContextScope &) = delete;

private:
    GMainContext *ctx_;
};

inline gboolean onWaitExpired(gpointer data) noexcept
{
    *static_cast<bool *>(data) = true;
    return G_SOURCE_REMOVE;
}

// Iterates `ctx` until done() or the timeout (milliseconds; negative: no
// limit); returns done().
template <typename Pred>
bool iterateUntil(GMainContext *ctx, Pred done, int timeoutMs)
{
    while (g_main_context_iteration(ctx, FALSE)) {
    }
    if (done())
        return true;
    bool expired = false;
    GSource *timer = nullptr;
    if (timeoutMs >= 0) {
        timer = g_timeout_source_new(guint(timeoutMs));
        g_source_set_callback(timer, onWaitExpired, &expired, nullptr);
        g_source_attach(timer, ctx);
    }
    while (!done() && !expired)
        g_main_context_iteration(ctx, TRUE);
    if (timer) {
        g_source_destroy(timer);
        g_source_unref(timer);
    }
    return done();
}

// The result of one async call started on the current thread-default
// context: onReady() is its callback, `this` its user data.
struct AsyncWait {
    GObjectPtr<GAsyncResult> result;
};

inline void onReady(GObject *, GAsyncResult *res, gpointer data) noexcept
{
    static_cast<AsyncWait *>(data)->result = GObjectPtr<GAsyncResult>::retain(res);
}

// Waits for an async call started on the current thread-default context.
inline GAsyncResult *waitFor(GMainContext *ctx, AsyncWait &w)
{
    while (!w.result)
        g_main_context_iteration(ctx, TRUE);
    return w.result.get();
}

// NetworkManager's error as ibnm's: its message without GDBus's remote
// error prefix, a code for what ibnm tells apart (permission, a profile
// that does not verify), else `code`; prefixed with `context` if not empty.
Error fromNmError(const GError *err, std::string context, IbnmError code = IBNM_ERROR_FAILED);

} // namespace ibnm::settings
