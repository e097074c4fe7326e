// SPDX-License-Identifier: LGPL-2.1-or-later
// The "did you mean" of usage errors (cli/suggest.cpp).
#include "config.h"

#include "cli/suggest.hpp"

#include <gtest/gtest.h>

using ibnm::cli::closestWord;
using ibnm::cli::editDistance;

TEST(Suggest, DistanceCountsInsertionsDeletionsSubstitutionsAndTranspositions)
{
    EXPECT_EQ(editDistance("", ""), 0u);
    EXPECT_EQ(editDistance("abc", ""), 3u);
    EXPECT_EQ(editDistance("", "abc"), 3u);
    EXPECT_EQ(editDistance("connection", "connection"), 0u);
    EXPECT_EQ(editDistance("conection", "connection"), 1u);  // deletion
    EXPECT_EQ(editDistance("connnection", "connection"), 1u); // insertion
    EXPECT_EQ(editDistance("devixe", "device"), 1u);          // substitution
    EXPECT_EQ(editDistance("dveice", "device"), 1u);          // transposition (Levenshtein says 2)
    EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
    EXPECT_EQ(editDistance("ca", "abc"), 3u); // optimal string alignment: no edit of a transposed pair
}

TEST(Suggest, ClosestWordOnlyWhenCloseAndUnique)
{
    std::vector<std::string_view> top = {"connection", "device", "rdma", "check", "apply", "show-state",
                                         "udev-rules", "monitor", "version"};
    EXPECT_EQ(closestWord("conection", top), "connection");
    EXPECT_EQ(closestWord("dveice", top), "device");
    EXPECT_EQ(closestWord("rmda", top), "rdma");
    EXPECT_EQ(closestWord("chekc", top), "check");
    EXPECT_EQ(closestWord("udev-rule", top), "udev-rules");
    // Too far: nothing rather than a guess.
    EXPECT_EQ(closestWord("frobnicate", top), "");
    EXPECT_EQ(closestWord("xyz", top), "");
    // Short words allow one edit only.
    EXPECT_EQ(closestWord("rdx", top), "");
    // The word itself is no suggestion.
    EXPECT_EQ(closestWord("check", top), "");
    // Two candidates as close: no suggestion.
    EXPECT_EQ(closestWord("ab", {"aa", "bb"}), "");
}
