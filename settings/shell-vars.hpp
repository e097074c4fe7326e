// SPDX-License-Identifier: LGPL-2.1-or-later
// The shell variables of an ifcfg file (KEY=value lines), read as
// NetworkManager's ifcfg-rh plugin reads them (shvar.c); the import of the
// profile is ifcfg-reader.hpp.
#pragma once

#include "libcore/support/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ibnm::settings {

// Shell-style assignments (KEY=value), unquoted as sh would and as
// NetworkManager's svUnescape() does: '...', "..." (backslash escapes only
// $ ` " \ and newline), $'...' (C escapes), backslash outside quotes, and
// concatenation of those. Errors name FILE:LINE.
// An ifcfg file is a few hundred bytes; a larger one is refused before it
// is parsed.
inline constexpr size_t kMaxIfcfgSize = 64 * 1024;

class ShellVars {
public:
    static Result<ShellVars> parse(std::string_view text, const std::string &filename);
    static Result<ShellVars> load(const std::string &path);

    // The value of `key`; nullptr if unset. An empty value counts as set.
    const std::string *get(const std::string &key) const;
    // The value if set and not empty.
    std::optional<std::string> getNonEmpty(const std::string &key) const;
    // yes/true/t/y/1 and no/false/f/n/0, else `fallback`.
    bool getBool(const std::string &key, bool fallback) const;
    const std::string &filename() const { return filename_; }
    // Line of the (last) assignment of `key`, 0 if unset.
    unsigned line(const std::string &key) const;

private:
    std::string filename_;
    std::map<std::string, std::pair<std::string, unsigned>> values_;
};

// Unescapes one shell value (what follows KEY=); nullopt if it is not a
// plain value (unquoted $, `, ;, |, &, (, ), <, > or an open quote).
std::optional<std::string> shellUnescape(std::string_view value);

// The blanks around a word on an ifcfg line (space, tab, carriage return).
bool isSpace(char c);

} // namespace ibnm::settings
