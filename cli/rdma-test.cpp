// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm rdma test`: the seeds' testing chapters (ibping, qperf, ibv_rc_pingpong,
// ucmatose) as one command on libibnm's IbnmRdmaTest; and the line that names
// it after `connection up` of a profile with RDMA settings.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"

#include <glib-unix.h>
#include <glib/gi18n.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <signal.h>

namespace ibnm::cli {

namespace {

const char *const kTestUsage = N_(
    "Usage: ibnm rdma test { PEER | --listen [ADDRESS] } [OPTION...]\n"
    "\n"
    "  --port N             the listener's RDMA-CM port (4266)\n"
    "  --profile NAME       use the profile's interface, rdma.roce-tos and rdma.roce-mode\n"
    "  --source ADDRESS     the local address to connect from\n"
    "  --tos 0-255|dscp:N   the connection's ToS\n"
    "  --gid-index N        the source GID index (not for iWARP)\n"
    "  --count N            ping-pongs to time (1000; 0: none)\n"
    "  --ping-size BYTES    bytes of each ping (64)\n"
    "  --size BYTES         bytes of each RDMA write (65536)\n"
    "  --duration SECONDS   how long to write (1; 0: no bandwidth test)\n"
    "  --bidirectional      the listener writes back as long\n"
    "\n"
    "Every wait is bounded by -w SECONDS (10 unless given; a listener waits for\n"
    "its client until interrupted unless -w is given).\n");

struct TestArgs {
    bool listen = false;
    std::string address, profile;
    std::vector<std::pair<const char *, guint>> uints; // property, value
    gint tos = -1, gidIndex = -1;
    bool bidirectional = false;
    std::string source;
};

// A number within [min, max] for `option`, or nullopt after the usage error.
std::optional<guint64> number(const std::string &option, const std::string &value, guint64 min, guint64 max)
{
    guint64 n = 0;
    if (!g_ascii_string_to_unsigned(value.c_str(), 10, min, max, &n, nullptr)) {
        usageError(_(kTestUsage), _("invalid value '%s' for %s: a number from %llu to %llu"), value.c_str(),
                   option.c_str(), (unsigned long long)min, (unsigned long long)max);
        return std::nullopt;
    }
    return n;
}

// Parses the options after `rdma test`; kExitOk or the usage error's code.
int parse(const Args &args, TestArgs &t)
{
    static const struct {
        const char *option, *property;
        guint64 min, max;
    } kNumbers[] = {{"--port", IBNM_RDMA_TEST_PORT, 1, 65535},
                    {"--count", IBNM_RDMA_TEST_COUNT, 0, G_MAXINT},
                    {"--ping-size", IBNM_RDMA_TEST_PING_SIZE, 1, 4096},
                    {"--size", IBNM_RDMA_TEST_SIZE, 1, 16u << 20},
                    {"--gid-index", IBNM_RDMA_TEST_GID_INDEX, 0, 65535}};
    for (size_t i = 0; i < args.size(); i++) {
        const std::string &a = args[i];
        if (a == "--listen") {
            t.listen = true;
            if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
                t.address = args[++i];
            continue;
        }
        if (a == "--bidirectional") {
            t.bidirectional = true;
            continue;
        }
        if (a.rfind("--", 0) != 0) {
            if (!t.address.empty() || t.listen)
                return usageError(_(kTestUsage), _("argument '%s' not understood"), a.c_str());
            t.address = a;
            continue;
        }
        if (i + 1 >= args.size())
            return usageError(_(kTestUsage), _("value is missing for '%s'"), a.c_str());
        const std::string &v = args[++i];
        bool known = true;
        if (a == "--profile")
            t.profile = v;
        else if (a == "--source")
            t.source = v;
        else if (a == "--tos") {
            if ((t.tos = ibnm_traffic_class_from_string(v.c_str())) < 0)
                return usageError(_(kTestUsage), _("invalid ToS '%s'; use 0-255 or dscp:0-63"), v.c_str());
        } else if (a == "--duration") {
            char *end = nullptr;
            double s = g_ascii_strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || !(s >= 0 && s <= 3600))
                return usageError(_(kTestUsage), _("invalid value '%s' for %s: seconds from 0 to 3600"), v.c_str(),
                                  a.c_str());
            t.uints.emplace_back(IBNM_RDMA_TEST_DURATION, guint(s * 1000.0 + 0.5));
        } else {
            known = false;
        }
        if (known)
            continue;
        const auto *n = std::find_if(std::begin(kNumbers), std::end(kNumbers),
                                     [&](const auto &x) { return a == x.option; });
        if (n == std::end(kNumbers))
            return usageError(_(kTestUsage), _("argument '%s' not understood"), a.c_str());
        auto value = number(a, v, n->min, n->max);
        if (!value)
            return kExitUsage;
        if (a == "--gid-index")
            t.gidIndex = gint(*value);
        else
            t.uints.emplace_back(n->property, guint(*value));
    }
    if (!t.listen && t.address.empty())
        return usageError(_(kTestUsage), _("missing the listener's address (or --listen)"));
    if (t.listen && !t.source.empty())
        return usageError(_(kTestUsage), _("--source is for a client; a listener takes its address after --listen"));
    return kExitOk;
}

// The test as the options and the profile set it; nullptr after the error.
Obj<IbnmRdmaTest> makeTest(Context &ctx, const TestArgs &t, int &rc)
{
    rc = kExitFailed;
    IbnmHost *host = ctx.host();
    if (!host)
        return nullptr;
    Obj<IbnmRdmaTest> test(ibnm_rdma_test_new(host));
    if (!t.profile.empty()) {
        IbnmSettings *s = ctx.settings();
        NMConnection *c = s ? ibnm_settings_find(s, t.profile.c_str()) : nullptr;
        if (s && !c) {
            printError(_("unknown connection '%s'"), t.profile.c_str());
            rc = kExitNotFound;
        }
        ErrorPtr err;
        if (!c)
            return nullptr;
        if (!ibnm_rdma_test_set_profile(test.get(), c, Out(err))) {
            printError(_("profile '%s': %s"), t.profile.c_str(), err->message);
            return nullptr;
        }
    }
    g_object_set(test.get(), IBNM_RDMA_TEST_LISTEN, t.listen, IBNM_RDMA_TEST_BIDIRECTIONAL, t.bidirectional,
                 nullptr);
    if (!t.address.empty())
        g_object_set(test.get(), IBNM_RDMA_TEST_ADDRESS, t.address.c_str(), nullptr);
    if (!t.source.empty())
        g_object_set(test.get(), IBNM_RDMA_TEST_SOURCE_ADDRESS, t.source.c_str(), nullptr);
    for (const auto &[property, value] : t.uints)
        g_object_set(test.get(), property, value, nullptr);
    if (t.tos >= 0)
        g_object_set(test.get(), IBNM_RDMA_TEST_TOS, t.tos, nullptr);
    if (t.gidIndex >= 0)
        g_object_set(test.get(), IBNM_RDMA_TEST_GID_INDEX, t.gidIndex, nullptr);
    // -w bounds every wait, the listener's for its client too.
    if (ctx.options.waitSeconds > 0) {
        auto ms = guint(std::min<gint64>(ctx.options.waitSeconds * 1000, G_MAXINT));
        g_object_set(test.get(), IBNM_RDMA_TEST_TIMEOUT, ms, IBNM_RDMA_TEST_ACCEPT_TIMEOUT, ms, nullptr);
    }
    rc = kExitOk;
    return test;
}

Cell num(gint v)
{
    return v >= 0 ? Cell(std::to_string(v)) : Cell();
}

Cell fixed(gdouble v, int decimals)
{
    if (v < 0)
        return Cell();
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    return Cell(g_ascii_formatd(buf, sizeof buf, decimals == 1 ? "%.1f" : "%.3f", v));
}

void addPath(Record &r, const char *side, IbnmRdmaPath *p)
{
    std::string s = side;
    r.add(s + ".address", cell(ibnm_rdma_path_get_address(p)));
    r.add(s + ".device", cell(ibnm_rdma_path_get_device(p)));
    r.add(s + ".port", num(gint(ibnm_rdma_path_get_port(p))));
    r.add(s + ".netdev", cell(ibnm_rdma_path_get_netdev(p)));
    r.add(s + ".protocol", cell(ibnm_rdma_path_get_protocol(p)));
    r.add(s + ".gid-index", num(ibnm_rdma_path_get_gid_index(p)));
    r.add(s + ".gid", cell(ibnm_rdma_path_get_gid(p)));
    r.add(s + ".tos", num(ibnm_rdma_path_get_tos(p)));
    r.add(s + ".sl", num(ibnm_rdma_path_get_service_level(p)));
    r.add(s + ".pcp", num(ibnm_rdma_path_get_priority(p)));
    r.add(s + ".mtu", ibnm_rdma_path_get_mtu(p) ? Cell(std::to_string(ibnm_rdma_path_get_mtu(p))) : Cell());
}

int printResult(Context &ctx, IbnmRdmaTestResult *res, guint port)
{
    Record r("rdma-test");
    bool listener = ibnm_rdma_test_result_get_listener(res);
    r.add("test.role", Cell(listener ? "listener" : "client"));
    r.add("test.peer", cell(ibnm_rdma_path_get_address(ibnm_rdma_test_result_get_peer_path(res))));
    r.add("test.port", Cell(std::to_string(port)));
    addPath(r, "local", ibnm_rdma_test_result_get_local_path(res));
    addPath(r, "peer", ibnm_rdma_test_result_get_peer_path(res));
    guint trips = ibnm_rdma_test_result_get_round_trips(res);
    r.add("latency.round-trips", Cell(std::to_string(trips)));
    r.add("latency.ping-size", Cell(std::to_string(ibnm_rdma_test_result_get_ping_size(res))));
    r.add("latency.min-us", fixed(ibnm_rdma_test_result_get_latency_min(res), 1));
    r.add("latency.median-us", fixed(ibnm_rdma_test_result_get_latency_median(res), 1));
    r.add("latency.p99-us", fixed(ibnm_rdma_test_result_get_latency_p99(res), 1));
    r.add("latency.max-us", fixed(ibnm_rdma_test_result_get_latency_max(res), 1));
    r.add("latency.mean-us", fixed(ibnm_rdma_test_result_get_latency_mean(res), 1));
    r.add("bandwidth.write-size", Cell(std::to_string(ibnm_rdma_test_result_get_write_size(res))));
    r.add("bandwidth.seconds", fixed(ibnm_rdma_test_result_get_write_seconds(res), 3));
    r.add("bandwidth.gbps", fixed(ibnm_rdma_test_result_get_bandwidth(res), 3));
    r.add("bandwidth.reverse-seconds", fixed(ibnm_rdma_test_result_get_reverse_write_seconds(res), 3));
    r.add("bandwidth.reverse-gbps", fixed(ibnm_rdma_test_result_get_reverse_bandwidth(res), 3));
    return r.print(ctx);
}

struct Run {
    GMainLoop *loop;
    Obj<IbnmRdmaTestResult> result;
    ErrorPtr error;
    CPtr<GCancellable, g_object_unref> cancellable{g_cancellable_new()};
};

gboolean onSignal(gpointer data)
{
    g_cancellable_cancel(static_cast<Run *>(data)->cancellable.get());
    return G_SOURCE_CONTINUE;
}

void onListening(IbnmRdmaTest *test, gpointer)
{
    char *address = nullptr;
    guint port = 0;
    g_object_get(test, IBNM_RDMA_TEST_ADDRESS, &address, IBNM_RDMA_TEST_PORT, &port, nullptr);
    CharPtr owned(address);
    std::fprintf(stderr, _("Listening on %s port %u: waiting for a client.\n"), address ? shown(address).c_str() : "*",
                 port);
}

// A failed test: 2 where this host has no data path (a simulated host, a
// sysfs tree) or an argument is bad, else 1.
int testFailed(Context &ctx, const GError *error)
{
    printError("%s", error->message);
    if (error->domain != IBNM_ERROR)
        return kExitFailed;
    bool elsewhere = ctx.host() && ibnm_host_get_kind(ctx.host()) != IBNM_HOST_KIND_SYSTEM;
    if ((error->code == IBNM_ERROR_NOT_SUPPORTED && elsewhere) || error->code == IBNM_ERROR_INVALID_ARGUMENT ||
        error->code == IBNM_ERROR_INVALID_VALUE)
        return kExitUsage;
    return kExitFailed;
}

} // namespace

