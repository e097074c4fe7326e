// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/state/document.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/json-text.hpp"
#include "libcore/support/strings.hpp"

#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ibnm::state {

namespace {

struct ParserDeleter {
    void operator()(yaml_parser_t *p) const
    {
        yaml_parser_delete(p);
        delete p;
    }
};
struct EventDeleter {
    void operator()(yaml_event_t *e) const
    {
        yaml_event_delete(e);
        delete e;
    }
};
struct EmitterDeleter {
    void operator()(yaml_emitter_t *e) const
    {
        yaml_emitter_delete(e);
        delete e;
    }
};
using ParserPtr = std::unique_ptr<yaml_parser_t, ParserDeleter>;
using EventPtr = std::unique_ptr<yaml_event_t, EventDeleter>;
using EmitterPtr = std::unique_ptr<yaml_emitter_t, EmitterDeleter>;
using JsonParserPtr = CPtr<JsonParser, g_object_unref>;

Error syntaxError(const std::string &filename, size_t line, const std::string &what)
{
    return Error(IBNM_ERROR_INVALID_VALUE, what).withContext(strprintf("%s:%zu", filename.c_str(), line + 1));
}

Error tooDeep(const std::string &filename, size_t line)
{
    return syntaxError(filename, line, strprintf(_("the document nests deeper than %zu levels"), kMaxDepth));
}

Error nulCharacter(const std::string &filename, size_t line)
{
    return syntaxError(filename, line, _("a NUL character is not allowed in a document"));
}

// A mapping's keys, each with the line (0-based) it was first given on.
using KeyLines = std::unordered_map<std::string, size_t>;

// `key` given at `line` of a mapping whose keys are `seen`: refused when
// given before, naming both lines (libyaml and json-glib keep the last and
// drop the first silently: an `interfaces:` list lost without a word).
Status checkKey(KeyLines &seen, const std::string &key, size_t line, const std::string &filename)
{
    if (key.find('\0') != std::string::npos)
        return nulCharacter(filename, line);
    auto [it, fresh] = seen.emplace(key, line);
    if (!fresh)
        return syntaxError(filename, line,
                           strprintf(_("the key '%s' is given twice in one mapping (lines %zu and %zu)"), key.c_str(),
                                     it->second + 1, line + 1));
    return {};
}

// The line (0-based) of byte `at` of `text`.
size_t lineOf(std::string_view text, size_t at)
{
    return size_t(std::count(text.begin(), text.begin() + ptrdiff_t(std::min(at, text.size())), '\n'));
}

// A plain (unquoted) YAML scalar, typed as YAML 1.2's core schema does.
void addPlainScalar(JsonBuilder *b, const std::string &v)
{
    if (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL") {
        json_builder_add_null_value(b);
        return;
    }
    if (v == "true" || v == "True" || v == "TRUE") {
        json_builder_add_boolean_value(b, TRUE);
        return;
    }
    if (v == "false" || v == "False" || v == "FALSE") {
        json_builder_add_boolean_value(b, FALSE);
        return;
    }
    gint64 n = 0;
    if (g_ascii_string_to_signed(v.c_str(), 10, G_MININT64, G_MAXINT64, &n, nullptr)) {
        json_builder_add_int_value(b, n);
        return;
    }
    json_builder_add_string_value(b, v.c_str());
}

// The json-glib tree of libyaml's events, taken one at a time (neither
// recurses), refusing what the limits refuse.
class YamlTree {
public:
    explicit YamlTree(const std::string &filename) : filename_(filename), builder_(json_builder_new()) {}

