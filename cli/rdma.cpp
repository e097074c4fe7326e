// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm rdma`: soft RDMA links, the GID table, the default RoCE mode and the
// memlock policy; `ibnm udev-rules`. What changes the host is one typed call
// of libibnm (ibnm-rdma-apply.h), which runs the plan, the rollback and the
// report of an activation; its errors name the command's arguments.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"

#include <glib/gi18n.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <sys/resource.h>

namespace ibnm::cli {

const char *const kRdmaUsage = N_(
    "Usage: ibnm rdma { COMMAND | help }\n"
    "\n"
    "COMMAND := { link | gid | roce-mode | traffic-class | roce-enable | ttl | memlock | test }\n"
    "\n"
    "  link show\n"
    "  link add NAME type rxe|siw netdev NETDEV\n"
    "  link delete NAME\n"
    "  gid show [DEVICE] [--for rocev2-ipv4|rocev2-ipv6|rocev1-ipv4|rocev1-ipv6 [--netdev NETDEV]]\n"
    "  roce-mode DEVICE [PORT] [v1|v2|1|2|\"IB/RoCE v1\"|\"RoCE v2\"]\n"
    "  traffic-class DEVICE[/PORT] [0-255|dscp:0-63|-1] [RULE...]   (-1 disables the global class)\n"
    "      RULE := [tclass=]N,src_ip=ADDR,dst_ip=ADDR[/LEN] (tclass=-1 removes the rule)\n"
    "  roce-enable DEVICE [yes|no]\n"
    "  ttl DEVICE[/PORT] [0-255]\n"
    "  memlock [write]\n"
    "  test { PEER | --listen [ADDRESS] } [--port N] [--profile NAME] [--tos TOS] [--gid-index N] ...\n");

namespace {

// The typed calls of ibnm-rdma-apply.h take only the dry run.
IbnmApplyFlags applyFlags(const Context &ctx)
{
    return ctx.options.dryRun ? IBNM_APPLY_FLAGS_DRY_RUN : IBNM_APPLY_FLAGS_NONE;
}

// After a typed call or a host-files write: its report (transfer full),
// printed as printApply() does.
int finish(Context &ctx, IbnmApplyReport *report)
{
    Obj<IbnmApplyReport> owned(report);
    return printApply(ctx, owned.get());
}

// The RDMA device `name` in the host's inventory, or nullptr with the error
// printed and `*rc` set to the exit code.
IbnmRdmaDevice *findDevice(Context &ctx, const std::string &name, int *rc)
{
    IbnmInventory *inv = ctx.inventory();
    if (!inv) {
        *rc = kExitFailed;
        return nullptr;
    }
    IbnmRdmaDevice *d = ibnm_inventory_find_device(inv, name.c_str());
    if (!d) {
        printError(_("device '%s' not found"), name.c_str());
        *rc = kExitNotFound;
    }
    return d;
}

// --- link -----------------------------------------------------------------------

int cmdLinkShow(Context &ctx, const Args &args)
{
    if (!args.empty())
        return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[0].c_str());
    IbnmInventory *inv = ctx.inventory();
    if (!inv)
        return kExitFailed;
    // iproute2's rdma fails when it cannot open its netlink socket; the
    // table would be empty, not the truth.
    if (!ibnm_inventory_has_rdma_netlink(inv)) {
        std::fprintf(stderr, _("Error: %s\n"),
                     _("the kernel has no RDMA netlink interface (NETLINK_RDMA): ib_core is not loaded or the "
                       "kernel has no CONFIG_INFINIBAND"));
        return kExitFailed;
    }
    PtrArray soft(ibnm_inventory_get_soft_links(inv));
    Table t("links", {{"LINK"}, {"STATE"}, {"PHYSICAL-STATE"}, {"LINK-LAYER"}, {"NETDEV"}, {"SOFT-TYPE"}});
    PtrArray devices(ibnm_inventory_get_devices(inv));
    for (guint i = 0; i < devices->len; i++) {
        auto *d = static_cast<IbnmRdmaDevice *>(g_ptr_array_index(devices.get(), i));
        Cell softType;
        for (guint s = 0; s < soft->len; s++) {
            auto *l = static_cast<IbnmSoftLink *>(g_ptr_array_index(soft.get(), s));
            if (g_strcmp0(ibnm_soft_link_get_name(l), ibnm_rdma_device_get_name(d)) == 0)
                softType = cell(ibnm_soft_link_get_link_type(l));
        }
        GPtrArray *ports = ibnm_rdma_device_get_ports(d);
        for (guint k = 0; ports && k < ports->len; k++) {
            auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
            std::string name = std::string(ibnm_rdma_device_get_name(d)) + "/" +
                               std::to_string(ibnm_rdma_port_get_number(p));
            std::string nd;
            for (const char *const *n = ibnm_rdma_port_get_netdevs(p); n && *n; n++)
                nd += (nd.empty() ? "" : ",") + std::string(*n);
            t.add({name, cell(ibnm_rdma_port_get_state_text(p)), cell(ibnm_rdma_port_get_physical_state_text(p)),
                   cell(ibnm_rdma_port_get_link_layer(p)), nd.empty() ? Cell() : Cell(nd), softType});
        }
    }
    return t.print(ctx);
}

int cmdLinkAdd(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kRdmaUsage), _("missing link name"));
    std::string name = args[0], type, netdev;
    for (size_t i = 1; i < args.size(); i += 2) {
        if (i + 1 >= args.size())
            return usageError(_(kRdmaUsage), _("value is missing for '%s'"), args[i].c_str());
        if (args[i] == "type")
            type = args[i + 1];
        else if (args[i] == "netdev")
            netdev = args[i + 1];
        else
            return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[i].c_str());
    }
    IbnmSoftLinkType linkType;
    if (!ibnm_soft_link_type_from_string(type.c_str(), &linkType))
        return usageError(_(kRdmaUsage), _("invalid link type '%s'; use rxe or siw"), type.c_str());
    if (netdev.empty())
        return usageError(_(kRdmaUsage), _("'netdev' argument is required"));
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    return finish(ctx, ibnm_apply_rdma_link_add(host, name.c_str(), linkType, netdev.c_str(), applyFlags(ctx)));
}

