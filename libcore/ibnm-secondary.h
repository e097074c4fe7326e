/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RDMA secondaries: VPN profiles of ibnm's NetworkManager VPN service
 * (nm-ibnm-service) whose vpn.data holds the rdma.* settings that other
 * profiles keep as [user] keys. A base profile lists one in
 * connection.secondaries; NetworkManager then activates it on the base's
 * device, and the service provisions the settings there. */
#pragma once

#include <glib-object.h>
#include <NetworkManager.h>

#include "ibnm-rdma-apply.h"

G_BEGIN_DECLS

/**
 * IBNM_SECONDARY_SERVICE_TYPE:
 *
 * The vpn.service-type of an RDMA secondary: the D-Bus name of ibnm's VPN
 * service, whose `.name` file NetworkManager and its clients read
 * (`nmcli connection add type vpn vpn-type ibnm` writes it).
 *
 * Since: 0.1
 */
#define IBNM_SECONDARY_SERVICE_TYPE "org.freedesktop.NetworkManager.ibnm"

gboolean ibnm_connection_is_secondary(NMConnection *connection);
gboolean ibnm_secondary_verify(NMConnection *connection, GError **error);
NMConnection *ibnm_secondary_new_on_device(NMConnection *secondary, const char *interface_name, GError **error);
GPtrArray *ibnm_secondary_find_bases(NMConnection *secondary, GPtrArray *profiles);
gboolean ibnm_soft_link_type_supports_roce_mode(IbnmSoftLinkType type, IbnmRoceMode mode);

G_END_DECLS
