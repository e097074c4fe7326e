// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm device`: the host's IPoIB netdevs and RDMA ports, the view ibstat,
// ibv_devinfo and ibdev2netdev give, read from the inventory.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"

#include <glib/gi18n.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace ibnm::cli {

const char *const kDeviceUsage = N_(
    "Usage: ibnm device { COMMAND | help }\n"
    "\n"
    "COMMAND := { status | show | dhcp-reservations | monitor }\n"
    "\n"
    "  status              IPoIB interfaces, RDMA ports and soft RDMA links\n"
    "  show [NAME]         details of an RDMA device or IPoIB interface\n"
    "  dhcp-reservations [dhcpd|kea]\n"
    "                      host reservations for the IPoIB interfaces\n"
    "  monitor [NAME...]   changes of IPoIB interfaces and RDMA ports as they\n"
    "                      happen, until Ctrl-C (also: ibnm monitor)\n");

namespace {

Cell num(gint64 v, bool present = true)
{
    return present ? Cell(std::to_string(v)) : Cell();
}

// "4: ACTIVE" -> "ACTIVE", as ibstat prints it.
Cell stateWord(const char *s)
{
    if (!s)
        return {};
    const char *colon = std::strchr(s, ':');
    return Cell(colon ? g_strstrip(std::string(colon + 1).data()) : s);
}

std::string joined(const char *const *v)
{
    std::string out;
    for (; v && *v; v++)
        out += (out.empty() ? "" : ",") + std::string(*v);
    return out;
}

std::string portName(IbnmRdmaPort *p)
{
    return std::string(ibnm_rdma_port_get_device(p)) + "/" + std::to_string(ibnm_rdma_port_get_number(p));
}

Cell pkeyText(guint pkey)
{
    if (pkey == 0)
        return {};
    char buf[16];
    g_snprintf(buf, sizeof buf, "0x%04x", pkey);
    return Cell(buf);
}

std::string pkeyTable(IbnmRdmaPort *p)
{
    guint n = 0;
    const guint16 *keys = ibnm_rdma_port_get_pkeys(p, &n);
    std::string out;
    for (guint i = 0; i < n; i++) {
        char buf[16];
        g_snprintf(buf, sizeof buf, "0x%04x", keys[i]);
        out += (i ? "," : "") + std::string(buf);
    }
    return out;
}

int cmdStatus(Context &ctx, const Args &args)
{
    if (!args.empty())
        return usageError(_(kDeviceUsage), _("argument '%s' not understood"), args[0].c_str());
    IbnmInventory *inv = ctx.inventory();
    if (!inv)
        return kExitFailed;
    Table t("devices", {{"DEVICE"}, {"TYPE"}, {"STATE"}, {"MTU"}, {"MODE"}, {"P-KEY"}, {"LINK"}});
    PtrArray ipoib(ibnm_inventory_get_ipoib_interfaces(inv));
    for (guint i = 0; i < ipoib->len; i++) {
        auto *x = static_cast<IbnmIpoibInterface *>(g_ptr_array_index(ipoib.get(), i));
        std::string link;
        Cell state;
        if (const char *dev = ibnm_ipoib_interface_get_rdma_device(x)) {
            link = std::string(dev) + "/" + std::to_string(ibnm_ipoib_interface_get_rdma_port(x));
            if (IbnmRdmaDevice *d = ibnm_inventory_find_device(inv, dev))
                if (IbnmRdmaPort *p = ibnm_rdma_device_get_port(d, ibnm_ipoib_interface_get_rdma_port(x)))
                    state = stateWord(ibnm_rdma_port_get_state_text(p));
        }
        t.add({ibnm_ipoib_interface_get_name(x), Cell("ipoib"), state, num(ibnm_ipoib_interface_get_mtu(x)),
               cell(ibnm_ipoib_interface_get_transport_mode(x)), pkeyText(ibnm_ipoib_interface_get_p_key(x)),
               link.empty() ? Cell() : Cell(link)});
    }
    PtrArray devices(ibnm_inventory_get_devices(inv));
    for (guint i = 0; i < devices->len; i++) {
        auto *d = static_cast<IbnmRdmaDevice *>(g_ptr_array_index(devices.get(), i));
        GPtrArray *ports = ibnm_rdma_device_get_ports(d);
        for (guint k = 0; ports && k < ports->len; k++) {
            auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
            Cell state = stateWord(ibnm_rdma_port_get_state_text(p));
            Tone tone = state && *state == "ACTIVE" ? Tone::Good : Tone::Warn;
            std::string nd = joined(ibnm_rdma_port_get_netdevs(p));
            guint mtu = ibnm_rdma_port_get_active_mtu(p);
            const char *type = ibnm_rdma_device_get_roce_lag_bond(d) ? "rdma-lag" : "rdma";
            t.add({portName(p), Cell(type), state, num(mtu, mtu > 0), cell(ibnm_rdma_port_get_link_layer(p)),
                   Cell(), nd.empty() ? Cell() : Cell(nd)},
                  tone, 2);
        }
    }
    return t.print(ctx);
}

// The RoCE priority chain on a port's netdevs, as iproute2 shows it: the
// priorities PFC makes lossless (`dcb pfc show dev X` prio-pfc N:on; netdevs
// that answer no DCB request are left out) and VLAN egress maps (`ip -d link
// show` egress-qos-map { FROM:TO }), "netdev: value" joined by "; ".
std::pair<std::string, std::string> priorityChain(IbnmInventory *inv, IbnmRdmaPort *p)
{
    std::string pfc, egress;
    for (const char *const *n = ibnm_rdma_port_get_netdevs(p); n && *n; n++) {
        if (gint bits = ibnm_inventory_get_pfc_enabled(inv, *n); bits >= 0) {
            std::string on;
            for (guint prio = 0; prio < 8; prio++)
                if ((bits >> prio) & 1)
                    on += (on.empty() ? "" : ",") + std::to_string(prio);
            pfc += (pfc.empty() ? "" : "; ") + std::string(*n) + ": " + (on.empty() ? _("none") : on);
        }
        if (CharPtr map(ibnm_inventory_get_egress_qos_map(inv, *n)); map)
            egress += (egress.empty() ? "" : "; ") + std::string(*n) + ": " + map.get();
    }
    return {pfc, egress};
}

Record deviceRecord(IbnmInventory *inv, IbnmRdmaDevice *d)
{
    Record r("device");
    r.add("GENERAL.DEVICE", ibnm_rdma_device_get_name(d));
    r.add("GENERAL.TYPE", Cell("rdma"));
    r.add("GENERAL.DRIVER", cell(ibnm_rdma_device_get_driver(d)));
    r.add("GENERAL.NODE-TYPE", cell(ibnm_rdma_device_get_node_type(d)));
    r.add("GENERAL.NODE-GUID", cell(ibnm_rdma_device_get_node_guid(d)));
    r.add("GENERAL.FIRMWARE-VERSION", cell(ibnm_rdma_device_get_firmware_version(d)));
    r.add("GENERAL.HCA-TYPE", cell(ibnm_rdma_device_get_hca_type(d)));
    r.add("GENERAL.BOARD-ID", cell(ibnm_rdma_device_get_board_id(d)));
    r.add("GENERAL.ENHANCED-IPOIB", Cell(ibnm_rdma_device_get_enhanced_ipoib(d) ? "yes" : "no"));
    r.add("GENERAL.CONNECTED-MODE", Cell(ibnm_rdma_device_get_connected_mode_supported(d) ? "yes" : "no"));
    gint roce = ibnm_rdma_device_get_roce_enabled(d);
    r.add("GENERAL.ROCE-ENABLE", roce < 0 ? Cell() : Cell(roce ? "yes" : "no"));
    // RoCE LAG: one device for both ports of the card, serving a bond.
    std::string lag;
    if (const char *bond = ibnm_rdma_device_get_roce_lag_bond(d)) {
        lag = bond;
        std::string ports;
        for (const char *const *p = ibnm_rdma_device_get_roce_lag_ports(d); p && *p; p++)
            ports += (ports.empty() ? "" : ", ") + std::string(*p);
        if (!ports.empty())
            lag += " (" + ports + ")";
    }
    r.add("GENERAL.ROCE-LAG", lag.empty() ? Cell() : Cell(lag));
    GPtrArray *ports = ibnm_rdma_device_get_ports(d);
    for (guint k = 0; ports && k < ports->len; k++) {
        auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
        std::string pre = "PORT" + std::to_string(ibnm_rdma_port_get_number(p)) + ".";
        r.add(pre + "STATE", cell(ibnm_rdma_port_get_state_text(p)));
        r.add(pre + "PHYSICAL-STATE", cell(ibnm_rdma_port_get_physical_state_text(p)));
        r.add(pre + "RATE", cell(ibnm_rdma_port_get_rate(p)));
        r.add(pre + "LINK-LAYER", cell(ibnm_rdma_port_get_link_layer(p)));
        r.add(pre + "LID", num(ibnm_rdma_port_get_lid(p), ibnm_rdma_port_get_lid(p) >= 0));
        r.add(pre + "SM-LID", num(ibnm_rdma_port_get_sm_lid(p), ibnm_rdma_port_get_sm_lid(p) >= 0));
        r.add(pre + "ACTIVE-MTU", num(ibnm_rdma_port_get_active_mtu(p), ibnm_rdma_port_get_active_mtu(p) > 0));
        r.add(pre + "MAX-MTU", num(ibnm_rdma_port_get_max_mtu(p), ibnm_rdma_port_get_max_mtu(p) > 0));
        r.add(pre + "BROADCAST-MTU",
              num(ibnm_rdma_port_get_broadcast_mtu(p), ibnm_rdma_port_get_broadcast_mtu(p) > 0));
        std::string pk = pkeyTable(p);
        r.add(pre + "P-KEYS", pk.empty() ? Cell() : Cell(pk));
        GPtrArray *gids = ibnm_rdma_port_get_gids(p);
        r.add(pre + "GIDS", num(gids ? gids->len : 0));
        std::string nd = joined(ibnm_rdma_port_get_netdevs(p));
        r.add(pre + "NETDEVS", nd.empty() ? Cell() : Cell(nd));
        // What RDMA-CM uses (cma_roce_mode's answer), then what configfs holds.
        r.add(pre + "ROCE-MODE", cell(ibnm_rdma_port_get_roce_mode(p)));
        r.add(pre + "DEFAULT-ROCE-MODE", cell(ibnm_rdma_port_get_default_roce_mode(p)));
        gint tos = ibnm_rdma_port_get_default_roce_tos(p);
        r.add(pre + "DEFAULT-ROCE-TOS", num(tos, tos >= 0));
        r.add(pre + "DEFAULT-ROCE-DSCP", num(ibnm_roce_dscp_of_tos(guint(std::max(tos, 0))), tos >= 0));
        // The priority chain: SL of the ToS, PCP of the SL (tagged frames).
        guint sl = ibnm_roce_service_level_of_tos(guint(std::max(tos, 0)));
        r.add(pre + "DEFAULT-ROCE-SL", num(sl, tos >= 0));
        r.add(pre + "DEFAULT-ROCE-PCP", num(ibnm_roce_pcp_of_service_level(sl), tos >= 0));
        gint tc = ibnm_rdma_port_get_traffic_class(p);
        r.add(pre + "TRAFFIC-CLASS", num(tc, tc >= 0));
        r.add(pre + "TRAFFIC-CLASS-DSCP", num(ibnm_roce_dscp_of_tos(guint(std::max(tc, 0))), tc >= 0));
        std::string rules;
        for (const char *const *x = ibnm_rdma_port_get_traffic_class_rules(p); x && *x; x++)
            rules += (rules.empty() ? "" : "; ") + std::string(*x);
        r.add(pre + "TRAFFIC-CLASS-RULES", rules.empty() ? Cell() : Cell(rules));
        gint ttl = ibnm_rdma_port_get_ttl(p);
        r.add(pre + "TTL", num(ttl, ttl >= 0));
        auto [pfc, egress] = priorityChain(inv, p);
        r.add(pre + "PFC", pfc.empty() ? Cell() : Cell(pfc));
        r.add(pre + "EGRESS-QOS-MAP", egress.empty() ? Cell() : Cell(egress));
    }
    return r;
}

Record ipoibRecord(IbnmIpoibInterface *x)
{
    Record r("device");
    r.add("GENERAL.DEVICE", ibnm_ipoib_interface_get_name(x));
    r.add("GENERAL.TYPE", Cell("ipoib"));
    r.add("GENERAL.HWADDR", cell(ibnm_ipoib_interface_get_mac_address(x)));
    r.add("GENERAL.MTU", num(ibnm_ipoib_interface_get_mtu(x)));
    r.add("IPOIB.MODE", cell(ibnm_ipoib_interface_get_transport_mode(x)));
    r.add("IPOIB.PARENT", cell(ibnm_ipoib_interface_get_parent(x)));
    r.add("IPOIB.P-KEY", pkeyText(ibnm_ipoib_interface_get_p_key(x)));
    r.add("IPOIB.UMCAST", Cell(ibnm_ipoib_interface_get_umcast(x) ? "yes" : "no"));
    r.add("IPOIB.PORT-GUID", cell(ibnm_ipoib_interface_get_port_guid(x)));
    r.add("IPOIB.DHCP-CLIENT-ID", cell(ibnm_ipoib_interface_get_dhcp_client_id(x)));
    const char *dev = ibnm_ipoib_interface_get_rdma_device(x);
    r.add("IPOIB.RDMA-PORT",
          dev ? Cell(std::string(dev) + "/" + std::to_string(ibnm_ipoib_interface_get_rdma_port(x))) : Cell());
    return r;
}

int cmdShow(Context &ctx, const Args &args)
{
    if (args.size() > 1)
        return usageError(_(kDeviceUsage), _("argument '%s' not understood"), args[1].c_str());
    IbnmInventory *inv = ctx.inventory();
    if (!inv)
        return kExitFailed;
    std::vector<Record> records;
    if (args.size() == 1) {
        if (IbnmRdmaDevice *d = ibnm_inventory_find_device(inv, args[0].c_str()))
            records.push_back(deviceRecord(inv, d));
        else if (IbnmIpoibInterface *x = ibnm_inventory_find_ipoib_interface(inv, args[0].c_str()))
            records.push_back(ipoibRecord(x));
        else {
            printError(_("device '%s' not found"), args[0].c_str());
            return kExitNotFound;
        }
        return records[0].print(ctx);
    }
    PtrArray devices(ibnm_inventory_get_devices(inv));
    for (guint i = 0; i < devices->len; i++)
        records.push_back(deviceRecord(inv, static_cast<IbnmRdmaDevice *>(g_ptr_array_index(devices.get(), i))));
    PtrArray ipoib(ibnm_inventory_get_ipoib_interfaces(inv));
    for (guint i = 0; i < ipoib->len; i++)
        records.push_back(ipoibRecord(static_cast<IbnmIpoibInterface *>(g_ptr_array_index(ipoib.get(), i))));
    return printRecords(ctx, records, "devices");
}

// The first IPv4 address a profile for `ifname` sets, without its prefix.
std::string profileAddress(IbnmSettings *s, const char *ifname)
{
    if (s == nullptr)
        return {};
    PtrArray all = allConnections(s);
    for (guint i = 0; i < all->len; i++) {
        auto *c = NM_CONNECTION(g_ptr_array_index(all.get(), i));
        NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
        const char *name = nm_connection_get_interface_name(c);
        if (!name && ib)
            name = nm_setting_infiniband_get_virtual_interface_name(ib);
        NMSettingIPConfig *ip = NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c));
        if (g_strcmp0(name, ifname) != 0 || ip == nullptr || nm_setting_ip_config_get_num_addresses(ip) == 0)
            continue;
        return nm_ip_address_get_address(nm_setting_ip_config_get_address(ip, 0));
    }
    return {};
}