int cmdRdmaTest(Context &ctx, const Args &args)
{
    TestArgs t;
    if (int rc = parse(args, t); rc != kExitOk)
        return rc;
    int rc = kExitOk;
    Obj<IbnmRdmaTest> test = makeTest(ctx, t, rc);
    if (!test)
        return rc;
    CPtr<GMainLoop, g_main_loop_unref> loop(g_main_loop_new(nullptr, FALSE));
    Run run{loop.get(), nullptr, nullptr};
    guint sigint = g_unix_signal_add(SIGINT, onSignal, &run);
    guint sigterm = g_unix_signal_add(SIGTERM, onSignal, &run);
    g_signal_connect(test.get(), "listening", G_CALLBACK(onListening), nullptr);
    ibnm_rdma_test_run_async(
        test.get(), run.cancellable.get(),
        [](GObject *source, GAsyncResult *res, gpointer data) {
            auto *r = static_cast<Run *>(data);
            r->result.reset(ibnm_rdma_test_run_finish(IBNM_RDMA_TEST(source), res, Out(r->error)));
            g_main_loop_quit(r->loop);
        },
        &run);
    g_main_loop_run(loop.get());
    g_source_remove(sigint);
    g_source_remove(sigterm);
    if (!run.result)
        return testFailed(ctx, run.error.get());
    guint port = 0;
    g_object_get(test.get(), IBNM_RDMA_TEST_PORT, &port, nullptr);
    return printResult(ctx, run.result.get(), port);
}