    // Takes the next event; false once the stream has ended.
    Result<bool> take(const yaml_event_t &ev)
    {
        size_t line = ev.start_mark.line;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            return false;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents_ > 1)
                return syntaxError(filename_, line, _("only one YAML document is allowed"));
            return true;
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
            return true;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            if (ev.type == YAML_MAPPING_END_EVENT)
                json_builder_end_object(builder_.get());
            else
                json_builder_end_array(builder_.get());
            stack_.pop_back();
            if (!stack_.empty() && stack_.back().mapping)
                stack_.back().expectKey = true;
            return true;
        default:
            break;
        }
        if (ev.type == YAML_ALIAS_EVENT || (ev.type == YAML_SCALAR_EVENT && ev.data.scalar.anchor) ||
            (ev.type == YAML_MAPPING_START_EVENT && ev.data.mapping_start.anchor) ||
            (ev.type == YAML_SEQUENCE_START_EVENT && ev.data.sequence_start.anchor))
            return syntaxError(filename_, line, _("YAML anchors and aliases are not supported"));
        Status st = !stack_.empty() && stack_.back().mapping && stack_.back().expectKey ? key(ev, line) : node(ev, line);
        if (!st.ok())
            return std::move(st).error();
        return true;
    }

    Result<JsonNodePtr> root()
    {
        if (!haveRoot_)
            return Error(IBNM_ERROR_INVALID_VALUE, _("the document is empty")).withContext(filename_);
        return JsonNodePtr(json_builder_get_root(builder_.get()));
    }

private:
    // Per open container: is it a mapping, does the next scalar name a key,
    // and the keys it has.
    struct Frame {
        bool mapping;
        bool expectKey;
        KeyLines keys;
    };

    Status key(const yaml_event_t &ev, size_t line)
    {
        if (ev.type != YAML_SCALAR_EVENT)
            return syntaxError(filename_, line, _("a mapping key must be a plain string"));
        std::string key(reinterpret_cast<const char *>(ev.data.scalar.value), ev.data.scalar.length);
        if (auto st = checkKey(stack_.back().keys, key, line, filename_); !st)
            return st;
        json_builder_set_member_name(builder_.get(), key.c_str());
        stack_.back().expectKey = false;
        return {};
    }

    Status node(const yaml_event_t &ev, size_t line)
    {
        bool container = ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT;
        if (stack_.empty()) {
            if (haveRoot_)
                return syntaxError(filename_, line, _("only one YAML document is allowed"));
            // nmstate's schema is a mapping; json-glib's builder takes no
            // other root (it warns and builds nothing).
            if (ev.type != YAML_MAPPING_START_EVENT)
                return syntaxError(filename_, line,
                                   _("the document is not a mapping (nmstate's schema: 'interfaces:' and its list)"));
            haveRoot_ = true;
        }
        // The bound keeps the tree (and whoever walks it) shallow, and
        // stops a flow collection nested 100,000 deep after 64 levels:
        // libyaml's scanner checks every open level at each token,
        // quadratic over the whole of such a document. libyaml 0.2.5
        // (Debian 12) has no limit of its own (upstream added
        // yaml_set_max_nest_level(), default 1000, after that release).
        if (container && stack_.size() >= kMaxDepth)
            return tooDeep(filename_, line);
        JsonBuilder *b = builder_.get();
        if (ev.type == YAML_MAPPING_START_EVENT) {
            json_builder_begin_object(b);
            stack_.push_back({true, true, {}});
        } else if (ev.type == YAML_SEQUENCE_START_EVENT) {
            json_builder_begin_array(b);
            stack_.push_back({false, false, {}});
        } else if (ev.type == YAML_SCALAR_EVENT) {
            std::string v(reinterpret_cast<const char *>(ev.data.scalar.value), ev.data.scalar.length);
            if (v.find('\0') != std::string::npos)
                return nulCharacter(filename_, line);
            if (ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
                addPlainScalar(b, v);
            else
                json_builder_add_string_value(b, v.c_str());
            if (!stack_.empty() && stack_.back().mapping)
                stack_.back().expectKey = true;
        }
        return {};
    }

    const std::string &filename_;
    JsonBuilderPtr builder_;
    std::vector<Frame> stack_;
    int documents_ = 0;
    bool haveRoot_ = false;
};

