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

namespace detail {

// FNV-1a over the size and alignment of each of `T...`, byte by byte.
template <typename... T>
constexpr uint32_t layoutFingerprint()
{
    const size_t layout[] = {sizeof(T)..., alignof(T)...};
    uint32_t h = 2166136261u;
    for (size_t v : layout)
        for (unsigned byte = 0; byte < sizeof v; byte++) {
            h ^= static_cast<uint8_t>(v >> (8 * byte));
            h *= 16777619u;
        }
    return h;
}

} // namespace detail

// What ibnm-linux.so and its loader (linux-loader.cpp) must agree on besides
// PACKAGE_VERSION, to pass C++ objects to each other: kPlatformInterfaceVersion
// in the high 32 bits and, in the low 32, a fingerprint of how this
// compilation lays out every type they pass (a member added to model::Host
// or LinuxOptions, the C++ library's string ABI, another compiler's layout).
// A constant of each side's own compilation (internal linkage: the module
// cannot be handed the loader's); reproducible: no time or path enters it,
// and two builds of the same sources with the same compiler agree.
constexpr uint64_t kModuleAbi = (uint64_t(kPlatformInterfaceVersion) << 32)
    | detail::layoutFingerprint<Platform, LinuxOptions, IpoibChildSpec, BondSpec, Prerequisites, model::Host,
        model::Device, model::Port, model::Gid, model::TcRule, model::Route, model::Netdev, model::IpoibNetdev,
        model::Bond, model::SoftLink, model::LinkDns, model::Resolver, Error, Result<model::Host>,
        Result<model::Resolver>, Result<std::string>, Status, Result<UniqueFd>, std::string, std::optional<unsigned>,
        std::set<model::SoftLinkType>>();

// The options for this process: IBNM_SYSFS_ROOT=DIR reads the tree under
// DIR read only (configfs under DIR/kernel/config), without netlink or verbs.
LinuxOptions linuxOptionsFromEnvironment();

// The read-only options for a sysfs tree taken elsewhere: `dir` is a sysfs
// root (it has class/), or the root of a tree that holds one under sys/ (an
// extracted sosreport, a chroot). IBNM_ERROR_NOT_FOUND naming `dir` when it
// is neither, rather than an empty inventory.
Result<LinuxOptions> sysfsDumpOptions(const std::string &dir);

// The Linux platform itself (LinuxPlatform). It lives in the module
// ibnm-linux.so with everything it calls in libnl-3, libnl-route-3 and
// libibverbs; libibnm and the CLI do not link it (issue 17): they call
// openLinuxPlatform(). The tests link it (libibnm-linux-internal.la).
std::unique_ptr<Platform> createLinuxPlatform(const LinuxOptions &options);

// The platform for `options` as libibnm uses it (linux-loader.cpp). A sysfs
// tree read from files (readOnly, neither netlink nor verbs) is read here,
// through sysfs alone, so that a command on it maps none of libnl and
// libibverbs. Anything else is LinuxPlatform, from the module opened with
// GModule when the platform is first used: uninstalled, the build tree's
// libcore/.libs/ibnm-linux.so when this code runs from the build tree, else
// $(pkglibdir)/ibnm-linux.so. When the module (or a library it needs) cannot
// be opened, every operation fails with IBNM_ERROR_NOT_SUPPORTED naming it.
std::unique_ptr<Platform> openLinuxPlatform(const LinuxOptions &options);
// The same with the module at `modulePath` (tests).
std::unique_ptr<Platform> openLinuxPlatform(const LinuxOptions &options, const std::string &modulePath);

// What a sysfs tree read from files and LinuxPlatform share (linux-sysfs.cpp):
// The host as sysfs shows it, soft links (rxe names its netdev in
// "parent") and, on this machine's kernel, its release included;
// gidTables as sysfs::ReadOptions has it.
Result<model::Host> readSysfsHost(const LinuxOptions &options, bool gidTables);
// The error of every change to the read-only host under `sysfsRoot`.
Error readOnlyTreeError(const std::string &sysfsRoot);

} // namespace ibnm::platform
