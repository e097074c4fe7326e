// SPDX-License-Identifier: LGPL-2.1-or-later
// Backend::watch(): what tells that stored profiles changed. The keyfile
// store: inotify on its directory, through GFileMonitor (a keyfile written,
// renamed into place or removed). NetworkManager: its own D-Bus signals,
// Settings.NewConnection and Settings.ConnectionRemoved, and
// Settings.Connection.Updated of any profile (what NMClient's
// connection-added/removed and NMRemoteConnection's changed follow).
#include "config.h"

#include "settings/keyfile-backend.hpp"
#include "settings/nm-backend.hpp"

#include "libcore/support/i18n.hpp"

namespace ibnm::settings {

namespace {

class KeyfileWatch final : public StoreWatch {
public:
    KeyfileWatch(GObjectPtr<GFileMonitor> monitor, std::function<void()> onChange)
        : monitor_(std::move(monitor)), onChange_(std::move(onChange))
    {
        handler_ = g_signal_connect(monitor_.get(), "changed", G_CALLBACK(onEvent), this);
    }
    ~KeyfileWatch() override
    {
        g_signal_handler_disconnect(monitor_.get(), handler_);
        g_file_monitor_cancel(monitor_.get());
    }

private:
    static void onEvent(GFileMonitor *, GFile *, GFile *, GFileMonitorEvent event, gpointer self)
    {
        // CHANGED comes once per write(): CHANGES_DONE_HINT ends a file's
        // writing; the others are whole events.
        if (event != G_FILE_MONITOR_EVENT_CHANGED)
            static_cast<KeyfileWatch *>(self)->onChange_();
    }
    GObjectPtr<GFileMonitor> monitor_;
    std::function<void()> onChange_;
    gulong handler_ = 0;
};

class NetworkManagerWatch final : public StoreWatch {
public:
    NetworkManagerWatch(GDBusConnection *bus, std::function<void()> onChange)
        : bus_(GObjectPtr<GDBusConnection>::retain(bus)), onChange_(std::move(onChange))
    {
        const char *kSettings = "org.freedesktop.NetworkManager.Settings";
        const char *kConnection = "org.freedesktop.NetworkManager.Settings.Connection";
        for (auto [interface, member] : {std::pair{kSettings, "NewConnection"}, std::pair{kSettings, "ConnectionRemoved"},
                                         std::pair{kConnection, "Updated"}})
            subscriptions_.push_back(g_dbus_connection_signal_subscribe(
                bus, "org.freedesktop.NetworkManager", interface, member, nullptr, nullptr,
                G_DBUS_SIGNAL_FLAGS_NONE, onSignal, this, nullptr));
    }
    ~NetworkManagerWatch() override
    {
        for (guint id : subscriptions_)
            g_dbus_connection_signal_unsubscribe(bus_.get(), id);
    }

private:
    static void onSignal(GDBusConnection *, const char *, const char *, const char *, const char *, GVariant *,
                         gpointer self)
    {
        static_cast<NetworkManagerWatch *>(self)->onChange_();
    }
    GObjectPtr<GDBusConnection> bus_;
    std::function<void()> onChange_;
    std::vector<guint> subscriptions_;
};

} // namespace

Result<std::unique_ptr<StoreWatch>> KeyfileBackend::watch(std::function<void()> onChange)
{
    GObjectPtr<GFile> dir = GObjectPtr<GFile>::adopt(g_file_new_for_path(dir_.c_str()));
    GErrorPtr err;
    auto monitor = GObjectPtr<GFileMonitor>::adopt(
        g_file_monitor_directory(dir.get(), G_FILE_MONITOR_WATCH_MOVES, nullptr, outPtr(err)));
    if (!monitor)
        return Error(IBNM_ERROR_FAILED, err ? err->message : "g_file_monitor_directory").withContext(dir_);
    return std::unique_ptr<StoreWatch>(std::make_unique<KeyfileWatch>(std::move(monitor), std::move(onChange)));
}

Result<std::unique_ptr<StoreWatch>> NetworkManagerBackend::watch(std::function<void()> onChange)
{
    return std::unique_ptr<StoreWatch>(std::make_unique<NetworkManagerWatch>(bus_.get(), std::move(onChange)));
}

} // namespace ibnm::settings
