// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/bond.hpp"

#include "libcore/model/ipoib.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>

namespace ibnm::model {

std::string failOverMacName(const std::string &value)
{
    // bonding's fail_over_mac option table (bond_options.c), as NetworkManager
    // keeps the value as written.
    static const char *const names[] = {"none", "active", "follow"};
    if (value.empty())
        return names[0];
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++)
        if (value == names[i] || value == std::to_string(i))
            return names[i];
    return {};
}

bool ipoibBondModeSupported(const std::string &mode)
{
    return mode == "active-backup";
}

std::string failOverMacAfterIpoibEnslave(const std::string &configured, bool bondHasPorts)
{
    std::string name = failOverMacName(configured);
    if (!bondHasPorts)
        return "active";
    return name;
}

Result<unsigned> portMtuAtEnslave(unsigned bondMtu, IpoibMode portMode, const Port *port)
{
    return effectiveMtu(bondMtu, portMode, port);
}

bool roceLagBondMode(const std::string &mode)
{
    return mode == "active-backup" || mode == "balance-xor" || mode == "802.3ad";
}

bool isRoceLagDevice(const std::string &rdmaDevice)
{
    return g_str_has_prefix(rdmaDevice.c_str(), "mlx5_bond_");
}

std::vector<RoceLag> roceLags(const Host &host)
{
    std::vector<RoceLag> out;
    for (const auto &n : host.netdevs) {
        if (n.kind != "bond" || !isRoceLagDevice(n.rdmaDevice))
            continue;
        RoceLag l{n.rdmaDevice, n.name, {}};
        if (const Bond *b = host.findBond(n.name))
            l.ports = b->ports;
        out.push_back(std::move(l));
    }
    return out;
}

std::optional<std::string> predictRoceLag(const Host &host, const std::string &mode,
                                          const std::vector<std::string> &ports)
{
    if (!roceLagBondMode(mode) || ports.size() != 2 || ports[0] == ports[1])
        return std::nullopt;
    std::string slot;
    std::vector<std::string> functions;
    for (const auto &name : ports) {
        const Netdev *n = host.findNetdev(name);
        const Device *d = n ? host.findDevice(n->rdmaDevice) : nullptr;
        if (d == nullptr || d->driver != "mlx5_core" || d->ports.size() != 1 ||
            d->ports[0].linkLayer != LinkLayer::Ethernet || d->pciAddress.empty())
            return std::nullopt;
        std::string s = d->pciAddress.substr(0, d->pciAddress.rfind('.'));
        if (!slot.empty() && s != slot)
            return std::nullopt;
        slot = s;
        functions.push_back(d->pciAddress);
    }
    if (functions[0] == functions[1])
        return std::nullopt;
    for (unsigned n = 0;; n++) {
        std::string name = "mlx5_bond_" + std::to_string(n);
        if (host.findDevice(name) == nullptr)
            return name;
    }
}

namespace {

std::string commaList(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : ", ") + x;
    return s;
}

} // namespace

std::string roceLagBreak(const RoceLag &lag, const std::string &mode, const std::vector<std::string> &ports)
{
    if (!roceLagBondMode(mode))
        return strprintf(_("mode %s is not one of RoCE LAG's (active-backup, balance-xor, 802.3ad)"),
                         mode.empty() ? "balance-rr" : mode.c_str());
    for (const auto &p : ports)
        if (std::find(lag.ports.begin(), lag.ports.end(), p) == lag.ports.end())
            return strprintf(_("%s is not one of the card's two ports (%s)"), p.c_str(),
                             commaList(lag.ports).c_str());
    if (!ports.empty() && ports.size() != lag.ports.size())
        return strprintf(_("RoCE LAG needs both of the card's ports (%s) in the bond"),
                         commaList(lag.ports).c_str());
    return {};
}

std::vector<LagSplitDevice> roceLagSplit(const Host &host, const RoceLag &lag)
{
    std::vector<LagSplitDevice> out;
    const Device *merged = host.findDevice(lag.device);
    if (merged == nullptr)
        return out;
    std::vector<const Netdev *> ports;
    for (const auto &name : lag.ports)
        if (const Netdev *n = host.findNetdev(name))
            ports.push_back(n);
    // The functions' order (a LAG has two ports); the ports' where a PCI
    // address is unknown.
    if (ports.size() == 2 && !ports[0]->pciAddress.empty() && !ports[1]->pciAddress.empty() &&
        ports[1]->pciAddress < ports[0]->pciAddress)
        std::swap(ports[0], ports[1]);
    std::vector<std::string> taken;
    for (const Netdev *n : ports) {
        std::string name;
        for (unsigned i = 0; name.empty(); i++) {
            std::string candidate = "mlx5_" + std::to_string(i);
            if (host.findDevice(candidate) == nullptr &&
                std::find(taken.begin(), taken.end(), candidate) == taken.end())
                name = candidate;
        }
        taken.push_back(name);
        Device d;
        d.name = name;
        d.driver = merged->driver;
        d.nodeType = merged->nodeType;
        d.fwVersion = merged->fwVersion;
        d.hcaType = merged->hcaType;
        d.boardId = merged->boardId;
        d.pciAddress = n->pciAddress;
        d.roceEnabled = merged->roceEnabled;
        Port p;
        p.number = 1;
        p.linkLayer = LinkLayer::Ethernet;
        if (!merged->ports.empty()) {
            p.activeMtu = merged->ports[0].activeMtu;
            p.maxMtu = merged->ports[0].maxMtu;
        }
        d.ports.push_back(std::move(p));
        out.push_back({n->name, std::move(d)});
    }
    return out;
}

PortAfterRelease portAfterRelease(const Netdev &port)
{
    PortAfterRelease after;
    after.flushed = port.up;
    return after;
}

} // namespace ibnm::model
