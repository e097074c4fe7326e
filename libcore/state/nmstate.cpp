// SPDX-License-Identifier: LGPL-2.1-or-later
// plan(): an nmstate document against the stored profiles, one change per
// interface, through the nmcli grammar. describe() is nmstate-describe.cpp.
#include "config.h"

#include "libcore/state/nmstate.hpp"
#include "libcore/state/nmstate-private.hpp"

#include "libcore/ibnm-profile.h"
#include "libcore/model/ipoib.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/profiles/nmcli-args.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace ibnm::state {

namespace {

using Args = std::vector<std::string>;

Error invalid(const std::string &what)
{
    return Error(IBNM_ERROR_INVALID_ARGUMENT, what);
}

// A scalar as the nmcli grammar takes it: strings as they are, integers in
// decimal, booleans yes/no, null as "" (unset).
Result<std::string> scalar(JsonNode *n, const std::string &key)
{
    if (JSON_NODE_HOLDS_NULL(n))
        return std::string();
    if (!JSON_NODE_HOLDS_VALUE(n))
        return invalid(_("a single value is expected")).withContext(key);
    GType t = json_node_get_value_type(n);
    if (t == G_TYPE_STRING)
        return std::string(json_node_get_string(n));
    if (t == G_TYPE_BOOLEAN)
        return std::string(json_node_get_boolean(n) ? "yes" : "no");
    if (t == G_TYPE_INT64)
        return strprintf("%" G_GINT64_FORMAT, json_node_get_int(n));
    return invalid(_("a string, integer or boolean is expected")).withContext(key);
}

Result<JsonObject *> object(JsonNode *n, const std::string &key)
{
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return invalid(_("a mapping is expected")).withContext(key);
    return json_node_get_object(n);
}

Result<JsonArray *> array(JsonNode *n, const std::string &key)
{
    if (!JSON_NODE_HOLDS_ARRAY(n))
        return invalid(_("a list is expected")).withContext(key);
    return json_node_get_array(n);
}

// Refuses members of `o` not in `known`, naming the first.
Status onlyKnown(JsonObject *o, std::initializer_list<const char *> known, const std::string &path)
{
    GList *members = json_object_get_members(o);
    std::string bad;
    for (GList *m = members; m && bad.empty(); m = m->next) {
        const char *name = static_cast<const char *>(m->data);
        if (std::none_of(known.begin(), known.end(), [&](const char *k) { return g_strcmp0(k, name) == 0; }))
            bad = name;
    }
    g_list_free(members);
    if (!bad.empty())
        return invalid(_("not a key ibnm handles")).withContext(path.empty() ? bad : path + "." + bad);
    return {};
}

// ipv4 / ipv6 → ipv4.addresses and ipv4.method (addresses first, so that a
// change of method verifies).
Status ipArgs(JsonObject *o, const char *family, const std::string &path, Args &args)
{
    bool v6 = std::string(family) == "ipv6";
    if (v6) {
        if (auto st = onlyKnown(o, {"enabled", "dhcp", "autoconf", "address"}, path); !st)
            return st;
    } else if (auto st = onlyKnown(o, {"enabled", "dhcp", "address"}, path); !st) {
        return st;
    }
    auto flag = [&](const char *k) -> Result<std::optional<bool>> {
        if (!json_object_has_member(o, k))
            return std::optional<bool>();
        JsonNode *n = json_object_get_member(o, k);
        if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN)
            return invalid(_("true or false is expected")).withContext(path + "." + k);
        return std::optional<bool>(json_node_get_boolean(n));
    };
    auto enabled = flag("enabled");
    auto dhcp = flag("dhcp");
    auto autoconf = v6 ? flag("autoconf") : Result<std::optional<bool>>(std::optional<bool>());
    for (auto *r : {&enabled, &dhcp, &autoconf})
        if (!r->ok())
            return std::move(*r).error();
    std::vector<std::string> addresses;
    bool haveAddresses = json_object_has_member(o, "address");
    if (haveAddresses) {
        auto list = array(json_object_get_member(o, "address"), path + ".address");
        if (!list)
            return std::move(list).error();
        for (guint i = 0; i < json_array_get_length(*list); i++) {
            std::string at = strprintf("%s.address[%u]", path.c_str(), i);
            auto entry = object(json_array_get_element(*list, i), at);
            if (!entry)
                return std::move(entry).error();
            if (auto st = onlyKnown(*entry, {"ip", "prefix-length"}, at); !st)
                return st;
            if (!json_object_has_member(*entry, "ip") || !json_object_has_member(*entry, "prefix-length"))
                return invalid(_("an address needs 'ip' and 'prefix-length'")).withContext(at);
            auto ip = scalar(json_object_get_member(*entry, "ip"), at + ".ip");
            auto len = scalar(json_object_get_member(*entry, "prefix-length"), at + ".prefix-length");
            if (!ip)
                return std::move(ip).error();
            if (!len)
                return std::move(len).error();
            addresses.push_back(*ip + "/" + *len);
        }
    }
    std::string method;
    bool off = enabled->has_value() && !**enabled;
    if (off)
        method = "disabled";
    else if ((dhcp->has_value() && **dhcp) || (autoconf->has_value() && **autoconf))
        method = "auto";
    else if (!addresses.empty())
        method = "manual";
    else if (enabled->has_value() || haveAddresses)
        return invalid(_("an enabled family needs an address, dhcp or autoconf")).withContext(path);
    std::string joined;
    for (const auto &a : addresses)
        joined += (joined.empty() ? "" : ",") + a;
    if (haveAddresses || off)
        args.insert(args.end(), {std::string(family) + ".addresses", joined});
    if (!method.empty())
        args.insert(args.end(), {std::string(family) + ".method", method});
    return {};
}

