// SPDX-License-Identifier: LGPL-2.1-or-later
// An active connection's record as JSON text (json-glib), and back: the
// format of <runtime dir>/active/<uuid>, docs/active-connections.md.
#include "config.h"

#include "libcore/activation/active.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/json-text.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <json-glib/json-glib.h>

namespace ibnm::activation {

namespace {

// The format's version: a reader refuses another.
constexpr gint64 kFormat = 1;

using Builder = std::unique_ptr<JsonBuilder, decltype(&g_object_unref)>;

void member(JsonBuilder *b, const char *name, const std::string &value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_string_value(b, value.c_str());
}

void member(JsonBuilder *b, const char *name, gint64 value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, value);
}

void member(JsonBuilder *b, const char *name, bool value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_boolean_value(b, value);
}

// A value that may be "unset" (null): traffic class, TTL.
void nullable(JsonBuilder *b, const char *name, const std::optional<unsigned> &value)
{
    json_builder_set_member_name(b, name);
    if (value)
        json_builder_add_int_value(b, *value);
    else
        json_builder_add_null_value(b);
}

void routes(JsonBuilder *b, const char *name, const std::vector<model::Route> &list)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_array(b);
    for (const auto &r : list) {
        json_builder_begin_object(b);
        member(b, "dest", r.dest);
        member(b, "gateway", r.gateway);
        member(b, "metric", gint64(r.metric));
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

void strings(JsonBuilder *b, const char *name, const std::vector<std::string> &list)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_array(b);
    for (const auto &s : list)
        json_builder_add_string_value(b, s.c_str());
    json_builder_end_array(b);
}

void created(JsonBuilder *b, const CreatedObject &c)
{
    json_builder_begin_object(b);
    switch (c.kind) {
    case CreatedObject::Kind::IpoibChild:
        member(b, "type", std::string("ipoib-child"));
        member(b, "parent", c.parent);
        member(b, "p-key", gint64(c.pkey));
        break;
    case CreatedObject::Kind::Bond: member(b, "type", std::string("bond")); break;
    case CreatedObject::Kind::SoftLink:
        member(b, "type", std::string("rdma-link"));
        member(b, "link-type", std::string(model::softLinkTypeName(c.linkType)));
        member(b, "netdev", c.netdev);
        break;
    case CreatedObject::Kind::RdmaCm: member(b, "type", std::string("rdma-cm")); break;
    }
    member(b, "name", c.name);
    if (c.ifindex)
        member(b, "ifindex", gint64(c.ifindex));
    json_builder_end_object(b);
}

void interfaceChange(JsonBuilder *b, const InterfaceChange &c)
{
    json_builder_begin_object(b);
    member(b, "name", c.name);
    member(b, "ifindex", gint64(c.ifindex));
    if (c.mtu)
        member(b, "mtu", gint64(*c.mtu));
    if (c.mode)
        member(b, "mode", std::string(model::modeName(*c.mode)));
    if (c.umcast)
        member(b, "umcast", *c.umcast);
    if (c.up)
        member(b, "up", *c.up);
    if (c.master)
        member(b, "master", *c.master);
    strings(b, "added-addresses", c.addedAddresses);
    routes(b, "added-routes", c.addedRoutes);
    if (!c.removedAddresses.empty())
        strings(b, "removed-addresses", c.removedAddresses);
    json_builder_end_object(b);
}

void rdmaPort(JsonBuilder *b, const RdmaPortChange &p)
{
    json_builder_begin_object(b);
    member(b, "device", p.device);
    member(b, "port", gint64(p.port));
    if (p.roceMode)
        member(b, "roce-mode", std::string(*p.roceMode == model::RoceMode::V1 ? "v1" : "v2"));
    if (p.roceTos)
        member(b, "roce-tos", gint64(*p.roceTos));
    if (p.trafficClassChanged)
        nullable(b, "traffic-class", p.trafficClass);
    if (p.ttlChanged)
        nullable(b, "ttl", p.ttl);
    json_builder_set_member_name(b, "traffic-class-rules");
    json_builder_begin_array(b);
    for (const auto &r : p.tcRules)
        json_builder_add_string_value(b, model::formatTcRule(r).c_str());
    json_builder_end_array(b);
    json_builder_end_object(b);
}

} // namespace

