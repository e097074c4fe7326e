// SPDX-License-Identifier: LGPL-2.1-or-later
// A canonical text of values, each length-prefixed so that no value can run
// into the next, and its SHA-256: what the host's state digest
// (libcore/ibnm-host-digest.cpp) and the CLI's no-op record
// (cli/apply-record.cpp) are made of.
#pragma once

#include "libcore/support/raii.hpp"

#include <glib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibnm {

inline std::string sha256Hex(std::string_view bytes)
{
    GCharPtr hex(
        g_compute_checksum_for_data(G_CHECKSUM_SHA256, reinterpret_cast<const guchar *>(bytes.data()), bytes.size()));
    return hex.get();
}

class Canon {
public:
    Canon &str(const std::string &s)
    {
        out_ += std::to_string(s.size());
        out_ += ':';
        out_ += s;
        out_ += ';';
        return *this;
    }
    Canon &num(uint64_t n) { return str(std::to_string(n)); }
    template <typename T>
    Canon &opt(const std::optional<T> &v)
    {
        return v ? num(uint64_t(*v)).str("") : str("-");
    }
    Canon &strs(const std::vector<std::string> &v)
    {
        num(v.size());
        for (const auto &s : v)
            str(s);
        return *this;
    }
    Canon &tag(const char *t) { return str(t); }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

} // namespace ibnm
