// SPDX-License-Identifier: LGPL-2.1-or-later
// A declarative state document (nmstate's schema) as a json-glib tree,
// whether it was written in YAML (read and written with libyaml) or JSON
// (json-glib). Nothing here knows the schema: see nmstate.hpp.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <json-glib/json-glib.h>

#include <string>
#include <string_view>

namespace ibnm::state {

using JsonNodePtr = CPtr<JsonNode, json_node_unref>;
using JsonBuilderPtr = CPtr<JsonBuilder, g_object_unref>;

// The limits of a document, refused before anything is planned. Depth:
// half the recursion limit (128) of serde_yaml and serde_json, the readers
// nmstate uses; an nmstate document nests 6 levels at most. Size: what 65,536
// interfaces of `show-state` take, with room; the count of interfaces is
// nmstate.hpp's kMaxInterfaces.
inline constexpr size_t kMaxDocumentBytes = 32 * 1024 * 1024;
inline constexpr size_t kMaxDepth = 64;

// Parses `text`: JSON when it starts with '{' (after blanks), else YAML
// (one document; anchors and aliases refused). YAML plain scalars become
// integers, booleans (true/false) or null (null, ~, empty) as YAML 1.2's
// core schema says; quoted scalars stay strings. Refused, naming the line:
// a document larger than kMaxDocumentBytes or nested deeper than kMaxDepth,
// a key given twice in one mapping (both lines named), a document that is
// not a mapping, a NUL byte (raw or escaped) anywhere, a second document.
// Neither reader recurses: libyaml's event parser and a depth-bounded
// json-glib. Errors name `filename` and the line.
Result<JsonNodePtr> parseDocument(std::string_view text, const std::string &filename);

// The tree as YAML (block style, keys in the tree's order) or JSON (pretty).
Result<std::string> toYaml(JsonNode *root);
std::string toJson(JsonNode *root, bool pretty = true);

} // namespace ibnm::state
