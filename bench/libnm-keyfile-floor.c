/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libnm's own keyfile-parsing floor: what reading a directory of keyfiles
 * costs with nothing but libnm, the way NetworkManager's keyfile plugin
 * reads one (src/core/settings/plugins/keyfile/nms-keyfile-reader.c):
 * g_key_file_load_from_file(), nm_keyfile_read() and
 * nm_connection_normalize() for every file, the connections kept until the
 * end. bench/run-bench times it, interleaved, next to `ibnm connection
 * show` and `ibnm check` on the same files.
 * usage: libnm-keyfile-floor DIR
 * Prints "connections=N". */
#include <NetworkManager.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    GError *error = NULL;
    /* nm_keyfile_read() takes an absolute base directory only (it returns
     * NULL with a critical for "dir"), as ibnm's reader makes it. */
    char *base = g_canonicalize_filename(argv[1], NULL);
    GDir *dir = g_dir_open(base, 0, &error);
    if (!dir) {
        fprintf(stderr, "%s\n", error->message);
        return 1;
    }
    GPtrArray *connections = g_ptr_array_new_with_free_func(g_object_unref);
    const char *name;
    while ((name = g_dir_read_name(dir))) {
        char *path = g_build_filename(base, name, NULL);
        GKeyFile *kf = g_key_file_new();
        if (g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL)) {
            NMConnection *c = nm_keyfile_read(kf, base, NM_KEYFILE_HANDLER_FLAGS_NONE, NULL, NULL, NULL);
            if (c && nm_connection_normalize(c, NULL, NULL, NULL))
                g_ptr_array_add(connections, c);
            else if (c)
                g_object_unref(c);
        }
        g_key_file_unref(kf);
        g_free(path);
    }
    g_dir_close(dir);
    g_free(base);
    printf("connections=%u\n", connections->len);
    g_ptr_array_unref(connections);
    return 0;
}
