// SPDX-License-Identifier: LGPL-2.1-or-later
// What every command group of the ibnm command line shares: the global
// options, the lazily opened settings store and host, the command table type,
// exit codes, and small owning handles for the C objects the CLI holds.
#pragma once

#include "libcore/ibnm.h"
#include "settings/ibnm-settings.h"

#include <NetworkManager.h>
#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-host.h"
#include "libcore/ibnm-inventory-types.h"
#include "libcore/support/raii.hpp"

#include <glib.h>
#include <glib-object.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibnm::cli {

class JsonDoc;

// nmcli's exit codes where ibnm has the same situation.
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // validation failed, the kernel or a store refused
constexpr int kExitUsage = 2;   // a bad argument: the word is named, usage shown
constexpr int kExitTimeout = 3; // waited as long as -w allows (another's lock held)
constexpr int kExitActivationFailed = 4;   // NMC_RESULT_ERROR_CON_ACTIVATION: up failed or was refused
constexpr int kExitDeactivationFailed = 5; // NMC_RESULT_ERROR_CON_DEACTIVATION: down failed
constexpr int kExitNotFound = 10; // no such connection, device or link (nmcli's 10)

// Owning handles: the CLI holds every C object in one of these, the
// library's own (libcore/support/raii.hpp) under the CLI's short names.
template <typename T> using Obj = CPtr<T, g_object_unref>;
using ErrorPtr = GErrorPtr;
using CharPtr = GCharPtr;
using PtrArray = GPtrArrayPtr;

// Out-parameter adapter: `f(..., Out(err))` fills a handle from a T**.
template <typename P> OutPtr<P> Out(P &owner) noexcept
{
    return outPtr(owner);
}

enum class OutputMode { Tabular, Terse, Json };
enum class Color { Auto, Yes, No };

struct Options {
    bool offline = false;
    bool dryRun = false;
    std::string keyfileDir;
    std::string simulate;
    std::string sysfsRoot; // --sysfs-root: a sysfs tree or sosreport, read only
    OutputMode mode = OutputMode::Tabular;
    bool pretty = false;
    std::string fields;     // -f / -g selection, empty = default
    bool getValues = false; // -g: terse, values only, no header
    Color color = Color::Auto;
    bool escape = true;             // -e yes|no: terse values escape ':' and '\'
    std::optional<bool> multiline;  // -m multiline|tabular; unset: each output's default
    bool showSecrets = false;       // -s: accepted, ibnm profiles hold no secrets
    gint64 waitSeconds = -1;        // -w: the time up/down may take (-1: no limit)
    bool noPager = false;           // --no-pager: never $PAGER (cli/pager.hpp)
};

using Args = std::vector<std::string>;

class Context {
public:
    explicit Context(Options o) : options(std::move(o)) {}

    // The profile store (--keyfile-dir, else NetworkManager or its keyfiles),
    // loaded; nullptr after printing the error.
    // update: for a read-modify-write, the store is locked (held until the
    // command ends) before it is read.
    // readOnly: the command only reads the profiles (IbnmSettings:read-only,
    // which keeps less of each).
    IbnmSettings *settings(bool update = false, bool readOnly = false);
    // The exit code after settings() failed: kExitTimeout when another
    // process held the store's lock longer than -w allows, else kExitFailed.
    int storeFailure() const { return storeFailure_; }
    // The profile store settings() loads, chosen (NetworkManager's or the
    // keyfile directory) but not loaded; NULL after an error it printed.
    IbnmSettings *store();
    // The host (--simulate / IBNM_SIMULATE, IBNM_SYSFS_ROOT, or this machine).
    IbnmHost *host();
    // The host's inventory, reloaded (GidTables: only devices, ports and
    // GID tables); nullptr after printing the error.
    enum class InventoryScope { Whole, GidTables };
    IbnmInventory *inventory(InventoryScope scope = InventoryScope::Whole);
    // Whether the user chose a host other than this machine.
    bool hostChosen() const;
    // Whether that host is simulated (--simulate or IBNM_SIMULATE).
    bool hostSimulated() const;
    bool colorEnabled() const;
    // How long this command waits for a lock another ibnm holds (the
    // profile store's, the activation lock) when -w does not say: nmcli's
    // wait for the same command (up 90 s, down and delete 10 s; add and
    // modify 25 s, libnm's D-Bus call timeout). Set before the store and
    // the host are opened.
    void setDefaultWait(int seconds) { defaultWait_ = seconds; }
    int lockWait() const { return options.waitSeconds >= 0 ? int(options.waitSeconds) : defaultWait_; }
    // The command has ended and the process exits: the profile store is left
    // to the exit (freeing 10,000 profiles one by one cost 7% of `check`),
    // except in a sanitizer build, whose leak and use-after-free checks
    // should see it freed.
    void leaveStoreToExit();

