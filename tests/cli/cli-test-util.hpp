// SPDX-License-Identifier: LGPL-2.1-or-later
// Driving the built ibnm binary: run it with arguments, environment and
// stdin; a keyfile store and a simulated host in temporary directories; -j
// output read with json-glib to check it structurally.
#pragma once

#include "tests/test-util.hpp"

#include "libcore/support/raii.hpp"

#include <glib.h>
#include <gtest/gtest.h>
#include <json-glib/json-glib.h>

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
        env.emplace("IBNM_CACHE_DIR", tmp_ / "cache"); // the store's index (issue 34), removed with it
        return spawn(argv, env, input);
    }
    std::string keyfileDir() const { return tmp_ / "keyfiles"; }
    std::string stateDir() const { return tmp_ / "state"; }
    // The names of the files in the keyfile store, but its lock file
    // (".ibnm.lock", which every writer records itself in).
    std::vector<std::string> keyfiles() const
    {
        std::vector<std::string> names;
        if (GDir *d = g_dir_open(keyfileDir().c_str(), 0, nullptr)) {
            while (const char *n = g_dir_read_name(d))
                if (std::strcmp(n, ".ibnm.lock") != 0)
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

// --- -j output as a tree, read with json-glib ----------------------------------

struct JsonValue {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool b = false;
    double n = 0;
    std::string s;
    std::vector<JsonValue> items;
    std::vector<std::pair<std::string, JsonValue>> members; // in the document's order

    const JsonValue *get(const std::string &key) const
    {
        for (const auto &m : members)
            if (m.first == key)
                return &m.second;
        return nullptr;
    }
};

inline JsonValue jsonValue(JsonNode *node)
{
    JsonValue v;
    switch (json_node_get_node_type(node)) {
    case JSON_NODE_NULL: break;
    case JSON_NODE_OBJECT: {
        v.kind = JsonValue::Object;
        JsonObjectIter it;
        const char *name = nullptr;
        JsonNode *member = nullptr;
        json_object_iter_init_ordered(&it, json_node_get_object(node));
        while (json_object_iter_next_ordered(&it, &name, &member))
            v.members.emplace_back(name, jsonValue(member));
        break;
    }
    case JSON_NODE_ARRAY: {
        v.kind = JsonValue::Array;
        JsonArray *a = json_node_get_array(node);
        for (guint i = 0; i < json_array_get_length(a); i++)
            v.items.push_back(jsonValue(json_array_get_element(a, i)));
        break;
    }
    case JSON_NODE_VALUE:
        switch (json_node_get_value_type(node)) {
        case G_TYPE_BOOLEAN: v.kind = JsonValue::Bool, v.b = json_node_get_boolean(node); break;
        case G_TYPE_INT64: v.kind = JsonValue::Number, v.n = static_cast<double>(json_node_get_int(node)); break;
        case G_TYPE_DOUBLE: v.kind = JsonValue::Number, v.n = json_node_get_double(node); break;
        default: v.kind = JsonValue::String, v.s = json_node_get_string(node); break;
        }
        break;
    }
    return v;
}

// Where `text` has a control character that RFC 8259 does not allow, or
// U+007F in a string: json-glib's parser takes a raw one in a string, a
// strict parser (Python's json) does not, and on a terminal it would act
// (issue 20). npos when there is none.
inline size_t rawControlCharacter(const std::string &text)
{
    bool inString = false;
    for (size_t i = 0; i < text.size(); i++) {
        auto c = static_cast<unsigned char>(text[i]);
        if (inString && c == '\\') {
            i++; // the escaped character
        } else if (c == '"') {
            inString = !inString;
        } else if (inString ? (c < 0x20 || c == 0x7f) : (c < 0x20 && c != '\t' && c != '\r' && c != '\n')) {
            return i;
        }
    }
    return std::string::npos;
}

// The whole of `text` as one JSON document (a test failure if it is not).
inline JsonValue parseJson(const std::string &text)
{
    EXPECT_EQ(rawControlCharacter(text), std::string::npos) << "a raw control character in:\n" << text;
    GObjectPtr<JsonParser> parser = GObjectPtr<JsonParser>::adopt(json_parser_new());
    GError *error = nullptr;
    if (!json_parser_load_from_data(parser.get(), text.c_str(), static_cast<gssize>(text.size()), &error)) {
        ADD_FAILURE() << "not JSON (" << error->message << "):\n" << text;
        g_error_free(error);
        return {};
    }
    JsonNode *root = json_parser_get_root(parser.get());
    EXPECT_TRUE(root) << "empty output, not JSON";
    return root ? jsonValue(root) : JsonValue();
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