int cmdLinkDelete(Context &ctx, const Args &args)
{
    if (args.size() != 1)
        return usageError(_(kRdmaUsage), args.empty() ? _("missing link name") : _("argument '%s' not understood"),
                          args.empty() ? "" : args[1].c_str());
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    return finish(ctx, ibnm_apply_rdma_link_delete(host, args[0].c_str(), applyFlags(ctx)));
}

const Command kLinkCommands[] = {
    {"show", cmdLinkShow, nullptr},
    {"add", cmdLinkAdd, nullptr},
    {"delete", cmdLinkDelete, nullptr},
    {nullptr, nullptr, nullptr},
};

// --- gid ------------------------------------------------------------------------

// `gid show --for PURPOSE`: per RoCE port, the GID index an application
// should use (model::gidIndexFor), with the lines NCCL and UCX read.
int gidAdvice(Context &ctx, IbnmInventory *inv, const std::string &device, const std::string &purpose,
              const std::string &netdev)
{
    static const struct {
        const char *word, *type;
        bool ipv6;
    } kPurposes[] = {{"rocev2-ipv4", "RoCE v2", false},
                     {"rocev2-ipv6", "RoCE v2", true},
                     {"rocev1-ipv4", "IB/RoCE v1", false},
                     {"rocev1-ipv6", "IB/RoCE v1", true}};
    const auto *want = std::find_if(std::begin(kPurposes), std::end(kPurposes),
                                    [&](const auto &p) { return purpose == p.word; });
    if (want == std::end(kPurposes))
        return usageError(_(kRdmaUsage), _("invalid value '%s' for --for"), purpose.c_str());
    Table t("gid-index", {{"DEV"}, {"PORT"}, {"INDEX"}, {"GID"}, {"NETDEV"}, {"ENV"}});
    PtrArray devices(ibnm_inventory_get_devices(inv));
    for (guint i = 0; i < devices->len; i++) {
        auto *d = static_cast<IbnmRdmaDevice *>(g_ptr_array_index(devices.get(), i));
        if (!device.empty() && device != ibnm_rdma_device_get_name(d))
            continue;
        GPtrArray *ports = ibnm_rdma_device_get_ports(d);
        for (guint k = 0; ports && k < ports->len; k++) {
            auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
            if (g_strcmp0(ibnm_rdma_port_get_link_layer(p), "Ethernet") != 0)
                continue;
            gint index = ibnm_rdma_port_find_gid_index(p, want->type, want->ipv6,
                                                        netdev.empty() ? nullptr : netdev.c_str());
            std::string port = std::string(ibnm_rdma_device_get_name(d)) + "/" +
                               std::to_string(ibnm_rdma_port_get_number(p));
            if (index < 0 && ibnm_rdma_device_get_roce_enabled(d) == 0) {
                std::fprintf(stderr, _("Warning: %s has no GIDs: RoCE is disabled on %s (roce_enable is 0; 'ibnm rdma "
                                       "roce-enable %s yes' enables it)\n"),
                             port.c_str(), ibnm_rdma_device_get_name(d), ibnm_rdma_device_get_name(d));
                continue;
            }
            if (index < 0) {
                std::fprintf(stderr, _("Warning: %s has no %s GID for an %s address of %s (no such address on the "
                                       "netdev, or RoCE disabled)\n"),
                             port.c_str(), want->type, want->ipv6 ? "IPv6" : "IPv4",
                             netdev.empty() ? _("its netdev") : netdev.c_str());
                continue;
            }
            GPtrArray *gids = ibnm_rdma_port_get_gids(p);
            IbnmGid *gid = nullptr;
            for (guint g = 0; gids && g < gids->len; g++)
                if (ibnm_gid_get_index(static_cast<IbnmGid *>(g_ptr_array_index(gids, g))) == guint(index))
                    gid = static_cast<IbnmGid *>(g_ptr_array_index(gids, g));
            std::string env = "NCCL_IB_GID_INDEX=" + std::to_string(index) + " UCX_IB_GID_INDEX=" +
                              std::to_string(index);
            t.add({ibnm_rdma_device_get_name(d), std::to_string(ibnm_rdma_port_get_number(p)),
                   std::to_string(index), cell(gid ? ibnm_gid_get_gid(gid) : nullptr),
                   cell(gid ? ibnm_gid_get_netdev(gid) : nullptr), env});
        }
    }
    if (t.size() == 0) {
        printError(_("no RoCE port has such a GID"));
        return kExitFailed;
    }
    return t.print(ctx);
}

