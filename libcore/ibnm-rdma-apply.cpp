// SPDX-License-Identifier: LGPL-2.1-or-later
// The typed RDMA calls: each builds the activation's desired state from its
// arguments, checked by the parsers and facts the rdma.* profile keys use
// (userkeys, model/), and runs it through ibnm::runApply(), the path of
// ibnm_apply_up(). Errors name the argument ("netdev: ...", "mode: ...").
#include "config.h"

#include "libcore/ibnm-rdma-apply.h"

#include "libcore/ibnm-apply-private.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <functional>
#include <string>
#include <vector>

G_DEFINE_ENUM_TYPE(IbnmSoftLinkType, ibnm_soft_link_type,
                   G_DEFINE_ENUM_VALUE(IBNM_SOFT_LINK_TYPE_RXE, "rxe"),
                   G_DEFINE_ENUM_VALUE(IBNM_SOFT_LINK_TYPE_SIW, "siw"))

G_DEFINE_ENUM_TYPE(IbnmRoceMode, ibnm_roce_mode,
                   G_DEFINE_ENUM_VALUE(IBNM_ROCE_MODE_V1, "v1"),
                   G_DEFINE_ENUM_VALUE(IBNM_ROCE_MODE_V2, "v2"))

namespace {

using ibnm::Error;
using ibnm::Result;
using ibnm::activation::Desired;
using ibnm::activation::DesiredRdma;

// A setting of a typed call: no profile asks for it, so its steps, notes and
// errors name none (IbnmStep:profile "": the CLI's PROFILE "--", JSON null;
// naming the object would repeat OBJECT and read as a profile that does not
// exist), and its errors name the call's arguments.
DesiredRdma typedRdma()
{
    DesiredRdma r;
    r.names.netdev = "netdev";
    r.names.linkType = "type";
    r.names.linkName = "link name";
    r.names.roceMode = "mode";
    r.names.trafficClass = "traffic class";
    r.names.tcRules = "rules";
    r.names.roceEnable = "roce-enable";
    r.names.ttl = "ttl";
    return r;
}

// `device` and `port` on the host as read: the target of a setting.
Result<DesiredRdma> onPort(const ibnm::model::Host &host, const std::string &device, guint port)
{
    const ibnm::model::Device *dev = host.findDevice(device);
    if (dev == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND, ibnm::strprintf(_("no RDMA device %s on this host"), device.c_str()))
            .withProperty("device");
    if (dev->ports.empty())
        return Error(IBNM_ERROR_NOT_FOUND, ibnm::strprintf(_("%s has no ports"), device.c_str()))
            .withProperty("device");
    if (port == 0)
        port = dev->ports.front().number;
    bool found = false;
    for (const auto &p : dev->ports)
        found = found || p.number == port;
    if (!found)
        return Error(IBNM_ERROR_NOT_FOUND, ibnm::strprintf(_("%s has no port %u"), device.c_str(), port))
            .withProperty("port");
    DesiredRdma r = typedRdma();
    r.device = device;
    r.port = port;
    return r;
}

Desired one(DesiredRdma r)
{
    Desired d;
    d.rdma.push_back(std::move(r));
    return d;
}

// A typed call on the path of ibnm_apply_up(): `resolve` gives the desired
// state on the host as read.
IbnmApplyReport *runTyped(IbnmHost *host, IbnmApplyFlags flags, bool goingUp,
                          std::function<Result<Desired>(const ibnm::model::Host &)> resolve)
{
    ibnm::ApplyRequest request;
    request.goingUp = goingUp;
    request.resolve = std::move(resolve);
    // Only a dry run changes how it runs; the rest is for profiles.
    return ibnm::apply::reportOf([&](IbnmApplyReport **report, GError **error) {
        return ibnm::runApply(host, IbnmApplyFlags(flags & IBNM_APPLY_FLAGS_DRY_RUN), request, report, error);
    });
}

} // namespace

/**
 * ibnm_soft_link_type_from_string:
 * @text: a link type as the profile key rdma.link-type takes it ("rxe",
 *   "siw", in any case)
 * @type: (out) (optional): where to store the type
 *
 * Parses a soft RDMA link type.
 *
 * Returns: %TRUE when @text names a type
 *
 * Since: 0.1
 */