// ibnm-rdma: {link-type: rxe, roce-mode: v2, umcast: true} → [user] keys.
Status extensionArgs(JsonObject *o, const std::string &path, Args &args)
{
    GList *members = json_object_get_members(o);
    Status result;
    for (GList *m = members; m && result.ok(); m = m->next) {
        std::string name = static_cast<const char *>(m->data);
        std::string key = (name == "umcast" ? "ipoib." : "rdma.") + name;
        if (!userkeys::find(key)) {
            result = invalid(_("not a key ibnm handles")).withContext(path + "." + name);
            break;
        }
        auto v = scalar(json_object_get_member(o, name.c_str()), path + "." + name);
        if (!v) {
            result = std::move(v).error();
            break;
        }
        args.insert(args.end(), {key, *v});
    }
    g_list_free(members);
    return result;
}

// nmstate's `infiniband:` (InfiniBandConfig): base-iface, pkey ('0xffff',
// nmstate's marker of a base interface, is no P_Key) and mode, which nmstate
// takes in lower case only (its enum refuses `Connected`).
Status infinibandArgs(JsonObject *ib, const std::string &name, const std::string &at, Args &args)
{
    if (auto st = onlyKnown(ib, {"base-iface", "pkey", "mode"}, at); !st)
        return st;
    std::map<std::string, std::string> v;
    for (const char *key : {"base-iface", "pkey", "mode"}) {
        if (!json_object_has_member(ib, key))
            continue;
        auto r = scalar(json_object_get_member(ib, key), at + "." + key);
        if (!r)
            return std::move(r).error();
        v[key] = *r;
    }
    bool base = false;
    if (v.count("pkey")) {
        const std::string &text = v["pkey"];
        char *end = nullptr;
        unsigned long n = text.empty() ? 0 : std::strtoul(text.c_str(), &end, 0);
        base = end && *end == '\0' && n == 0xffff;
        if (base && v.count("base-iface") && v["base-iface"] != name)
            return invalid(strprintf(_("pkey 0xffff marks a base interface, which has no base-iface but "
                                       "itself ('%s')"),
                                     v["base-iface"].c_str()))
                .withContext(at + ".base-iface");
    }
    if (v.count("mode") && !model::modeFromName(v["mode"].c_str()))
        return invalid(strprintf(_("'%s' is not a mode; use datagram or connected (in lower case, as nmstate)"),
                                 v["mode"].c_str()))
            .withContext(at + ".mode");
    if (v.count("base-iface") && !base)
        args.insert(args.end(), {"infiniband.parent", v["base-iface"]});
    if (v.count("pkey"))
        args.insert(args.end(), {"infiniband.p-key", base ? "default" : v["pkey"]});
    if (v.count("mode"))
        args.insert(args.end(), {"infiniband.transport-mode", v["mode"]});
    return {};
}

// A bond's settings: nmstate's `link-aggregation`, or its alias `bond`.
JsonObject *bondSettings(JsonObject *o)
{
    for (const char *key : {"link-aggregation", "bond"})
        if (json_object_has_member(o, key) && JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, key)))
            return json_object_get_object_member(o, key);
    return nullptr;
}

// The list of ports of bond settings: `port`, or its alias `ports`.
JsonNode *portList(JsonObject *la)
{
    for (const char *key : {"port", "ports"})
        if (la && json_object_has_member(la, key))
            return json_object_get_member(la, key);
    return nullptr;
}

struct Entry {
    std::string name;
    std::string path; // "interfaces[3]"
    std::string type; // empty: not given
    InterfaceState state = InterfaceState::Up;
    Args args;
    JsonObject *object = nullptr;
};

