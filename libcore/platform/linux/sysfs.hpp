// SPDX-License-Identifier: LGPL-2.1-or-later
// The sysfs reader: /sys/class/infiniband and /sys/class/net under an
// injectable root (rdma-core's SYSFS_PATH), into an ibnm::model::Host.
//
// Reads fail rather than truncate: an unreadable or malformed file gives an
// error naming the file; a missing optional file gives std::nullopt. Files
// the kernel makes fail on purpose (gid_attrs of an unused GID entry: EINVAL)
// are read as the kernel means them. Each attribute is one open/read/close
// into a stack buffer: a host with 64 devices x 2 ports x 128 GIDs is read
// in a few milliseconds, and all-zero GID entries cost one read each.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/files.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::platform::sysfs {

// The largest attribute the reader accepts (sysfs attributes are at most
// one page); a longer file is an error, never truncated.
inline constexpr size_t kMaxAttrSize = 4096;

// The whole attribute with trailing newlines and blanks removed.
Result<std::string> readAttr(const std::string &path);
// As readAttr, but a file that does not exist gives std::nullopt.
Result<std::optional<std::string>> readOptionalAttr(const std::string &path);
// An unsigned number in the attribute ("0x1f", "2048", base 0 unless given)
// of at most `max` (the field it goes into: an MTU of 4294967297 is an
// error, not 1); anything else is IBNM_ERROR_PARSE naming the file.
Result<std::optional<unsigned long long>> readOptionalNumber(const std::string &path, int base = 0,
                                                             unsigned long long max = UINT32_MAX);
// Parses `text` read from `path` as an unsigned number.
Result<unsigned long long> parseNumber(const std::string &text, const std::string &path, int base = 0);
// The target's basename of a symbolic link, std::nullopt if there is none.
Result<std::optional<std::string>> readLinkName(const std::string &path);
// The entries of a directory under the sysfs root (never through a link out
// of it), in natural order (strverscmp); a missing directory is empty.
Result<std::vector<std::string>> listDir(const std::string &path);

// Writes `value` to a sysfs or configfs attribute with one write(2).
Status writeAttr(const std::string &path, const std::string &value);

// Formats 16 raw GID bytes as sysfs prints them ("fe80:0000:...").
std::string formatGid(const unsigned char raw[16]);
// "0002:c903:0031:7851" from the last 8 bytes of a 20-byte IPoIB address
// written "80:00:02:08:fe:80:...", empty when the address is not 20 bytes.
std::string portGuidFromAddress(const std::string &address);

struct ReadOptions {
    std::string sysfsRoot = "/sys";
    // configfs root ("/sys/kernel/config"); empty: do not read rdma_cm.
    std::string configfsRoot;
    // false: leave the ports' GID tables empty and map no netdev by them,
    // for a caller that reads the tables another way (verbs) and then
    // calls readPortGids() for what that could not read and
    // mapNetdevsByGids().
    bool gidTables = true;
};

// Reads devices, ports, GIDs, P_Keys, netdevs, IPoIB netdevs, bonds and the
// netdev <-> RDMA port map. Kinds are what sysfs shows (uevent DEVTYPE,
// bonding/, type 32); addresses and soft links need netlink and are left to
// the caller.
Result<model::Host> readHost(const ReadOptions &options);

// Only class/infiniband/<dev>/ports/<n>/{gids,gid_attrs}: device names, port
// numbers and the used GID entries (gidTables false: names and numbers only).
Result<model::Host> readGidTables(const std::string &sysfsRoot, bool gidTables = true);

// The used entries of one port's GID table (ports/<n>/gids, gid_attrs).
Status readPortGids(const std::string &sysfsRoot, const std::string &device, unsigned port,
                    std::vector<model::Gid> &out);
// Netdevs without device/infiniband (rxe, VLANs on RoCE ports) map to the
// port whose GID entries name them.
void mapNetdevsByGids(model::Host &host);

// One device (class/infiniband/<name>) and one netdev (class/net/<name>).
Result<model::Device> readDevice(const std::string &sysfsRoot, const std::string &name, bool gidTables = true);
Result<model::Port> readPort(const std::string &deviceDir, unsigned number, bool gidTables = true);

} // namespace ibnm::platform::sysfs
