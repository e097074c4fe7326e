// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/result.hpp"

#include "libcore/support/i18n.hpp"

namespace ibnm {

Error Error::fromErrno(int errnum, std::string context, IbnmError code)
{
    if (errnum == EACCES || errnum == EPERM)
        code = IBNM_ERROR_PERMISSION_DENIED;
    else if (errnum == ENOENT || errnum == ENODEV)
        code = code == IBNM_ERROR_IO ? IBNM_ERROR_NOT_FOUND : code;
    else if (errnum == EOPNOTSUPP)
        code = IBNM_ERROR_NOT_SUPPORTED;
    else if (errnum == EEXIST)
        code = IBNM_ERROR_EXISTS;
    Error e(code, g_strerror(errnum), errnum);
    if (!context.empty())
        e.withContext(std::move(context));
    return e;
}

Error &Error::withContext(std::string prefix, const char *sep) &
{
    if (prefix.empty())
        return *this;
    if (context_.empty())
        context_ = std::move(prefix);
    else
        context_ = std::move(prefix) + sep + context_;
    return *this;
}

Error Error::withContext(std::string prefix, const char *sep) &&
{
    withContext(std::move(prefix), sep);
    return std::move(*this);
}

Error &Error::withProperty(std::string property) &
{
    if (property_.empty())
        property_ = property;
    return withContext(std::move(property));
}

Error Error::withProperty(std::string property) &&
{
    withProperty(std::move(property));
    return std::move(*this);
}

Error &Error::withProfile(std::string id) &
{
    profile_ = id;
    return withContext(std::move(id));
}

Error Error::withProfile(std::string id) &&
{
    withProfile(std::move(id));
    return std::move(*this);
}

std::string Error::toString() const
{
    if (context_.empty())
        return message_;
    return context_ + ": " + message_;
}

GError *Error::toGError() const
{
    return g_error_new_literal(IBNM_ERROR, code_, toString().c_str());
}

void Error::propagate(GError **error) const
{
    if (error == nullptr)
        return;
    g_return_if_fail(*error == nullptr);
    *error = toGError();
}

} // namespace ibnm
