/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libibnm-simulator: a simulated host that behaves like the kernel (the
 * rules of FACTS.md), for tests, demos and `ibnm --simulate`. It is a library
 * of its own: libibnm.so holds no simulator code, and programs load this one
 * only when asked to simulate (the CLI opens it with GModule). */
#pragma once

#include "ibnm-host.h"

G_BEGIN_DECLS

IbnmHost *ibnm_simulator_new_host(const char *host_file, const char *state_dir, GError **error);
gboolean ibnm_simulator_reset(IbnmHost *host, GError **error);
gboolean ibnm_simulator_add_faults(IbnmHost *host, const char *rules, GError **error);

G_END_DECLS