// Ready-to-paste host reservations for ISC dhcpd or Kea: IPoIB clients are
// known by their DHCP client identifier (NVIDIA's IPoIB page), not by a
// hardware address; the address is the one a profile of the interface sets.
int cmdDhcpReservations(Context &ctx, const Args &args)
{
    std::string format = args.empty() ? "dhcpd" : args[0];
    if (args.size() > 1 || (format != "dhcpd" && format != "kea"))
        return usageError(_(kDeviceUsage), _("argument '%s' not understood"), args.back().c_str());
    IbnmInventory *inv = ctx.inventory();
    if (!inv)
        return kExitFailed;
    IbnmSettings *s = ctx.settings();
    PtrArray ipoib(ibnm_inventory_get_ipoib_interfaces(inv));
    if (format == "kea") {
        // Kea's configuration is JSON, with or without -j.
        JsonDoc j;
        j.beginObject().beginArray("reservations");
        for (guint i = 0; i < ipoib->len; i++) {
            auto *x = static_cast<IbnmIpoibInterface *>(g_ptr_array_index(ipoib.get(), i));
            const char *id = ibnm_ipoib_interface_get_dhcp_client_id(x);
            if (!id)
                continue;
            std::string addr = profileAddress(s, ibnm_ipoib_interface_get_name(x));
            j.beginObject().value("client-id", id);
            if (!addr.empty())
                j.value("ip-address", addr.c_str());
            j.value("hostname", ibnm_ipoib_interface_get_name(x)).endObject();
        }
        j.endArray().endObject();
        j.print();
        return kExitOk;
    }
    for (guint i = 0; i < ipoib->len; i++) {
        auto *x = static_cast<IbnmIpoibInterface *>(g_ptr_array_index(ipoib.get(), i));
        const char *id = ibnm_ipoib_interface_get_dhcp_client_id(x);
        if (!id)
            continue;
        std::string addr = profileAddress(s, ibnm_ipoib_interface_get_name(x));
        std::printf("host %s {\n  option dhcp-client-identifier %s;\n", ibnm_ipoib_interface_get_name(x), id);
        if (addr.empty())
            std::printf("  # %s\n", _("no profile of this interface sets an IPv4 address: add fixed-address here"));
        else
            std::printf("  fixed-address %s;\n", addr.c_str());
        std::printf("}\n");
    }
    return kExitOk;
}

} // namespace

const Command kDeviceCommands[] = {
    {"status", cmdStatus, nullptr},
    {"show", cmdShow, nullptr},
    {"dhcp-reservations", cmdDhcpReservations, nullptr},
    {"monitor", cmdMonitor, nullptr},
    {nullptr, nullptr, nullptr},
};

} // namespace ibnm::cli
