// SPDX-License-Identifier: LGPL-2.1-or-later
// The limits of an `ibnm apply` document (issue 28): what a hostile document
// gets is an error naming the file and line, never a crash, a hang or a
// silently shortened document. Each test of a very deep document prints how
// long it took (a figure, not a target: speed is bench/'s).
#include "config.h"

#include "libcore/state/document.hpp"
#include "libcore/state/nmstate.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

using ibnm::state::parseDocument;

// The error of parsing `text` as "doc.yml" ("" when it parses).
std::string refusal(const std::string &text)
{
    auto r = parseDocument(text, "doc.yml");
    return r.ok() ? std::string() : r.error().toString();
}

// A literal with its NUL bytes.
template <size_t N> std::string bytes(const char (&s)[N])
{
    return std::string(s, N - 1);
}

bool contains(const std::string &s, const std::string &part)
{
    return s.find(part) != std::string::npos;
}

// Parses `text`, printing how long it took; its error.
std::string timedRefusal(const char *what, const std::string &text)
{
    gint64 start = g_get_monotonic_time();
    std::string e = refusal(text);
    double seconds = double(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
    std::printf("%s (%zu bytes): refused in %.3f s: %s\n", what, text.size(), seconds, e.c_str());
    return e;
}

TEST(StateDocument, JsonNested100000DeepIsRefusedWithoutRecursion)
{
    // json-glib 1.6 recursed once per level and overflowed the stack (SIGSEGV).
    std::string text = "{\"interfaces\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    std::string e = timedRefusal("JSON nested 100,000 deep", text);
    EXPECT_TRUE(contains(e, "deeper than 64 levels")) << e;
    EXPECT_TRUE(contains(e, "doc.yml:1")) << e;
}

TEST(StateDocument, YamlFlowNested100000DeepIsRefusedQuickly)
{
    // libyaml's scanner checks every open level at each token: the whole of
    // such a document took more than 20 s.
    std::string text = "interfaces: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
    std::string e = timedRefusal("YAML flow nested 100,000 deep", text);
    EXPECT_TRUE(contains(e, "deeper than 64 levels")) << e;
}

TEST(StateDocument, DepthUpTo64LevelsParses)
{
    // The root mapping is level 1.
    std::string ok = "{\"a\": " + std::string(63, '[') + std::string(63, ']') + "}";
    EXPECT_EQ(refusal(ok), "");
    std::string deep = "{\"a\": " + std::string(64, '[') + std::string(64, ']') + "}";
    EXPECT_TRUE(contains(refusal(deep), "deeper than 64")) << refusal(deep);
    EXPECT_EQ(refusal("a: " + std::string(63, '[') + std::string(63, ']') + "\n"), "");
    EXPECT_TRUE(contains(refusal("a: " + std::string(64, '[') + std::string(64, ']') + "\n"), "deeper than 64"));
}

TEST(StateDocument, ADuplicateKeyIsRefusedNamingBothLines)
{
    std::string yaml = "interfaces:\n  - name: ib0\n    type: infiniband\ninterfaces: []\n";
    std::string e = refusal(yaml);
    EXPECT_TRUE(contains(e, "doc.yml:4")) << e;
    EXPECT_TRUE(contains(e, "'interfaces' is given twice")) << e;
    EXPECT_TRUE(contains(e, "lines 1 and 4")) << e;
    std::string json = "{\"interfaces\": [{\"name\": \"ib0\",\n \"type\": \"infiniband\",\n \"name\": \"ib1\"}]}";
    e = refusal(json);
    EXPECT_TRUE(contains(e, "'name' is given twice")) << e;
    EXPECT_TRUE(contains(e, "lines 1 and 3")) << e;
    // The same name escaped is the same key.
    e = refusal("{\"a\": 1, \"\\u0061\": 2}");
    EXPECT_TRUE(contains(e, "'a' is given twice")) << e;
    // Equal keys of different mappings are no duplicate.
    EXPECT_EQ(refusal("{\"interfaces\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}"), "");
    EXPECT_EQ(refusal("interfaces:\n- {name: a}\n- {name: b}\n"), "");
}

TEST(StateDocument, ADocumentThatIsNoMappingIsRefused)
{
    for (const char *text : {"just a scalar\n", "- a\n- b\n", "42\n", "[1, 2]\n"}) {
        std::string e = refusal(text);
        EXPECT_TRUE(contains(e, "not a mapping")) << text << ": " << e;
        EXPECT_TRUE(contains(e, "doc.yml:1")) << e;
    }
    EXPECT_TRUE(contains(refusal(""), "empty"));
}

TEST(StateDocument, NulCharactersAreRefusedNamingTheLine)
{
    EXPECT_TRUE(contains(refusal(bytes("interfaces:\n  - name: ib0\0x\n")), "doc.yml:2"));
    EXPECT_TRUE(contains(refusal(bytes("{\"interfaces\": [\"a\0b\"]}")), "NUL"));
    std::string e = refusal("interfaces:\n  - name: \"ib\\0x\"\n");
    EXPECT_TRUE(contains(e, "NUL")) << e;
    EXPECT_TRUE(contains(e, "doc.yml:2")) << e;
    e = refusal("{\"interfaces\": [{\"name\": \"ib\\u0000x\"}]}");
    EXPECT_TRUE(contains(e, "NUL")) << e;
    e = refusal("a:\n  \"k\\0\": 1\n");
    EXPECT_TRUE(contains(e, "NUL")) << e;
}

// JSON's escapes only (RFC 8259 section 7): json-glib 1.6 also read C's
// octal escapes, and "\615" became the byte 0x8d, a string that is not
// UTF-8 and that no JSON writer or reader took back (fuzz-apply, CI).
TEST(StateDocument, EscapesJsonDoesNotHaveAreRefusedNamingTheLine)
{
    std::string e = refusal("{\"interfaces\": [\n{\"name\": \"ib5u1\\615\", \"type\": \"infiniband\"}]}");
    EXPECT_TRUE(contains(e, "doc.yml:2")) << e;
    EXPECT_TRUE(contains(e, "'\\6' is not a JSON escape")) << e;
    EXPECT_TRUE(contains(refusal("{\"a\": \"\\x41\"}"), "'\\x' is not a JSON escape"));
    EXPECT_TRUE(contains(refusal("{\"a\": \"\\u12\"}"), "four hexadecimal digits"));
    // Every escape JSON has still reads as JSON says.
    auto root = parseDocument("{\"a\": \"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9\"}", "doc.json");
    ASSERT_TRUE(root.ok()) << root.error().toString();
    EXPECT_STREQ(json_object_get_string_member(json_node_get_object(root->get()), "a"), "\" \\ / \b \f \n \r \t \u00e9");
}

// A lone UTF-16 surrogate is a well-formed escape that encodes no
// character: refused, naming where it is.
TEST(StateDocument, AStringThatIsNotUtf8IsRefusedNamingWhere)
{
    std::string e = refusal("{\"interfaces\": [{\"name\": \"ib\\ud800x\"}]}");
    EXPECT_TRUE(contains(e, "not valid UTF-8")) << e;
    EXPECT_TRUE(contains(e, "interfaces[0].name")) << e;
}

TEST(StateDocument, ASecondDocumentIsRefused)
{
    // json-glib kept the first and dropped the rest without a word.
    std::string e = refusal("{\"interfaces\": []}\n{\"interfaces\": [{\"name\": \"x\"}]}\n");
    EXPECT_TRUE(contains(e, "only one JSON document")) << e;
    EXPECT_TRUE(contains(e, "doc.yml:2")) << e;
    EXPECT_TRUE(contains(refusal("a: 1\n---\nb: 2\n"), "only one YAML document"));
}

TEST(StateDocument, ALargerDocumentThanTheLimitIsRefused)
{
    std::string text = "interfaces: []\n" + std::string(ibnm::state::kMaxDocumentBytes, '#');
    std::string e = refusal(text);
    EXPECT_TRUE(contains(e, "larger than")) << e;
    EXPECT_TRUE(contains(e, "doc.yml")) << e;
}

TEST(StateDocument, MoreInterfacesThanTheLimitAreRefused)
{
    std::string text = "{\"interfaces\": [";
    for (size_t i = 0; i <= ibnm::state::kMaxInterfaces; i++)
        text += i ? ",{}" : "{}";
    text += "]}";
    auto root = parseDocument(text, "doc.json");
    ASSERT_TRUE(root.ok()) << root.error().toString();
    auto planned = ibnm::state::plan(root->get(), {}, "doc.json");
    ASSERT_FALSE(planned.ok());
    EXPECT_TRUE(contains(planned.error().toString(), "65537 interfaces")) << planned.error().toString();
}

// json-glib's extensions are taken as json-glib takes them: a comment holding
// a quote or a brace, a single-quoted string.
TEST(StateDocument, JsonGlibsExtensionsDoNotConfuseTheLimits)
{
    EXPECT_EQ(refusal("{\"a\": 1 /* \" { [ */, 'b': 'x\"y'}"), "");
    EXPECT_TRUE(contains(refusal("{'a': 1, 'a': 2}"), "'a' is given twice"));
}

} // namespace
