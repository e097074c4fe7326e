// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm monitor` and `ibnm device monitor [NAME...]`: the changes of what
// `device status` lists, as they happen, until Ctrl-C, as nmcli's `device
// monitor` prints its devices' ("ib0.8002: device created"): IPoIB
// interfaces created, removed, set up or down; RDMA ports created, removed,
// and their state (ACTIVE, DOWN, INIT...). Each change is one line; -t and
// -j print one terse line or one JSON object per change (docs/json-schema.md).
//
// The inventory is read again each second (on a simulated host, five times
// a second): rtnetlink and RDMA netlink where the kernel has them, sysfs
// otherwise, as every command reads it. The kernel sends no event when an
// RDMA port's state changes, so reading again is what notices it.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ibnm::cli {

namespace {

// What a device is at one reading: its type and the state a change of
// which is printed ("up"/"down" for an IPoIB interface, the port state word
// for an RDMA port).
struct Item {
    const char *type;
    std::string state;
};
using Snapshot = std::map<std::string, Item>;

// "4: ACTIVE" -> "ACTIVE", as `device status` shows it.
std::string stateWord(const char *s)
{
    if (!s)
        return "";
    const char *colon = std::strchr(s, ':');
    std::string w = colon ? colon + 1 : s;
    return g_strstrip(w.data());
}

Snapshot take(IbnmInventory *inv)
{
    Snapshot s;
    PtrArray ipoib(ibnm_inventory_get_ipoib_interfaces(inv));
    for (guint i = 0; i < ipoib->len; i++) {
        auto *x = static_cast<IbnmIpoibInterface *>(g_ptr_array_index(ipoib.get(), i));
        s[ibnm_ipoib_interface_get_name(x)] = {"ipoib", ibnm_ipoib_interface_get_up(x) ? "up" : "down"};
    }
    PtrArray devices(ibnm_inventory_get_devices(inv));
    for (guint i = 0; i < devices->len; i++) {
        GPtrArray *ports = ibnm_rdma_device_get_ports(static_cast<IbnmRdmaDevice *>(g_ptr_array_index(devices.get(), i)));
        for (guint k = 0; ports && k < ports->len; k++) {
            auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
            std::string name = std::string(ibnm_rdma_port_get_device(p)) + "/" +
                               std::to_string(ibnm_rdma_port_get_number(p));
            s[name] = {"rdma", stateWord(ibnm_rdma_port_get_state_text(p))};
        }
    }
    return s;
}

struct Event {
    std::string device;
    const char *type;
    const char *event; // "created", "removed", "link" (IPoIB), "port" (RDMA)
    std::string state;
};

// Whether `name` is one of `only` (all when empty); an RDMA port also by
// its device's name ("mlx5_0" for "mlx5_0/1").
bool wanted(const std::set<std::string> &only, const std::string &name)
{
    return only.empty() || only.count(name) || only.count(name.substr(0, name.find('/')));
}

std::vector<Event> changes(const Snapshot &before, const Snapshot &after, const std::set<std::string> &only)
{
    std::vector<Event> out;
    for (const auto &[name, item] : before)
        if (!after.count(name) && wanted(only, name))
            out.push_back({name, item.type, "removed", ""});
    for (const auto &[name, item] : after) {
        if (!wanted(only, name))
            continue;
        auto old = before.find(name);
        if (old == before.end())
            out.push_back({name, item.type, "created", ""});
        else if (old->second.state != item.state)
            out.push_back({name, item.type, std::strcmp(item.type, "rdma") == 0 ? "port" : "link", item.state});
    }
    return out;
}

// nmcli's terse escapes: ':' and '\'.
std::string terse(const std::string &s)
{
    std::string out;
    for (char c : s)
        out += c == ':' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return out;
}

void print(const Context &ctx, const Event &e)
{
    if (ctx.options.mode == OutputMode::Json) {
        // One JSON object per line (JSON Lines): a stream has no end to close.
        Obj<JsonBuilder> b(json_builder_new());
        json_builder_begin_object(b.get());
        json_builder_set_member_name(b.get(), "device");
        json_builder_add_string_value(b.get(), e.device.c_str());
        json_builder_set_member_name(b.get(), "type");
        json_builder_add_string_value(b.get(), e.type);
        json_builder_set_member_name(b.get(), "event");
        json_builder_add_string_value(b.get(), e.event);
        json_builder_set_member_name(b.get(), "state");
        if (e.state.empty())
            json_builder_add_null_value(b.get());
        else
            json_builder_add_string_value(b.get(), e.state.c_str());
        json_builder_end_object(b.get());
        JsonNode *root = json_builder_get_root(b.get());
        Obj<JsonGenerator> g(json_generator_new());
        json_generator_set_root(g.get(), root);
        gchar *text = json_generator_to_data(g.get(), nullptr);
        std::printf("%s\n", text);
        g_free(text);
        json_node_unref(root);
    } else if (ctx.options.mode == OutputMode::Terse || ctx.options.getValues) {
        std::printf("%s:%s:%s:%s\n", terse(e.device).c_str(), e.type, e.event, terse(e.state).c_str());
    } else if (std::strcmp(e.event, "created") == 0) {
        std::printf(_("%s: device created\n"), e.device.c_str());
    } else if (std::strcmp(e.event, "removed") == 0) {
        std::printf(_("%s: device removed\n"), e.device.c_str());
    } else if (std::strcmp(e.event, "link") == 0) {
        std::printf(e.state == "up" ? _("%s: link up\n") : _("%s: link down\n"), e.device.c_str());
    } else {
        std::printf(_("%s: port %s\n"), e.device.c_str(), e.state.c_str());
    }
}

struct Monitor {
    Context *ctx;
    IbnmInventory *inventory;
    std::set<std::string> only;
    Snapshot last;
    GMainLoop *loop;
    guint timer = 0; // 0 once tick() has ended it
    unsigned failures = 0;
    int rc = kExitOk;
};

gboolean tick(gpointer data)
{
    auto *m = static_cast<Monitor *>(data);
    ErrorPtr err;
    if (!ibnm_inventory_reload(m->inventory, Out(err))) {
        // A device that goes while it is read fails one reading; a host that
        // cannot be read at all ends the monitor.
        if (++m->failures < 5)
            return G_SOURCE_CONTINUE;
        printError("%s", err->message);
        m->rc = kExitFailed;
        m->timer = 0;
        g_main_loop_quit(m->loop);
        return G_SOURCE_REMOVE;
    }
    m->failures = 0;
    Snapshot now = take(m->inventory);
    for (const auto &e : changes(m->last, now, m->only))
        print(*m->ctx, e);
    m->last = std::move(now);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        m->rc = kExitFailed;
        m->timer = 0;
        g_main_loop_quit(m->loop);
        return G_SOURCE_REMOVE;
    }
    return G_SOURCE_CONTINUE;
}

