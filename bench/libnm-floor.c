/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The start-up floor of any program that writes keyfiles with libnm: it
 * loads libnm (and with it GLib, GIO, GnuTLS, libudev and their
 * dependencies, as nmcli and ibnm do), asks it its version and exits.
 * bench/run-bench times it next to `ibnm --offline connection add` and
 * `nmcli --offline connection add`.
 * usage: libnm-floor */
#include <NetworkManager.h>

int main(void)
{
    return nm_utils_version() == 0;
}
