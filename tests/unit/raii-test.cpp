// SPDX-License-Identifier: LGPL-2.1-or-later
// Every owning handle releases its resource exactly once. Counters where the
// library lets us count; the valgrind run of this binary (check-valgrind.sh)
// catches leaks and double frees for the rest.
#include "config.h"

#include "libcore/support/raii.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

using namespace ibnm;

namespace {

int freed = 0;
void countFree(gpointer) { freed++; }
void countAndFree(gpointer p)
{
    freed++;
    g_free(p);
}

void weakNotify(gpointer data, GObject *) { (*static_cast<int *>(data))++; }

bool fdIsOpen(int fd) { return fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

} // namespace

TEST(Raii, GBytesReleasedOnce)
{
    freed = 0;
    static char data[] = "abc";
    {
        GBytesPtr b(g_bytes_new_with_free_func(data, 3, countFree, data));
        EXPECT_EQ(freed, 0);
        GBytesPtr moved = std::move(b);
        EXPECT_FALSE(b);
        EXPECT_EQ(freed, 0);
    }
    EXPECT_EQ(freed, 1);
}

TEST(Raii, GHashTableReleasesValuesOnce)
{
    freed = 0;
    {
        GHashTablePtr h(g_hash_table_new_full(g_str_hash, g_str_equal, nullptr, countAndFree));
        g_hash_table_insert(h.get(), const_cast<char *>("a"), g_strdup("1"));
        g_hash_table_insert(h.get(), const_cast<char *>("b"), g_strdup("2"));
    }
    EXPECT_EQ(freed, 2);
}

TEST(Raii, GPtrArrayReleasesElementsOnce)
{
    freed = 0;
    {
        GPtrArrayPtr a(g_ptr_array_new_with_free_func(countFree));
        g_ptr_array_add(a.get(), nullptr);
        g_ptr_array_add(a.get(), nullptr);
        g_ptr_array_add(a.get(), nullptr);
    }
    EXPECT_EQ(freed, 3);
}

TEST(Raii, OutPtrAdoptsGError)
{
    GErrorPtr err;
    g_set_error_literal(outPtr(err), G_FILE_ERROR, G_FILE_ERROR_NOENT, "gone");
    ASSERT_TRUE(err);
    EXPECT_STREQ(err->message, "gone");

    GCharPtr contents;
    EXPECT_FALSE(g_file_get_contents("/nonexistent/ibnm", outPtr(contents), nullptr, outPtr(err)));
    EXPECT_FALSE(contents);
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOENT));
}

TEST(Raii, StrvAndGString)
{
    GStrvPtr v(g_strsplit("a,b,c", ",", -1));
    EXPECT_EQ(g_strv_length(v.get()), 3u);
    GStringPtr s(g_string_new("x"));
    g_string_append(s.get(), "yz");
    EXPECT_STREQ(s->str, "xyz");
}

TEST(Raii, GObjectAdoptTakesNoExtraRef)
{
    int finalized = 0;
    GObject *raw = G_OBJECT(g_object_new(G_TYPE_OBJECT, nullptr));
    g_object_weak_ref(raw, weakNotify, &finalized);
    {
        auto p = GObjectPtr<GObject>::adopt(raw);
        EXPECT_EQ(raw->ref_count, 1u);
    }
    EXPECT_EQ(finalized, 1);
}

TEST(Raii, GObjectRetainTakesOneRef)
{
    int finalized = 0;
    GObject *raw = G_OBJECT(g_object_new(G_TYPE_OBJECT, nullptr));
    g_object_weak_ref(raw, weakNotify, &finalized);
    {
        auto p = GObjectPtr<GObject>::retain(raw);
        EXPECT_EQ(raw->ref_count, 2u);
    }
    EXPECT_EQ(finalized, 0);
    EXPECT_EQ(raw->ref_count, 1u);
    g_object_unref(raw);
    EXPECT_EQ(finalized, 1);
}

TEST(Raii, GObjectCopyMoveAndRelease)
{
    int finalized = 0;
    auto a = GObjectPtr<GObject>::adopt(G_OBJECT(g_object_new(G_TYPE_OBJECT, nullptr)));
    g_object_weak_ref(a.get(), weakNotify, &finalized);
    GObject *raw = a.get();
    {
        GObjectPtr<GObject> b = a; // copy: +1
        EXPECT_EQ(raw->ref_count, 2u);
        GObjectPtr<GObject> c = std::move(b); // move: no change
        EXPECT_FALSE(b);
        EXPECT_EQ(raw->ref_count, 2u);
        c = a; // self-object assignment through another handle
        EXPECT_EQ(raw->ref_count, 2u);
    }
    EXPECT_EQ(raw->ref_count, 1u);
    GObject *out = a.release();
    EXPECT_FALSE(a);
    EXPECT_EQ(finalized, 0);
    g_object_unref(out);
    EXPECT_EQ(finalized, 1);
}

TEST(Raii, UniqueFdClosesOnce)
{
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    int readEnd = fds[0];
    {
        UniqueFd w(fds[1]);
        UniqueFd moved(std::move(w));
        EXPECT_FALSE(w.isValid());
        EXPECT_TRUE(fdIsOpen(fds[1]));
    }
    EXPECT_FALSE(fdIsOpen(fds[1]));
    char c;
    EXPECT_EQ(read(readEnd, &c, 1), 0) << "write end closed: EOF";
    // The number may be reused now; a second close of the old owner would
    // close somebody else's descriptor. Reopen and check it survives.
    UniqueFd reuse(open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(reuse);
    EXPECT_TRUE(fdIsOpen(reuse.get()));
    close(readEnd);
}

TEST(Raii, UniqueFdReleaseDoesNotClose)
{
    int raw;
    {
        UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
        raw = fd.release();
        EXPECT_EQ(fd.get(), -1);
    }
    EXPECT_TRUE(fdIsOpen(raw));
    close(raw);
}

TEST(Raii, UniqueFdResetClosesOld)
{
    UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    int first = fd.get();
    fd.reset(open("/dev/zero", O_RDONLY | O_CLOEXEC));
    EXPECT_NE(fd.get(), first);
    EXPECT_TRUE(fd);
    fd.reset();
    EXPECT_FALSE(fd);
}

TEST(Raii, LibnlObjectReleasedOnce)
{
    RtnlLinkPtr link(rtnl_link_alloc());
    ASSERT_TRUE(link);
    auto *obj = reinterpret_cast<nl_object *>(link.get());
    nl_object_get(obj); // a second owner
    EXPECT_EQ(nl_object_get_refcnt(obj), 2);
    link.reset();
    EXPECT_EQ(nl_object_get_refcnt(obj), 1) << "the handle dropped exactly its own reference";
    nl_object_put(obj);
}

TEST(Raii, LibnlSocketAndMessage)
{
    NlSockPtr sock(nl_socket_alloc());
    ASSERT_TRUE(sock);
    NlMsgPtr msg(nlmsg_alloc());
    ASSERT_TRUE(msg);
    EXPECT_EQ(nlmsg_hdr(msg.get())->nlmsg_len, static_cast<unsigned>(NLMSG_HDRLEN));
}

TEST(Raii, VerbsDeviceList)
{
    int n = -1;
    IbvDeviceListPtr list(ibv_get_device_list(&n));
    // Without RDMA devices libibverbs returns an empty list or NULL (ENOSYS);
    // either way the handle must free what it got.
    if (list)
        EXPECT_GE(n, 0);
    else
        EXPECT_NE(errno, 0);
}
