// SPDX-License-Identifier: LGPL-2.1-or-later
// NetworkManager keyfiles in and out, through libnm's keyfile API
// (nm_keyfile_read / nm_keyfile_write): no keyfile syntax is written by hand.
// Also NetworkManager's file naming rules for its keyfile directory.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"
#include "settings/ibnm-settings.h"

#include <NetworkManager.h>

#include <string>
#include <string_view>
#include <vector>

namespace ibnm::settings {

inline constexpr std::string_view kKeyfileSuffix = ".nmconnection";

// A keyfile is a few kilobytes; a larger one is refused before it is parsed
// (IBNM_KEYFILE_MAX_SIZE in the C API).
inline constexpr size_t kMaxKeyfileSize = IBNM_KEYFILE_MAX_SIZE;

// Refuses what would be written but not read back: strings that are not
// UTF-8 (named "<setting>.<property>") and interface names the kernel
// refuses (connection.interface-name, infiniband.parent).
Status validateForWrite(NMConnection *connection);

// The keyfile text NetworkManager writes for `connection` (normalized first,
// as NetworkManager does; `connection` itself is not modified).
Result<std::string> keyfileToData(NMConnection *connection);

// Reads keyfile text as NetworkManager's keyfile plugin does: the id and
// UUID default from the file name, the result is normalized and verified and
// ibnm's [user] keys are validated. Errors and warnings name `filename`.
// Non-fatal reader warnings are appended to `warnings` when given.
Result<GObjectPtr<NMConnection>> keyfileFromData(std::string_view data, const std::string &filename,
                                                 std::vector<std::string> *warnings = nullptr);

// For a profile that will not change: libnm's handlers that make its
// NMConnection emit "changed" when one of its settings does (libnm
// nm-connection.c, _setting_notify_connect(): one handler and closure per
// setting, 0.8 kB a profile) are disconnected. Its nmcli::markVerified()
// then stays, so that nothing may change the profile afterwards.
void releaseChangedSignal(NMConnection *connection);

// Checks every ibnm key of the connection's [user] setting; the error names
// the key as "user.<key>".
Status validateUserData(NMConnection *connection);

// The file name NetworkManager gives a profile with this id in its keyfile
// directory (nm_keyfile_utils_create_filename with the .nmconnection suffix).
std::string createFilename(std::string_view id);

// True if NetworkManager's keyfile plugin ignores a file of this name in
// /etc (hidden, backup, mkstemp-style temporary files, certificates).
bool ignoreFilename(std::string_view basename);

// A normalized deep copy of `connection`.
Result<GObjectPtr<NMConnection>> normalizedCopy(NMConnection *connection);

} // namespace ibnm::settings
