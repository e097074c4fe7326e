// SPDX-License-Identifier: LGPL-2.1-or-later
// plan(): an nmstate document against the stored profiles, one change per
// interface, through the nmcli grammar. describe() is nmstate-describe.cpp.
#include "config.h"

#include "libcore/state/nmstate.hpp"
#include "libcore/state/nmstate-private.hpp"

#include "libcore/ibnm-profile.h"
#include "libcore/support/i18n.hpp"
#include "libcore/profiles/nmcli-args.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"

#include <algorithm>
#include <map>
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

struct Entry {
    std::string name;
    std::string path; // "interfaces[3]"
    std::string type; // empty: not given
    InterfaceState state = InterfaceState::Up;
    Args args;
    JsonObject *object = nullptr;
};

Result<Entry> readEntry(JsonNode *node, guint index)
{
    Entry e;
    e.path = strprintf("interfaces[%u]", index);
    auto o = object(node, e.path);
    if (!o)
        return std::move(o).error();
    e.object = *o;
    if (!json_object_has_member(*o, "name"))
        return invalid(_("the interface has no name")).withContext(e.path + ".name");
    auto name = scalar(json_object_get_member(*o, "name"), e.path + ".name");
    if (!name)
        return std::move(name).error();
    if (name->empty())
        return invalid(_("the interface has no name")).withContext(e.path + ".name");
    e.name = *name;
    e.path += " '" + e.name + "'";
    if (auto st = onlyKnown(*o, {"name", "type", "state", "mtu", "infiniband", "link-aggregation", "ipv4", "ipv6",
                                 kExtensionKey},
                            e.path);
        !st)
        return std::move(st).error();
    if (json_object_has_member(*o, "state")) {
        auto s = scalar(json_object_get_member(*o, "state"), e.path + ".state");
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
    if (json_object_has_member(*o, "type")) {
        auto t = scalar(json_object_get_member(*o, "type"), e.path + ".type");
        if (!t)
            return std::move(t).error();
        if (!kTypes.count(*t))
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("ibnm handles infiniband, bond and ethernet interfaces, not '%s'"), t->c_str()))
                .withContext(e.path + ".type");
        e.type = *t;
    }
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
        if (auto st = onlyKnown(*ib, {"base-iface", "pkey", "mode"}, at); !st)
            return std::move(st).error();
        for (auto [key, property] : {std::pair{"base-iface", "infiniband.parent"},
                                     std::pair{"pkey", "infiniband.p-key"},
                                     std::pair{"mode", "infiniband.transport-mode"}}) {
            if (!json_object_has_member(*ib, key))
                continue;
            auto v = scalar(json_object_get_member(*ib, key), at + "." + key);
            if (!v)
                return std::move(v).error();
            e.args.insert(e.args.end(), {property, *v});
        }
    }
    if (JsonNode *n = member("link-aggregation")) {
        std::string at = e.path + ".link-aggregation";
        auto la = object(n, at);
        if (!la)
            return std::move(la).error();
        if (e.type != "bond")
            return invalid(_("only an interface of type bond has these settings")).withContext(at);
        if (auto st = onlyKnown(*la, {"mode", "options", "port"}, at); !st)
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
    if (e.type != "bond" || !json_object_has_member(e.object, "link-aggregation"))
        return ports;
    JsonObject *la = json_object_get_object_member(e.object, "link-aggregation");
    if (!la || !json_object_has_member(la, "port"))
        return ports;
    std::string at = e.path + ".link-aggregation.port";
    auto list = array(json_object_get_member(la, "port"), at);
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
    if (!json_object_has_member(e.object, "link-aggregation"))
        return false;
    JsonObject *la = json_object_get_object_member(e.object, "link-aggregation");
    return la && json_object_has_member(la, "port");
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

Error fromGError(GError *err)
{
    auto code = err->domain == IBNM_ERROR ? IbnmError(err->code) : IBNM_ERROR_FAILED;
    return Error(code, err->message);
}

} // namespace

