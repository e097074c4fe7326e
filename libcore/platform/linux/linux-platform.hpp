// SPDX-License-Identifier: LGPL-2.1-or-later
// The Linux platform: sysfs (class/infiniband, class/net) for the snapshot,
// rtnetlink (libnl-route-3) for links, bonds and addresses, IPoIB children
// over rtnetlink with sysfs create_child as the fallback, RDMA netlink
// (NETLINK_RDMA on libnl-3) for rxe/siw links, configfs rdma_cm for the
// default RoCE mode and ToS, and libibverbs for port MTUs and GID tables.
//
// With a sysfs root other than /sys (IBNM_SYSFS_ROOT: a dump from another
// machine), the platform is read only: every write fails with
// IBNM_ERROR_NOT_SUPPORTED naming the root, and netlink and verbs are not
// used (they would describe this machine, not the dump).
//
// One change costs the same on a host with many netdevs as on a small one:
// the platform reads only the objects it changes (class/net/<if>, the
// candidate names of an IPoIB child, the RDMA devices' GID tables while it
// waits for RoCE GIDs), never the whole host; readHost() is the one full
// read. It keeps one rtnetlink and one RDMA netlink socket, connected on
// first use. Choices (which child, what name, what MTU) are the planner's.
//
// configfs rdma_cm values live only while the device's directory exists
// under rdma_cm/; setDefaultRoceMode/Tos create it when missing and leave it
// in place (removing it would reset the values).
#pragma once

#include "libcore/platform/platform.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace ibnm::platform {

struct LinuxOptions {
    std::string sysfsRoot = "/sys";
    std::string configfsRoot = "/sys/kernel/config";
    bool readOnly = false;
    bool useNetlink = true;
    bool useVerbs = true;
};

// The options for this process: IBNM_SYSFS_ROOT=DIR reads the tree under
// DIR read only (configfs under DIR/kernel/config), without netlink or verbs.
LinuxOptions linuxOptionsFromEnvironment();

// The read-only options for a sysfs tree taken elsewhere: `dir` is a sysfs
// root (it has class/), or the root of a tree that holds one under sys/ (an
// extracted sosreport, a chroot). IBNM_ERROR_NOT_FOUND naming `dir` when it
// is neither, rather than an empty inventory.
Result<LinuxOptions> sysfsDumpOptions(const std::string &dir);

// The Linux platform (LinuxPlatform, linux-platform-private.hpp) for
// `options`; libibnm's IbnmHost makes one for this machine or a sysfs tree.
std::unique_ptr<Platform> createLinuxPlatform(const LinuxOptions &options);

// What a sysfs tree read from files and LinuxPlatform share (linux-sysfs.cpp):
// The host as sysfs shows it, soft links (rxe names its netdev in
// "parent") and, on this machine's kernel, its release included;
// gidTables as sysfs::ReadOptions has it.
Result<model::Host> readSysfsHost(const LinuxOptions &options, bool gidTables);
// The error of every change to the read-only host under `sysfsRoot`.
Error readOnlyTreeError(const std::string &sysfsRoot);

} // namespace ibnm::platform
