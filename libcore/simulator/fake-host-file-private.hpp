// SPDX-License-Identifier: LGPL-2.1-or-later
// What the parts of the host description parser share (libcore/simulator
// only, not installed): the checks of a value's text
// (fake-host-file-values.cpp) and the Parser, whose scan, group order and
// references are fake-host-file.cpp and whose groups are
// fake-host-file-groups.cpp.
#pragma once

#include "libcore/simulator/fake-host-file.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <glib.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibnm::platform::hostfile {

// fake-host-file-values.cpp
std::string trim(const std::string &s);
std::vector<std::string> splitList(const std::string &s);
// Unsigned in decimal or with 0x in hex.
std::optional<uint64_t> parseUnsigned(const std::string &s, uint64_t max);
bool isGuid(const std::string &s);
bool isHwAddress(const std::string &s, size_t bytes);
bool isCidr(const std::string &s);
std::string lower(std::string s);

// Where each group and key is, for error messages.
struct Locations {
    std::string file;
    std::map<std::string, unsigned> groups;
    std::map<std::pair<std::string, std::string>, unsigned> keys;
};

class Parser {
public:
    Parser(std::string file) { loc_.file = std::move(file); }

    Result<FakeState> parse(const std::string &text);

private:
    Status scan(const std::string &text);
    Error errorAt(unsigned line, std::string message) const
    {
        return Error(IBNM_ERROR_PARSE, std::move(message)).withContext(strprintf("%s:%u", loc_.file.c_str(), line));
    }
    Error keyError(const std::string &group, const std::string &key, const std::string &what) const
    {
        auto it = loc_.keys.find({group, key});
        unsigned line = it != loc_.keys.end() ? it->second : groupLine(group);
        return errorAt(line, "[" + group + "] " + key + ": " + what);
    }
    Error groupError(const std::string &group, const std::string &what) const
    {
        return errorAt(groupLine(group), "[" + group + "]: " + what);
    }
    unsigned groupLine(const std::string &group) const
    {
        auto it = loc_.groups.find(group);
        return it != loc_.groups.end() ? it->second : 0;
    }

    bool has(const std::string &group, const std::string &key) const
    {
        return g_key_file_has_key(kf_.get(), group.c_str(), key.c_str(), nullptr);
    }
    std::string str(const std::string &group, const std::string &key, const std::string &fallback = {}) const
    {
        GCharPtr v(g_key_file_get_string(kf_.get(), group.c_str(), key.c_str(), nullptr));
        return v ? std::string(v.get()) : fallback;
    }
    Result<std::optional<uint64_t>> number(const std::string &group, const std::string &key, uint64_t max) const
    {
        if (!has(group, key))
            return std::optional<uint64_t>();
        std::string v = str(group, key);
        auto n = parseUnsigned(v, max);
        if (!n)
            return keyError(group, key,
                            strprintf(_("expected a number from 0 to %llu, got “%s”"),
                                      static_cast<unsigned long long>(max), v.c_str()));
        return std::optional<uint64_t>(*n);
    }
    Result<std::optional<bool>> boolean(const std::string &group, const std::string &key) const
    {
        if (!has(group, key))
            return std::optional<bool>();
        std::string v = str(group, key);
        if (v == "true" || v == "1")
            return std::optional<bool>(true);
        if (v == "false" || v == "0")
            return std::optional<bool>(false);
        return keyError(group, key, strprintf(_("expected true or false, got “%s”"), v.c_str()));
    }
    Error choiceError(const std::string &group, const std::string &key, const std::string &v,
                      const char *choices) const
    {
        return keyError(group, key, strprintf(_("“%s” is not one of %s"), v.c_str(), choices));
    }

    Status parseHost(const std::string &g);
    Status parseDevice(const std::string &g, const std::string &id);
    Status parsePort(const std::string &g, const std::string &id);
    Status parseNetdev(const std::string &g, const std::string &id);
    Status parseBond(const std::string &g, const std::string &id);
    Status parseSoftLink(const std::string &g, const std::string &id);
    Status resolve();

    Locations loc_;
    GKeyFilePtr kf_{g_key_file_new()};
    FakeState st_;
    // Per-netdev references checked once every group is read.
    std::map<std::string, std::string> rdmaPortRef_;
};

} // namespace ibnm::platform::hostfile
