// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm's own profile options: keys of NetworkManager's [user] setting
// (NMSettingUser), the one group NetworkManager keeps for others, or, in an
// RDMA secondary (a VPN profile of ibnm's service, nm-ibnm-service), the
// items of its vpn.data. One table defines every key, its values and its
// parser (see ibnm-keyfile(5)); both stores are read by the same parse().
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"

#include <NetworkManager.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibnm::userkeys {

inline constexpr std::string_view kLinkType = "rdma.link-type";
inline constexpr std::string_view kLinkName = "rdma.link-name";
inline constexpr std::string_view kRoceMode = "rdma.roce-mode";
inline constexpr std::string_view kRoceTos = "rdma.roce-tos";
inline constexpr std::string_view kTrafficClass = "rdma.traffic-class";
inline constexpr std::string_view kTrafficClassRules = "rdma.traffic-class-rules";
inline constexpr std::string_view kRoceEnable = "rdma.roce-enable";
inline constexpr std::string_view kTtl = "rdma.ttl";
inline constexpr std::string_view kUmcast = "ipoib.umcast";

// The D-Bus service (vpn.service-type) of ibnm's VPN plugin: a VPN profile of
// this type is an RDMA secondary, whose vpn.data holds the rdma.* keys.
inline constexpr const char *kVpnServiceType = "org.freedesktop.NetworkManager.ibnm";

// Where a profile keeps ibnm's keys.
enum class Store {
    User,    // [user] (NMSettingUser): any namespace; ibnm's are checked
    VpnData, // vpn.data of an RDMA secondary: ibnm's rdma.* keys only
};

struct KeyInfo {
    std::string_view name;
    std::string_view values; // for help and man page: "rxe|siw", "0-255"
    // Checks a value; the error names the key.
    Status (*validate)(std::string_view key, std::string_view value);
    // Whether an RDMA secondary's vpn.data may carry it (the RDMA keys; not
    // ipoib.*, which configure the IPoIB interface of the base profile).
    bool inSecondary = true;
};

// Every key ibnm owns, in documentation order.
const std::vector<KeyInfo> &keys();
const KeyInfo *find(std::string_view key);

// True for keys in ibnm's namespaces ("rdma." and "ipoib.").
bool isIbnmKey(std::string_view key);
// Whether a profile's [user] setting has an rdma.* key (not whether it is
// valid: parse() says that).
bool hasRdmaKey(NMConnection *connection);

// Checks one key=value: an unknown key in ibnm's namespaces is an error
// naming it (a typo must not be silently ignored; IBNM_ERROR_INVALID_ARGUMENT,
// as nmcli's unknown property), a value that does not parse is
// IBNM_ERROR_INVALID_VALUE; keys of other namespaces belong to someone else
// and pass.
Status validate(std::string_view key, std::string_view value);
// The same for `store`: in vpn.data every key is ibnm's, so a key that is
// not one of the RDMA keys is an error (IBNM_ERROR_INVALID_ARGUMENT).
Status validate(std::string_view key, std::string_view value, Store store);

// Checks `value` as `key` takes it, the error naming `name` instead of the
// key: a typed call's argument with a key's value ("link name" for
// rdma.link-name). The key must be one of keys().
Status validateAs(std::string_view key, std::string_view name, std::string_view value);

// The parsers behind the keys, also for the typed calls that take their
// values (ibnm-rdma-apply.h): each spelling has this one home.
std::optional<model::SoftLinkType> parseLinkType(std::string_view value);   // rdma.link-type
std::optional<model::RoceMode> parseRoceMode(std::string_view value);       // rdma.roce-mode
std::optional<unsigned> parseTos(std::string_view value);                  // 0-255 or dscp:0-63
// Traffic class rules (model::parseTcRule each); two with one match are an
// error. parseRules() takes them separated by ';' and refuses none at all.
Result<std::vector<model::TcRule>> parseTcRules(const std::vector<std::string> &rules);
Result<std::vector<model::TcRule>> parseRules(std::string_view value);

// The typed options of one profile, parsed from [user] data.
struct Options {
    std::optional<model::SoftLinkType> linkType;
    std::optional<std::string> linkName;
    std::optional<model::RoceMode> roceMode;
    std::optional<unsigned> roceTos;
    std::optional<unsigned> trafficClass;
    std::vector<model::TcRule> tcRules; // in the order written; tclass -1 removes
    std::optional<bool> roceEnable;
    std::optional<unsigned> ttl;
    std::optional<bool> umcast;
};

// Parses every ibnm key of `data`, as `store` holds them; the first bad one
// is the error.
Result<Options> parse(const std::map<std::string, std::string> &data, Store store = Store::User);
// The same for a profile: the items of an RDMA secondary's vpn.data, else
// the profile's [user] setting (none: no options).
Result<Options> parse(NMConnection *connection);

// Whether `connection` is an RDMA secondary: a VPN profile whose
// vpn.service-type is kVpnServiceType.
bool isSecondary(NMConnection *connection);
// Where `connection` keeps ibnm's keys.
Store storeOf(NMConnection *connection);
// The key/value pairs of that store (empty when it has none).
std::map<std::string, std::string> data(NMConnection *connection);
// The value of `key` there, nullptr when unset.
const char *get(NMConnection *connection, std::string_view key);
// Sets `key` there (nullptr removes it), checked as validate() does for the
// store; the setting is created when missing.
Status set(NMConnection *connection, std::string_view key, const char *value);

// Removes the [user] setting once its last key is gone: libnm would write
// an empty [user] group, which nmcli and NetworkManager never leave.
void dropEmptyUserSetting(NMConnection *connection);

// The canonical spelling of each set option (what ibnm writes).
std::map<std::string, std::string> format(const Options &options);

} // namespace ibnm::userkeys
