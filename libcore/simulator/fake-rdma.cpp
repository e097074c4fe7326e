// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated kernel's RDMA operations (fake-platform.hpp): rxe/siw soft
// links, configfs rdma_cm defaults (RoCE mode, ToS), the mlx5 tc/ and ttl
// settings, and roce_enable.
#include "config.h"

#include "libcore/simulator/fake-platform-private.hpp"

#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cerrno>

namespace ibnm::platform {

using model::LinkLayer;
using model::RoceMode;
using model::SoftLinkType;

using namespace fake;

// --- RDMA -----------------------------------------------------------------------

Status FakePlatform::addSoftLink(const std::string &name, SoftLinkType type, const std::string &netdev)
{
    return mutate("addSoftLink", name, {name, num(type), netdev}, [&]() -> Status {
        auto &h = state_.host;
        if (name.size() >= 64 || name.find_first_of("/% ") != std::string::npos || !isStorableId(name))
            return kernelError(EINVAL, name, IBNM_ERROR_INVALID_ARGUMENT, _("not a valid RDMA device name"));
        const model::Netdev *nd = findNetdev(h, netdev);
        if (nd == nullptr)
            return noSuchNetdev(netdev).withContext(name);
        if (findDevice(h, name))
            return kernelError(EEXIST, name, IBNM_ERROR_EXISTS);
        if (nd->type != 1)
            return kernelError(EINVAL, name, IBNM_ERROR_NOT_SUPPORTED,
                               strprintf(_("%s is not an Ethernet interface"), netdev.c_str()));
        if (type == SoftLinkType::Rxe && nd->kind == "vlan")
            return kernelError(EPERM, name, IBNM_ERROR_NOT_SUPPORTED,
                               _("rxe creation allowed on top of a real device only"));
        auto on = std::find_if(h.softLinks.begin(), h.softLinks.end(),
                               [&](const auto &l) { return l.netdev == netdev && l.type == type; });
        if (on != h.softLinks.end())
            return kernelError(EEXIST, name, IBNM_ERROR_EXISTS,
                               strprintf(_("%s already runs on %s"), on->name.c_str(), netdev.c_str()));
        h.devices.push_back(softLinkDevice(name, type, *nd));
        h.softLinks.push_back({name, type, netdev});
        return {};
    });
}

Status FakePlatform::deleteSoftLink(const std::string &name)
{
    return mutate("deleteSoftLink", name, {name}, [&]() -> Status {
        auto &h = state_.host;
        if (findSoftLink(h, name) == nullptr)
            return kernelError(ENODEV, name, IBNM_ERROR_NOT_FOUND, _("no such RDMA link"));
        h.softLinks.erase(std::remove_if(h.softLinks.begin(), h.softLinks.end(),
                                         [&](const auto &l) { return l.name == name; }),
                          h.softLinks.end());
        h.devices.erase(
            std::remove_if(h.devices.begin(), h.devices.end(), [&](const auto &d) { return d.name == name; }),
            h.devices.end());
        return {};
    });
}

namespace {

// The GID types a port supports (roce_gid_type_mask_support): InfiniBand
// and iWARP ports only "IB/RoCE v1", rxe only RoCE v2, RoCE NICs both.
bool roceModeSupported(const model::Host &h, const model::Device &d, const model::Port &p,
                       RoceMode mode)
{
    if (const auto *l = findSoftLink(h, d.name))
        return l->type == SoftLinkType::Rxe ? mode == RoceMode::V2 : mode == RoceMode::V1;
    if (p.linkLayer != LinkLayer::Ethernet)
        return mode == RoceMode::V1;
    return true;
}

// Port `port` of the stored device `d` (FakePlatform::storedDevice(), for
// the name `device`): ENODEV for no device, EINVAL for a port outside it;
// with `mlx5File`, a file of the mlx5 driver's tc/ directory (ENOENT on
// other devices).
Result<model::Port *> devicePort(model::Device *d, const std::string &device, unsigned port,
                                 const char *mlx5File = nullptr)
{
    if (d == nullptr)
        return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
    if (mlx5File && d->driver != "mlx5_core")
        return kernelError(ENOENT, d->name, IBNM_ERROR_NOT_SUPPORTED,
                           strprintf(_("%s exists on mlx5 devices only"), mlx5File));
    if (port == 0 || port > d->ports.size())
        return kernelError(EINVAL, d->name, IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("no port %u"), port));
    return &d->ports[port - 1];
}

// The configfs rdma_cm port of device/port: mkdir of the device directory
// fails with ENODEV for an unknown device; a port outside the device with
// EINVAL. The directory appears with the kernel's default: RoCE v2 where the
// port supports it (CMA_PREFERRED_ROCE_GID_TYPE), else IB/RoCE v1.
Result<model::Port *> configfsPort(const model::Host &h, model::Device *d, const std::string &device, unsigned port)
{
    auto p = devicePort(d, device, port);
    if (p.ok() && !(*p)->defaultRoceMode) {
        (*p)->defaultRoceMode = roceModeSupported(h, *d, **p, RoceMode::V2) ? RoceMode::V2 : RoceMode::V1;
        (*p)->defaultRoceTos = (*p)->defaultRoceTos.value_or(0);
    }
    return p;
}

} // namespace

