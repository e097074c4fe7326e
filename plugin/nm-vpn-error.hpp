// SPDX-License-Identifier: LGPL-2.1-or-later
// NM_VPN_PLUGIN_ERROR for C++: libnm 1.42's nm-errors.h declares its error
// quarks outside G_BEGIN_DECLS, so C++ code calling nm_vpn_plugin_error_quark()
// looks for a C++ (mangled) symbol libnm does not have. This declares the C
// symbol libnm exports under a C++ name (GCC's asm label).
#pragma once

#include <glib.h>

namespace ibnm::vpn {
GQuark vpnPluginErrorQuark() __asm__("nm_vpn_plugin_error_quark");
} // namespace ibnm::vpn

#define IBNM_VPN_PLUGIN_ERROR (ibnm::vpn::vpnPluginErrorQuark())