gboolean ibnm_soft_link_type_from_string(const char *text, IbnmSoftLinkType *type)
{
    g_return_val_if_fail(text != nullptr, FALSE);
    auto t = ibnm::userkeys::parseLinkType(text);
    if (!t)
        return FALSE;
    if (type)
        *type = *t == ibnm::model::SoftLinkType::Rxe ? IBNM_SOFT_LINK_TYPE_RXE : IBNM_SOFT_LINK_TYPE_SIW;
    return TRUE;
}

/**
 * ibnm_roce_mode_from_string:
 * @text: a RoCE version as the profile key rdma.roce-mode takes it ("v1",
 *   "1", "IB/RoCE v1", "v2", "2", "RoCE v2")
 * @mode: (out) (optional): where to store the version
 *
 * Parses a RoCE version.
 *
 * Returns: %TRUE when @text names a version
 *
 * Since: 0.1
 */
gboolean ibnm_roce_mode_from_string(const char *text, IbnmRoceMode *mode)
{
    g_return_val_if_fail(text != nullptr, FALSE);
    auto m = ibnm::userkeys::parseRoceMode(text);
    if (!m)
        return FALSE;
    if (mode)
        *mode = *m == ibnm::model::RoceMode::V1 ? IBNM_ROCE_MODE_V1 : IBNM_ROCE_MODE_V2;
    return TRUE;
}

/**
 * ibnm_traffic_class_from_string:
 * @text: a traffic class as the profile key rdma.traffic-class takes it: a
 *   ToS byte from 0 to 255, or "dscp:N" with N from 0 to 63 (ToS 4N)
 *
 * Parses a traffic class.
 *
 * Returns: the ToS byte (0-255), or -1 when @text is none
 *
 * Since: 0.1
 */
gint ibnm_traffic_class_from_string(const char *text)
{
    g_return_val_if_fail(text != nullptr, -1);
    auto tos = ibnm::userkeys::parseTos(text);
    return tos ? gint(*tos) : -1;
}