std::string formatRecord(const ActiveRecord &r)
{
    Builder owner(json_builder_new(), g_object_unref);
    JsonBuilder *b = owner.get();
    json_builder_begin_object(b);
    member(b, "format", kFormat);
    member(b, "uuid", r.uuid);
    member(b, "id", r.id);
    member(b, "settings", r.settings);
    member(b, "state", std::string(r.state == ActiveRecord::State::Activated ? "activated" : "activating"));
    member(b, "device", r.device);
    member(b, "ifindex", gint64(r.ifindex));
    json_builder_set_member_name(b, "created");
    json_builder_begin_array(b);
    for (const auto &c : r.created)
        created(b, c);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "interfaces");
    json_builder_begin_array(b);
    for (const auto &c : r.interfaces)
        interfaceChange(b, c);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "bonds");
    json_builder_begin_array(b);
    for (const auto &c : r.bonds) {
        json_builder_begin_object(b);
        member(b, "name", c.name);
        if (c.miimon)
            member(b, "miimon", gint64(*c.miimon));
        if (c.primary)
            member(b, "primary", *c.primary);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "rdma-ports");
    json_builder_begin_array(b);
    for (const auto &p : r.rdmaPorts)
        rdmaPort(b, p);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "rdma-devices");
    json_builder_begin_array(b);
    for (const auto &d : r.rdmaDevices) {
        json_builder_begin_object(b);
        member(b, "device", d.device);
        if (d.roceEnabled)
            member(b, "roce-enable", *d.roceEnabled);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "dns");
    json_builder_begin_array(b);
    for (const auto &d : r.dns) {
        json_builder_begin_object(b);
        member(b, "link", d.link);
        if (d.had) {
            strings(b, "servers", d.before.servers);
            strings(b, "domains", d.before.domains);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    JsonNode *root = json_builder_get_root(b);
    std::string text = jsonText(root);
    json_node_unref(root);
    return text;
}

namespace {

// Reading: every member checked for its type; the first mismatch is the
// error, naming the member.
class Reader {
public:
    explicit Reader(std::string what) : what_(std::move(what)) {}

    std::optional<Error> error;

    JsonObject *object(JsonNode *n, const char *name)
    {
        if (n && JSON_NODE_HOLDS_OBJECT(n))
            return json_node_get_object(n);
        fail(name);
        return nullptr;
    }
    JsonArray *array(JsonObject *o, const char *name)
    {
        JsonNode *n = o ? json_object_get_member(o, name) : nullptr;
        if (n && JSON_NODE_HOLDS_ARRAY(n))
            return json_node_get_array(n);
        fail(name);
        return nullptr;
    }
    std::string string(JsonObject *o, const char *name)
    {
        JsonNode *n = o ? json_object_get_member(o, name) : nullptr;
        if (n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING)
            return json_node_get_string(n);
        fail(name);
        return {};
    }
    gint64 integer(JsonObject *o, const char *name)
    {
        JsonNode *n = o ? json_object_get_member(o, name) : nullptr;
        if (n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64 && json_node_get_int(n) >= 0)
            return json_node_get_int(n);
        fail(name);
        return 0;
    }
    bool boolean(JsonObject *o, const char *name)
    {
        JsonNode *n = o ? json_object_get_member(o, name) : nullptr;
        if (n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_BOOLEAN)
            return json_node_get_boolean(n);
        fail(name);
        return false;
    }
    bool has(JsonObject *o, const char *name) { return o && json_object_has_member(o, name); }
    // A member that may be null: nullopt for null.
    std::optional<unsigned> nullableInt(JsonObject *o, const char *name)
    {
        JsonNode *n = o ? json_object_get_member(o, name) : nullptr;
        if (n && JSON_NODE_HOLDS_NULL(n))
            return std::nullopt;
        return unsigned(integer(o, name));
    }
    void fail(const char *name)
    {
        if (!error)
            error = Error(IBNM_ERROR_PARSE, strprintf(_("%s: not an active connection record (member '%s')"),
                                                       what_.c_str(), name));
    }

private:
    std::string what_;
};

std::vector<std::string> stringList(Reader &rd, JsonObject *o, const char *name)
{
    std::vector<std::string> out;
    JsonArray *a = rd.array(o, name);
    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        JsonNode *n = json_array_get_element(a, i);
        if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
            rd.fail(name);
            break;
        }
        out.emplace_back(json_node_get_string(n));
    }
    return out;
}

