// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "settings/nm-reasons.hpp"

#include "libcore/support/i18n.hpp"

#include <algorithm>
#include <iterator>

namespace ibnm::settings {

namespace {

template <typename E> struct Text {
    E value;
    const char *text;
};

// nmcli 1.42's words, in its order (src/libnmc-base/nm-client-utils.c:
// nmc_device_reason_to_string, nm_active_connection_state_reason_to_string),
// so that ibnm reports a failed activation as nmcli does.
const Text<NMDeviceStateReason> kDeviceReasons[] = {
    {NM_DEVICE_STATE_REASON_NONE, N_("No reason given")},
    {NM_DEVICE_STATE_REASON_UNKNOWN, N_("Unknown error")},
    {NM_DEVICE_STATE_REASON_NOW_MANAGED, N_("Device is now managed")},
    {NM_DEVICE_STATE_REASON_NOW_UNMANAGED, N_("Device is now unmanaged")},
    {NM_DEVICE_STATE_REASON_CONFIG_FAILED, N_("The device could not be readied for configuration")},
    {NM_DEVICE_STATE_REASON_IP_CONFIG_UNAVAILABLE,
     N_("IP configuration could not be reserved (no available address, timeout, etc.)")},
    {NM_DEVICE_STATE_REASON_IP_CONFIG_EXPIRED, N_("The IP configuration is no longer valid")},
    {NM_DEVICE_STATE_REASON_NO_SECRETS, N_("Secrets were required, but not provided")},
    {NM_DEVICE_STATE_REASON_SUPPLICANT_DISCONNECT, N_("802.1X supplicant disconnected")},
    {NM_DEVICE_STATE_REASON_SUPPLICANT_CONFIG_FAILED, N_("802.1X supplicant configuration failed")},
    {NM_DEVICE_STATE_REASON_SUPPLICANT_FAILED, N_("802.1X supplicant failed")},
    {NM_DEVICE_STATE_REASON_SUPPLICANT_TIMEOUT, N_("802.1X supplicant took too long to authenticate")},
    {NM_DEVICE_STATE_REASON_PPP_START_FAILED, N_("PPP service failed to start")},
    {NM_DEVICE_STATE_REASON_PPP_DISCONNECT, N_("PPP service disconnected")},
    {NM_DEVICE_STATE_REASON_PPP_FAILED, N_("PPP failed")},
    {NM_DEVICE_STATE_REASON_DHCP_START_FAILED, N_("DHCP client failed to start")},
    {NM_DEVICE_STATE_REASON_DHCP_ERROR, N_("DHCP client error")},
    {NM_DEVICE_STATE_REASON_DHCP_FAILED, N_("DHCP client failed")},
    {NM_DEVICE_STATE_REASON_SHARED_START_FAILED, N_("Shared connection service failed to start")},
    {NM_DEVICE_STATE_REASON_SHARED_FAILED, N_("Shared connection service failed")},
    {NM_DEVICE_STATE_REASON_AUTOIP_START_FAILED, N_("AutoIP service failed to start")},
    {NM_DEVICE_STATE_REASON_AUTOIP_ERROR, N_("AutoIP service error")},
    {NM_DEVICE_STATE_REASON_AUTOIP_FAILED, N_("AutoIP service failed")},
    {NM_DEVICE_STATE_REASON_MODEM_BUSY, N_("The line is busy")},
    {NM_DEVICE_STATE_REASON_MODEM_NO_DIAL_TONE, N_("No dial tone")},
    {NM_DEVICE_STATE_REASON_MODEM_NO_CARRIER, N_("No carrier could be established")},
    {NM_DEVICE_STATE_REASON_MODEM_DIAL_TIMEOUT, N_("The dialing request timed out")},
    {NM_DEVICE_STATE_REASON_MODEM_DIAL_FAILED, N_("The dialing attempt failed")},
    {NM_DEVICE_STATE_REASON_MODEM_INIT_FAILED, N_("Modem initialization failed")},
    {NM_DEVICE_STATE_REASON_GSM_APN_FAILED, N_("Failed to select the specified APN")},
    {NM_DEVICE_STATE_REASON_GSM_REGISTRATION_NOT_SEARCHING, N_("Not searching for networks")},
    {NM_DEVICE_STATE_REASON_GSM_REGISTRATION_DENIED, N_("Network registration denied")},
    {NM_DEVICE_STATE_REASON_GSM_REGISTRATION_TIMEOUT, N_("Network registration timed out")},
    {NM_DEVICE_STATE_REASON_GSM_REGISTRATION_FAILED, N_("Failed to register with the requested network")},
    {NM_DEVICE_STATE_REASON_GSM_PIN_CHECK_FAILED, N_("PIN check failed")},
    {NM_DEVICE_STATE_REASON_FIRMWARE_MISSING, N_("Necessary firmware for the device may be missing")},
    {NM_DEVICE_STATE_REASON_REMOVED, N_("The device was removed")},
    {NM_DEVICE_STATE_REASON_SLEEPING, N_("NetworkManager went to sleep")},
    {NM_DEVICE_STATE_REASON_CONNECTION_REMOVED, N_("The device's active connection disappeared")},
    {NM_DEVICE_STATE_REASON_USER_REQUESTED, N_("Device disconnected by user or client")},
    {NM_DEVICE_STATE_REASON_CARRIER, N_("Carrier/link changed")},
    {NM_DEVICE_STATE_REASON_CONNECTION_ASSUMED, N_("The device's existing connection was assumed")},
    {NM_DEVICE_STATE_REASON_SUPPLICANT_AVAILABLE, N_("The supplicant is now available")},
    {NM_DEVICE_STATE_REASON_MODEM_NOT_FOUND, N_("The modem could not be found")},
    {NM_DEVICE_STATE_REASON_BT_FAILED, N_("The Bluetooth connection failed or timed out")},
    {NM_DEVICE_STATE_REASON_GSM_SIM_NOT_INSERTED, N_("GSM Modem's SIM card not inserted")},
    {NM_DEVICE_STATE_REASON_GSM_SIM_PIN_REQUIRED, N_("GSM Modem's SIM PIN required")},
    {NM_DEVICE_STATE_REASON_GSM_SIM_PUK_REQUIRED, N_("GSM Modem's SIM PUK required")},
    {NM_DEVICE_STATE_REASON_GSM_SIM_WRONG, N_("GSM Modem's SIM wrong")},
    {NM_DEVICE_STATE_REASON_INFINIBAND_MODE, N_("InfiniBand device does not support connected mode")},
    {NM_DEVICE_STATE_REASON_DEPENDENCY_FAILED, N_("A dependency of the connection failed")},
    {NM_DEVICE_STATE_REASON_BR2684_FAILED, N_("A problem with the RFC 2684 Ethernet over ADSL bridge")},
    {NM_DEVICE_STATE_REASON_MODEM_MANAGER_UNAVAILABLE, N_("ModemManager is unavailable")},
    {NM_DEVICE_STATE_REASON_SSID_NOT_FOUND, N_("The Wi-Fi network could not be found")},
    {NM_DEVICE_STATE_REASON_SECONDARY_CONNECTION_FAILED, N_("A secondary connection of the base connection failed")},
    {NM_DEVICE_STATE_REASON_DCB_FCOE_FAILED, N_("DCB or FCoE setup failed")},
    {NM_DEVICE_STATE_REASON_TEAMD_CONTROL_FAILED, N_("teamd control failed")},
    {NM_DEVICE_STATE_REASON_MODEM_FAILED, N_("Modem failed or no longer available")},
    {NM_DEVICE_STATE_REASON_MODEM_AVAILABLE, N_("Modem now ready and available")},
    {NM_DEVICE_STATE_REASON_SIM_PIN_INCORRECT, N_("SIM PIN was incorrect")},
    {NM_DEVICE_STATE_REASON_NEW_ACTIVATION, N_("New connection activation was enqueued")},
    {NM_DEVICE_STATE_REASON_PARENT_CHANGED, N_("The device's parent changed")},
    {NM_DEVICE_STATE_REASON_PARENT_MANAGED_CHANGED, N_("The device parent's management changed")},
    {NM_DEVICE_STATE_REASON_OVSDB_FAILED, N_("Open vSwitch database connection failed")},
    {NM_DEVICE_STATE_REASON_IP_ADDRESS_DUPLICATE, N_("A duplicate IP address was detected")},
    {NM_DEVICE_STATE_REASON_IP_METHOD_UNSUPPORTED, N_("The selected IP method is not supported")},
    {NM_DEVICE_STATE_REASON_SRIOV_CONFIGURATION_FAILED, N_("Failed to configure SR-IOV parameters")},
    {NM_DEVICE_STATE_REASON_PEER_NOT_FOUND, N_("The Wi-Fi P2P peer could not be found")},
};

const Text<NMActiveConnectionStateReason> kActiveReasons[] = {
    {NM_ACTIVE_CONNECTION_STATE_REASON_UNKNOWN, N_("Unknown reason")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_NONE, N_("The connection was disconnected")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_USER_DISCONNECTED, N_("Disconnected by user")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_DISCONNECTED, N_("The base network connection was interrupted")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_SERVICE_STOPPED, N_("The VPN service stopped unexpectedly")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_IP_CONFIG_INVALID, N_("The VPN service returned invalid configuration")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_CONNECT_TIMEOUT, N_("The connection attempt timed out")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_SERVICE_START_TIMEOUT, N_("The VPN service did not start in time")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_SERVICE_START_FAILED, N_("The VPN service failed to start")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_NO_SECRETS, N_("No valid secrets")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_LOGIN_FAILED, N_("Invalid secrets")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_CONNECTION_REMOVED, N_("The connection was removed")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_DEPENDENCY_FAILED, N_("Master connection failed")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_REALIZE_FAILED, N_("Could not create a software link")},
    {NM_ACTIVE_CONNECTION_STATE_REASON_DEVICE_REMOVED, N_("The device disappeared")},
};

template <typename E, size_t N> const char *lookUp(const Text<E> (&table)[N], E value, const char *fallback)
{
    auto it = std::find_if(std::begin(table), std::end(table), [&](const Text<E> &t) { return t.value == value; });
    return it == std::end(table) ? fallback : it->text;
}

} // namespace

const char *deviceReasonText(NMDeviceStateReason reason)
{
    // TRANSLATORS: Unknown reason for a device state change (NMDeviceStateReason)
    return _(lookUp(kDeviceReasons, reason, N_("Unknown")));
}

const char *activeReasonText(NMActiveConnectionStateReason reason)
{
    // TRANSLATORS: Unknown reason for a connection state change (NMActiveConnectionStateReason)
    return _(lookUp(kActiveReasons, reason, N_("Unknown")));
}

} // namespace ibnm::settings
