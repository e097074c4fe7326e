// SPDX-License-Identifier: LGPL-2.1-or-later
// Bonding facts, each stated once: option names as NetworkManager writes
// them and the kernel reports them, and what the bonding driver does with
// IPoIB ports (drivers/net/bonding/bond_main.c bond_enslave(); FACTS.md
// "Bonding"). Profile rules and the planner ask these; the simulated host
// states the driver's behaviour on its own.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ibnm::model {

// A new bond's MTU (ether_setup()); its IPoIB ports take it at enslave.
inline constexpr unsigned kBondDefaultMtu = 1500;

// The kernel's name of a bonding mode given by name or number ("1" and
// "active-backup" are "active-backup"), through libnm's
// nm_utils_bond_mode_string_to_int(); "" when it is none. An empty value is
// the driver's default, balance-rr.
std::string bondModeName(const std::string &value);

// fail_over_mac by name or number ("0" none, "1" active, "2" follow); "" when
// it is none. Empty: the driver's default, none.
std::string failOverMacName(const std::string &value);

// Whether an IPoIB port may join a bond of `mode` (the kernel's name):
// only active-backup ("Only active-backup mode is supported for infiniband
// slaves", EOPNOTSUPP).
bool ipoibBondModeSupported(const std::string &mode);

// fail_over_mac of an active-backup bond with IPoIB ports: IPoIB ports
// cannot take a MAC, so bond_enslave() switches a bond with no ports to
// "active" at its first IPoIB port, whatever was configured (the NVIDIA
// page's fail_over_mac=0 therefore works). A bond that already has ports
// and is not "active" refuses further IPoIB ports (EOPNOTSUPP).
std::string failOverMacAfterIpoibEnslave(const std::string &configured, bool bondHasPorts);

// At enslave the bonding driver sets the port's MTU to the bond's
// (dev_set_mtu(slave, bond->mtu)); an IPoIB port in datagram mode refuses an
// MTU above its datagram maximum. The MTU the port then has, or the
// refusal (IBNM_ERROR_INVALID_PROPERTY, EINVAL).
Result<unsigned> portMtuAtEnslave(unsigned bondMtu, IpoibMode portMode, const Port *port);

// A port leaving its bond (`ip link set PORT nomaster`, or its bond
// deleted): __bond_release_one() closes it (dev_close(): down, the addresses
// flushedOnLinkDown() names and its routes gone) and sets back the MTU it had
// before bond_enslave(), which the kernel keeps and the host does not show.
// Checked on Debian's 6.1 in the kernel lab: DOWN, MTU as before the enslave.
// As a reader of the host sees it coming: the port ends down, flushed if it
// was up, with an MTU the reader cannot know.
struct PortAfterRelease {
    bool up = false;
    bool flushed = false;
    bool mtuKnown = false;
};
PortAfterRelease portAfterRelease(const Netdev &port);

// RoCE LAG (NVIDIA's RoCE page; the mlx5 driver's lag code): when both
// Ethernet ports of one dual-port card are the only ports of a bond in
// active-backup (1), balance-xor (2) or 802.3ad (4), the card's two RDMA
// devices become one, mlx5_bond_<n>, whose port serves the bond; any other
// mode, a third port or ports of two cards leave LAG mode, and the driver
// brings the per-port devices back.
bool roceLagBondMode(const std::string &mode);
bool isRoceLagDevice(const std::string &rdmaDevice);

// A RoCE LAG the host shows: the bonded RDMA device, the bond its port
// serves, and the bond's ports (the card's two Ethernet ports).
struct RoceLag {
    std::string device;
    std::string bond;
    std::vector<std::string> ports;
};
std::vector<RoceLag> roceLags(const Host &host);

// The RoCE LAG device a bond of `mode` whose only ports are `ports` makes
// on `host`: both Ethernet netdevs of the two functions of one dual-port
// mlx5 card (PCI addresses that differ in the function only), a LAG mode;
// named mlx5_bond_<n> with the first free n. nullopt otherwise.
std::optional<std::string> predictRoceLag(const Host &host, const std::string &mode,
                                          const std::vector<std::string> &ports);

// The RDMA devices a RoCE LAG splits back into when its bond leaves LAG
// mode (a port released, the bond deleted): the mlx5 driver registers each
// function's RDMA device again, in the functions' order
// (mlx5_lag_add_devices(), drivers/net/ethernet/mellanox/mlx5/core/lag),
// and the RDMA core names each "mlx5_%d" with the lowest number free
// (ib_register_device(), alloc_name() in drivers/infiniband/core/device.c).
// Each comes back with the LAG device's driver and one Ethernet port, none
// of its settings (configfs rdma_cm, tc/: a new device), and serves its own
// port's netdev: a profile for that port is judged on this, the host after
// the release. By the ports' netdevs, in the functions' order.
struct LagSplitDevice {
    std::string netdev;
    Device device;
};
std::vector<LagSplitDevice> roceLagSplit(const Host &host, const RoceLag &lag);

// Why a bond of `mode` with `ports` would not keep the LAG `lag`, or "" when
// it keeps it (the same two ports, a LAG mode).
std::string roceLagBreak(const RoceLag &lag, const std::string &mode, const std::vector<std::string> &ports);

} // namespace ibnm::model