CreatedObject readCreated(Reader &rd, JsonObject *o)
{
    CreatedObject c;
    std::string type = rd.string(o, "type");
    c.name = rd.string(o, "name");
    if (rd.has(o, "ifindex"))
        c.ifindex = unsigned(rd.integer(o, "ifindex"));
    if (type == "ipoib-child") {
        c.kind = CreatedObject::Kind::IpoibChild;
        c.parent = rd.string(o, "parent");
        c.pkey = uint16_t(rd.integer(o, "p-key"));
    } else if (type == "bond") {
        c.kind = CreatedObject::Kind::Bond;
    } else if (type == "rdma-link") {
        c.kind = CreatedObject::Kind::SoftLink;
        auto t = model::softLinkTypeFromName(rd.string(o, "link-type"));
        if (!t)
            rd.fail("link-type");
        c.linkType = t.value_or(model::SoftLinkType::Rxe);
        c.netdev = rd.string(o, "netdev");
    } else if (type == "rdma-cm") {
        c.kind = CreatedObject::Kind::RdmaCm;
    } else {
        rd.fail("type");
    }
    return c;
}

InterfaceChange readInterface(Reader &rd, JsonObject *o)
{
    InterfaceChange c;
    c.name = rd.string(o, "name");
    c.ifindex = unsigned(rd.integer(o, "ifindex"));
    if (rd.has(o, "mtu"))
        c.mtu = unsigned(rd.integer(o, "mtu"));
    if (rd.has(o, "mode")) {
        c.mode = model::modeFromName(rd.string(o, "mode").c_str());
        if (!c.mode)
            rd.fail("mode");
    }
    if (rd.has(o, "umcast"))
        c.umcast = rd.boolean(o, "umcast");
    if (rd.has(o, "up"))
        c.up = rd.boolean(o, "up");
    if (rd.has(o, "master"))
        c.master = rd.string(o, "master");
    c.addedAddresses = stringList(rd, o, "added-addresses");
    JsonArray *a = rd.array(o, "added-routes");
    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        JsonObject *r = rd.object(json_array_get_element(a, i), "added-routes");
        model::Route route;
        route.dest = rd.string(r, "dest");
        route.gateway = rd.string(r, "gateway");
        route.metric = unsigned(rd.integer(r, "metric"));
        c.addedRoutes.push_back(std::move(route));
    }
    // Absent from the records of ibnm 0.1.0's first releases.
    if (rd.has(o, "removed-addresses"))
        c.removedAddresses = stringList(rd, o, "removed-addresses");
    return c;
}

