// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm: the command line. main() parses global options and dispatches the
// first words through a table, as nmcli and iproute2's rdma tool do.
#include "config.h"

#include "libcore/ibnm.h"

#include <glib/gi18n.h>

#include <clocale>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int cmdVersion(int, char **)
{
    std::printf(_("ibnm version %s\n"), ibnm_get_version());
    return kExitOk;
}

int cmdDeviceStatus(int argc, char **argv)
{
    if (argc > 0) {
        std::fprintf(stderr, _("Error: unexpected argument '%s'.\n"), argv[0]);
        return kExitUsage;
    }
    GError *error = nullptr;
    IbnmHost *host = ibnm_host_new_from_environment(&error);
    if (host == nullptr) {
        std::fprintf(stderr, _("Error: %s\n"), error->message);
        g_error_free(error);
        return kExitFailed;
    }
    IbnmInventory *inv = ibnm_inventory_new(host);
    int rc = kExitOk;
    if (!ibnm_inventory_reload(inv, &error)) {
        std::fprintf(stderr, _("Error: %s\n"), error->message);
        g_error_free(error);
        rc = kExitFailed;
    } else {
        const char *const *names = ibnm_inventory_get_device_names(inv);
        if (names[0] == nullptr)
            std::printf(_("No RDMA devices under %s.\n"), ibnm_host_get_location(host));
        for (; *names; names++)
            std::printf("%s\n", *names);
    }
    g_object_unref(host);
    g_object_unref(inv);
    return rc;
}

struct Command {
    const char *word;
    int (*run)(int argc, char **argv);
    const struct Command *sub;
};

const Command deviceCommands[] = {
    {"status", cmdDeviceStatus, nullptr},
    {nullptr, nullptr, nullptr},
};

const Command topCommands[] = {
    {"version", cmdVersion, nullptr},
    {"device", nullptr, deviceCommands},
    {nullptr, nullptr, nullptr},
};

void usage(FILE *out)
{
    std::fputs(_("Usage: ibnm [OPTIONS] OBJECT { COMMAND | help }\n"
                 "\n"
                 "OPTIONS\n"
                 "  -v, --version    show the version\n"
                 "  -h, --help       show this help\n"
                 "\n"
                 "OBJECT\n"
                 "  device status    the host's RDMA devices\n"
                 "  version          show the version\n"),
               out);
}

// Words match as nmcli's do: any unambiguous prefix of the command word.
const Command *lookup(const Command *table, std::string_view word)
{
    const Command *found = nullptr;
    for (const Command *c = table; c->word; c++) {
        if (word == c->word)
            return c;
        if (std::string_view(c->word).substr(0, word.size()) == word) {
            if (found)
                return nullptr;
            found = c;
        }
    }
    return found;
}

int dispatch(const Command *table, int argc, char **argv)
{
    if (argc == 0) {
        usage(stderr);
        return kExitUsage;
    }
    const Command *c = lookup(table, argv[0]);
    if (c == nullptr) {
        std::fprintf(stderr, _("Error: unknown command '%s'; try 'ibnm --help'.\n"), argv[0]);
        return kExitUsage;
    }
    if (c->sub) {
        if (argc == 1 && c->sub[0].run)
            return c->sub[0].run(0, argv + 1);
        return dispatch(c->sub, argc - 1, argv + 1);
    }
    return c->run(argc - 1, argv + 1);
}

} // namespace

int main(int argc, char **argv)
{
    std::setlocale(LC_ALL, "");
    bindtextdomain(GETTEXT_PACKAGE, LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);

    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        std::string_view a = argv[i];
        if (a == "-v" || a == "--version")
            return cmdVersion(0, nullptr);
        if (a == "-h" || a == "--help") {
            usage(stdout);
            return kExitOk;
        }
        std::fprintf(stderr, _("Error: unknown option '%s'; try 'ibnm --help'.\n"), argv[i]);
        return kExitUsage;
    }
    return dispatch(topCommands, argc - i, argv + i);
}