// Stage 1 of readEntry(), what the entry is: its name (which its path
// names from here on), only keys ibnm knows, one of 'bond' and
// 'link-aggregation', its state (up when not given) and its type (one ibnm
// handles, or none given).
Status readIdentity(JsonObject *o, Entry &e)
{
    if (!json_object_has_member(o, "name"))
        return invalid(_("the interface has no name")).withContext(e.path + ".name");
    auto name = scalar(json_object_get_member(o, "name"), e.path + ".name");
    if (!name)
        return std::move(name).error();
    if (name->empty())
        return invalid(_("the interface has no name")).withContext(e.path + ".name");
    e.name = *name;
    e.path += " '" + e.name + "'";
    if (auto st = onlyKnown(o, {"name", "type", "state", "mtu", "infiniband", "link-aggregation", "bond", "ipv4",
                                "ipv6", kExtensionKey},
                            e.path);
        !st)
        return std::move(st).error();
    if (json_object_has_member(o, "link-aggregation") && json_object_has_member(o, "bond"))
        return invalid(_("'bond' is nmstate's other name of 'link-aggregation': give one of them"))
            .withContext(e.path + ".bond");
    if (json_object_has_member(o, "state")) {
        auto s = scalar(json_object_get_member(o, "state"), e.path + ".state");
        if (!s)
            return std::move(s).error();
        if (*s == "up")
            e.state = InterfaceState::Up;
        else if (*s == "down")
            e.state = InterfaceState::Down;
        else if (*s == "absent")
            e.state = InterfaceState::Absent;
        else
            return invalid(strprintf(_("'%s' is not a state; use up, down or absent"), s->c_str()))
                .withContext(e.path + ".state");
    }
    if (json_object_has_member(o, "type")) {
        auto t = scalar(json_object_get_member(o, "type"), e.path + ".type");
        if (!t)
            return std::move(t).error();
        if (!kTypes.count(*t))
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("ibnm handles infiniband, bond and ethernet interfaces, not '%s'"), t->c_str()))
                .withContext(e.path + ".type");
        e.type = *t;
    }
    return {};
}

// Stage 2b of readEntry(), the bond settings `n` at `at` (link-aggregation
// or its other name bond): only a bond has them; mode and options become
// one +bond.options argument.
Status bondArgs(JsonNode *n, const std::string &at, Entry &e)
{
    auto la = object(n, at);
    if (!la)
        return std::move(la).error();
    if (e.type != "bond")
        return invalid(_("only an interface of type bond has these settings")).withContext(at);
    if (auto st = onlyKnown(*la, {"mode", "options", "port", "ports"}, at); !st)
        return std::move(st).error();
    std::string options;
    if (json_object_has_member(*la, "mode")) {
        auto v = scalar(json_object_get_member(*la, "mode"), at + ".mode");
        if (!v)
            return std::move(v).error();
        options = "mode=" + *v;
    }
    if (json_object_has_member(*la, "options")) {
        auto opts = object(json_object_get_member(*la, "options"), at + ".options");
        if (!opts)
            return std::move(opts).error();
        GList *members = json_object_get_members(*opts);
        for (GList *m = members; m; m = m->next) {
            const char *k = static_cast<const char *>(m->data);
            auto v = scalar(json_object_get_member(*opts, k), at + ".options." + k);
            if (!v) {
                g_list_free(members);
                return std::move(v).error();
            }
            options += (options.empty() ? "" : ",") + std::string(k) + "=" + *v;
        }
        g_list_free(members);
    }
    if (!options.empty())
        e.args.insert(e.args.end(), {"+bond.options", options});
    return {};
}

// One entry of `interfaces`: stage 1 (readIdentity()), then, unless it is
// absent, stage 2, its settings as nmcli arguments in a fixed order: mtu,
// infiniband (only a type infiniband has it), the bond's (bondArgs()),
// ipv4 and ipv6, ibnm's extension key.
Result<Entry> readEntry(JsonNode *node, guint index)
{
    Entry e;
    e.path = strprintf("interfaces[%u]", index);
    auto o = object(node, e.path);
    if (!o)
        return std::move(o).error();
    e.object = *o;
    if (auto st = readIdentity(*o, e); !st)
        return std::move(st).error();
    if (e.state == InterfaceState::Absent)
        return e;
    auto member = [&](const char *k) { return json_object_has_member(*o, k) ? json_object_get_member(*o, k) : nullptr; };
    if (JsonNode *n = member("mtu")) {
        auto v = scalar(n, e.path + ".mtu");
        if (!v)
            return std::move(v).error();
        e.args.insert(e.args.end(), {"mtu", *v});
    }
    if (JsonNode *n = member("infiniband")) {
        std::string at = e.path + ".infiniband";
        auto ib = object(n, at);
        if (!ib)
            return std::move(ib).error();
        if (e.type != "infiniband")
            return invalid(_("only an interface of type infiniband has these settings")).withContext(at);
        if (auto st = infinibandArgs(*ib, e.name, at, e.args); !st)
            return std::move(st).error();
    }
    if (JsonNode *n = member("link-aggregation") ? member("link-aggregation") : member("bond")) {
        std::string at = e.path + (member("link-aggregation") ? ".link-aggregation" : ".bond");
        if (auto st = bondArgs(n, at, e); !st)
            return std::move(st).error();
    }
    for (const char *family : {"ipv4", "ipv6"}) {
        if (JsonNode *n = member(family)) {
            auto ip = object(n, e.path + "." + family);
            if (!ip)
                return std::move(ip).error();
            if (auto st = ipArgs(*ip, family, e.path + "." + family, e.args); !st)
                return std::move(st).error();
        }
    }
    if (JsonNode *n = member(kExtensionKey)) {
        auto ext = object(n, e.path + "." + kExtensionKey);
        if (!ext)
            return std::move(ext).error();
        if (auto st = extensionArgs(*ext, e.path + "." + kExtensionKey, e.args); !st)
            return std::move(st).error();
    }
    return e;
}

