// SPDX-License-Identifier: LGPL-2.1-or-later
// IBNM_DEFINE_TYPE: private C++ data is constructed once and destroyed once,
// for a base type and for a type derived from it.
#include "config.h"

#include "libcore/support/gobject.hpp"
#include "libcore/support/raii.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

std::vector<std::string> events;

struct Tracer {
    explicit Tracer(const char *name) noexcept : name_(name) { events.push_back(std::string("ctor ") + name_); }
    ~Tracer() { events.push_back(std::string("dtor ") + name_); }
    const char *name_;
};

} // namespace

// A derivable base type.
G_BEGIN_DECLS
#define TEST_TYPE_BASE (test_base_get_type())
G_DECLARE_DERIVABLE_TYPE(TestBase, test_base, TEST, BASE, GObject)
struct _TestBaseClass {
    GObjectClass parent_class;
};
#define TEST_TYPE_DERIVED (test_derived_get_type())
G_DECLARE_FINAL_TYPE(TestDerived, test_derived, TEST, DERIVED, TestBase)
G_END_DECLS

struct TestBasePrivate {
    Tracer tracer{"base"};
    std::string text = "default text";
    std::vector<int> numbers{1, 2, 3};
};

IBNM_DEFINE_TYPE(TestBase, test_base, G_TYPE_OBJECT)

static void test_base_class_init_impl(TestBaseClass *) {}

struct _TestDerived {
    TestBase parent_instance;
};

struct TestDerivedPrivate {
    Tracer tracer{"derived"};
    std::string name;
};

IBNM_DEFINE_FINAL_TYPE(TestDerived, test_derived, TEST_TYPE_BASE)

static void test_derived_class_init_impl(TestDerivedClass *) {}

class GObjectMacro : public ::testing::Test {
protected:
    void SetUp() override { events.clear(); }
};

TEST_F(GObjectMacro, ConstructsAndDestroysPrivateOnce)
{
    TestBase *obj = TEST_BASE(g_object_new(TEST_TYPE_BASE, nullptr));
    EXPECT_EQ(events, std::vector<std::string>{"ctor base"});
    // Members are real C++ objects, initialised by their constructors.
    EXPECT_EQ(test_base_priv(obj)->text, "default text");
    EXPECT_EQ(test_base_priv(obj)->numbers.size(), 3u);
    test_base_priv(obj)->text.assign(1000, 'x'); // heap memory the destructor must free

    g_object_ref(obj);
    g_object_unref(obj);
    EXPECT_EQ(events.size(), 1u) << "an unref that does not finalize must not destroy";
    g_object_unref(obj);
    EXPECT_EQ(events, (std::vector<std::string>{"ctor base", "dtor base"}));
}

TEST_F(GObjectMacro, DerivedTypeHasBothPrivatesInOrder)
{
    auto obj = ibnm::GObjectPtr<TestDerived>::adopt(TEST_DERIVED(g_object_new(TEST_TYPE_DERIVED, nullptr)));
    test_derived_priv(obj.get())->name = "child";
    // Each type's private data is its own.
    EXPECT_EQ(test_base_priv(obj.get())->text, "default text");
    EXPECT_EQ(test_derived_priv(obj.get())->name, "child");
    EXPECT_NE(static_cast<void *>(test_base_priv(obj.get())), static_cast<void *>(test_derived_priv(obj.get())));
    obj.reset();
    // GObject runs instance init from the base down, finalize from the
    // derived type up.
    EXPECT_EQ(events, (std::vector<std::string>{"ctor base", "ctor derived", "dtor derived", "dtor base"}));
}

TEST_F(GObjectMacro, FinalTypeIsFinal)
{
    EXPECT_TRUE(G_TYPE_IS_FINAL(TEST_TYPE_DERIVED));
    EXPECT_FALSE(G_TYPE_IS_FINAL(TEST_TYPE_BASE));
}

TEST_F(GObjectMacro, ManyInstancesBalance)
{
    std::vector<ibnm::GObjectPtr<TestBase>> v;
    for (int i = 0; i < 100; i++)
        v.push_back(ibnm::GObjectPtr<TestBase>::adopt(TEST_BASE(g_object_new(TEST_TYPE_BASE, nullptr))));
    v.clear();
    int ctors = 0, dtors = 0;
    for (const auto &e : events)
        (e.rfind("ctor", 0) == 0 ? ctors : dtors)++;
    EXPECT_EQ(ctors, 100);
    EXPECT_EQ(dtors, 100);
}