Result<JsonNodePtr> parseYaml(std::string_view text, const std::string &filename)
{
    ParserPtr parser(new yaml_parser_t);
    if (!yaml_parser_initialize(parser.get())) {
        delete parser.release();
        return Error(IBNM_ERROR_FAILED, "yaml_parser_initialize failed");
    }
    yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char *>(text.data()), text.size());
    YamlTree tree(filename);
    for (;;) {
        EventPtr ev(new yaml_event_t);
        if (!yaml_parser_parse(parser.get(), ev.get())) {
            delete ev.release();
            return syntaxError(filename, parser->problem_mark.line,
                               parser->problem ? parser->problem : _("not valid YAML"));
        }
        auto more = tree.take(*ev);
        if (!more)
            return std::move(more).error();
        if (!*more)
            break;
    }
    return tree.root();
}

// A member name as json-glib reads it: `raw` (between its double quotes)
// with its escapes decoded by json-glib itself; as it is when it has none
// or does not parse (json-glib then reports it).
std::string memberName(std::string_view raw, bool escaped)
{
    if (!escaped)
        return std::string(raw);
    std::string quoted = "\"" + std::string(raw) + "\"";
    JsonNodePtr node(json_from_string(quoted.c_str(), nullptr));
    if (node && JSON_NODE_HOLDS_VALUE(node.get()) && json_node_get_value_type(node.get()) == G_TYPE_STRING)
        return json_node_get_string(node.get());
    return std::string(raw);
}

// The escape at text[at] (a backslash in a "..." string): one of JSON's
// (RFC 8259 section 7), or refused. json-glib's scanner, GScanner's heir,
// also reads C's octal escapes: "\\615" became the byte 0x8d, a string
// that is not UTF-8, which nothing after the parser can write or compare.
Status checkEscape(std::string_view text, size_t at, size_t line, const std::string &filename)
{
    if (at + 1 >= text.size())
        return {}; // json-glib reports the open string
    char e = text[at + 1];
    if (e != '\0' && std::strchr("\"\\/bfnrt", e))
        return {};
    if (e == 'u') {
        std::string_view hex = text.substr(at + 2, 4);
        if (hex.size() == 4 && std::all_of(hex.begin(), hex.end(), [](char h) { return g_ascii_isxdigit(h); }))
            return {};
        return syntaxError(filename, line, _("\\u in a string must be followed by four hexadecimal digits"));
    }
    std::string shown = g_ascii_isprint(e) ? std::string(1, e) : strprintf("\\x%02x", unsigned(guchar(e)));
    return syntaxError(filename, line,
                       strprintf(_("'\\%s' is not a JSON escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX are)"),
                                 shown.c_str()));
}

// Every string of the tree, member names included, is UTF-8: what json-glib
// decodes from \\uXXXX escapes (a lone surrogate) is not checked by it.
Status checkUtf8(JsonNode *n, const std::string &filename, const std::string &path)
{
    auto bad = [&](const std::string &where) {
        return Error(IBNM_ERROR_INVALID_VALUE, _("a string is not valid UTF-8 (an escape encodes no character)"))
            .withContext(where.empty() ? filename : filename + ": " + where);
    };
    switch (JSON_NODE_TYPE(n)) {
    case JSON_NODE_OBJECT: {
        JsonObject *o = json_node_get_object(n);
        GList *members = json_object_get_members(o);
        Status st;
        for (GList *m = members; m && st; m = m->next) {
            const char *name = static_cast<const char *>(m->data);
            if (!g_utf8_validate(name, -1, nullptr))
                st = bad(path);
            else
                st = checkUtf8(json_object_get_member(o, name), filename, path.empty() ? name : path + "." + name);
        }
        g_list_free(members);
        return st;
    }
    case JSON_NODE_ARRAY: {
        JsonArray *a = json_node_get_array(n);
        for (guint i = 0; i < json_array_get_length(a); i++)
            if (auto st = checkUtf8(json_array_get_element(a, i), filename, strprintf("%s[%u]", path.c_str(), i)); !st)
                return st;
        return {};
    }
    case JSON_NODE_VALUE:
        if (json_node_get_value_type(n) == G_TYPE_STRING && !g_utf8_validate(json_node_get_string(n), -1, nullptr))
            return bad(path);
        return {};
    case JSON_NODE_NULL:
        return {};
    }
    return {};
}

