// SPDX-License-Identifier: LGPL-2.1-or-later
// The C boundary: every public function that runs C++ code that may throw
// runs it through guard(), so no exception reaches C or a GLib callback.
#pragma once

#include "libcore/support/i18n.hpp"
#include "libcore/support/result.hpp"

#include <exception>
#include <new>

namespace ibnm {

// Runs fn() (returning Status) and converts its outcome, or any exception,
// into a gboolean and at most one GError.
template <typename Fn>
gboolean guard(GError **error, Fn &&fn) noexcept
{
    try {
        return toGError(fn(), error) ? TRUE : FALSE;
    } catch (const std::bad_alloc &) {
        g_error("libibnm: out of memory");
    } catch (const std::exception &e) {
        g_set_error(error, IBNM_ERROR, IBNM_ERROR_FAILED, _("Internal error: %s"), e.what());
    } catch (...) {
        g_set_error_literal(error, IBNM_ERROR, IBNM_ERROR_FAILED, _("Internal error"));
    }
    return FALSE;
}

} // namespace ibnm
