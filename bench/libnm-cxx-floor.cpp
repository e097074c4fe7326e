/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The start-up floor of any C++ program that writes keyfiles with libnm:
 * bench/libnm-floor (loads libnm, asks its version, exits) built as C++
 * with the system's shared C++ runtime (libstdc++ and libgcc_s, which ibnm
 * uses), touching std::string and std::vector so the runtime is really
 * linked. bench/run-bench times it next to `ibnm --offline connection add`
 * and `nmcli --offline connection add`: what the C++ runtime alone costs.
 * usage: libnm-cxx-floor */
#include <NetworkManager.h>

#include <string>
#include <vector>

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv, argv + argc);
    return nm_utils_version() == 0 || args.empty();
}