int cmdGidShow(Context &ctx, const Args &argsIn)
{
    Args args;
    std::string purpose, netdev;
    for (size_t i = 0; i < argsIn.size(); i++) {
        if (argsIn[i] == "--for" || argsIn[i] == "--netdev") {
            if (i + 1 >= argsIn.size())
                return usageError(_(kRdmaUsage), _("value is missing for '%s'"), argsIn[i].c_str());
            (argsIn[i] == "--for" ? purpose : netdev) = argsIn[i + 1];
            i++;
            continue;
        }
        args.push_back(argsIn[i]);
    }
    if (args.size() > 1)
        return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[1].c_str());
    if (!netdev.empty() && purpose.empty())
        return usageError(_(kRdmaUsage), _("--netdev goes with --for"));
    IbnmInventory *inv = ctx.inventory(Context::InventoryScope::GidTables);
    if (!inv)
        return kExitFailed;
    if (args.size() == 1 && !ibnm_inventory_find_device(inv, args[0].c_str())) {
        printError(_("device '%s' not found"), args[0].c_str());
        return kExitNotFound;
    }
    if (!purpose.empty())
        return gidAdvice(ctx, inv, args.empty() ? "" : args[0], purpose, netdev);
    Table t("gids", {{"DEV"}, {"PORT"}, {"INDEX"}, {"GID"}, {"IPV4"}, {"TYPE"}, {"NETDEV"}});
    PtrArray devices(ibnm_inventory_get_devices(inv));
    for (guint i = 0; i < devices->len; i++) {
        auto *d = static_cast<IbnmRdmaDevice *>(g_ptr_array_index(devices.get(), i));
        if (args.size() == 1 && args[0] != ibnm_rdma_device_get_name(d))
            continue;
        GPtrArray *ports = ibnm_rdma_device_get_ports(d);
        for (guint k = 0; ports && k < ports->len; k++) {
            auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
            GPtrArray *gids = ibnm_rdma_port_get_gids(p);
            for (guint g = 0; gids && g < gids->len; g++) {
                auto *gid = static_cast<IbnmGid *>(g_ptr_array_index(gids, g));
                t.add({ibnm_rdma_device_get_name(d), std::to_string(ibnm_rdma_port_get_number(p)),
                       std::to_string(ibnm_gid_get_index(gid)), cell(ibnm_gid_get_gid(gid)),
                       cell(ibnm_gid_get_ipv4(gid)), cell(ibnm_gid_get_gid_type(gid)),
                       cell(ibnm_gid_get_netdev(gid))});
            }
        }
    }
    return t.print(ctx);
}