// json-glib 1.6 (Debian 12) parses recursively with no bound (a document
// nested 100,000 deep overflows the stack; 1.10 added
// JSON_PARSER_MAX_RECURSION_DEPTH), keeps the last of two members of one
// name, ends a string at \u0000 and ignores what follows the first
// document (json-parser.c, json-scanner.c). This pass over the text refuses
// those before json-glib parses it. It follows strings as json-glib's
// scanner reads them ("..." with escapes, '...' without) and /* */
// comments, and leaves every other error to json-glib.
Status checkJson(std::string_view text, const std::string &filename)
{
    struct Frame {
        bool object;
        bool expectKey;
        KeyLines keys;
    };
    std::vector<Frame> stack;
    size_t line = 0;
    bool rootDone = false;
    for (size_t i = 0; i < text.size(); i++) {
        char c = text[i];
        if (c == '\n') {
            line++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            size_t end = text.find("*/", i + 2);
            if (end == std::string_view::npos)
                return {}; // json-glib reports the open comment
            line += size_t(std::count(text.begin() + ptrdiff_t(i), text.begin() + ptrdiff_t(end), '\n'));
            i = end + 1;
            continue;
        }
        if (rootDone)
            return syntaxError(filename, line, _("only one JSON document is allowed"));
        if (c == '"' || c == '\'') {
            size_t start = i + 1, startLine = line;
            bool escaped = false;
            for (i = start; i < text.size() && text[i] != c; i++) {
                if (text[i] == '\n')
                    line++;
                if (c == '"' && text[i] == '\\') {
                    if (text.substr(i + 1, 5) == "u0000")
                        return nulCharacter(filename, line);
                    if (auto st = checkEscape(text, i, line, filename); !st)
                        return st;
                    escaped = true;
                    i++;
                }
            }
            if (i >= text.size())
                return {}; // json-glib reports the open string
            if (!stack.empty() && stack.back().object && stack.back().expectKey) {
                std::string key = memberName(text.substr(start, i - start), escaped);
                if (auto st = checkKey(stack.back().keys, key, startLine, filename); !st)
                    return st;
                stack.back().expectKey = false;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            if (stack.size() >= kMaxDepth)
                return tooDeep(filename, line);
            stack.push_back({c == '{', c == '{', {}});
        } else if (c == '}' || c == ']') {
            if (stack.empty())
                return {}; // json-glib reports it
            stack.pop_back();
            rootDone = stack.empty();
        } else if (c == ',' && !stack.empty() && stack.back().object) {
            stack.back().expectKey = true;
        }
    }
    return {};
}

Result<JsonNodePtr> parseJson(std::string_view text, const std::string &filename)
{
    if (auto st = checkJson(text, filename); !st)
        return std::move(st).error();
    JsonParserPtr parser(json_parser_new());
    GErrorPtr err;
    if (!json_parser_load_from_data(parser.get(), text.data(), gssize(text.size()), outPtr(err))) {
        guint line = json_parser_get_current_line(parser.get());
        return syntaxError(filename, line > 0 ? line - 1 : 0, err->message);
    }
    JsonNode *root = json_parser_get_root(parser.get());
    if (!root)
        return Error(IBNM_ERROR_INVALID_VALUE, _("the document is empty")).withContext(filename);
    if (auto st = checkUtf8(root, filename, ""); !st)
        return std::move(st).error();
    return JsonNodePtr(json_node_copy(root));
}

// --- writing YAML -------------------------------------------------------------------

struct Emitter {
    yaml_emitter_t *e;
    bool ok = true;

    void emit(yaml_event_t &ev)
    {
        if (ok && !yaml_emitter_emit(e, &ev))
            ok = false;
    }
    void scalar(const std::string &v, bool plain)
    {
        yaml_event_t ev;
        yaml_scalar_event_initialize(&ev, nullptr, nullptr, reinterpret_cast<const yaml_char_t *>(v.c_str()),
                                     int(v.size()), plain ? 1 : 0, plain ? 0 : 1,
                                     plain ? YAML_PLAIN_SCALAR_STYLE : YAML_SINGLE_QUOTED_SCALAR_STYLE);
        emit(ev);
    }
    void node(JsonNode *n)
    {
        yaml_event_t ev;
        switch (JSON_NODE_TYPE(n)) {
        case JSON_NODE_OBJECT: {
            yaml_mapping_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_MAPPING_STYLE);
            emit(ev);
            JsonObject *o = json_node_get_object(n);
            GList *members = json_object_get_members(o);
            for (GList *m = members; m; m = m->next) {
                scalar(static_cast<const char *>(m->data), true);
                node(json_object_get_member(o, static_cast<const char *>(m->data)));
            }
            g_list_free(members);
            yaml_mapping_end_event_initialize(&ev);
            emit(ev);
            break;
        }
        case JSON_NODE_ARRAY: {
            yaml_sequence_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
            emit(ev);
            JsonArray *a = json_node_get_array(n);
            for (guint i = 0; i < json_array_get_length(a); i++)
                node(json_array_get_element(a, i));
            yaml_sequence_end_event_initialize(&ev);
            emit(ev);
            break;
        }
        case JSON_NODE_NULL:
            scalar("null", true);
            break;
        case JSON_NODE_VALUE: {
            GType t = json_node_get_value_type(n);
            if (t == G_TYPE_STRING) {
                // Quoted, so that '0x80ff', 'yes' or '1500' read back as strings.
                scalar(json_node_get_string(n), false);
            } else if (t == G_TYPE_BOOLEAN) {
                scalar(json_node_get_boolean(n) ? "true" : "false", true);
            } else if (t == G_TYPE_DOUBLE) {
                char buf[G_ASCII_DTOSTR_BUF_SIZE];
                scalar(g_ascii_dtostr(buf, sizeof buf, json_node_get_double(n)), true);
            } else {
                scalar(strprintf("%" G_GINT64_FORMAT, json_node_get_int(n)), true);
            }
            break;
        }
        }
    }
};

