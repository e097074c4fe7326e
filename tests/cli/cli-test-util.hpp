// SPDX-License-Identifier: LGPL-2.1-or-later
// Driving the built ibnm binary: run it with arguments, environment and
// stdin; a keyfile store and a simulated host in temporary directories; a
// tiny JSON reader to check -j output structurally.
#pragma once

#include "tests/test-util.hpp"

#include <glib.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ibnm::test {

struct Result {
    int status = -1;
    std::string out;
    std::string err;
};

inline std::string cliPath()
{
    const char *override = g_getenv("IBNM_CLI");
    return override ? override : IBNM_TOP_BUILDDIR "/cli/ibnm";
}

inline std::string hostFile(const std::string &name)
{
    return IBNM_TOP_SRCDIR "/examples/hosts/" + name;
}

// Runs `argv` (argv[0] is the program) with `env` added to a clean C locale
// environment, feeding `input` on stdin.
inline Result spawn(const std::vector<std::string> &argv, const std::map<std::string, std::string> &env = {},
                 const std::string &input = {})
{
    Result r;
    TempDir io;
    std::string inPath = io / "stdin";
    io.write("stdin", input);
    std::vector<char *> a;
    for (const auto &s : argv)
        a.push_back(const_cast<char *>(s.c_str()));
    a.push_back(nullptr);
    char **envp = g_get_environ();
    for (const char *drop : {"IBNM_SIMULATE", "IBNM_SIMULATE_STATE", "IBNM_SYSFS_ROOT", "LANGUAGE", "NO_COLOR"})
        envp = g_environ_unsetenv(envp, drop);
    envp = g_environ_setenv(envp, "LC_ALL", "C", TRUE);
    for (const auto &[k, v] : env)
        envp = g_environ_setenv(envp, k.c_str(), v.c_str(), TRUE);
    // stdin from a file: g_spawn_sync has no input, so run through sh.
    std::string cmd = "exec \"$0\" \"$@\" < '" + inPath + "'";
    std::vector<char *> full = {const_cast<char *>("/bin/sh"), const_cast<char *>("-c"), cmd.data()};
    full.insert(full.end(), a.begin(), a.end());
    char *out = nullptr, *err = nullptr;
    int wait = 0;
    GError *error = nullptr;
    if (!g_spawn_sync(nullptr, full.data(), envp, G_SPAWN_DEFAULT, nullptr, nullptr, &out, &err, &wait, &error)) {
        ADD_FAILURE() << "spawn: " << error->message;
        g_error_free(error);
    } else {
        r.status = WIFEXITED(wait) ? WEXITSTATUS(wait) : -1;
        r.out = out ? out : "";
        r.err = err ? err : "";
    }
    g_free(out);
    g_free(err);
    g_strfreev(envp);
    return r;
}

// `connection add` of the seeds' mlx4 profile: mlx4_ib0 connected, MTU 65520.
inline const std::vector<std::string> kAddMlx4 = {"connection", "add", "type", "infiniband", "con-name", "mlx4_ib0",
                                                  "ifname", "mlx4_ib0", "transport-mode", "Connected", "mtu", "65520",
                                                  "ipv4.method", "disabled"};

// A keyfile store and, optionally, a simulated host with its state, both in
// temporary directories; run() adds --keyfile-dir and --simulate.
class Cli {
public:
    explicit Cli(std::string host = {}) : host_(std::move(host)) { tmp_.mkdir("keyfiles"); }
    Result run(std::vector<std::string> args, const std::string &input = {},
            std::map<std::string, std::string> env = {}) const
    {
        std::vector<std::string> argv = {cliPath(), "--keyfile-dir", keyfileDir()};
        if (!host_.empty()) {
            argv.push_back("--simulate");
            argv.push_back(host_[0] == '/' ? host_ : hostFile(host_)); // a path, or an example host
            env["IBNM_SIMULATE_STATE"] = tmp_ / "state";
        }
        argv.insert(argv.end(), args.begin(), args.end());
        return spawn(argv, env, input);
    }
    std::string keyfileDir() const { return tmp_ / "keyfiles"; }
    std::string stateDir() const { return tmp_ / "state"; }
    // The names of the files in the keyfile store.
    std::vector<std::string> keyfiles() const
    {
        std::vector<std::string> names;
        if (GDir *d = g_dir_open(keyfileDir().c_str(), 0, nullptr)) {
            while (const char *n = g_dir_read_name(d))
                names.emplace_back(n);
            g_dir_close(d);
        }
        return names;
    }
    // The whole store as one string: names and contents, to compare before/after.
    std::string snapshot() const
    {
        std::string s;
        for (const auto &n : keyfiles()) {
            char *c = nullptr;
            g_file_get_contents((keyfileDir() + "/" + n).c_str(), &c, nullptr, nullptr);
            s += n + "\n" + (c ? c : "") + "\n";
            g_free(c);
        }
        return s;
    }
    const TempDir &tmp() const { return tmp_; }
    const std::string &host() const { return host_; }

private:
    TempDir tmp_;
    std::string host_;
};