const Command kGidCommands[] = {
    {"show", cmdGidShow, nullptr},
    {nullptr, nullptr, nullptr},
};

// --- roce-mode ------------------------------------------------------------------

int cmdRoceMode(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kRdmaUsage), _("missing device name"));
    if (args.size() > 3)
        return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[3].c_str());
    guint port = 0;
    bool set = false;
    IbnmRoceMode mode = IBNM_ROCE_MODE_V2;
    // PORT, then the mode in any form rdma.roce-mode takes (v1, 1,
    // "IB/RoCE v1", v2, 2, "RoCE v2").
    for (size_t i = 1; i < args.size(); i++) {
        guint64 n = 0;
        if (i == 1 && g_ascii_string_to_unsigned(args[i].c_str(), 10, 1, 255, &n, nullptr))
            port = guint(n); // `roce-mode DEV 2` shows port 2
        else if (!set && ibnm_roce_mode_from_string(args[i].c_str(), &mode))
            set = true;
        else
            return usageError(_(kRdmaUsage), _("invalid RoCE mode '%s'; use v1, v2, 1, 2, \"IB/RoCE v1\" or \"RoCE v2\""),
                              args[i].c_str());
    }
    if (set) {
        IbnmHost *host = ctx.host();
        if (!host)
            return kExitFailed;
        Obj<IbnmApplyReport> report;
        ErrorPtr err;
        return finish(ctx, ibnm_apply_roce_mode(host, args[0].c_str(), port, mode, applyFlags(ctx)));
    }
    int rc = kExitOk;
    IbnmRdmaDevice *d = findDevice(ctx, args[0], &rc);
    if (!d)
        return rc;
    // As cma_roce_mode prints it: configfs where the device's directory
    // exists, else the kernel's default (which that directory would show).
    Table t("roce-modes", {{"DEV"}, {"PORT"}, {"MODE"}, {"TOS"}, {"DSCP"}, {"SL"}, {"PCP"}, {"SOURCE"}});
    GPtrArray *ports = ibnm_rdma_device_get_ports(d);
    for (guint k = 0; ports && k < ports->len; k++) {
        auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
        if (port && ibnm_rdma_port_get_number(p) != port)
            continue;
        bool configfs = ibnm_rdma_port_get_default_roce_mode(p) != nullptr;
        gint tos = ibnm_rdma_port_get_default_roce_tos(p);
        if (tos < 0)
            tos = 0; // the kernel's default ToS
        t.add({args[0], std::to_string(ibnm_rdma_port_get_number(p)), cell(ibnm_rdma_port_get_roce_mode(p)),
               Cell(std::to_string(tos)), Cell(std::to_string(ibnm_roce_dscp_of_tos(guint(tos)))),
               Cell(std::to_string(ibnm_roce_service_level_of_tos(guint(tos)))),
               Cell(std::to_string(ibnm_roce_pcp_of_service_level(ibnm_roce_service_level_of_tos(guint(tos))))),
               Cell(configfs ? "configfs" : "kernel-default")});
    }
    return t.print(ctx);
}

