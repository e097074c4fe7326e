// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm::SharedText: one copy of each text while any holder has it.
#include "config.h"

#include "libcore/support/shared-text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

using ibnm::SharedText;

TEST(SharedText, EqualTextsShareOneCopyWhileHeld)
{
    std::string a = "ask the subnet manager";
    std::string b = a; // another buffer, the same text
    SharedText x(a), y(b);
    EXPECT_EQ(x.c_str(), y.c_str());
    EXPECT_TRUE(x == y);
    EXPECT_TRUE(x == "ask the subnet manager");
    EXPECT_FALSE(x == SharedText("another hint"));
    SharedText copy = x;
    SharedText moved = std::move(y);
    EXPECT_TRUE(y.empty()); // NOLINT: a moved-from text is empty
    EXPECT_EQ(moved.c_str(), x.c_str());
    EXPECT_EQ(copy.str(), a);
}

TEST(SharedText, EmptyAndNullAreTheEmptyText)
{
    SharedText none, blank(""), null(static_cast<const char *>(nullptr));
    for (const SharedText *t : {&none, &blank, &null}) {
        EXPECT_TRUE(t->empty());
        EXPECT_STREQ(t->c_str(), "");
    }
    EXPECT_TRUE(none == blank);
}

TEST(SharedText, ATextOutlivesEachHolderButTheLast)
{
    auto *first = new SharedText("infiniband.p-key");
    SharedText second(*first);
    delete first;
    EXPECT_STREQ(second.c_str(), "infiniband.p-key");
    // Made again after its last holder let go: the same text, read whole.
    second = SharedText();
    EXPECT_TRUE(second.empty());
    SharedText again("infiniband.p-key");
    EXPECT_STREQ(again.c_str(), "infiniband.p-key");
}

// Threads that take and let go of the same few texts at once: every holder
// reads its own text whole, and two holders of one text share its copy.
// (GLib's interned strings before 2.84 could hand a text out of the table
// while its last holder was freeing it; under AddressSanitizer that is a
// use after free here.)
TEST(SharedText, ThreadsTakingAndLettingGoOfTheSameTexts)
{
    const std::vector<std::string> texts = {"connection.interface-name", "infiniband.p-key", "infiniband.mtu"};
    std::vector<std::thread> threads;
    std::vector<int> bad(4, 0);
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 20000; i++) {
                const std::string &want = texts[size_t(i + t) % texts.size()];
                SharedText a(want);
                SharedText b(want);
                if (a.str() != want || a.c_str() != b.c_str())
                    bad[size_t(t)]++;
            }
        });
    for (auto &th : threads)
        th.join();
    for (int t = 0; t < 4; t++)
        EXPECT_EQ(bad[size_t(t)], 0) << "thread " << t;
}