// The ports a bond entry lists, as {port, path}.
Result<std::vector<std::string>> portsOf(const Entry &e)
{
    std::vector<std::string> ports;
    if (e.type != "bond")
        return ports;
    JsonNode *named = portList(bondSettings(e.object));
    if (named == nullptr)
        return ports;
    std::string at = e.path + ".link-aggregation.port";
    auto list = array(named, at);
    if (!list)
        return std::move(list).error();
    for (guint i = 0; i < json_array_get_length(*list); i++) {
        auto p = scalar(json_array_get_element(*list, i), strprintf("%s[%u]", at.c_str(), i));
        if (!p)
            return std::move(p).error();
        ports.push_back(*p);
    }
    return ports;
}

// Whether a bond entry names its ports (`link-aggregation.port`, maybe
// empty): then they are all of them.
bool hasPortList(const Entry &e)
{
    return portList(bondSettings(e.object)) != nullptr;
}

// The stored profile of an interface: the first whose interface name it is,
// else the first with it as its id. Indexed once, so that planning N
// interfaces against N profiles is linear.
class StoredIndex {
  public:
    explicit StoredIndex(const std::vector<NMConnection *> &stored)
    {
        for (NMConnection *c : stored) {
            if (const char *ifname = nm_connection_get_interface_name(c))
                byInterface_.emplace(ifname, c);
            if (const char *id = nm_connection_get_id(c))
                byId_.emplace(id, c);
        }
    }
    NMConnection *find(const std::string &name) const
    {
        if (auto it = byInterface_.find(name); it != byInterface_.end())
            return it->second;
        if (auto it = byId_.find(name); it != byId_.end())
            return it->second;
        return nullptr;
    }

  private:
    std::unordered_map<std::string, NMConnection *> byInterface_;
    std::unordered_map<std::string, NMConnection *> byId_;
};

// A bond port's profile has no IP settings: NetworkManager's normalization
// removes them (nm_connection_normalize(), for a connection with a
// controller). `enabled: false`, which nmstate writes for a port, asks for
// what the stored port already is: its arguments are dropped, so that the
// document applies again as a no-op instead of asking to set IP on a port.
void dropDisabledIp(Args &args)
{
    Args kept;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
        const std::string &key = args[i], &value = args[i + 1];
        bool method = key == "ipv4.method" || key == "ipv6.method";
        bool addresses = key == "ipv4.addresses" || key == "ipv6.addresses";
        if ((method && value == "disabled") || (addresses && value.empty()))
            continue;
        kept.insert(kept.end(), {key, value});
    }
    args = std::move(kept);
}

std::vector<const char *> cargv(const Args &args)
{
    std::vector<const char *> v;
    for (const auto &a : args)
        v.push_back(a.c_str());
    v.push_back(nullptr);
    return v;
}

// One route of `routes.config` (nmstate 2.x's RouteEntry, the keys ibnm
// handles): destination, next-hop-address, next-hop-interface, metric,
// table-id, and `state: absent`, which removes the stored routes that match
// every key given.
struct RouteEntry {
    std::string path;
    std::string destination, hop, interface;
    std::optional<std::string> metric, table;
    bool absent = false;
    bool v6() const { return destination.find(':') != std::string::npos; }
    bool isDefault() const { return destination == "0.0.0.0/0" || destination == "::/0"; }
    // The route as nmstate prints it (RouteEntry's Display: the keys given,
    // in its order, separated by spaces).
    static std::string nmstate(const std::map<std::string, std::string> &given)
    {
        std::string out;
        for (const char *key : {"state", "destination", "next-hop-interface", "next-hop-address", "metric", "table-id"})
            if (given.count(key))
                out += (out.empty() ? "" : " ") + std::string(key) + ": " + given.at(key);
        return out;
    }
    // The route as nmcli writes it: `ip[/prefix] [next-hop] [metric] [table=N]`.
    std::string nmcli() const
    {
        std::string out = destination;
        if (!hop.empty())
            out += " " + hop;
        if (metric)
            out += " " + *metric;
        if (table)
            out += " table=" + *table;
        return out;
    }
};