// --- a tiny JSON reader, enough to check ibnm -j output ----------------------------

struct JsonValue {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool b = false;
    double n = 0;
    std::string s;
    std::vector<JsonValue> items;
    std::vector<std::pair<std::string, JsonValue>> members;

    const JsonValue *get(const std::string &key) const
    {
        for (const auto &m : members)
            if (m.first == key)
                return &m.second;
        return nullptr;
    }
};

class JsonReader {
public:
    explicit JsonReader(const std::string &text) : t_(text) {}
    // Parses the whole text; false on any syntax error or trailing garbage.
    bool parse(JsonValue &v)
    {
        if (!value(v))
            return false;
        ws();
        return p_ == t_.size();
    }

private:
    void ws()
    {
        while (p_ < t_.size() && std::strchr(" \t\r\n", t_[p_]))
            p_++;
    }
    bool lit(const char *w)
    {
        size_t n = std::strlen(w);
        if (t_.compare(p_, n, w) != 0)
            return false;
        p_ += n;
        return true;
    }
    bool str(std::string &out)
    {
        if (t_[p_] != '"')
            return false;
        for (p_++; p_ < t_.size(); p_++) {
            char c = t_[p_];
            if (c == '"') {
                p_++;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20)
                return false;
            if (c == '\\') {
                if (++p_ >= t_.size())
                    return false;
                char e = t_[p_];
                if (e == 'u') {
                    if (p_ + 4 >= t_.size())
                        return false;
                    out += static_cast<char>(std::stoi(t_.substr(p_ + 1, 4), nullptr, 16));
                    p_ += 4;
                } else {
                    const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
                    const char *m = std::strchr(map, e);
                    if (!m || (m - map) % 2)
                        return false;
                    out += m[1];
                }
            } else {
                out += c;
            }
        }
        return false;
    }
    bool value(JsonValue &v)
    {
        ws();
        if (p_ >= t_.size())
            return false;
        char c = t_[p_];
        if (c == '{') {
            v.kind = JsonValue::Object;
            p_++;
            ws();
            if (p_ < t_.size() && t_[p_] == '}')
                return ++p_, true;
            for (;;) {
                ws();
                std::string key;
                if (p_ >= t_.size() || !str(key))
                    return false;
                ws();
                if (p_ >= t_.size() || t_[p_++] != ':')
                    return false;
                JsonValue m;
                if (!value(m))
                    return false;
                v.members.emplace_back(key, std::move(m));
                ws();
                if (p_ < t_.size() && t_[p_] == ',') {
                    p_++;
                    continue;
                }
                return p_ < t_.size() && t_[p_++] == '}';
            }
        }
        if (c == '[') {
            v.kind = JsonValue::Array;
            p_++;
            ws();
            if (p_ < t_.size() && t_[p_] == ']')
                return ++p_, true;
            for (;;) {
                JsonValue m;
                if (!value(m))
                    return false;
                v.items.push_back(std::move(m));
                ws();
                if (p_ < t_.size() && t_[p_] == ',') {
                    p_++;
                    continue;
                }
                return p_ < t_.size() && t_[p_++] == ']';
            }
        }
        if (c == '"') {
            v.kind = JsonValue::String;
            return str(v.s);
        }
        if (lit("null"))
            return v.kind = JsonValue::Null, true;
        if (lit("true"))
            return v.kind = JsonValue::Bool, v.b = true, true;
        if (lit("false"))
            return v.kind = JsonValue::Bool, v.b = false, true;
        size_t start = p_;
        while (p_ < t_.size() && std::strchr("-+.eE0123456789", t_[p_]))
            p_++;
        if (p_ == start)
            return false;
        v.kind = JsonValue::Number;
        v.n = std::stod(t_.substr(start, p_ - start));
        return true;
    }

    const std::string &t_;
    size_t p_ = 0;
};

inline JsonValue parseJson(const std::string &text)
{
    JsonValue v;
    JsonReader r(text);
    EXPECT_TRUE(r.parse(v)) << "not JSON:\n" << text;
    return v;
}

inline std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    size_t b = 0;
    while (b < text.size()) {
        size_t e = text.find('\n', b);
        if (e == std::string::npos)
            e = text.size();
        out.push_back(text.substr(b, e - b));
        b = e + 1;
    }
    return out;
}

} // namespace ibnm::test
