// SPDX-License-Identifier: LGPL-2.1-or-later
// NetworkManager as the store: profiles are listed, added, modified and
// deleted through libnm's NMClient on the system bus, so NetworkManager
// stays their owner (and writes its keyfiles itself).
#pragma once

#include "settings/backend.hpp"

#include <gio/gio.h>

#include <memory>

namespace ibnm::settings {

// True if something owns org.freedesktop.NetworkManager on the system bus
// ($DBUS_SYSTEM_BUS_ADDRESS or the default socket). No bus means false.
bool networkManagerRunning();

class NetworkManagerBackend final : public Backend {
public:
    // Connects on a private system-bus connection (never the process-wide
    // one, which would end the process if the bus went away).
    static Result<std::unique_ptr<NetworkManagerBackend>> connect();
    ~NetworkManagerBackend() override;
    NetworkManagerBackend(const NetworkManagerBackend &) = delete;
    NetworkManagerBackend &operator=(const NetworkManagerBackend &) = delete;

    Result<std::unique_ptr<StoreWatch>> watch(std::function<void()> onChange) override;
    const char *name() const override { return "networkmanager"; }
    Status load() override;
    const std::vector<StoredProfile> &profiles() const override { return profiles_; }
    const std::vector<std::string> &warnings() const override { return warnings_; }
    Result<std::string> add(NMConnection *connection) override;
    Status update(NMConnection *connection) override;
    Status remove(const std::string &uuid) override;
    ActivationResult activate(const std::string &uuid, const char *ifname, unsigned timeoutS) override;
    Result<std::vector<std::string>> deactivate(const std::string &uuid, unsigned timeoutS) override;

private:
    NetworkManagerBackend() = default;
    // Notes in profiles_ where NetworkManager has each one active.
    void noteActive();

    GMainContextPtr context_;
    GObjectPtr<GDBusConnection> bus_;
    GObjectPtr<NMClient> client_;
    std::vector<StoredProfile> profiles_;
    std::vector<std::string> warnings_;
};

} // namespace ibnm::settings