RdmaPortChange readRdmaPort(Reader &rd, JsonObject *o)
{
    RdmaPortChange p;
    p.device = rd.string(o, "device");
    p.port = unsigned(rd.integer(o, "port"));
    if (rd.has(o, "roce-mode")) {
        std::string m = rd.string(o, "roce-mode");
        p.roceMode = m == "v1" ? model::RoceMode::V1 : model::RoceMode::V2;
        if (m != "v1" && m != "v2")
            rd.fail("roce-mode");
    }
    if (rd.has(o, "roce-tos"))
        p.roceTos = unsigned(rd.integer(o, "roce-tos"));
    if (rd.has(o, "traffic-class")) {
        p.trafficClassChanged = true;
        p.trafficClass = rd.nullableInt(o, "traffic-class");
    }
    if (rd.has(o, "ttl")) {
        p.ttlChanged = true;
        p.ttl = rd.nullableInt(o, "ttl");
    }
    for (const auto &text : stringList(rd, o, "traffic-class-rules")) {
        auto rule = model::parseTcRule(text);
        if (!rule.ok()) {
            rd.fail("traffic-class-rules");
            break;
        }
        p.tcRules.push_back(*rule);
    }
    return p;
}

template <typename F>
void eachObject(Reader &rd, JsonObject *root, const char *name, F &&f)
{
    JsonArray *a = rd.array(root, name);
    for (guint i = 0; a && i < json_array_get_length(a) && !rd.error; i++)
        if (JsonObject *o = rd.object(json_array_get_element(a, i), name))
            f(o);
}

} // namespace

Result<ActiveRecord> parseRecord(const std::string &text, const std::string &what)
{
    std::unique_ptr<JsonParser, decltype(&g_object_unref)> parser(json_parser_new(), g_object_unref);
    GErrorPtr err;
    if (!json_parser_load_from_data(parser.get(), text.data(), gssize(text.size()), outPtr(err)))
        return Error(IBNM_ERROR_PARSE, strprintf("%s: %s", what.c_str(), err->message));
    Reader rd(what);
    JsonObject *root = rd.object(json_parser_get_root(parser.get()), "(root)");
    ActiveRecord r;
    if (root && rd.integer(root, "format") != kFormat)
        rd.fail("format");
    r.uuid = rd.string(root, "uuid");
    r.id = rd.string(root, "id");
    r.settings = rd.string(root, "settings");
    std::string state = rd.string(root, "state");
    if (state != "activated" && state != "activating")
        rd.fail("state");
    r.state = state == "activated" ? ActiveRecord::State::Activated : ActiveRecord::State::Activating;
    r.device = rd.string(root, "device");
    r.ifindex = unsigned(rd.integer(root, "ifindex"));
    eachObject(rd, root, "created", [&](JsonObject *o) { r.created.push_back(readCreated(rd, o)); });
    eachObject(rd, root, "interfaces", [&](JsonObject *o) { r.interfaces.push_back(readInterface(rd, o)); });
    eachObject(rd, root, "bonds", [&](JsonObject *o) {
        BondChange b;
        b.name = rd.string(o, "name");
        if (rd.has(o, "miimon"))
            b.miimon = unsigned(rd.integer(o, "miimon"));
        if (rd.has(o, "primary"))
            b.primary = rd.string(o, "primary");
        r.bonds.push_back(std::move(b));
    });
    eachObject(rd, root, "rdma-ports", [&](JsonObject *o) { r.rdmaPorts.push_back(readRdmaPort(rd, o)); });
    eachObject(rd, root, "rdma-devices", [&](JsonObject *o) {
        RdmaDeviceChange d;
        d.device = rd.string(o, "device");
        if (rd.has(o, "roce-enable"))
            d.roceEnabled = rd.boolean(o, "roce-enable");
        r.rdmaDevices.push_back(std::move(d));
    });
    // Absent from records written before systemd-resolved got DNS.
    if (rd.has(root, "dns"))
        eachObject(rd, root, "dns", [&](JsonObject *o) {
            DnsChange d;
            d.link = rd.string(o, "link");
            d.had = rd.has(o, "servers") || rd.has(o, "domains");
            if (d.had) {
                d.before.servers = stringList(rd, o, "servers");
                d.before.domains = stringList(rd, o, "domains");
            }
            r.dns.push_back(std::move(d));
        });
    if (rd.error)
        return *rd.error;
    return r;
}

} // namespace ibnm::activation