/**
 * ibnm_apply_rdma_link_add:
 * @host: the host to change
 * @name: (nullable): the new RDMA device's name, as rdma.link-name takes it;
 *   %NULL for the default name (rxe_NETDEV, siw_NETDEV)
 * @type: the kind of link
 * @netdev: the Ethernet interface the link runs over
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Adds a soft RDMA link (`rdma link add NAME type TYPE netdev NETDEV`),
 * loading its kernel module first, as ibnm_apply_up() of a profile with
 * rdma.link-type would; the link is not persistent (a profile is).
 *
 * Returns: (transfer full): the report, whether or not the link was added
 *   (%NULL only for a wrong argument); a failure's error
 *   (ibnm_apply_report_propagate_error()) names the argument
 *   ("netdev: ...", "link name: ..."): %IBNM_ERROR_INVALID_VALUE for a
 *   name the kernel refuses, %IBNM_ERROR_NOT_FOUND for a netdev the host
 *   does not have, %IBNM_ERROR_EXISTS for a name or netdev taken
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_rdma_link_add(IbnmHost *host, const char *name, IbnmSoftLinkType type, const char *netdev,
                                  IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(type == IBNM_SOFT_LINK_TYPE_RXE || type == IBNM_SOFT_LINK_TYPE_SIW, nullptr);
    g_return_val_if_fail(netdev != nullptr, nullptr);
    std::string linkName = name ? name : "";
    std::string nd = netdev;
    auto linkType = type == IBNM_SOFT_LINK_TYPE_RXE ? ibnm::model::SoftLinkType::Rxe : ibnm::model::SoftLinkType::Siw;
    return runTyped(host, flags, true, [&](const ibnm::model::Host &) -> Result<Desired> {
        DesiredRdma r = typedRdma();
        if (name)
            if (auto st = ibnm::userkeys::validateAs(ibnm::userkeys::kLinkName, r.names.linkName, linkName); !st)
                return std::move(st).error();
        r.netdev = nd;
        r.linkType = linkType;
        r.linkName = name ? linkName : ibnm::model::defaultSoftLinkName(linkType, nd);
        return one(std::move(r));
    });
}

/**
 * ibnm_apply_rdma_link_delete:
 * @host: the host to change
 * @name: the soft RDMA link (rxe or siw device) to delete
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Deletes a soft RDMA link (`rdma link delete NAME`), with the RDMA-CM
 * defaults set on it; a failure puts them back.
 *
 * Returns: (transfer full): the report, whether or not it succeeded (%NULL
 *   only for a wrong argument); a failure's error
 *   (ibnm_apply_report_propagate_error()):
 *   %IBNM_ERROR_NOT_FOUND ("link name: ...") when the host has no soft link
 *   of that name
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_rdma_link_delete(IbnmHost *host, const char *name, IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(name != nullptr, nullptr);
    std::string linkName = name;
    return runTyped(host, flags, false, [&](const ibnm::model::Host &h) -> Result<Desired> {
        DesiredRdma r = typedRdma();
        const ibnm::model::SoftLink *l = h.findSoftLink(linkName);
        if (l == nullptr)
            return Error(IBNM_ERROR_NOT_FOUND,
                         ibnm::strprintf(_("no soft RDMA link (rxe, siw) named %s on this host"), linkName.c_str()))
                .withProperty(r.names.linkName);
        r.netdev = l->netdev;
        r.linkType = l->type;
        r.linkName = l->name;
        return one(std::move(r));
    });
}

/**
 * ibnm_apply_roce_mode:
 * @host: the host to change
 * @device: the RDMA device (a hardware device or a soft link)
 * @port: its port; 0 for the first
 * @mode: the RoCE version RDMA-CM uses by default on the port
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Sets the RDMA-CM default RoCE mode of a port (configfs
 * rdma_cm/DEVICE/ports/PORT/default_roce_mode), loading rdma_cm and
 * mounting configfs first where needed, as rdma.roce-mode of a profile does.
 *
 * Returns: (transfer full): the report, whether or not it succeeded (%NULL
 *   only for a wrong argument); a failure's error
 *   (ibnm_apply_report_propagate_error()) names the argument:
 *   %IBNM_ERROR_NOT_FOUND ("device: ...", "port: ..."), or
 *   %IBNM_ERROR_NOT_SUPPORTED ("mode: ...") for a version the device does
 *   not have (RoCE v1 on rxe, any on siw)
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_roce_mode(IbnmHost *host, const char *device, guint port, IbnmRoceMode mode,
                              IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(device != nullptr, nullptr);
    g_return_val_if_fail(mode == IBNM_ROCE_MODE_V1 || mode == IBNM_ROCE_MODE_V2, nullptr);
    std::string dev = device;
    return runTyped(host, flags, true, [&](const ibnm::model::Host &h) -> Result<Desired> {
        auto r = onPort(h, dev, port);
        if (!r.ok())
            return std::move(r).error();
        r->roceMode = mode == IBNM_ROCE_MODE_V1 ? ibnm::model::RoceMode::V1 : ibnm::model::RoceMode::V2;
        return one(std::move(r).value());
    });
}

/**
 * ibnm_apply_traffic_class:
 * @host: the host to change
 * @device: the RDMA device (mlx5: the tc directory)
 * @port: its port; 0 for the first
 * @tclass: the port's traffic class, a ToS byte (0-255); -1 leaves it
 * @rules: (array zero-terminated=1) (nullable): traffic class rules, each
 *   as rdma.traffic-class-rules takes one ("[tclass=]N,src_ip=ADDR,
 *   dst_ip=ADDR[/LEN]"; tclass=-1 removes the rule with that match)
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Sets the traffic class of a port and its rules (mlx5
 * tc/PORT/traffic_class), as rdma.traffic-class and
 * rdma.traffic-class-rules of a profile do.
 *
 * Returns: (transfer full): the report, whether or not it succeeded (%NULL
 *   only for a wrong argument); a failure's error
 *   (ibnm_apply_report_propagate_error()) names the argument:
 *   %IBNM_ERROR_INVALID_VALUE ("traffic class: ...", "rules: ..."),
 *   %IBNM_ERROR_NOT_FOUND ("device: ...", "port: ..."), or
 *   %IBNM_ERROR_NOT_SUPPORTED for a device without the files
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_traffic_class(IbnmHost *host, const char *device, guint port, gint tclass,
                                  const char *const *rules, IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(device != nullptr, nullptr);
    std::string dev = device;
    std::vector<std::string> ruleList;
    for (const char *const *r = rules; r && *r; r++)
        ruleList.emplace_back(*r);
    return runTyped(host, flags, true, [&](const ibnm::model::Host &h) -> Result<Desired> {
        const ibnm::activation::RdmaNames names = typedRdma().names;
        if (tclass != -1)
            if (auto st = ibnm::userkeys::validateAs(ibnm::userkeys::kTrafficClass, names.trafficClass,
                                                     std::to_string(tclass));
                !st)
                return std::move(st).error();
        auto parsed = ibnm::userkeys::parseTcRules(ruleList);
        if (!parsed.ok())
            return Error(IBNM_ERROR_INVALID_VALUE, parsed.error().message()).withProperty(names.tcRules);
        auto r = onPort(h, dev, port);
        if (!r.ok())
            return std::move(r).error();
        if (tclass != -1)
            r->trafficClass = unsigned(tclass);
        r->tcRules = std::move(parsed).value();
        return one(std::move(r).value());
    });
}

/**
 * ibnm_apply_traffic_class_disable:
 * @host: the host to change
 * @device: the RDMA device (mlx5: the tc directory)
 * @port: its port; 0 for the first
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Disables the global traffic class of a port (a negative value to mlx5
 * tc/PORT/traffic_class, NVIDIA's RoCE page: "negative values indicate that
 * the feature is disabled"); its rules stay. Nothing to do when it is
 * disabled already.
 *
 * Returns: (transfer full): the report, whether or not it succeeded (%NULL
 *   only for a wrong argument); a failure's error
 *   (ibnm_apply_report_propagate_error()) names the argument:
 *   %IBNM_ERROR_NOT_FOUND ("device: ...", "port: ..."), or
 *   %IBNM_ERROR_NOT_SUPPORTED for a device without the files
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_traffic_class_disable(IbnmHost *host, const char *device, guint port, IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(device != nullptr, nullptr);
    std::string dev = device;
    return runTyped(host, flags, true, [&](const ibnm::model::Host &h) -> Result<Desired> {
        auto r = onPort(h, dev, port);
        if (!r.ok())
            return std::move(r).error();
        r->clearTrafficClass = true;
        return one(std::move(r).value());
    });
}

/**
 * ibnm_apply_ttl:
 * @host: the host to change
 * @device: the RDMA device (mlx5: the tc directory)
 * @port: its port; 0 for the first
 * @ttl: the TTL of the port's RC QPs (0-255)
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Sets the global TTL of a port's RC QPs (mlx5 tc/PORT/ttl), as rdma.ttl of
 * a profile does, now and not persistently.
 *
 * Returns: (transfer full): the report, whether or not it succeeded (%NULL
 *   only for a wrong argument); a failure's error
 *   (ibnm_apply_report_propagate_error()) names the argument:
 *   %IBNM_ERROR_INVALID_VALUE ("ttl: ..."), %IBNM_ERROR_NOT_FOUND
 *   ("device: ...", "port: ..."), or %IBNM_ERROR_NOT_SUPPORTED for a device
 *   without the files
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_ttl(IbnmHost *host, const char *device, guint port, guint ttl, IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(device != nullptr, nullptr);
    std::string dev = device;
    return runTyped(host, flags, true, [&](const ibnm::model::Host &h) -> Result<Desired> {
        const ibnm::activation::RdmaNames names = typedRdma().names;
        if (auto st = ibnm::userkeys::validateAs(ibnm::userkeys::kTtl, names.ttl, std::to_string(ttl)); !st)
            return std::move(st).error();
        auto r = onPort(h, dev, port);
        if (!r.ok())
            return std::move(r).error();
        r->ttl = ttl;
        return one(std::move(r).value());
    });
}

/**
 * ibnm_apply_roce_enable:
 * @host: the host to change
 * @device: the RDMA device of an mlx5 PCI function
 * @enabled: whether RoCE is enabled (disabling drops the RoCE GIDs of every
 *   port of the function)
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Enables or disables RoCE on a PCI function (mlx5 roce_enable), as
 * rdma.roce-enable of a profile does.
 *
 * Returns: (transfer full): the report, whether or not it succeeded (%NULL
 *   only for a wrong argument); a failure's error
 *   (ibnm_apply_report_propagate_error()) names the argument:
 *   %IBNM_ERROR_NOT_FOUND ("device: ..."), or %IBNM_ERROR_NOT_SUPPORTED
 *   ("roce-enable: ...") for a device without roce_enable
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_roce_enable(IbnmHost *host, const char *device, gboolean enabled, IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(device != nullptr, nullptr);
    std::string dev = device;
    return runTyped(host, flags, true, [&](const ibnm::model::Host &h) -> Result<Desired> {
        auto r = onPort(h, dev, 0);
        if (!r.ok())
            return std::move(r).error();
        r->roceEnable = enabled != FALSE;
        return one(std::move(r).value());
    });
}