    Options options;

private:
    Obj<IbnmSettings> settings_;
    bool settingsLocked_ = false;
    bool settingsReadOnly_ = false; // store() makes a read-only store
    int storeFailure_ = kExitFailed;
    int defaultWait_ = 90;
    bool settingsLoaded_ = false;
    Obj<IbnmHost> host_;
    Obj<IbnmInventory> inventory_;
    InventoryScope inventoryScope_ = InventoryScope::Whole;
    bool autoColor() const;
    mutable std::optional<bool> autoColor_; // --color auto: NO_COLOR, TERM, a terminal, terminal-colors.d
};

struct Command {
    const char *word;
    int (*run)(Context &, const Args &);
    const Command *sub; // nested table, or nullptr
};

// The command line as main() has it (cli/ibnm.cpp): runs the command and
// returns its exit code.
int run(int argc, char **argv);

// Words match as nmcli's do: the exact word, else the first word (in table
// order) it is a prefix of; tables list the common words first.
const Command *lookup(const Command *table, const std::string &word);
int dispatch(Context &ctx, const Command *table, const Args &args, const char *usage);
// Whether `arg` is a command's option `name` as nmcli takes one
// (nmc_arg_is_option()): one or two dashes and any prefix of the name, so
// "--temp" and "-t" are "temporary".
bool isNmcliOption(const std::string &arg, const char *name);

// "Error: <message>." on stderr (message translated by the caller).
void printError(const char *format, ...) G_GNUC_PRINTF(1, 2);
// A bad argument, as nmcli reports one: "Error: <message>. Try passing
// --help instead." on one line; returns kExitUsage. `usage` is the group's
// usage text, which --help prints (not shown here).
int usageError(const char *usage, const char *format, ...) G_GNUC_PRINTF(2, 3);
// A word that names no command of `table` (or none of `candidates`):
// nmcli's "argument 'x' not understood", with "Did you mean 'y'?" when one
// word is close (cli/suggest.hpp); returns kExitUsage.
int unknownWord(const Command *table, const std::string &word);
int unknownArgument(const std::string &word, const std::vector<std::string_view> &candidates);
// A GError from libibnm: kExitUsage for a bad argument or a value that does
// not parse, kExitNotFound, else kExitFailed.
int reportError(const GError *error, const char *usage = nullptr);

// All stored connections, wrapped as profiles.
PtrArray allProfiles(IbnmSettings *settings);
// All stored connections (NMConnection), as the apply functions take them.
PtrArray allConnections(IbnmSettings *settings);
// An array the command is done with, left to the process's exit (as
// Context::leaveStoreToExit(): freeing 50,000 objects one by one is time
// the exit does not need); freed at once in a sanitizer build.
void leaveToExit(PtrArray array);
// The nick libibnm registers for `value` of the enum `type` (its one name
// for output), "unknown" for a value it does not list. A static type's
// class lives as long as the process: referenced once, never released.
const char *enumNick(GType type, int value);
// A step's state as JSON and tables name it: the nick of IbnmStepState.
const char *stepStateName(IbnmStepState s);
// One step as a JSON object (docs/json-schema.md): {state, action, object,
// detail, profile, error}, null for what it has not (no profile, no error).
void stepJson(JsonDoc &j, IbnmStep *s);
// Prints an apply report (table, terse or JSON); returns the exit code.
int printReport(Context &ctx, IbnmApplyReport *report);
// What an apply returned (ibnm_apply_up() and the others give their report
// whatever happened): the report printed; or, when the apply did not start
// (a profile that cannot be resolved or is not active, the lock not taken,
// a wrong argument), its error, as reportError().
int printApply(Context &ctx, IbnmApplyReport *report);
// Prints findings (table, terse or JSON); returns kExitFailed if any is an error.
int printFindings(Context &ctx, GPtrArray *findings, bool onlyProblems);

// The command tables of each group.
extern const Command kConnectionCommands[];
extern const Command kDeviceCommands[];
extern const Command kRdmaCommands[];
extern const char *const kConnectionUsage;
extern const char *const kDeviceUsage;
extern const char *const kRdmaUsage;
int cmdCheck(Context &, const Args &);
int cmdApply(Context &, const Args &);
int cmdShowState(Context &, const Args &);
extern const char *const kApplyUsage;
int cmdUdevRules(Context &, const Args &);
// cli/monitor.cpp: `monitor` and `device monitor [NAME...]`.
int cmdMonitor(Context &, const Args &);
int cmdMonitorAll(Context &, const Args &); // `ibnm monitor`: the profiles too
int cmdMemlock(Context &, const Args &);
// cli/rdma-test.cpp: `rdma test`, and after `connection up` the line naming
// it for each of `connections` (NMConnection) with rdma.* settings.
int cmdRdmaTest(Context &, const Args &);
void printRdmaTestHint(const Context &ctx, GPtrArray *connections);

} // namespace ibnm::cli