Result<std::vector<RouteEntry>> readRoutes(JsonNode *node)
{
    std::vector<RouteEntry> out;
    auto routes = object(node, "routes");
    if (!routes)
        return std::move(routes).error();
    if (auto st = onlyKnown(*routes, {"config"}, "routes"); !st)
        return std::move(st).error();
    if (!json_object_has_member(*routes, "config"))
        return out;
    auto list = array(json_object_get_member(*routes, "config"), "routes.config");
    if (!list)
        return std::move(list).error();
    for (guint i = 0; i < json_array_get_length(*list); i++) {
        RouteEntry r;
        r.path = strprintf("routes.config[%u]", i);
        auto o = object(json_array_get_element(*list, i), r.path);
        if (!o)
            return std::move(o).error();
        if (auto st = onlyKnown(*o, {"destination", "next-hop-address", "next-hop-interface", "metric", "table-id",
                                     "state"},
                                r.path);
            !st)
            return std::move(st).error();
        std::map<std::string, std::string> v;
        for (const char *key : {"destination", "next-hop-address", "next-hop-interface", "metric", "table-id", "state"}) {
            if (!json_object_has_member(*o, key))
                continue;
            auto value = scalar(json_object_get_member(*o, key), r.path + "." + key);
            if (!value)
                return std::move(value).error();
            v[key] = *value;
        }
        const auto given = v; // as written (v[] below adds the keys not given)
        if (v.count("state") && v["state"] != "absent")
            return invalid(strprintf(_("'%s' is not a route state; only absent is"), v["state"].c_str()))
                .withContext(r.path + ".state");
        r.absent = v.count("state") > 0;
        r.destination = v["destination"];
        r.hop = v["next-hop-address"];
        r.interface = v["next-hop-interface"];
        if (v.count("metric"))
            r.metric = v["metric"];
        if (v.count("table-id"))
            r.table = v["table-id"];
        if (!r.absent && r.destination.empty())
            return invalid(_("a route needs a destination")).withContext(r.path + ".destination");
        // nmstate 2.x refuses it too (Routes::validate() in rust/src/lib/route.rs,
        // NotImplementedError, up to 2.2.37 and its main branch): it does not
        // pick an interface by the next hop's subnet. Its words, the route in
        // its Display form.
        if (!r.absent && r.interface.empty())
            return invalid(strprintf(_("Route with empty next hop interface is not supported: %s"),
                                     RouteEntry::nmstate(given).c_str()))
                .withContext(r.path + ".next-hop-interface");
        if (!r.destination.empty() && r.destination.find('/') == std::string::npos)
            r.destination += r.v6() ? "/128" : "/32";
        out.push_back(std::move(r));
    }
    return out;
}

// Whether the stored route `route` is one `absent` names (every key given
// matches, as nmstate matches an absent route).
bool routeMatches(NMIPRoute *route, const RouteEntry &absent)
{
    std::string dest = strprintf("%s/%u", nm_ip_route_get_dest(route), nm_ip_route_get_prefix(route));
    if (!absent.destination.empty() && dest != absent.destination)
        return false;
    if (!absent.hop.empty() && g_strcmp0(nm_ip_route_get_next_hop(route), absent.hop.c_str()) != 0)
        return false;
    if (absent.metric && std::to_string(nm_ip_route_get_metric(route)) != *absent.metric)
        return false;
    if (absent.table) {
        GVariant *t = nm_ip_route_get_attribute(route, NM_IP_ROUTE_ATTRIBUTE_TABLE);
        guint32 table = t ? g_variant_get_uint32(t) : 0;
        if (std::to_string(table) != *absent.table)
            return false;
    }
    return true;
}

// nmstate's `dns-resolver.config` (server, search): NetworkManager keeps DNS
// in a profile, and nmstate puts it in the profile of the interface with the
// default route of the servers' family (IPv4 servers in ipv4.dns, IPv6 ones
// in ipv6.dns; the search list with the IPv4 servers).
struct DnsConfig {
    std::vector<std::string> servers[2]; // IPv4, IPv6
    std::vector<std::string> search;
    bool given = false;
};

Result<DnsConfig> readDns(JsonNode *node)
{
    DnsConfig dns;
    auto o = object(node, "dns-resolver");
    if (!o)
        return std::move(o).error();
    if (auto st = onlyKnown(*o, {"config"}, "dns-resolver"); !st)
        return std::move(st).error();
    if (!json_object_has_member(*o, "config"))
        return dns;
    auto config = object(json_object_get_member(*o, "config"), "dns-resolver.config");
    if (!config)
        return std::move(config).error();
    if (auto st = onlyKnown(*config, {"server", "search"}, "dns-resolver.config"); !st)
        return std::move(st).error();
    dns.given = true;
    for (const char *key : {"server", "search"}) {
        if (!json_object_has_member(*config, key))
            continue;
        std::string at = std::string("dns-resolver.config.") + key;
        auto list = array(json_object_get_member(*config, key), at);
        if (!list)
            return std::move(list).error();
        for (guint i = 0; i < json_array_get_length(*list); i++) {
            auto v = scalar(json_array_get_element(*list, i), strprintf("%s[%u]", at.c_str(), i));
            if (!v)
                return std::move(v).error();
            if (std::string(key) == "server")
                dns.servers[v->find(':') != std::string::npos].push_back(*v);
            else
                dns.search.push_back(*v);
        }
    }
    return dns;
}

std::string joined(const std::vector<std::string> &items)
{
    std::string out;
    for (const auto &i : items)
        out += (out.empty() ? "" : ",") + i;
    return out;
}

Error fromGError(GError *err)
{
    auto code = err->domain == IBNM_ERROR ? IbnmError(err->code) : IBNM_ERROR_FAILED;
    return Error(code, err->message);
}

