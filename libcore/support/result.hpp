// SPDX-License-Identifier: LGPL-2.1-or-later
// Result<T>: the value of an internal operation, or the error that stopped it.
//
// Internals never throw across a C boundary and never build a GError
// themselves: they return a Result, adding context on the way up
// ("infiniband.p-key", a file path), and the public C function turns it into
// a GError exactly once with toGError().
#pragma once

#include "libcore/ibnm-error.h"

#include <cerrno>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ibnm {

class Error {
public:
    Error() = default;
    Error(IbnmError code, std::string message, int errnum = 0)
        : code_(code), errno_(errnum), message_(std::move(message))
    {
    }

    // An error from a failed system call: the message is strerror(errnum).
    static Error fromErrno(int errnum, std::string context, IbnmError code = IBNM_ERROR_IO);

    IbnmError code() const { return code_; }
    int errnum() const { return errno_; }
    const std::string &message() const { return message_; }
    const std::string &context() const { return context_; }

    // Prefixes the context, so the outermost caller's context comes first:
    // Error("bad").withContext("p-key").withContext("infiniband") reads
    // "infiniband.p-key: bad" when the parts are joined with '.', and
    // withContext(path) reads "path: bad". `sep` joins the new prefix and the
    // existing context.
    Error withContext(std::string prefix, const char *sep = ": ") &&;
    Error &withContext(std::string prefix, const char *sep = ": ") &;

    // withContext() that also records the profile property the error is
    // about ("infiniband.mtu") or the profile's id, so that callers (the
    // findings of `ibnm check`) need not parse the text. The innermost
    // property and the outermost profile win.
    Error withProperty(std::string property) &&;
    Error &withProperty(std::string property) &;
    Error withProfile(std::string id) &&;
    Error &withProfile(std::string id) &;
    const std::string &property() const { return property_; }
    const std::string &profile() const { return profile_; }

    // "context: message", or just the message without context.
    std::string toString() const;

    // A new GError in IBNM_ERROR carrying toString(); the caller owns it.
    GError *toGError() const;
    // Sets *error (which may be NULL) as g_set_error would.
    void propagate(GError **error) const;

private:
    IbnmError code_ = IBNM_ERROR_FAILED;
    int errno_ = 0;
    std::string message_;
    std::string context_;
    std::string property_;
    std::string profile_;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<0>(v_); }
    const T &value() const & { return std::get<0>(v_); }
    T &&value() && { return std::get<0>(std::move(v_)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    Error &error() & { return std::get<1>(v_); }
    const Error &error() const & { return std::get<1>(v_); }
    Error &&error() && { return std::get<1>(std::move(v_)); }

    T valueOr(T fallback) const & { return ok() ? value() : std::move(fallback); }

    Result withContext(std::string prefix, const char *sep = ": ") &&
    {
        if (!ok())
            error().withContext(std::move(prefix), sep);
        return std::move(*this);
    }

private:
    std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : error_(std::move(error)) {}

    bool ok() const { return !error_.has_value(); }
    explicit operator bool() const { return ok(); }
    Error &error() & { return *error_; }
    const Error &error() const & { return *error_; }
    Error &&error() && { return std::move(*error_); }

    Result withContext(std::string prefix, const char *sep = ": ") &&
    {
        if (error_)
            error_->withContext(std::move(prefix), sep);
        return std::move(*this);
    }

private:
    std::optional<Error> error_;
};

using Status = Result<void>;

// Converts at the C boundary: returns true, or sets *error and returns false.
inline bool toGError(const Status &status, GError **error)
{
    if (status.ok())
        return true;
    status.error().propagate(error);
    return false;
}

} // namespace ibnm