gboolean quit(gpointer loop)
{
    g_main_loop_quit(static_cast<GMainLoop *>(loop));
    return G_SOURCE_CONTINUE;
}

} // namespace

int cmdMonitor(Context &ctx, const Args &args)
{
    ctx.options.noPager = true; // a stream
    IbnmInventory *inv = ctx.inventory();
    if (!inv)
        return kExitFailed;
    Monitor m{&ctx, inv, {}, take(inv), nullptr};
    for (const auto &a : args) {
        if (a == "help" || a == "--help" || a == "-h") {
            std::fputs(_(kDeviceUsage), stdout);
            return kExitOk;
        }
        if (!a.empty() && a[0] == '-')
            return usageError(nullptr, _("argument '%s' not understood"), a.c_str());
        if (!m.last.count(a) && !ibnm_inventory_find_device(inv, a.c_str())) {
            printError(_("device '%s' not found"), a.c_str());
            return kExitNotFound;
        }
        m.only.insert(a);
    }
    m.loop = g_main_loop_new(nullptr, FALSE);
    m.timer = g_timeout_add(ctx.hostSimulated() ? 200 : 1000, tick, &m);
    guint sources[] = {g_unix_signal_add(SIGINT, quit, m.loop), g_unix_signal_add(SIGTERM, quit, m.loop),
                       g_unix_signal_add(SIGHUP, quit, m.loop)};
    g_main_loop_run(m.loop);
    if (m.timer)
        g_source_remove(m.timer);
    for (guint s : sources)
        g_source_remove(s);
    g_main_loop_unref(m.loop);
    return m.rc;
}

} // namespace ibnm::cli