// The entry of interface `name` (listed, else a stored profile's, added to
// `entries`), or an error at `path`.
template <typename Find>
Result<Entry *> entryFor(std::vector<Entry> &entries, const std::string &name, const std::string &path,
                         const Find &findStored)
{
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry &e) { return e.name == name; });
    if (it == entries.end()) {
        if (!findStored(name))
            return invalid(strprintf(_("'%s' is neither listed under interfaces nor a stored profile"), name.c_str()))
                .withContext(path);
        Entry e;
        e.name = name;
        e.path = path;
        entries.push_back(std::move(e));
        it = entries.end() - 1;
    }
    if (it->state == InterfaceState::Absent)
        return invalid(strprintf(_("'%s' is absent in this document"), name.c_str())).withContext(path);
    return &*it;
}

// routes: and dns-resolver: as the arguments of the profiles that hold them.
template <typename Find>
Status routeAndDnsArgs(JsonObject *top, std::vector<Entry> &entries, const Find &findStored,
                       const std::vector<NMConnection *> &stored)
{
    std::vector<RouteEntry> routes;
    if (json_object_has_member(top, "routes")) {
        auto r = readRoutes(json_object_get_member(top, "routes"));
        if (!r)
            return std::move(r).error();
        routes = std::move(*r);
    }
    // Absent first (nmstate removes before it adds): by index, last first,
    // in each stored profile whose routes match.
    for (NMConnection *c : stored) {
        const char *ifname = nm_connection_get_interface_name(c);
        const char *id = nm_connection_get_id(c);
        std::string name = ifname ? ifname : id ? id : "";
        for (bool v6 : {false, true}) {
            NMSettingIPConfig *ip = v6 ? NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip6_config(c))
                                       : NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c));
            std::vector<guint> gone;
            for (guint i = 0; ip && i < nm_setting_ip_config_get_num_routes(ip); i++)
                for (const auto &r : routes)
                    if (r.absent && (r.interface.empty() || r.interface == name) &&
                        (r.destination.empty() || r.v6() == v6) && routeMatches(nm_setting_ip_config_get_route(ip, i), r)) {
                        gone.push_back(i);
                        break;
                    }
            if (gone.empty() || findStored(name) != c)
                continue;
            auto e = entryFor(entries, name, "routes.config", findStored);
            if (!e)
                return std::move(e).error();
            for (auto i = gone.rbegin(); i != gone.rend(); ++i)
                (*e)->args.insert((*e)->args.end(), {std::string(v6 ? "-ipv6" : "-ipv4") + ".routes", std::to_string(*i)});
        }
    }
    std::string defaultOf[2]; // the interface of the first IPv4 / IPv6 default route
    for (const auto &r : routes) {
        if (r.absent)
            continue;
        auto e = entryFor(entries, r.interface, r.path + ".next-hop-interface", findStored);
        if (!e)
            return std::move(e).error();
        (*e)->args.insert((*e)->args.end(), {std::string(r.v6() ? "+ipv6" : "+ipv4") + ".routes", r.nmcli()});
        if (r.isDefault() && defaultOf[r.v6()].empty())
            defaultOf[r.v6()] = r.interface;
    }
    if (!json_object_has_member(top, "dns-resolver"))
        return {};
    auto dns = readDns(json_object_get_member(top, "dns-resolver"));
    if (!dns)
        return std::move(dns).error();
    if (!dns->given)
        return {};
    for (int family = 0; family < 2; family++) {
        bool search = family == 0;
        if (dns->servers[family].empty() && !(search && !dns->search.empty()))
            continue;
        std::string holder = !defaultOf[family].empty() ? defaultOf[family] : defaultOf[1 - family];
        if (holder.empty())
            return invalid(_("NetworkManager keeps DNS in a profile: nmstate puts it in the profile of the interface "
                             "with the default route, and this document has none (add one under routes.config)"))
                .withContext("dns-resolver.config");
        auto e = entryFor(entries, holder, "dns-resolver.config", findStored);
        if (!e)
            return std::move(e).error();
        const char *ip = family ? "ipv6" : "ipv4";
        if (!dns->servers[family].empty())
            (*e)->args.insert((*e)->args.end(), {std::string(ip) + ".dns", joined(dns->servers[family])});
        if (search && !dns->search.empty())
            (*e)->args.insert((*e)->args.end(), {std::string(ip) + ".dns-search", joined(dns->search)});
    }
    return {};
}

// What the stages of plan() share: the stored profiles, indexed, the
// entries of the interfaces the document touches (the listed ones, then
// those its routes, DNS and bonds name) and the bond of each listed port.
struct PlanState {
    explicit PlanState(const std::vector<NMConnection *> &s) : stored(s), index(s) {}
    NMConnection *findStored(const std::string &name) const { return index.find(name); }

    const std::vector<NMConnection *> &stored;
    StoredIndex index;
    std::vector<Entry> entries;
    std::map<std::string, std::string> bondOf; // port -> bond
};