void printRdmaTestHint(const Context &ctx, GPtrArray *connections)
{
    if (ctx.options.mode != OutputMode::Tabular || ctx.options.getValues || ctx.options.dryRun)
        return;
    for (guint i = 0; i < connections->len; i++) {
        auto *c = NM_CONNECTION(g_ptr_array_index(connections, i));
        NMSettingUser *user = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
        bool rdma = false;
        for (const char *const *k = user ? nm_setting_user_get_keys(user, nullptr) : nullptr; k && *k; k++)
            rdma = rdma || g_str_has_prefix(*k, "rdma.");
        if (!rdma)
            continue;
        // Quoted for the shell where the id needs it ("my rxe", not "rxe-a").
        const char *id = nm_connection_get_id(c);
        bool plain = id && *id && std::all_of(id, id + strlen(id), [](char ch) {
            return g_ascii_isalnum(ch) || strchr("._-+:@/,=", ch) != nullptr;
        });
        CharPtr quoted(plain ? g_strdup(id) : g_shell_quote(id ? id : ""));
        std::printf(_("To verify the RDMA path: ibnm rdma test --profile %s PEER (with 'ibnm rdma test --listen' "
                      "running on PEER); not run.\n"),
                    shown(quoted.get()).c_str());
    }
}

} // namespace ibnm::cli
