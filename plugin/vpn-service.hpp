// SPDX-License-Identifier: LGPL-2.1-or-later
// What nm-ibnm-service does for one activation of an RDMA secondary (a VPN
// profile of ibnm's service whose vpn.data holds rdma.* settings), apart
// from the D-Bus plumbing of NMVpnServicePlugin (nm-ibnm-service.cpp):
// find the base device, provision the settings on it through libibnm's
// apply path, report the config NetworkManager needs, and undo exactly what
// was done. Uses libibnm's public API only.
#pragma once

#include "libcore/ibnm.h"
#include "plugin/nm-vpn-error.hpp"

#include <NetworkManager.h>

#include <string>
#include <vector>

namespace ibnm::vpn {

// One line for the logs (stderr, where NetworkManager's own log collects a
// plugin's output, and syslog when NetworkManager asks for it).
using Logger = void (*)(int priority, const std::string &line);

// The interface of the device NetworkManager activates the VPN connection
// `activePath` (an object path of org.freedesktop.NetworkManager.Connection.Active)
// on: its base connection's device. NetworkManager 1.42 passes no device to
// a VPN service (Connect carries the profile and nothing else,
// nm-vpn-connection.c really_activate()), but with
// supports-multiple-connections it names the service's bus name after the
// active connection (`<service>.Connection_<N>`, N the last element of its
// path), and that active connection's Devices property holds the base
// device. Without that path (`activePath` empty) the active VPN connection
// of profile `uuid` is looked up among NetworkManager's ActiveConnections.
bool findBaseInterface(GDBusConnection *bus, const std::string &activePath, const char *uuid, std::string &ifname,
                       GError **error);

// The active connection path of a service bus name
// "org.freedesktop.NetworkManager.ibnm.Connection_<N>"; "" for another.
std::string activePathOfBusName(const std::string &busName);

// The Config a VPN service reports for an RDMA secondary, which has no
// tunnel and no IP of its own (see the comment in vpn-service.cpp).
GVariant *minimalConfig();

class Activation {
public:
    // `host`: the machine (or a simulated host for tests); `deadlineMs`:
    // the time Connect and Disconnect may take each (ibnm_host_set_deadline()).
    Activation(IbnmHost *host, unsigned deadlineMs, Logger log);
    ~Activation();
    Activation(const Activation &) = delete;
    Activation &operator=(const Activation &) = delete;

    // Provisions the settings of `secondary` on `ifname` as one transaction:
    // on failure nothing is left changed and `error` says why, naming the
    // setting (NM_VPN_PLUGIN_ERROR: BAD_ARGUMENTS for settings that do not
    // parse, LAUNCH_FAILED for what the host refuses). What it changed is
    // held for disconnect() and recorded in the host's runtime directory.
    bool connect(NMConnection *secondary, const std::string &ifname, GError **error);

    // Undoes exactly what connect() changed, and deletes the soft RDMA links
    // an earlier activation of the same profile created and left (its
    // service ended without a Disconnect: NetworkManager restarted), then
    // removes the record. `keepHost`: NetworkManager itself went away (a
    // restart or a crash): leave the host as it is, as NetworkManager
    // leaves its devices configured, and keep the record for the next
    // activation.
    bool disconnect(bool keepHost, GError **error);

    bool connected() const { return connected_; }
    const std::string &interfaceName() const { return ifname_; }

private:
    std::string recordPath() const;
    void writeRecord(const std::vector<std::string> &links) const;
    std::vector<std::string> readRecord() const;
    void logReport(IbnmApplyReport *report) const;

    IbnmHost *host_;
    unsigned deadlineMs_;
    Logger log_;
    IbnmTransaction *transaction_ = nullptr;
    std::string uuid_;
    std::string id_;
    std::string ifname_;
    std::vector<std::string> adopted_; // soft links an earlier activation created
    bool connected_ = false;
};

} // namespace ibnm::vpn
