// SPDX-License-Identifier: LGPL-2.1-or-later
// Running a sequence (sequence-test.cpp): ibnm's commands on a simulated host
// in a fresh keyfile store and state (cli-zygote.c, or cli/ibnm), each step
// checked against the reference model (nm-model.hpp) and named by the rule
// it breaks.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "tests/cli/cli-test-util.hpp"
#include "tests/sequences/nm-model.hpp"
#include "tests/sequences/sequence-generator.hpp"
#include "tests/simulator/fake-test-util.hpp"

#include <glib/gstdio.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <iterator>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ibnm::test::seq {

// --- running a sequence --------------------------------------------------------------------

struct Broken {
    std::string rule;
    std::string detail;
    size_t step = 0; // index of the step that broke it
};

inline int exitOf(Status s)
{
    switch (s) {
    case Status::Ok: return 0;
    case Status::NotActive:
    case Status::NotFound: return 10;
    default: return 1;
    }
}

// A keyfile store and a simulated host's state directory for one sequence,
// on tmpfs where there is one: the commands make their files durable (fsync),
// which on a disk costs more than the rest of the command.
class Workspace {
public:
    Workspace()
    {
        std::string base = g_access("/dev/shm", W_OK) == 0 ? "/dev/shm" : g_get_tmp_dir();
        std::string tmpl = base + "/ibnm-sequence-XXXXXX";
        if (g_mkdtemp(tmpl.data()) == nullptr) {
            ADD_FAILURE() << "g_mkdtemp " << tmpl << ": " << g_strerror(errno);
            return;
        }
        path_ = tmpl;
        g_mkdir_with_parents(keyfileDir().c_str(), 0755);
    }
    ~Workspace() { removeTree(path_); }
    Workspace(const Workspace &) = delete;
    Workspace &operator=(const Workspace &) = delete;
    std::string keyfileDir() const { return path_ + "/keyfiles"; }
    std::string stateDir() const { return path_ + "/state"; }
    // The store's lock file (settings/keyfile-backend.hpp: created by the
    // first writer, left in place as NetworkManager's keyfile plugin ignores
    // hidden files) holds no profile.
    static constexpr const char *kStoreLock = ".ibnm.lock";
    std::set<std::string> keyfiles() const
    {
        std::set<std::string> names;
        if (GDir *d = g_dir_open(keyfileDir().c_str(), 0, nullptr)) {
            while (const char *n = g_dir_read_name(d))
                if (std::string(n) != kStoreLock)
                    names.insert(n);
            g_dir_close(d);
        }
        return names;
    }
    // The files under `dir` (paths and contents) but those named in `skip`;
    // an empty file or directory is none.
    static std::string files(const std::string &dir, const std::set<std::string> &skip = {},
                             const std::string &prefix = {})
    {
        std::set<std::string> names;
        if (GDir *d = g_dir_open(dir.c_str(), 0, nullptr)) {
            while (const char *n = g_dir_read_name(d))
                if (!skip.count(n))
                    names.insert(n);
            g_dir_close(d);
        }
        std::string s;
        for (const auto &n : names) {
            std::string path = dir + "/" + n;
            if (g_file_test(path.c_str(), G_FILE_TEST_IS_DIR)) {
                s += files(path, {}, prefix + n + "/");
                continue;
            }
            char *c = nullptr;
            g_file_get_contents(path.c_str(), &c, nullptr, nullptr);
            if (!c || *c)
                s += prefix + n + ":\n" + (c ? c : "(unreadable)") + "\n";
            g_free(c);
        }
        return s;
    }

private:
    static void removeTree(const std::string &p)
    {
        if (p.empty())
            return;
        if (g_file_test(p.c_str(), G_FILE_TEST_IS_DIR) && !g_file_test(p.c_str(), G_FILE_TEST_IS_SYMLINK)) {
            if (GDir *d = g_dir_open(p.c_str(), 0, nullptr)) {
                while (const char *n = g_dir_read_name(d))
                    removeTree(p + "/" + n);
                g_dir_close(d);
            }
            g_rmdir(p.c_str());
        } else {
            g_unlink(p.c_str());
        }
    }
    std::string path_;
};

