// SPDX-License-Identifier: LGPL-2.1-or-later
// The one correction of json-glib's text (libcore/support/json-text.hpp):
// every control character of a string comes out escaped, whichever output
// (the CLI's -j, the state documents of `ibnm show-state -j`) writes it, and
// the text reads back as the same string.
#include "config.h"

#include "libcore/state/document.hpp"
#include "libcore/support/json-text.hpp"
#include "libcore/support/raii.hpp"

#include <gtest/gtest.h>

using namespace ibnm;

namespace {

std::string everyControlCharacter()
{
    std::string s = "a";
    for (char c = 1; c < 0x20; c++)
        s += c;
    s += '\x7f';
    return s + "b";
}

// No raw byte below 0x20 but the layout's newlines, none 0x7f.
void expectPrintable(const std::string &text)
{
    for (char c : text)
        EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != '\x7f'))
            << "raw byte " << static_cast<int>(static_cast<unsigned char>(c)) << " in " << text;
}

std::string readBack(const std::string &text)
{
    GError *error = nullptr;
    CPtr<JsonNode, json_node_unref> node(json_from_string(text.c_str(), &error));
    EXPECT_TRUE(node) << (error ? error->message : "") << " in " << text;
    g_clear_error(&error);
    if (!node || !JSON_NODE_HOLDS_OBJECT(node.get()))
        return {};
    return json_object_get_string_member(json_node_get_object(node.get()), "name");
}

CPtr<JsonNode, json_node_unref> document(const std::string &name)
{
    CPtr<JsonBuilder, g_object_unref> b(json_builder_new());
    json_builder_begin_object(b.get());
    json_builder_set_member_name(b.get(), "name");
    json_builder_add_string_value(b.get(), name.c_str());
    json_builder_end_object(b.get());
    return CPtr<JsonNode, json_node_unref>(json_builder_get_root(b.get()));
}

} // namespace

TEST(JsonText, EscapesEveryControlCharacter)
{
    const std::string name = everyControlCharacter();
    auto root = document(name);
    for (bool pretty : {true, false}) {
        CPtr<JsonGenerator, g_object_unref> gen(json_generator_new());
        json_generator_set_pretty(gen.get(), pretty);
        json_generator_set_root(gen.get(), root.get());
        GCharPtr raw(json_generator_to_data(gen.get(), nullptr));
        // json-glib writes U+001F raw (the control: if it ever escapes it,
        // this test says the correction can go).
        EXPECT_NE(std::string(raw.get()).find('\x1f'), std::string::npos);
        EXPECT_EQ(jsonEscapeUnitSeparators(raw.get()).find('\x1f'), std::string::npos);
        std::string text = jsonText(root.get(), pretty);
        expectPrintable(text);
        EXPECT_NE(text.find("\\u001f"), std::string::npos) << text;
        EXPECT_EQ(readBack(text), name);
        // The layout: json-glib's pretty one with a two-space indent, or
        // one line; a final newline either way.
        EXPECT_EQ(text.find('\n') == text.size() - 1, !pretty) << text;
        EXPECT_EQ(text.rfind("{\n  \"name\" : \"a", 0) == 0, pretty) << text;
        EXPECT_EQ(text.back(), '\n');
    }
}

TEST(JsonText, StateDocumentsUseIt)
{
    const std::string name = everyControlCharacter();
    auto root = document(name);
    std::string text = state::toJson(root.get());
    EXPECT_EQ(text, jsonText(root.get()));
    expectPrintable(text);
    EXPECT_NE(text.find("\\u001f"), std::string::npos) << text;
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(readBack(text), name);
}