// --- traffic-class --------------------------------------------------------------

// DEVICE or DEVICE/PORT (port 0: the first): a bare number after the
// device would be read as either a port or a value. False for a bad port.
bool splitDevicePort(const std::string &arg, std::string &device, guint &port)
{
    device = arg;
    port = 0;
    if (auto slash = device.rfind('/'); slash != std::string::npos) {
        guint64 n = 0;
        if (!g_ascii_string_to_unsigned(device.c_str() + slash + 1, 10, 1, 255, &n, nullptr))
            return false;
        port = guint(n);
        device.resize(slash);
    }
    return true;
}

// Whether `word` is a negative integer: the kernel's word for "disabled"
// in traffic_class (NVIDIA's RoCE page).
bool negativeNumber(const std::string &word)
{
    gint64 n = 0;
    return g_ascii_string_to_signed(word.c_str(), 10, G_MININT32, -1, &n, nullptr);
}

// Sets the class and rules `args` (after the device) give, or disables it.
int setTrafficClass(Context &ctx, const std::string &device, guint port, const Args &args)
{
    // One value is the port's class; words with addresses are rules.
    gint tclass = -1;
    bool disable = false;
    std::vector<const char *> rules;
    for (size_t i = 1; i < args.size(); i++) {
        if (args[i].find("src_ip=") != std::string::npos || args[i].find("dst_ip=") != std::string::npos)
            rules.push_back(args[i].c_str());
        else if (tclass >= 0 || disable)
            return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[i].c_str());
        else if (negativeNumber(args[i]))
            disable = true;
        else if ((tclass = ibnm_traffic_class_from_string(args[i].c_str())) < 0)
            return usageError(_(kRdmaUsage), _("invalid traffic class '%s'; use 0-255, dscp:0-63 or -1"),
                              args[i].c_str());
    }
    if (disable && rules.size() > 0)
        return usageError(_(kRdmaUsage), _("-1 disables the global traffic class; set rules in another command"));
    rules.push_back(nullptr);
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    if (disable)
        return finish(ctx, ibnm_apply_traffic_class_disable(host, device.c_str(), port, applyFlags(ctx)));
    return finish(ctx, ibnm_apply_traffic_class(host, device.c_str(), port, tclass, rules.data(), applyFlags(ctx)));
}

int cmdTrafficClass(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kRdmaUsage), _("missing device name"));
    std::string device;
    guint port = 0;
    if (!splitDevicePort(args[0], device, port))
        return usageError(_(kRdmaUsage), _("invalid port in '%s'"), args[0].c_str());
    if (args.size() > 1)
        return setTrafficClass(ctx, device, port, args);
    int rc = kExitOk;
    IbnmRdmaDevice *d = findDevice(ctx, device, &rc);
    if (!d)
        return rc;
    Table t("traffic-classes", {{"DEV"}, {"PORT"}, {"TCLASS"}, {"DSCP"}, {"RULES"}});
    GPtrArray *ports = ibnm_rdma_device_get_ports(d);
    for (guint k = 0; ports && k < ports->len; k++) {
        auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
        if (port && ibnm_rdma_port_get_number(p) != port)
            continue;
        gint tc = ibnm_rdma_port_get_traffic_class(p);
        std::string rules;
        for (const char *const *x = ibnm_rdma_port_get_traffic_class_rules(p); x && *x; x++)
            rules += (rules.empty() ? "" : "; ") + std::string(*x);
        t.add({device, std::to_string(ibnm_rdma_port_get_number(p)), tc >= 0 ? Cell(std::to_string(tc)) : Cell(),
               tc >= 0 ? Cell(std::to_string(ibnm_roce_dscp_of_tos(guint(tc)))) : Cell(), rules.empty() ? Cell() : Cell(rules)});
    }
    return t.print(ctx);
}