// Stage 1, the document's interfaces: decides which entries it lists (at
// most kMaxInterfaces, each name once), each read by readEntry().
Status readInterfaces(JsonObject *top, PlanState &st)
{
    if (!json_object_has_member(top, "interfaces"))
        return {};
    auto list = array(json_object_get_member(top, "interfaces"), "interfaces");
    if (!list)
        return std::move(list).error();
    if (json_array_get_length(*list) > kMaxInterfaces)
        return invalid(strprintf(_("the document lists %u interfaces, more than the %zu ibnm applies at once"),
                                 json_array_get_length(*list), kMaxInterfaces))
            .withContext("interfaces");
    std::set<std::string> seen;
    for (guint i = 0; i < json_array_get_length(*list); i++) {
        auto e = readEntry(json_array_get_element(*list, i), i);
        if (!e)
            return std::move(e).error();
        if (!seen.insert(e->name).second)
            return invalid(_("the interface is listed twice")).withContext(e->path);
        st.entries.push_back(std::move(*e));
    }
    return {};
}

// Stage 3, bond ports: each port a bond lists gets the bond as its master,
// whether the document lists the port or only its profile is stored (an
// entry is added for it); an absent interface cannot be a port.
Status attachPorts(PlanState &st)
{
    for (const auto &e : st.entries) {
        if (e.state == InterfaceState::Absent)
            continue;
        auto ports = portsOf(e);
        if (!ports)
            return std::move(ports).error();
        for (const auto &p : *ports)
            st.bondOf[p] = e.name;
    }
    for (const auto &link : st.bondOf) {
        // Named references, not a structured binding: C++17 lambdas may
        // not capture one (clang refuses; g++ allows it).
        const std::string &port = link.first;
        const std::string &bond = link.second;
        auto it = std::find_if(st.entries.begin(), st.entries.end(), [&](const Entry &e) { return e.name == port; });
        if (it == st.entries.end()) {
            if (!st.findStored(port))
                return invalid(strprintf(_("the port '%s' is neither listed under interfaces nor a stored "
                                           "profile"),
                                         port.c_str()))
                    .withContext("interfaces '" + bond + "'.link-aggregation.port");
            Entry e;
            e.name = port;
            e.path = "interfaces '" + bond + "'.link-aggregation.port '" + port + "'";
            st.entries.push_back(std::move(e));
            it = st.entries.end() - 1;
        }
        if (it->state == InterfaceState::Absent)
            return invalid(_("an absent interface cannot be a port")).withContext(it->path);
        dropDisabledIp(it->args);
        it->args.insert(it->args.end(), {"connection.master", bond, "connection.slave-type", "bond"});
    }
    return {};
}

// Stage 4, ports a bond's list leaves out: a bond whose document lists its
// ports has those ports only. A stored port of it that the list leaves out
// is detached (nmstate does the same), its profile without a controller
// and, unless the document says otherwise, without IP (nmstate's default
// for an interface: enabled false).
void detachUnlistedPorts(PlanState &st)
{
    for (size_t b = 0, n = st.entries.size(); b < n; b++) {
        // A copy: entries grows below.
        const std::string bond = st.entries[b].name;
        if (st.entries[b].state == InterfaceState::Absent || st.entries[b].type != "bond" ||
            !hasPortList(st.entries[b]))
            continue;
        std::set<std::string> names = {bond};
        if (NMConnection *storedBond = st.findStored(bond)) {
            for (const char *v : {nm_connection_get_uuid(storedBond), nm_connection_get_id(storedBond)})
                if (v)
                    names.insert(v);
        }
        for (NMConnection *c : st.stored) {
            NMSettingConnection *sc = nm_connection_get_setting_connection(c);
            const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
            if (!master || !names.count(master) ||
                g_strcmp0(nm_setting_connection_get_slave_type(sc), NM_SETTING_BOND_SETTING_NAME) != 0)
                continue;
            const char *ifname = nm_connection_get_interface_name(c);
            const char *named = ifname ? ifname : nm_connection_get_id(c);
            if (named == nullptr)
                continue;
            std::string port = named;
            if (st.bondOf.count(port) || st.findStored(port) != c)
                continue; // listed (under this bond or another), or not the profile `port` names
            auto it =
                std::find_if(st.entries.begin(), st.entries.end(), [&](const Entry &e) { return e.name == port; });
            if (it == st.entries.end()) {
                Entry e;
                e.name = port;
                e.path = "interfaces '" + bond + "'.link-aggregation.port";
                st.entries.push_back(std::move(e));
                it = st.entries.end() - 1;
            }
            if (it->state == InterfaceState::Absent)
                continue; // deleted anyway
            it->args.insert(it->args.end(), {"connection.master", "", "connection.slave-type", ""});
            for (const char *family : {"ipv4", "ipv6"})
                if (std::find(it->args.begin(), it->args.end(), std::string(family) + ".method") == it->args.end())
                    it->args.insert(it->args.end(), {std::string(family) + ".method", "disabled"});
        }
    }
}

