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
#include <unordered_map>
#include <string_view>
#include <utility>
#include <vector>

namespace ibnm::platform::hostfile {

// fake-host-file-values.cpp
// Without blanks (space, tab, CR) at either end.
std::string_view trimmed(std::string_view s);
std::string trim(const std::string &s);
std::vector<std::string> splitList(const std::string &s);
// Unsigned in decimal or with 0x in hex.
std::optional<uint64_t> parseUnsigned(const std::string &s, uint64_t max);
bool isGuid(const std::string &s);
bool isHwAddress(const std::string &s, size_t bytes);
bool isCidr(const std::string &s);
std::string lower(std::string s);

// Where each group and key is, for error messages: the groups in the
// file's order, each with its keys in the file's order (one pass over the
// text; a group has a handful of keys, looked up by a scan).
struct Locations {
    struct Group {
        std::string name;
        unsigned line = 0;
        std::vector<std::pair<std::string, unsigned>> keys;
    };
    std::string file;
    std::vector<Group> groups;
    std::unordered_map<std::string, size_t> byName; // position in groups
    const Group *group(const std::string &name) const
    {
        auto it = byName.find(name);
        return it == byName.end() ? nullptr : &groups[it->second];
    }
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
        unsigned line = groupLine(group);
        if (const Locations::Group *g = loc_.group(group))
            for (const auto &[k, at] : g->keys)
                if (k == key) {
                    line = at;
                    break;
                }
        return errorAt(line, "[" + group + "] " + key + ": " + what);
    }
    Error groupError(const std::string &group, const std::string &what) const
    {
        return errorAt(groupLine(group), "[" + group + "]: " + what);
    }
    unsigned groupLine(const std::string &group) const
    {
        const Locations::Group *g = loc_.group(group);
        return g ? g->line : 0;
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
    Status parsePriorities(const std::string &g, model::Netdev &n);
    Status parseBond(const std::string &g, const std::string &id);
    Status parseSoftLink(const std::string &g, const std::string &id);
    Status resolve();

    Locations loc_;
    GKeyFilePtr kf_{g_key_file_new()};
    FakeState st_;
    // Per-netdev references checked once every group is read.
    std::map<std::string, std::string> rdmaPortRef_;
    // The netdev that has each ifindex (not 0), the first of them.
    std::unordered_map<unsigned, std::string> ifindexes_;
};

} // namespace ibnm::platform::hostfile
