// SPDX-License-Identifier: LGPL-2.1-or-later
// Every JSON text ibnm prints, written in one place: the CLI's -j output
// (cli/output.cpp) and the state documents (`ibnm show-state -j`,
// libcore/state/document.cpp) both call jsonText(): json-glib's generator,
// its layout, and the correction of what it writes wrong. Header-only: the
// CLI links no part of libibnm's internals for it.
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

// The text of `root` as ibnm prints every JSON document: json-glib's
// generator, pretty with kJsonIndent (or compact, on one line), every U+001F
// escaped (above), and a final newline.
inline std::string jsonText(JsonNode *root, bool pretty = true)
{
    std::unique_ptr<JsonGenerator, decltype(&g_object_unref)> gen(json_generator_new(), g_object_unref);
    json_generator_set_pretty(gen.get(), pretty);
    json_generator_set_indent(gen.get(), kJsonIndent);
    json_generator_set_root(gen.get(), root);
    std::unique_ptr<gchar, decltype(&g_free)> data(json_generator_to_data(gen.get(), nullptr), g_free);
    return jsonEscapeUnitSeparators(data.get()) + "\n";
}

} // namespace ibnm
