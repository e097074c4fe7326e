/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libibnm: InfiniBand, IPoIB and RDMA provisioning for NetworkManager.
 * The core: hosts, inventory, profiles and their check, activation. The
 * store of profiles is a layer above it, with its own headers: include
 * ibnm-settings.h (IbnmSettings, keyfiles) and ibnm-state.h (apply,
 * show-state) where you use them. */
#pragma once

#include "ibnm-version.h"
#include "ibnm-error.h"
#include "ibnm-host.h"
#include "ibnm-host-monitor.h"
#include "ibnm-inventory-types.h"
#include "ibnm-inventory.h"
#include "ibnm-finding.h"
#include "ibnm-profile.h"
#include "ibnm-check.h"
#include "ibnm-apply.h"
#include "ibnm-rdma-apply.h"
#include "ibnm-rdma-test.h"
#include "ibnm-secondary.h"
#include "ibnm-transaction.h"