// Runs ibnm commands: in forks of tests/sequences/cli-zygote, which loaded
// the full CLI module (what cli/ibnm runs for every command on a simulated
// host) once, about ten times faster than starting cli/ibnm each time; with
// IBNM_SEQUENCES_SPAWN=1, or when the zygote cannot start, cli/ibnm itself.
class Zygote {
public:
    static Zygote &get()
    {
        static Zygote z;
        return z;
    }
    bool ok() const { return pid_ > 0; }
    // `ibnm ARGS` with `env` added to a C locale, `input` on stdin.
    Result run(const std::vector<std::string> &args, const std::map<std::string, std::string> &env,
               const std::string &input)
    {
        Result r;
        io_.write("in", input);
        std::vector<std::string> fields = {io_ / "in", io_ / "out", io_ / "err"};
        std::map<std::string, std::string> all = env;
        all["LC_ALL"] = "C";
        fields.push_back(std::to_string(all.size()));
        for (const auto &[k, v] : all)
            fields.push_back(k + "=" + v);
        fields.push_back("ibnm");
        fields.insert(fields.end(), args.begin(), args.end());
        std::string req = std::to_string(fields.size()) + "\n";
        for (const auto &f : fields)
            req += std::to_string(f.size()) + "\n" + f;
        if (std::fwrite(req.data(), 1, req.size(), to_) != req.size() || std::fflush(to_) != 0 ||
            std::fscanf(from_, "%d", &r.status) != 1) {
            ADD_FAILURE() << "cli-zygote stopped";
            return r;
        }
        char *out = nullptr, *err = nullptr;
        g_file_get_contents((io_ / "out").c_str(), &out, nullptr, nullptr);
        g_file_get_contents((io_ / "err").c_str(), &err, nullptr, nullptr);
        r.out = out ? out : "";
        r.err = err ? err : "";
        g_free(out);
        g_free(err);
        return r;
    }

private:
    Zygote()
    {
        // A zygote that died must not kill the test with SIGPIPE.
        std::signal(SIGPIPE, SIG_IGN);
        const char *spawnOnly = g_getenv("IBNM_SEQUENCES_SPAWN");
        if (spawnOnly && std::string(spawnOnly) == "1")
            return;
        std::string top = IBNM_TOP_BUILDDIR;
        std::vector<std::string> argv = {top + "/tests/sequences/cli-zygote"};
        std::vector<char *> a;
        for (auto &x : argv)
            a.push_back(x.data());
        a.push_back(nullptr);
        char **envp = g_get_environ();
        for (const char *drop : {"IBNM_SIMULATE", "IBNM_SIMULATE_STATE", "IBNM_SYSFS_ROOT", "IBNM_FAKE_FAIL", "LANGUAGE",
                                 "NO_COLOR"})
            envp = g_environ_unsetenv(envp, drop);
        int in = -1, out = -1;
        GError *error = nullptr;
        if (!g_spawn_async_with_pipes(nullptr, a.data(), envp, G_SPAWN_DO_NOT_REAP_CHILD, nullptr, nullptr, &pid_,
                                      &in, &out, nullptr, &error)) {
            std::fprintf(stderr, "cli-zygote: %s; running cli/ibnm instead\n", error->message);
            g_error_free(error);
            pid_ = 0;
        } else {
            to_ = fdopen(in, "w");
            from_ = fdopen(out, "r");
        }
        g_strfreev(envp);
        // It loaded the module and runs a command (or cli/ibnm it is).
        if (pid_ > 0 && !ping()) {
            std::fprintf(stderr, "cli-zygote does not run `ibnm version`; running cli/ibnm instead\n");
            stop();
        }
    }
    bool ping()
    {
        std::string req = "6\n9\n/dev/null9\n/dev/null9\n/dev/null1\n04\nibnm7\nversion";
        int status = -1;
        return std::fwrite(req.data(), 1, req.size(), to_) == req.size() && std::fflush(to_) == 0 &&
               std::fscanf(from_, "%d", &status) == 1 && status == 0;
    }
    void stop()
    {
        if (to_)
            std::fclose(to_); // end of requests: it exits
        if (from_)
            std::fclose(from_);
        to_ = from_ = nullptr;
        if (pid_ > 0) {
            int status = 0;
            waitpid(pid_, &status, 0);
            g_spawn_close_pid(pid_);
        }
        pid_ = 0;
    }
    ~Zygote() { stop(); }
    GPid pid_ = 0;
    FILE *to_ = nullptr, *from_ = nullptr;
    TempDir io_;
};

// Drives ibnm on one simulated host (a fresh keyfile store and state) and
// checks each step against the model.
class Runner {
public:
    Runner(const std::string &hostName, const model::Host &described, const nm::Host &initial)
        : hostName_(hostName), described_(described), model_(initial), nmWay_(initial)
    {
        nmWay_.restoreRemovedAddresses = false;
    }