// Stage 5a, an entry with a stored profile: refuses another type, and
// decides between no change (the common case of a second apply, decided
// without copying the profile) and the profile as the arguments modify it.
Status modifyChange(const Entry &e, Change &ch)
{
    const char *type = nm_connection_get_connection_type(ch.stored);
    std::string storedType = g_strcmp0(type, NM_SETTING_WIRED_SETTING_NAME) == 0 ? "ethernet"
                             : type                                              ? type
                                                                                 : "";
    if (!e.type.empty() && e.type != storedType)
        return invalid(strprintf(_("the stored profile '%s' is of type %s; delete it first (state: "
                                   "absent)"),
                                 nm_connection_get_id(ch.stored), storedType.c_str()))
            .withContext(e.path + ".type");
    if (e.args.empty() || nmcli::connectionUnchangedBy(ch.stored, e.args)) {
        ch.desired = GObjectPtr<NMConnection>::retain(ch.stored);
        ch.kind = ChangeKind::None;
        return {};
    }
    auto modified = nmcli::connectionModified(ch.stored, e.args);
    if (!modified)
        return std::move(modified).error().withContext(e.path);
    ch.desired = std::move(*modified);
    ch.kind = nm_connection_compare(ch.stored, ch.desired.get(), NM_SETTING_COMPARE_FLAG_EXACT) ? ChangeKind::None
                                                                                                 : ChangeKind::Modify;
    return {};
}

// Stage 5b, an entry without a stored profile: the new profile nmstate
// would make (a type is needed; infiniband in datagram mode; an IP family
// the entry does not mention disabled, except on a bond port).
Status addChange(const Entry &e, Change &ch)
{
    if (e.type.empty())
        return invalid(_("a new interface needs a type")).withContext(e.path + ".type");
    Args args = {"type", e.type, "con-name", e.name, "ifname", e.name};
    if (e.type == "infiniband" &&
        std::find(e.args.begin(), e.args.end(), "infiniband.transport-mode") == e.args.end())
        args.insert(args.end(), {"infiniband.transport-mode", "datagram"});
    // nmstate disables an IP family a new interface does not
    // mention (its InterfaceIpv4/6 default: enabled false); a
    // bond port has no IP settings of its own.
    bool port = std::find(e.args.begin(), e.args.end(), "connection.master") != e.args.end();
    for (const char *family : {"ipv4", "ipv6"})
        if (!port && std::find(e.args.begin(), e.args.end(), std::string(family) + ".method") == e.args.end())
            args.insert(args.end(), {std::string(family) + ".method", "disabled"});
    args.insert(args.end(), e.args.begin(), e.args.end());
    auto argv = cargv(args);
    GErrorPtr err;
    GObjectPtr<IbnmProfile> profile =
        GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new_from_args(argv.data(), outPtr(err)));
    if (!profile)
        return fromGError(err.get()).withContext(e.path);
    ch.desired = GObjectPtr<NMConnection>::retain(ibnm_profile_get_connection(profile.get()));
    ch.kind = ChangeKind::Add;
    return {};
}

// Stage 5, each entry's change: absent deletes a stored profile (or does
// nothing), else stage 5a or 5b.
Result<std::vector<Change>> changesOf(const PlanState &st)
{
    std::vector<Change> changes;
    for (const auto &e : st.entries) {
        Change ch;
        ch.interface = e.name;
        ch.state = e.state;
        ch.stored = st.findStored(e.name);
        if (e.state == InterfaceState::Absent)
            ch.kind = ch.stored ? ChangeKind::Delete : ChangeKind::None;
        else if (auto done = ch.stored ? modifyChange(e, ch) : addChange(e, ch); !done)
            return std::move(done).error();
        changes.push_back(std::move(ch));
    }
    return changes;
}

// The stages: the interfaces (1), routes and DNS as their profiles'
// arguments (2, routeAndDnsArgs()), bond ports attached (3) and detached
// (4), and each entry's change (5).
Result<std::vector<Change>> planStages(JsonNode *root, PlanState &st)
{
    auto top = object(root, "");
    if (!top)
        return invalid(_("the document must be a mapping with an 'interfaces' list"));
    if (auto s = onlyKnown(*top, {"interfaces", "routes", "dns-resolver"}, ""); !s)
        return std::move(s).error();
    if (auto s = readInterfaces(*top, st); !s)
        return std::move(s).error();
    auto findStored = [&st](const std::string &name) { return st.findStored(name); };
    if (auto s = routeAndDnsArgs(*top, st.entries, findStored, st.stored); !s)
        return std::move(s).error();
    if (auto s = attachPorts(st); !s)
        return std::move(s).error();
    detachUnlistedPorts(st);
    return changesOf(st);
}

} // namespace

Result<std::vector<Change>> plan(JsonNode *root, const std::vector<NMConnection *> &stored,
                                 const std::string &filename)
{
    PlanState st(stored);
    auto r = planStages(root, st);
    if (!r)
        return std::move(r).error().withContext(filename);
    return r;
}

} // namespace ibnm::state
