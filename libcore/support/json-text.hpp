// SPDX-License-Identifier: LGPL-2.1-or-later
// Every JSON text ibnm prints, written in one place: the CLI's -j output
// (cli/output.cpp, which opens json-glib at run time) and the state
// documents (`ibnm show-state -j`, libcore/state/document.cpp, linked with
// json-glib) both call jsonText(): json-glib's generator, its layout, and
// the correction of what it writes wrong. Header-only: the CLI links no part
// of libibnm's internals for it, and json-glib's header only declares.
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include <cstring>
#include <memory>
#include <string>

namespace ibnm {

// Pretty JSON text's indent (docs/json-schema.md: json-glib's pretty
// layout, two spaces).
inline constexpr unsigned kJsonIndent = 2;

// `generated` (json_generator_to_data()'s text) with every U+001F escaped.
// json-glib escapes U+0001 to U+001E and U+007F but writes U+001F as it is
// (json_strescape() in json-generator.c tests `*p < 0x1f`): not JSON, and a
// raw control character on a terminal (issue 20). A 0x1f byte of the text can
// only be that character inside a string (the layout is printable ASCII;
// UTF-8 multi-byte sequences have no byte below 0x80), so each one becomes
// the escape json-glib should have written.
inline std::string jsonEscapeUnitSeparators(const char *generated)
{
    std::string out;
    const char *p = generated;
    for (const char *us; (us = std::strchr(p, '\x1f')) != nullptr; p = us + 1) {
        out.append(p, static_cast<size_t>(us - p));
        out += "\\u001f";
    }
    out += p;
    return out;
}

// json-glib's generator functions that jsonText() calls: the linked ones
// (linkedJsonGenerator()) or the CLI's, opened at run time (jsonGlib() of
// cli/output.hpp).
struct JsonGeneratorFunctions {
    decltype(&json_generator_new) generatorNew;
    decltype(&json_generator_set_pretty) setPretty;
    decltype(&json_generator_set_indent) setIndent;
    decltype(&json_generator_set_root) setRoot;
    decltype(&json_generator_to_data) toData;
};

// The functions of a program or library linked with json-glib. Inline: a
// program that never calls it (the CLI) refers to none of them.
inline JsonGeneratorFunctions linkedJsonGenerator()
{
    return {&json_generator_new, &json_generator_set_pretty, &json_generator_set_indent, &json_generator_set_root,
        &json_generator_to_data};
}

// The text of `root` as ibnm prints every JSON document: json-glib's
// generator, pretty with kJsonIndent (or compact, on one line), every U+001F
// escaped (above), and a final newline.
inline std::string jsonText(const JsonGeneratorFunctions &json, JsonNode *root, bool pretty = true)
{
    std::unique_ptr<JsonGenerator, decltype(&g_object_unref)> gen(json.generatorNew(), g_object_unref);
    json.setPretty(gen.get(), pretty);
    json.setIndent(gen.get(), kJsonIndent);
    json.setRoot(gen.get(), root);
    std::unique_ptr<gchar, decltype(&g_free)> data(json.toData(gen.get(), nullptr), g_free);
    return jsonEscapeUnitSeparators(data.get()) + "\n";
}

} // namespace ibnm
