/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The least that checking an index against the files it describes costs
 * (issue 34 item 1): list the directory and stat() every file in it, as
 * ibnm's keyfile index does before it trusts an entry (settings/
 * keyfile-index.hpp: names, inode, ctime, mtime, size) and as git does for
 * its index; nothing else, on one thread. bench/run-bench times it,
 * interleaved, next to one `ibnm connection add|modify|delete` on the same
 * store and on an empty one.
 * usage: stat-floor DIR
 * Prints "files=N". */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (dir == NULL) {
        perror(argv[1]);
        return 1;
    }
    unsigned long files = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        struct stat st;
        if (entry->d_name[0] == '.')
            continue;
        if (fstatat(dirfd(dir), entry->d_name, &st, 0) == 0)
            files++;
    }
    closedir(dir);
    printf("files=%lu\n", files);
    return 0;
}