// --- ttl ------------------------------------------------------------------------

// `rdma ttl DEVICE[/PORT] [0-255]`: the mlx5 global TTL of RC QPs, shown or
// set now (tc/<port>/ttl), as rdma.ttl of a profile sets it at activation.
int cmdTtl(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kRdmaUsage), _("missing device name"));
    if (args.size() > 2)
        return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[2].c_str());
    std::string device;
    guint port = 0;
    if (!splitDevicePort(args[0], device, port))
        return usageError(_(kRdmaUsage), _("invalid port in '%s'"), args[0].c_str());
    if (args.size() == 2) {
        guint64 ttl = 0;
        if (!g_ascii_string_to_unsigned(args[1].c_str(), 10, 0, 255, &ttl, nullptr))
            return usageError(_(kRdmaUsage), _("invalid TTL '%s'; use 0-255"), args[1].c_str());
        IbnmHost *host = ctx.host();
        if (!host)
            return kExitFailed;
        Obj<IbnmApplyReport> report;
        ErrorPtr err;
        return finish(ctx, ibnm_apply_ttl(host, device.c_str(), port, guint(ttl), applyFlags(ctx)));
    }
    int rc = kExitOk;
    IbnmRdmaDevice *d = findDevice(ctx, device, &rc);
    if (!d)
        return rc;
    Table t("ttls", {{"DEV"}, {"PORT"}, {"TTL"}});
    GPtrArray *ports = ibnm_rdma_device_get_ports(d);
    for (guint k = 0; ports && k < ports->len; k++) {
        auto *p = static_cast<IbnmRdmaPort *>(g_ptr_array_index(ports, k));
        if (port && ibnm_rdma_port_get_number(p) != port)
            continue;
        gint ttl = ibnm_rdma_port_get_ttl(p);
        t.add({device, std::to_string(ibnm_rdma_port_get_number(p)), ttl >= 0 ? Cell(std::to_string(ttl)) : Cell()});
    }
    return t.print(ctx);
}

// --- roce-enable ----------------------------------------------------------------

int cmdRoceEnable(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kRdmaUsage), _("missing device name"));
    if (args.size() > 2)
        return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[2].c_str());
    if (args.size() == 2 && args[1] != "yes" && args[1] != "no")
        return usageError(_(kRdmaUsage), _("invalid value '%s'; use yes or no"), args[1].c_str());
    int rc = kExitOk;
    IbnmRdmaDevice *d = findDevice(ctx, args[0], &rc);
    if (!d)
        return rc;
    gint roce = ibnm_rdma_device_get_roce_enabled(d);
    if (args.size() == 1) {
        Table t("roce-enable", {{"DEV"}, {"ROCE-ENABLE"}});
        t.add({args[0], roce < 0 ? Cell() : Cell(roce ? "yes" : "no")});
        return t.print(ctx);
    }
    if (args[1] == "no" && roce != 0) {
        GPtrArray *ports = ibnm_rdma_device_get_ports(d);
        std::fprintf(stderr,
                     _("Warning: disabling RoCE on %s drops the RoCE GIDs of all %u port(s) of that PCI function: "
                       "RDMA over Ethernet stops there until RoCE is enabled again.\n"),
                     args[0].c_str(), ports ? ports->len : 0);
    }
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    return finish(ctx, ibnm_apply_roce_enable(host, args[0].c_str(), args[1] == "yes", applyFlags(ctx)));
}

} // namespace

// --- memlock and udev rules: host files, written by ibnm_apply_host_files() -----------