Result<std::vector<Change>> plan(JsonNode *root, const std::vector<NMConnection *> &stored,
                                 const std::string &filename)
{
    StoredIndex index(stored);
    auto findStored = [&index](const std::string &name) { return index.find(name); };
    auto run = [&]() -> Result<std::vector<Change>> {
        auto top = object(root, "");
        if (!top)
            return invalid(_("the document must be a mapping with an 'interfaces' list"));
        if (auto st = onlyKnown(*top, {"interfaces"}, ""); !st)
            return std::move(st).error();
        std::vector<Entry> entries;
        if (json_object_has_member(*top, "interfaces")) {
            auto list = array(json_object_get_member(*top, "interfaces"), "interfaces");
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
                entries.push_back(std::move(*e));
            }
        }
        // Bond ports: each named port's profile gets the bond as its master,
        // whether the document lists the port or only its profile is stored.
        std::map<std::string, std::string> bondOf;
        for (const auto &e : entries) {
            if (e.state == InterfaceState::Absent)
                continue;
            auto ports = portsOf(e);
            if (!ports)
                return std::move(ports).error();
            for (const auto &p : *ports)
                bondOf[p] = e.name;
        }
        for (const auto &link : bondOf) {
            // Named references, not a structured binding: C++17 lambdas may
            // not capture one (clang refuses; g++ allows it).
            const std::string &port = link.first;
            const std::string &bond = link.second;
            auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry &e) { return e.name == port; });
            if (it == entries.end()) {
                if (!findStored(port))
                    return invalid(strprintf(_("the port '%s' is neither listed under interfaces nor a stored "
                                               "profile"),
                                             port.c_str()))
                        .withContext("interfaces '" + bond + "'.link-aggregation.port");
                Entry e;
                e.name = port;
                e.path = "interfaces '" + bond + "'.link-aggregation.port '" + port + "'";
                entries.push_back(std::move(e));
                it = entries.end() - 1;
            }
            if (it->state == InterfaceState::Absent)
                return invalid(_("an absent interface cannot be a port")).withContext(it->path);
            dropDisabledIp(it->args);
            it->args.insert(it->args.end(), {"connection.master", bond, "connection.slave-type", "bond"});
        }
        // A bond whose document lists its ports has those ports only: a
        // stored port of it that the list leaves out is detached (nmstate
        // does the same), its profile without a controller and, unless the
        // document says otherwise, without IP (nmstate's default for an
        // interface: enabled false).
        for (size_t b = 0, n = entries.size(); b < n; b++) {
            // A copy: entries grows below.
            const std::string bond = entries[b].name;
            if (entries[b].state == InterfaceState::Absent || entries[b].type != "bond" || !hasPortList(entries[b]))
                continue;
            std::set<std::string> names = {bond};
            if (NMConnection *storedBond = findStored(bond)) {
                for (const char *v : {nm_connection_get_uuid(storedBond), nm_connection_get_id(storedBond)})
                    if (v)
                        names.insert(v);
            }
            for (NMConnection *c : stored) {
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
                if (bondOf.count(port) || findStored(port) != c)
                    continue; // listed (under this bond or another), or not the profile `port` names
                auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry &e) { return e.name == port; });
                if (it == entries.end()) {
                    Entry e;
                    e.name = port;
                    e.path = "interfaces '" + bond + "'.link-aggregation.port";
                    entries.push_back(std::move(e));
                    it = entries.end() - 1;
                }
                if (it->state == InterfaceState::Absent)
                    continue; // deleted anyway
                it->args.insert(it->args.end(), {"connection.master", "", "connection.slave-type", ""});
                for (const char *family : {"ipv4", "ipv6"})
                    if (std::find(it->args.begin(), it->args.end(), std::string(family) + ".method") == it->args.end())
                        it->args.insert(it->args.end(), {std::string(family) + ".method", "disabled"});
            }
        }
        std::vector<Change> changes;
        for (auto &e : entries) {
            Change ch;
            ch.interface = e.name;
            ch.state = e.state;
            ch.stored = findStored(e.name);
            if (e.state == InterfaceState::Absent) {
                ch.kind = ch.stored ? ChangeKind::Delete : ChangeKind::None;
                changes.push_back(std::move(ch));
                continue;
            }
            GErrorPtr err;
            if (ch.stored) {
                const char *type = nm_connection_get_connection_type(ch.stored);
                std::string storedType = g_strcmp0(type, NM_SETTING_WIRED_SETTING_NAME) == 0 ? "ethernet"
                                         : type                                              ? type
                                                                                             : "";
                if (!e.type.empty() && e.type != storedType)
                    return invalid(strprintf(_("the stored profile '%s' is of type %s; delete it first (state: "
                                               "absent)"),
                                             nm_connection_get_id(ch.stored), storedType.c_str()))
                        .withContext(e.path + ".type");
                // The common case of a second apply, a profile the entry
                // leaves as it is, is decided without copying the profile.
                if (e.args.empty() || nmcli::connectionUnchangedBy(ch.stored, e.args)) {
                    ch.desired = GObjectPtr<NMConnection>::retain(ch.stored);
                    ch.kind = ChangeKind::None;
                } else {
                    auto modified = nmcli::connectionModified(ch.stored, e.args);
                    if (!modified)
                        return std::move(modified).error().withContext(e.path);
                    ch.desired = std::move(*modified);
                    ch.kind = nm_connection_compare(ch.stored, ch.desired.get(), NM_SETTING_COMPARE_FLAG_EXACT)
                                  ? ChangeKind::None
                                  : ChangeKind::Modify;
                }
            } else {
                if (e.type.empty())
                    return invalid(_("a new interface needs a type")).withContext(e.path + ".type");
                Args args = {"type", e.type, "con-name", e.name, "ifname", e.name};
                if (e.type == "infiniband" && std::find(e.args.begin(), e.args.end(), "infiniband.transport-mode") ==
                                                   e.args.end())
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
                GObjectPtr<IbnmProfile> profile =
                    GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new_from_args(argv.data(), outPtr(err)));
                if (!profile)
                    return fromGError(err.get()).withContext(e.path);
                ch.desired = GObjectPtr<NMConnection>::retain(ibnm_profile_get_connection(profile.get()));
                ch.kind = ChangeKind::Add;
            }
            changes.push_back(std::move(ch));
        }
        return changes;
    };
    auto r = run();
    if (!r)
        return std::move(r).error().withContext(filename);
    return r;
}

} // namespace ibnm::state
