// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli's argument grammar for `connection add` and `connection modify`, the
// one place ibnm parses it (the CLI calls it through IbnmProfile).
//
// Words are `[+|-]setting.property VALUE` or an alias (`type`, `con-name`,
// `ifname`, `mtu`, `p-key`, ...); values are parsed as nmcli 1.42 parses them
// (src/libnmc-setting/nm-meta-setting-desc.c) and set with libnm, which stores
// and normalizes them. ibnm's own [user] keys (`rdma.*`, `ipoib.*`) are words
// too. An empty value resets the property, as in nmcli.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <NetworkManager.h>

#include <string>
#include <vector>

namespace ibnm::nmcli {

// A new, normalized connection from `connection add` arguments, with the
// defaults nmcli gives a new profile (id, uuid, transport-mode datagram...).
// `masters`, when given, receives the value of each `master` word parsed, in
// order, also when a later word fails (nmcli warns about those naming no
// stored profile as it parses them).
Result<GObjectPtr<NMConnection>> connectionAdd(const std::vector<std::string> &args,
                                               std::vector<std::string> *masters = nullptr);

// nmcli's short name of a connection type, as its tables show it
// ("ethernet" for "802-3-ethernet"); other types, and nullptr, unchanged.
const char *typeShortName(const char *type);

// `connection`, modified by `connection modify` arguments and normalized.
// On error `connection` is unchanged.
Status connectionModify(NMConnection *connection, const std::vector<std::string> &args,
                        std::vector<std::string> *masters = nullptr);
// A modified, normalized copy of `connection`, which stays as it is (one
// copy fewer than connectionModify() on a clone: `ibnm apply` compares
// each stored profile with what the document makes of it).
Result<GObjectPtr<NMConnection>> connectionModified(NMConnection *connection, const std::vector<std::string> &args,
                                                    std::vector<std::string> *masters = nullptr);
// Whether `args` leave `connection`, a normalized profile (as the settings
// store keeps them), exactly as it is, decided without copying the profile:
// the arguments run against fresh settings holding only the properties they
// name (and the type the grammar asks), and those are compared with the
// profile's. true only when that proves connectionModified() would return a
// profile nm_connection_compare() finds equal; false when it does not prove
// it (a change, an error, a setting the arguments add or remove, a property
// written that they do not name): then do connectionModified() and compare.
bool connectionUnchangedBy(NMConnection *connection, const std::vector<std::string> &args);

} // namespace ibnm::nmcli

namespace ibnm::nmcli {

// NetworkManager's verify() (rule 1): the first error, its context naming
// "setting.property" even where libnm 1.42 names only the property. A
// connection marked verified (markVerified()) and not changed since passes
// without asking libnm again.
Status verify(NMConnection *connection);
// Records that `connection` passes NetworkManager's verify() as it is now:
// for a caller that has just asked libnm (the keyfile reader, after
// nm_connection_normalize(), which ends with that verify()). The mark goes
// with the connection's first change (its "changed" signal: any property of
// any of its settings, a setting added or removed), so verify() asks libnm
// again; `ibnm check` of a store read from disk verifies each profile once.
// libnm emits no "changed" for an NMIPAddress or NMIPRoute changed in place
// after a getter returned it (nor until g_object_thaw_notify()): ibnm never
// changes a profile that way, and must not start to.
void markVerified(NMConnection *connection);
// `error` from verifying `failed` (null: the connection as a whole).
Error verifyError(NMConnection *connection, const GError *error, NMSetting *failed);

} // namespace ibnm::nmcli
