// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/state/document.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/json-text.hpp"
#include "libcore/support/strings.hpp"

#include <yaml.h>

#include <memory>
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

Result<JsonNodePtr> parseYaml(std::string_view text, const std::string &filename)
{
    ParserPtr parser(new yaml_parser_t);
    if (!yaml_parser_initialize(parser.get())) {
        delete parser.release();
        return Error(IBNM_ERROR_FAILED, "yaml_parser_initialize failed");
    }
    yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char *>(text.data()), text.size());
    JsonBuilderPtr builder(json_builder_new());
    JsonBuilder *b = builder.get();
    // Per open container: is it a mapping, and does the next scalar name a key?
    struct Frame {
        bool mapping;
        bool expectKey;
    };
    std::vector<Frame> stack;
    int documents = 0;
    bool haveRoot = false;
    for (;;) {
        EventPtr ev(new yaml_event_t);
        if (!yaml_parser_parse(parser.get(), ev.get())) {
            delete ev.release();
            return syntaxError(filename, parser->problem_mark.line,
                               parser->problem ? parser->problem : _("not valid YAML"));
        }
        size_t line = ev->start_mark.line;
        yaml_event_type_t type = ev->type;
        if (type == YAML_STREAM_END_EVENT)
            break;
        if (type == YAML_DOCUMENT_START_EVENT) {
            if (++documents > 1)
                return syntaxError(filename, line, _("only one YAML document is allowed"));
            continue;
        }
        if (type == YAML_STREAM_START_EVENT || type == YAML_DOCUMENT_END_EVENT)
            continue;
        if (type == YAML_ALIAS_EVENT || (type == YAML_SCALAR_EVENT && ev->data.scalar.anchor) ||
            (type == YAML_MAPPING_START_EVENT && ev->data.mapping_start.anchor) ||
            (type == YAML_SEQUENCE_START_EVENT && ev->data.sequence_start.anchor))
            return syntaxError(filename, line, _("YAML anchors and aliases are not supported"));
        bool isKey = !stack.empty() && stack.back().mapping && stack.back().expectKey;
        if (type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) {
            if (type == YAML_MAPPING_END_EVENT)
                json_builder_end_object(b);
            else
                json_builder_end_array(b);
            stack.pop_back();
            if (!stack.empty() && stack.back().mapping)
                stack.back().expectKey = true;
            continue;
        }
        if (isKey) {
            if (type != YAML_SCALAR_EVENT)
                return syntaxError(filename, line, _("a mapping key must be a plain string"));
            std::string key(reinterpret_cast<const char *>(ev->data.scalar.value), ev->data.scalar.length);
            json_builder_set_member_name(b, key.c_str());
            stack.back().expectKey = false;
            continue;
        }
        if (stack.empty()) {
            if (haveRoot)
                return syntaxError(filename, line, _("only one YAML document is allowed"));
            haveRoot = true;
        }
        switch (type) {
        case YAML_MAPPING_START_EVENT:
            json_builder_begin_object(b);
            stack.push_back({true, true});
            break;
        case YAML_SEQUENCE_START_EVENT:
            json_builder_begin_array(b);
            stack.push_back({false, false});
            break;
        case YAML_SCALAR_EVENT: {
            std::string v(reinterpret_cast<const char *>(ev->data.scalar.value), ev->data.scalar.length);
            if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
                addPlainScalar(b, v);
            else
                json_builder_add_string_value(b, v.c_str());
            if (!stack.empty() && stack.back().mapping)
                stack.back().expectKey = true;
            break;
        }
        default:
            break;
        }
    }
    if (!haveRoot)
        return Error(IBNM_ERROR_INVALID_VALUE, _("the document is empty")).withContext(filename);
    return JsonNodePtr(json_builder_get_root(b));
}

Result<JsonNodePtr> parseJson(std::string_view text, const std::string &filename)
{
    JsonParserPtr parser(json_parser_new());
    GErrorPtr err;
    if (!json_parser_load_from_data(parser.get(), text.data(), gssize(text.size()), outPtr(err))) {
        guint line = json_parser_get_current_line(parser.get());
        return syntaxError(filename, line > 0 ? line - 1 : 0, err->message);
    }
    JsonNode *root = json_parser_get_root(parser.get());
    if (!root)
        return Error(IBNM_ERROR_INVALID_VALUE, _("the document is empty")).withContext(filename);
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
