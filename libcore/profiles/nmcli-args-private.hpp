// SPDX-License-Identifier: LGPL-2.1-or-later
// What the parts of nmcli's grammar share (libcore/profiles only, not
// installed): the value parsers (nmcli-values.cpp), the property setters
// and the context they run in (nmcli-setters.cpp). nmcli-args.cpp maps
// the words of `connection add` and `connection modify` to the setters;
// nmcli-verify.cpp holds verify().
#pragma once

#include "libcore/profiles/nmcli-args.hpp"

#include <NetworkManager.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ibnm::nmcli {

enum class Op { Set, Add, Remove };

// --- nmcli-values.cpp: value texts ---------------------------------------

// nmcli refuses arguments in two ways, with two exit statuses: a value the
// property's own parser refuses as it is set, like a word that names nothing
// settable, is a user-input error (2); a profile whose values all parsed but
// which does not verify is a failure (1). The codes keep the two apart.
Error badValue(const std::string &property, std::string message);
Error notValid(const std::string &property, std::string message);
Error badWord(const std::string &property, std::string message);

std::string strip(std::string_view v);
std::string join(const std::vector<std::string_view> &words);
Result<std::string> matchWord(const std::string &property, const std::string &value,
                              const std::vector<std::string_view> &allowed);
Result<bool> parseBool(const std::string &property, const std::string &value);
std::optional<gint64> parseInt(const std::string &value, unsigned base, gint64 min, gint64 max);
std::optional<guint64> parseUint(const std::string &value, guint64 max);
std::vector<std::string> splitList(const std::string &value, bool spaces);

// The connection types nmcli 1.42 knows, with their aliases, so that prefix
// matching is ambiguous exactly where nmcli's is; ibnm handles three of them.
struct TypeName {
    std::string_view name;
    std::string_view alias; // nmcli's short name, also the default id's stem
};
const std::vector<TypeName> &typeNames();

// --- nmcli-setters.cpp: one value into one property ----------------------

struct Ctx {
    NMConnection *connection;
    bool adding;
    // Whether the setting the current word names was created for it.
    bool settingCreated = false;
    // A value that parses but will not verify (a bad DNS server): reported
    // after every argument has parsed, so that a word or value that does
    // not parse (exit 2) wins, as in nmcli.
    // One a property; a later value that replaces the list drops it.
    std::vector<std::pair<std::string, Error>> deferred;
    // The values of the `master` words parsed so far, in order (nmcli warns
    // about each one that names no stored profile as it parses it).
    std::vector<std::string> *masters = nullptr;
};

using Setter = Status (*)(Ctx &, NMSetting *, const std::string &property, Op, const std::string &value);

NMSetting *ensureSetting(NMConnection *c, const char *name);
Status onlySet(const std::string &property, Op op);

// The setters of the property table (nmcli-args.cpp).
Status setString(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setType(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setSlaveType(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setVpnType(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setVpnData(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status makeSecondary(NMConnection *c, NMSetting *vpn);
Status setMtu(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
template <size_t Length>
Status setHwaddr(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setPkey(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setTransportMode(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setIpMethod(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setAddresses(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setRoutes(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setIpAlias(Ctx &ctx, NMSetting *s, const std::string &property, Op, const std::string &value);
Status setGateway(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setDns(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setDnsSearch(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status checkBondOption(const std::string &property, const std::string &name, const std::string &value);
Status setBondOptions(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value);
Status setGeneric(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value);

} // namespace ibnm::nmcli