Status FakePlatform::setDefaultRoceMode(const std::string &device, unsigned port, RoceMode mode)
{
    return mutate("setDefaultRoceMode", device, {device, num(port), num(mode)}, [&]() -> Status {
        model::Device *d = storedDevice(device);
        auto p = configfsPort(state_.host, d, device, port);
        if (!p.ok())
            return std::move(p).error();
        if (!roceModeSupported(state_.host, *d, **p, mode))
            return kernelError(EINVAL, device, IBNM_ERROR_NOT_SUPPORTED,
                               strprintf(_("port %u does not support %s"), port, roceModeName(mode)));
        (*p)->defaultRoceMode = mode;
        return {};
    });
}

Status FakePlatform::setDefaultRoceTos(const std::string &device, unsigned port, unsigned tos)
{
    return mutate("setDefaultRoceTos", device, {device, num(port), num(tos)}, [&]() -> Status {
        auto p = configfsPort(state_.host, storedDevice(device), device, port);
        if (!p.ok())
            return std::move(p).error();
        if (tos > 255)
            return kernelError(ERANGE, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("ToS %u is out of range (0 to 255)"), tos));
        (*p)->defaultRoceTos = tos;
        return {};
    });
}

Status FakePlatform::removeRoceDefaults(const std::string &device)
{
    return mutate("removeRoceDefaults", device, {device}, [&]() -> Status {
        model::Device *d = storedDevice(device);
        if (d == nullptr)
            return {}; // rmdir of a directory that is not there: ENOENT, nothing to do
        for (auto &p : d->ports) {
            p.defaultRoceMode.reset();
            p.defaultRoceTos.reset();
        }
        return {};
    });
}

Status FakePlatform::setTrafficClass(const std::string &device, unsigned port, unsigned tclass)
{
    return mutate("setTrafficClass", device, {device, num(port), num(tclass)}, [&]() -> Status {
        auto p = devicePort(storedDevice(device), device, port, "tc/<port>/traffic_class");
        if (!p.ok())
            return std::move(p).error();
        if (tclass > 255)
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("traffic class %u is out of range (0 to 255)"), tclass));
        (*p)->trafficClass = tclass;
        return {};
    });
}

Status FakePlatform::clearTrafficClass(const std::string &device, unsigned port)
{
    return mutate("clearTrafficClass", device, {device, num(port)}, [&]() -> Status {
        auto p = devicePort(storedDevice(device), device, port, "tc/<port>/traffic_class");
        if (!p.ok())
            return std::move(p).error();
        (*p)->trafficClass.reset();
        return {};
    });
}

Status FakePlatform::setTtl(const std::string &device, unsigned port, unsigned ttl)
{
    return mutate("setTtl", device, {device, num(port), num(ttl)}, [&]() -> Status {
        auto p = devicePort(storedDevice(device), device, port, "tc/<port>/ttl");
        if (!p.ok())
            return std::move(p).error();
        if (ttl > 255)
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("TTL %u is out of range (0 to 255)"), ttl));
        (*p)->ttl = ttl;
        return {};
    });
}

Status FakePlatform::setTrafficClassRule(const std::string &device, unsigned port, const model::TcRule &rule)
{
    return mutate("setTrafficClassRule", device,
                  {device, num(port), std::to_string(rule.tclass), rule.srcIp, rule.dstIp}, [&]() -> Status {
        auto p = devicePort(storedDevice(device), device, port, "tc/<port>/traffic_class");
        if (!p.ok())
            return std::move(p).error();
        // As the MLNX_OFED driver keeps them: one rule per (src, dst) match;
        // a rule for a match that has one replaces it, tclass -1 deletes it.
        if (rule.srcIp.empty() && rule.dstIp.empty())
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT, _("a rule needs an address"));
        if (rule.tclass < -1 || rule.tclass > 255)
            return kernelError(EINVAL, device, IBNM_ERROR_INVALID_ARGUMENT,
                               strprintf(_("traffic class %d is out of range (0 to 255)"), rule.tclass));
        auto &rules = (*p)->tcRules;
        auto it = std::find_if(rules.begin(), rules.end(), [&](const model::TcRule &r) {
            return r.srcIp == rule.srcIp && r.dstIp == rule.dstIp;
        });
        if (rule.tclass < 0) {
            if (it == rules.end())
                return kernelError(EINVAL, device, IBNM_ERROR_NOT_FOUND, _("no such traffic class rule"));
            rules.erase(it);
        } else if (it != rules.end()) {
            it->tclass = rule.tclass;
        } else {
            rules.push_back(rule);
        }
        return {};
    });
}

Status FakePlatform::setRoceEnabled(const std::string &device, bool enabled)
{
    return mutate("setRoceEnabled", device, {device, num(enabled)}, [&]() -> Status {
        model::Device *d = storedDevice(device);
        if (d == nullptr)
            return kernelError(ENODEV, device, IBNM_ERROR_NOT_FOUND, _("no such RDMA device"));
        if (d->driver != "mlx5_core" || !d->roceEnabled)
            return kernelError(ENOENT, device, IBNM_ERROR_NOT_SUPPORTED, _("roce_enable exists on mlx5 PCI functions only"));
        // The GID tables follow on the next read (derive()).
        d->roceEnabled = enabled;
        return {};
    });
}

} // namespace ibnm::platform

namespace ibnm::platform {

Result<RdmaTestOutcome> FakePlatform::runRdmaTest(const RdmaTestSpec &)
{
    // A simulated host has GID tables but no wire: a test would have to
    // make up its figures.
    return Error(IBNM_ERROR_NOT_SUPPORTED,
                 _("the simulated host has no RDMA data path: 'ibnm rdma test' sends real traffic, over RDMA devices "
                   "of this machine (make check-kernel runs it on the kernel lab's rxe and siw links)"));
}

} // namespace ibnm::platform