namespace {

// The host file `which`: its plan (a dry run), or written when `write`.
int hostFiles(Context &ctx, IbnmHostFiles which, bool write)
{
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    PtrArray profiles(g_ptr_array_new_with_free_func(g_object_unref));
    if (IbnmSettings *s = (ctx.options.offline || which != IBNM_HOST_FILES_UDEV_RULES) ? nullptr : ctx.settings())
        profiles = allConnections(s);
    int flags = (write && !ctx.options.dryRun) ? IBNM_APPLY_FLAGS_NONE : IBNM_APPLY_FLAGS_DRY_RUN;
    return finish(ctx, ibnm_apply_host_files(host, which, profiles.get(), IbnmApplyFlags(flags)));
}

std::string limitText(rlim_t v)
{
    return v == RLIM_INFINITY ? std::string("unlimited") : std::to_string(v / 1024) + " KiB";
}

} // namespace

int cmdMemlock(Context &ctx, const Args &args)
{
    if (args.size() == 1 && args[0] == "write")
        return hostFiles(ctx, IBNM_HOST_FILES_MEMLOCK_POLICY, true);
    if (!args.empty())
        return usageError(_(kRdmaUsage), _("argument '%s' not understood"), args[0].c_str());
    struct rlimit rl {};
    getrlimit(RLIMIT_MEMLOCK, &rl);
    if (ctx.options.mode == OutputMode::Tabular && !ctx.options.getValues) {
        std::printf(_("RLIMIT_MEMLOCK of this shell: soft %s, hard %s.\n"), limitText(rl.rlim_cur).c_str(),
                    limitText(rl.rlim_max).c_str());
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= 32 * 1024)
            std::printf("%s\n", _("libibverbs warns at 32 KiB or less: RDMA applications cannot pin memory."));
        std::printf("%s\n", _("The policy for group rdma ('ibnm rdma memlock write' writes what is planned):"));
    }
    return hostFiles(ctx, IBNM_HOST_FILES_MEMLOCK_POLICY, false);
}

int cmdUdevRules(Context &ctx, const Args &args)
{
    if (args.size() == 1 && args[0] == "write")
        return hostFiles(ctx, IBNM_HOST_FILES_UDEV_RULES, true);
    if (!args.empty())
        return usageError(nullptr, _("argument '%s' not understood; use 'ibnm udev-rules [write]'"),
                          args[0].c_str());
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    // What the rules name: each IPoIB profile with an interface name and a
    // hardware address (matched by its last 8 bytes, the port GUID).
    Table t("udev-rules", {{"NAME"}, {"PORT-GUID"}, {"PROFILE"}});
    PtrArray all = allProfiles(s);
    for (guint i = 0; i < all->len; i++) {
        auto *p = static_cast<IbnmProfile *>(g_ptr_array_index(all.get(), i));
        const char *mac = ibnm_profile_get_mac_address(p);
        const char *ifname = ibnm_profile_get_interface_name(p);
        CharPtr guid(ibnm_profile_dup_port_guid(p));
        if (g_strcmp0(ibnm_profile_get_connection_type(p), "infiniband") != 0 || !mac || !ifname ||
            ibnm_profile_get_p_key(p) >= 0 || !guid)
            continue;
        t.add({ifname, guid.get(), ibnm_profile_get_id(p)});
    }
    if (int rc = t.print(ctx); rc != kExitOk)
        return rc;
    if (ctx.options.mode != OutputMode::Tabular || ctx.options.getValues)
        return kExitOk;
    return hostFiles(ctx, IBNM_HOST_FILES_UDEV_RULES, false);
}

const Command kRdmaCommands[] = {
    {"link", nullptr, kLinkCommands},
    {"gid", nullptr, kGidCommands},
    {"roce-mode", cmdRoceMode, nullptr},
    {"traffic-class", cmdTrafficClass, nullptr},
    {"roce-enable", cmdRoceEnable, nullptr},
    {"ttl", cmdTtl, nullptr},
    {"memlock", cmdMemlock, nullptr},
    {"test", cmdRdmaTest, nullptr},
    {nullptr, nullptr, nullptr},
};

} // namespace ibnm::cli