    // Runs the steps and returns every rule broken, in order. After a broken
    // rule the model goes on from what ibnm did (the host read back; the
    // store and the activations as the command's exit status says), so that
    // the rest of the sequence checks the other rules; `stopAtFirst` ends
    // the run there instead.
    std::vector<Broken> run(const std::vector<Step> &steps, bool stopAtFirst = false)
    {
        std::vector<Broken> out;
        for (size_t i = 0; i < steps.size(); i++) {
            nm::Model before = model_;
            lastExit_ = -1;
            current_ = &steps[i];
            nmWayBefore_ = nmWay_;
            auto b = step(steps[i]);
            current_ = nullptr;
            stats.steps++;
            if (!b)
                continue;
            b->step = i;
            out.push_back(*b);
            if (stopAtFirst)
                break;
            resync(before, steps[i]);
        }
        return out;
    }

    struct Stats {
        unsigned steps = 0, faults = 0, refused = 0, rolledBack = 0, notActive = 0, secondUps = 0, commands = 0;
        double commandSeconds = 0;
        std::map<std::string, unsigned> exercised; // rule -> steps that checked it
    } stats;

private:
    // --- reading the host and the store ---
    std::unique_ptr<platform::FakePlatform> platform() const
    {
        auto p = platform::FakePlatform::open(hostFile(hostName_), ws_.stateDir());
        EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().toString());
        return p.ok() ? std::move(p).value() : nullptr;
    }
    nm::Host hostNow() const
    {
        auto p = platform();
        if (!p)
            return {};
        auto h = p->readHost();
        EXPECT_TRUE(h.ok());
        return h.ok() ? nm::project(*h, described_) : nm::Host{};
    }
    // Everything: the host (addresses as sets), the operation count apart,
    // the store, and the run state beside the simulation's own files.
    std::string everything() const
    {
        auto p = platform();
        std::string s = p ? snapshot(*p, true) : "";
        s += "\n--- store\n" + Workspace::files(ws_.keyfileDir(), {Workspace::kStoreLock});
        // The run state beside the simulation's own files.
        s += "\n--- run state\n" + Workspace::files(ws_.stateDir(), {"state", "journal", "lock", "activations.lock",
                                                                      "apply-noop-record", "root"});
        return s;
    }
    uint64_t operations() const
    {
        auto p = platform();
        return p ? p->operationCount() : 0;
    }

    Result run(const std::vector<std::string> &args, const std::string &input = {}, const std::string &fault = {})
    {
        std::map<std::string, std::string> env;
        if (!fault.empty())
            env["IBNM_FAKE_FAIL"] = fault;
        Zygote &z = Zygote::get();
        stats.commands++;
        auto t0 = std::chrono::steady_clock::now();
        struct Tally {
            std::chrono::steady_clock::time_point t0;
            double &sum;
            ~Tally() { sum += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
        } tally{t0, stats.commandSeconds};
        std::vector<std::string> all = {"--keyfile-dir", ws_.keyfileDir(), "--simulate", hostFile(hostName_)};
        all.insert(all.end(), args.begin(), args.end());
        env["IBNM_SIMULATE_STATE"] = ws_.stateDir();
        if (!z.ok()) {
            all.insert(all.begin(), cliPath());
            return spawn(all, env, input);
        }
        return z.run(all, env, input);
    }

    static std::string output(const Result &r) { return "exit " + std::to_string(r.status) + "\n" + r.out + r.err; }
    // The planned operations of a dry run's -j report (up/down) or apply.
    static bool isJson(const Result &r) { return !r.out.empty() && r.out[0] == '{'; }
    static unsigned planned(const Result &r)
    {
        if (r.status != 0 || !isJson(r))
            return 0;
        JsonValue j = parseJson(r.out);
        const JsonValue *steps = j.get("report") ? j.get("report")->get("steps") : j.get("steps");
        return steps ? unsigned(steps->items.size()) : 0;
    }
    static bool rolledBack(const Result &r)
    {
        if (!isJson(r))
            return false;
        JsonValue j = parseJson(r.out);
        const JsonValue *rb = j.get("report") ? j.get("report")->get("rolled-back") : j.get("rolled-back");
        return rb && rb->b;
    }

    std::optional<Broken> fail(const std::string &rule, const std::string &detail) { return Broken{rule, detail}; }
    void exercise(const std::string &rule)
    {
        stats.exercised[rule]++;
        // A failure's rollback where a bond has ports: K2a too.
        if (rule == "K2")
            for (const auto &[name, l] : model_.host().links)
                if (!l.master.empty()) {
                    stats.exercised["K2a"]++;
                    break;
                }
    }

    // --- after every step ---
    std::optional<Broken> checkState(const std::string &hostRule)
    {
        nm::Host now = hostNow();
        // The host as NetworkManager would leave it, the addresses an
        // activation removed removed: the steps where that differs check
        // rule N10a. nmWay_ follows model_ through the step: the same
        // command, or (a failure) nothing.
        nmWay_ = nmWayBefore_;
        if (current_ && lastExit_ == 0 && current_->kind == Step::Kind::Up)
            nmWay_.up(current_->ids, true); // as ibnm did it
        else if (current_ && lastExit_ == 0 && current_->kind == Step::Kind::Apply)
            nmWay_.apply(current_->doc, true);
        else if (current_ && lastExit_ == 0)
            Generator::play(nmWay_, *current_);
        if (current_ && current_->kind == Step::Kind::KeyfileByHand)
            nmWay_.setProfile(current_->profile.id, current_->profile);
        if (current_ && current_->kind == Step::Kind::LinkDownByHand)
            nmWay_.linkDownByHand(current_->ids[0]);
        if (!nm::difference(nmWay_.host(), model_.host()).empty())
            exercise("N10a");
        // N7a: a link that joined a bond in this step with addresses.
        for (const auto &[name, l] : model_.host().links)
            if (!l.master.empty() && nmWayBefore_.host().links.count(name) &&
                nmWayBefore_.host().links.at(name).master.empty() &&
                !nmWayBefore_.host().links.at(name).addresses.empty())
                exercise("N7a");
        if (std::string d = nm::difference(model_.host(), now); !d.empty()) {
            if (nm::difference(nmWay_.host(), now).empty())
                return fail("N10a", "the addresses the activation removed are not put back, as NetworkManager "
                                    "leaves them (" + d + ")");
            // N7a: only bond ports keep addresses they had before they joined.
            nm::Host portsBare = now;
            for (auto &[name, l] : portsBare.links)
                if (model_.host().links.count(name) && !model_.host().links.at(name).master.empty())
                    l.addresses.clear();
            if (nm::difference(model_.host(), portsBare).empty())
                return fail("N7a", "a bond port keeps addresses it had before it joined (" + d + ")");
            return fail(hostRule, "host differs from the model: " + d);
        }
        // K4: what an activation made is gone once no one owns it.
        exercise("K7");
        if (!model_.everCreated().empty())
            exercise("K4");
        std::set<std::string> owned = model_.owned();
        for (const auto &name : model_.everCreated())
            if (!owned.count(name) && (now.links.count(name) || now.softLinks.count(name)))
                return fail("K4", name + " remains, owned by no active profile");
        // The store holds the model's profiles.
        std::set<std::string> want, have;
        for (const auto &[id, p] : model_.profiles())
            want.insert(id + ".nmconnection");
        have = ws_.keyfiles();
        if (want != have)
            return fail(hostRule, "the store holds {" + joined(have) + "}, the model {" + joined(want) + "}");
        // K7: the active profiles and their devices.
        Result show = run({"-t", "-f", "NAME,DEVICE", "connection", "show"});
        std::set<std::string> shownActive, modelActive;
        for (const auto &l : lines(show.out)) {
            size_t colon = l.rfind(':');
            if (colon != std::string::npos && colon + 1 < l.size())
                shownActive.insert(l.substr(0, colon) + "@" + l.substr(colon + 1));
        }
        for (const auto &[id, p] : model_.profiles())
            if (const nm::Activation *a = model_.activation(id))
                modelActive.insert(id + "@" + a->device);
        if (shownActive != modelActive)
            return fail("K7", "connection show: {" + joined(shownActive) + "}, the model's active: {" +
                                  joined(modelActive) + "}");
        return std::nullopt;
    }
    static std::string joined(const std::set<std::string> &s)
    {
        std::string out;
        for (const auto &x : s)
            out += (out.empty() ? "" : " ") + x;
        return out;
    }

    std::optional<Broken> step(const Step &s)
    {
        switch (s.kind) {
        case Step::Kind::Add:
        case Step::Kind::Modify: return storeStep(s);
        case Step::Kind::Up: return upStep(s);
        case Step::Kind::Down: return downStep(s);
        case Step::Kind::Delete: return deleteStep(s);
        case Step::Kind::Apply: return applyStep(s);
        case Step::Kind::ShowStateApply: return showStateStep();
        case Step::Kind::LinkDownByHand: return byHandStep(s);
        case Step::Kind::KeyfileByHand: return keyfileStep(s);
        }
        return std::nullopt;
    }

    // A refused or failed command: nothing changed (K2).
    std::optional<Broken> unchanged(const std::string &rule, const std::string &before, const Result &r)
    {
        std::string after = everything();
        if (after == before)
            return std::nullopt;
        // K2a: only a bond's active port differs.
        auto la = lines(before), lb = lines(after);
        std::multiset<std::string> a(la.begin(), la.end()), b(lb.begin(), lb.end()), onlyOne;
        std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(onlyOne, onlyOne.end()));
        bool activePortOnly = std::all_of(onlyOne.begin(), onlyOne.end(),
                                          [](const std::string &l) { return l.rfind("active-port=", 0) == 0; });
        return fail(activePortOnly ? "K2a" : rule, "the command failed and changed the host or the store\n" +
                                                       output(r) + "\n" + firstDifference(before, after));
    }
    static std::string firstDifference(const std::string &a, const std::string &b)
    {
        auto la = lines(a), lb = lines(b);
        for (size_t i = 0; i < std::max(la.size(), lb.size()); i++) {
            std::string x = i < la.size() ? la[i] : "(end)", y = i < lb.size() ? lb[i] : "(end)";
            if (x != y)
                return "before: " + x + "\nafter:  " + y;
        }
        return {};
    }

    std::optional<Broken> storeStep(const Step &s)
    {
        bool add = s.kind == Step::Kind::Add;
        const Profile *from = add ? nullptr : model_.profile(s.ids[0]);
        std::vector<std::string> args = {"connection", add ? "add" : "modify"};
        if (add) {
            auto a = s.profile.addArgs();
            args.insert(args.end(), a.begin(), a.end());
        } else {
            args.push_back(s.ids[0]);
            // (A profile deleted since: any change, refused as unknown.)
            auto a = from ? from->modifyArgs(s.profile) : std::vector<std::string>{"ipv4.method", "disabled"};
            if (a.empty())
                return std::nullopt; // nothing to change
            args.insert(args.end(), a.begin(), a.end());
        }
        std::string before = everything();
        uint64_t ops = operations();
        nm::Outcome want = Generator::play(model_, s);
        Result r = run(args);
        lastExit_ = r.status;
        std::string mtuRule = s.profile.mtu && s.profile.mtu < 68 && s.profile.type != Type::Infiniband ? "F3" : "N13";
        exercise("K8");
        exercise(mtuRule);
        if (r.status != exitOf(want.status))
            return fail(want.status == Status::NotFound ? "N11" : mtuRule,
                        std::string("model: ") + nm::statusName(want.status) + (want.why.empty() ? "" : " (" + want.why + ")") +
                            "\nibnm: " + output(r));
        if (operations() != ops)
            return fail("K8", "the host performed " + std::to_string(operations() - ops) + " operations");
        if (want.status != Status::Ok)
            return unchanged("K2", before, r);
        return checkState("K8");
    }

    // The rule a host difference after `up` of `ids` breaks.
    // The rule a host difference after `up` of `ids` breaks: the most
    // specific situation among the profiles.
    std::string upRule(const std::vector<std::string> &ids, const nm::Model &before) const
    {
        const auto &links = before.host().links;
        std::set<std::string> found;
        for (const auto &id : ids) {
            const Profile *p = before.profile(id);
            const nm::Activation *a = before.activation(id);
            if (!p)
                continue;
            if (a && a->applied != *p)
                found.insert("N4");
            if (!p->master.empty())
                found.insert("N7");
            std::string dev = before.deviceOf(*p);
            auto l = links.find(dev);
            if (l == links.end())
                continue;
            // A RoCE LAG port on its own.
            if (!l->second.master.empty() && p->master.empty())
                found.insert("F2");
            // A parent's mode change with children, or a child its parent
            // took down.
            bool children = false;
            for (const auto &[name, c] : links)
                children = children || (c.kind == nm::Link::Kind::Child && c.parent == dev);
            if ((p->type == Type::Infiniband && !p->isChild() && children && l->second.connected != p->connected) ||
                (l->second.kind == nm::Link::Kind::Child && !l->second.up && a))
                found.insert("F1");
            // F1a: the re-activation's teardown takes the port down (its
            // first activation found it down), the new activation up.
            if (children && a && a->applied != *p && a->changedFields.count(dev) &&
                a->changedFields.at(dev).count("up") && !a->linksBefore.at(dev).up && l->second.up)
                found.insert("F1a");
        }
        for (const char *rule : {"F1a", "F1", "F2", "N4", "N7"})
            if (found.count(rule))
                return rule;
        return "N9";
    }

    std::optional<Broken> upStep(const Step &s)
    {
        nm::Model before = model_;
        std::string snap = everything();
        uint64_t ops = operations();
        std::vector<std::string> args = {"connection", "up"};
        args.insert(args.end(), s.ids.begin(), s.ids.end());
        // check, the dry run (which changes nothing: K3), then up.
        std::vector<std::string> checkArgs = {"check"};
        checkArgs.insert(checkArgs.end(), s.ids.begin(), s.ids.end());
        Result check = run(checkArgs);
        std::vector<std::string> dryArgs = {"-j", "--dry-run"};
        dryArgs.insert(dryArgs.end(), args.begin(), args.end());
        Result dry = run(dryArgs);
        if (everything() != snap || operations() != ops)
            return fail("K3", "up --dry-run changed the host or the store\n" + output(dry));
        nm::Outcome want = model_.up(s.ids);
        std::string fault;
        if (s.fault && want.status == Status::Ok && planned(dry) > 0)
            fault = "op=*,nth=" + std::to_string(1 + s.faultPick % planned(dry)) + ",errno=EIO";
        std::vector<std::string> upArgs = {"-j"};
        upArgs.insert(upArgs.end(), args.begin(), args.end());
        Result up = run(upArgs, {}, fault);
        lastExit_ = up.status;
        std::string verdict = std::string("model: ") + nm::statusName(want.status) +
                              (want.why.empty() ? "" : " (" + want.why + ")") + "\ncheck: " + output(check) +
                              "\ndry run: " + output(dry) + "\nup: " + output(up);
        exercise("K3");
        if (want.status == Status::NotFound) {
            exercise("N11");
            return up.status == 10 && dry.status == 10 ? std::nullopt : fail("N11", verdict);
        }
        bool refused = want.status == Status::Refused;
        std::string agreeRule = "K1";
        for (const auto &id : s.ids)
            if (const Profile *p = before.profile(id); p && p->mtu && p->mtu < 68 && p->type != Type::Infiniband)
                agreeRule = "F3";
        if (want.why.find("another profile for") != std::string::npos)
            agreeRule = "K1a";
        exercise(agreeRule);
        // Which of two profiles for one interface is the error is ibnm's
        // choice: check, dry run and up agree on it.
        if (want.conflictOnly && check.status == 0 && dry.status == 0 && up.status == 0) {
            model_ = before;
            model_.up(s.ids, true);
            refused = false;
            exercise("K1a");
        }
        if ((check.status != 0) != refused || (dry.status != 0) != refused)
            return fail(agreeRule, verdict);
        if (!fault.empty()) {
            stats.faults++;
            exercise("K2");
            model_ = before; // a failure changes nothing
            if (up.status == 0)
                return fail("K2", "an injected fault (" + fault + ") and up succeeded\n" + output(up));
            if (!rolledBack(up))
                return fail("K2", "up failed (" + fault + ") without 'rolled-back'\n" + output(up));
            stats.rolledBack++;
            if (auto b = unchanged("K2", snap, up))
                return b;
            return checkState("K2");
        }
        if ((up.status != 0) != refused)
            return fail(agreeRule, verdict);
        if (refused) {
            stats.refused++;
            exercise("K2");
            if (operations() != ops)
                return fail("K2", "a refused up performed operations\n" + output(up));
            return unchanged("K2", snap, up);
        }
        std::string rule = upRule(s.ids, before);
        exercise(rule);
        if (auto b = checkState(rule))
            return b;
        // N12: again, nothing to do.
        uint64_t afterUp = operations();
        Result again = run(args);
        stats.secondUps++;
        exercise("N12");
        if (again.status != 0 || operations() != afterUp)
            return fail("N12", "the second up performed " + std::to_string(operations() - afterUp) +
                                   " operations\n" + output(again));
        return std::nullopt;
    }

    std::optional<Broken> downStep(const Step &s)
    {
        nm::Model before = model_;
        std::string snap = everything();
        uint64_t ops = operations();
        std::vector<std::string> args = {"-j", "connection", "down"};
        args.insert(args.end(), s.ids.begin(), s.ids.end());
        std::vector<std::string> dryArgs = {"--dry-run"};
        dryArgs.insert(dryArgs.end(), args.begin(), args.end());
        Result dry = run(dryArgs);
        if (everything() != snap || operations() != ops)
            return fail("K3", "down --dry-run changed the host or the store\n" + output(dry));
        nm::Outcome want = model_.down(s.ids);
        std::string fault;
        if (s.fault && want.status == Status::Ok && planned(dry) > 0)
            fault = "op=*,nth=" + std::to_string(1 + s.faultPick % planned(dry)) + ",errno=EIO";
        Result down = run(args, {}, fault);
        lastExit_ = down.status;
        std::string verdict = std::string("model: ") + nm::statusName(want.status) +
                              (want.why.empty() ? "" : " (" + want.why + ")") + "\ndry run: " + output(dry) +
                              "\ndown: " + output(down);
        exercise("K3");
        if (want.status == Status::NotFound) {
            exercise("N11");
            return down.status == 10 ? std::nullopt : fail("N11", verdict);
        }
        if (want.status == Status::NotActive) {
            stats.notActive++;
            exercise("N1");
            if (down.status != 10 || dry.status != 10)
                return fail("N1", verdict);
            if (operations() != ops)
                return fail("N1", "down of an inactive profile performed operations\n" + verdict);
            return unchanged("N1", snap, down);
        }
        std::string rule = "N10";
        for (const auto &id : s.ids) {
            const nm::Activation *a = before.activation(id);
            if (a && before.profile(id) && a->applied != *before.profile(id))
                rule = "N5";
            else if (a && a->applied.type == Type::Bond && rule == "N10")
                rule = "N8";
        }
        exercise(rule);
        if (dry.status != 0)
            return fail("K1", "down --dry-run refused what the model takes down\n" + verdict);
        if (!fault.empty()) {
            stats.faults++;
            exercise("K2");
            model_ = before;
            if (down.status == 0)
                return fail("K2", "an injected fault (" + fault + ") and down succeeded\n" + output(down));
            if (!rolledBack(down))
                return fail("K2", "down failed (" + fault + ") without 'rolled-back'\n" + output(down));
            stats.rolledBack++;
            if (auto b = unchanged("K2", snap, down))
                return b;
            return checkState("K2");
        }
        if (down.status != 0)
            return fail(rule, verdict);
        return checkState(rule);
    }

    std::optional<Broken> deleteStep(const Step &s)
    {
        nm::Model before = model_;
        bool wasActive = model_.active(s.ids[0]);
        const nm::Activation *a = model_.activation(s.ids[0]);
        bool changed = a && model_.profile(s.ids[0]) && a->applied != *model_.profile(s.ids[0]);
        uint64_t ops = operations();
        std::string snap = everything();
        nm::Outcome want = model_.remove(s.ids[0]);
        Result r = run({"connection", "delete", s.ids[0]});
        lastExit_ = r.status;
        std::string rule = wasActive ? (changed ? "N5" : "N3") : "N2";
        if (want.status == Status::NotFound) {
            exercise("N11");
            return r.status == 10 ? std::nullopt : fail("N11", output(r));
        }
        exercise(rule);
        if (r.status != 0)
            return fail(rule, "model: deleted\nibnm: " + output(r));
        if (!wasActive && operations() != ops)
            return fail("N2", "deleting an inactive profile performed " + std::to_string(operations() - ops) +
                                  " operations on the host\n" + output(r));
        return checkState(rule);
    }

    std::optional<Broken> applyStep(const Step &s)
    {
        nm::Model before = model_;
        std::string text = documentJson(s.doc);
        std::string snap = everything();
        uint64_t ops = operations();
        Result dry = run({"-j", "--dry-run", "apply", "-"}, text);
        if (everything() != snap || operations() != ops)
            return fail("K3", "apply --dry-run changed the host or the store\n" + output(dry));
        nm::Outcome want = model_.apply(s.doc);
        std::string fault;
        if (s.fault && want.status == Status::Ok && planned(dry) > 0)
            fault = "op=*,nth=" + std::to_string(1 + s.faultPick % planned(dry)) + ",errno=EIO";
        Result r = run({"-j", "apply", "-"}, text, fault);
        lastExit_ = r.status;
        std::string verdict = std::string("model: ") + nm::statusName(want.status) +
                              (want.why.empty() ? "" : " (" + want.why + ")") + "\ndry run: " + output(dry) +
                              "\napply: " + output(r);
        bool refused = want.status != Status::Ok;
        // A document is checked by the model only (no `ibnm check` for it):
        // K6, F3 for an MTU below 68, K6a for a second profile for one
        // interface, which `connection add` refuses.
        std::string agreeRule = "K6";
        for (const auto &e : s.doc)
            if (e.profile.mtu && e.profile.mtu < 68 && e.profile.type != Type::Infiniband)
                agreeRule = "F3";
        if (want.why.find("another profile for") != std::string::npos)
            agreeRule = "K6a";
        exercise("K3");
        exercise("K6");
        exercise(agreeRule);
        if ((dry.status != 0) != refused)
            return fail(agreeRule, verdict);
        if (!fault.empty()) {
            stats.faults++;
            exercise("K2");
            model_ = before;
            if (r.status == 0)
                return fail("K2", "an injected fault (" + fault + ") and apply succeeded\n" + output(r));
            if (!rolledBack(r))
                return fail("K2", "apply failed (" + fault + ") without 'rolled-back'\n" + output(r));
            stats.rolledBack++;
            if (auto b = unchanged("K2", snap, r))
                return b;
            return checkState("K2");
        }
        if ((r.status != 0) != refused)
            return fail(agreeRule, verdict);
        if (refused) {
            stats.refused++;
            exercise("K2");
            return unchanged("K2", snap, r);
        }
        return checkState("K6");
    }

    // `ip link set NAME down` on the simulated host (the simulator is the
    // kernel): F1 when the link has P_Key children.
    std::optional<Broken> byHandStep(const Step &s)
    {
        bool children = false;
        for (const auto &[name, l] : model_.host().links)
            children = children || (l.kind == nm::Link::Kind::Child && l.parent == s.ids[0]);
        std::string rule = children ? "F1" : "N9";
        exercise(rule);
        model_.linkDownByHand(s.ids[0]);
        auto p = platform();
        if (!p)
            return fail(rule, "cannot open the simulated host");
        if (auto st = p->setUp(s.ids[0], false); !st.ok())
            return fail(rule, "ip link set " + s.ids[0] + " down: " + st.error().toString());
        return checkState(rule);
    }

    // K5 holds where the host is as the active profiles say: no profile
    // changed since its activation (show-state prints the stored settings,
    // and applying them is that change) and nothing changed by hand (the
    // document's `up` brings it back, as it should).
    // A keyfile written outside ibnm (nmcli, an editor): `ibnm --offline
    // connection add` prints NetworkManager's bytes; nothing checks it.
    std::optional<Broken> keyfileStep(const Step &s)
    {
        std::vector<std::string> args = {"--offline", "connection", "add"};
        auto a = s.profile.addArgs();
        args.insert(args.end(), a.begin(), a.end());
        Result r = run(args);
        if (r.status != 0)
            return fail("K8", "ibnm --offline connection add: " + output(r));
        std::string path = ws_.keyfileDir() + "/" + s.profile.id + ".nmconnection";
        if (!g_file_set_contents(path.c_str(), r.out.c_str(), -1, nullptr) || g_chmod(path.c_str(), 0600) != 0)
            return fail("K8", "cannot write " + path);
        model_.setProfile(s.profile.id, s.profile);
        return checkState("K8");
    }

    std::optional<Broken> showStateStep()
    {
        std::vector<std::string> activeIds;
        bool pending = false;
        for (const auto &[id, p] : model_.profiles())
            if (const nm::Activation *a = model_.activation(id)) {
                activeIds.push_back(id);
                pending = pending || a->applied != p;
            }
        nm::Model again = model_;
        again.up(activeIds, true);
        if (pending || !nm::difference(again.host(), model_.host()).empty())
            return std::nullopt;
        exercise("K5");
        Result shown = run({"show-state"});
        if (shown.status != 0)
            return fail("K5", "show-state: " + output(shown));
        std::string snap = everything();
        Result r = run({"-j", "apply", "-"}, shown.out);
        if (r.status != 0)
            return fail("K5", "applying show-state's output: " + output(r) + "\nthe document:\n" + shown.out);
        JsonValue j = isJson(r) ? parseJson(r.out) : JsonValue();
        std::string after = everything();
        if (after != snap || (j.get("changed") && j.get("changed")->b))
            return fail("K5", "applying show-state's output changed something\n" + output(r) + "\nthe document:\n" +
                                  shown.out + "\n" + firstDifference(snap, after));
        return checkState("K5");
    }

    void resync(const nm::Model &before, const Step &s)
    {
        std::set<std::string> files = ws_.keyfiles();
        for (const auto &[id, p] : std::map<std::string, Profile>(model_.profiles()))
            if (!files.count(id + ".nmconnection"))
                model_.setProfile(id, std::nullopt);
        bool changed = lastExit_ == 0;
        if (s.kind == Step::Kind::Add && changed && files.count(s.profile.id + ".nmconnection"))
            model_.setProfile(s.profile.id, s.profile);
        if (s.kind == Step::Kind::Modify && model_.profile(s.ids[0]) && before.profile(s.ids[0]))
            model_.setProfile(s.ids[0], changed ? s.profile : *before.profile(s.ids[0]));
        if (s.kind != Step::Kind::Add && s.kind != Step::Kind::Modify && lastExit_ != 0 && lastExit_ != -1)
            model_ = before; // a failed command changed no activation
        // A command ibnm carried out where the model refused it.
        if (s.kind == Step::Kind::Up && lastExit_ == 0) {
            model_ = before;
            model_.up(s.ids, true);
        }
        if (s.kind == Step::Kind::Apply && lastExit_ == 0) {
            model_ = before;
            model_.apply(s.doc, true);
        }
        model_.resync(hostNow());
        nmWay_ = model_;
        nmWay_.restoreRemovedAddresses = false;
    }

    Workspace ws_;
    int lastExit_ = -1; // the exit status of the step's command
    const Step *current_ = nullptr; // the step running
    nm::Model nmWayBefore_ = nm::Model(nm::Host{});
    std::string hostName_;
    model::Host described_;
    nm::Model model_;
    // The same sequence as NetworkManager would leave the addresses an
    // activation removed (removed): where the host is as this one says and
    // not as model_, rule N10a is broken.
    nm::Model nmWay_;
};

} // namespace ibnm::test::seq