int appendOutput(void *data, unsigned char *buffer, size_t size)
{
    static_cast<std::string *>(data)->append(reinterpret_cast<const char *>(buffer), size);
    return 1;
}

} // namespace

Result<JsonNodePtr> parseDocument(std::string_view text, const std::string &filename)
{
    if (text.size() > kMaxDocumentBytes)
        return Error(IBNM_ERROR_INVALID_VALUE,
                     strprintf(_("the document is larger than %zu bytes, the most ibnm reads"), kMaxDocumentBytes))
            .withContext(filename);
    // A NUL byte would end the text for json-glib (and libyaml refuses it
    // without saying which character): refused by line, once, for both.
    if (size_t nul = text.find('\0'); nul != std::string_view::npos)
        return nulCharacter(filename, lineOf(text, nul));
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '{')
        return parseJson(text, filename);
    return parseYaml(text, filename);
}

Result<std::string> toYaml(JsonNode *root)
{
    std::string out;
    EmitterPtr emitter(new yaml_emitter_t);
    if (!yaml_emitter_initialize(emitter.get())) {
        delete emitter.release();
        return Error(IBNM_ERROR_FAILED, "yaml_emitter_initialize failed");
    }
    yaml_emitter_set_output(emitter.get(), appendOutput, &out);
    yaml_emitter_set_unicode(emitter.get(), 1);
    Emitter em{emitter.get()};
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    em.emit(ev);
    yaml_document_start_event_initialize(&ev, nullptr, nullptr, nullptr, 0);
    em.emit(ev);
    em.node(root);
    yaml_document_end_event_initialize(&ev, 1);
    em.emit(ev);
    yaml_stream_end_event_initialize(&ev);
    em.emit(ev);
    if (!em.ok)
        return Error(IBNM_ERROR_FAILED, emitter->problem ? emitter->problem : "YAML emitter failed");
    return out;
}

std::string toJson(JsonNode *root, bool pretty)
{
    return jsonText(root, pretty);
}

} // namespace ibnm::state
