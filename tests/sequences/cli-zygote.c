/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sequence test's way to run ibnm thousands of times: a process linked
 * with the CLI's objects (cli/libibnm-cli.la, as cli/ibnm is) that forks a
 * child per command, so that each command pays neither exec nor the dynamic
 * linking of libnm. Each child gets its own environment, standard input,
 * output and error, and exits with the command's status, as `ibnm ARGS`
 * would.
 *
 * Requests on stdin, one after the other: a count N, then N fields, each
 * "<length>\n<bytes>": stdin path, stdout path, stderr path, the number E of
 * environment entries, E entries "NAME=VALUE", then argv. The answer on
 * stdout: "<exit status>\n" (-1 when the child did not exit). */
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *readField(void)
{
    long len = 0;
    if (scanf("%ld", &len) != 1 || len < 0 || getchar() != '\n')
        return NULL;
    char *s = malloc((size_t)len + 1);
    if (s == NULL || fread(s, 1, (size_t)len, stdin) != (size_t)len) {
        free(s);
        return NULL;
    }
    s[len] = '\0';
    return s;
}

static void redirect(const char *path, int fd, int flags)
{
    int f = open(path, flags, 0600);
    if (f < 0 || dup2(f, fd) < 0)
        _exit(125);
    close(f);
}

int zygote_prepare(void);
int zygote_run_cli(int argc, char **argv);

int main(void)
{
    if (zygote_prepare() != 0)
        return 1;
    long n = 0;
    while (scanf("%ld", &n) == 1 && getchar() == '\n') {
        char **fields = calloc((size_t)n + 1, sizeof *fields);
        for (long i = 0; i < n; i++)
            if ((fields[i] = readField()) == NULL)
                return 1;
        long envs = n > 3 ? strtol(fields[3], NULL, 10) : -1;
        if (envs < 0 || 4 + envs >= n)
            return 1;
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            for (long i = 0; i < envs; i++)
                putenv(fields[4 + i]);
            __fpurge(stdin); /* what the zygote read ahead is not the command's */
            redirect(fields[0], 0, O_RDONLY);
            redirect(fields[1], 1, O_WRONLY | O_CREAT | O_TRUNC);
            redirect(fields[2], 2, O_WRONLY | O_CREAT | O_TRUNC);
            setlocale(LC_ALL, "");
            int rc = zygote_run_cli((int)(n - 4 - envs), fields + 4 + envs);
            fflush(stdout);
            exit(rc);
        }
        int status = 0;
        int rc = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        printf("%d\n", rc);
        fflush(stdout);
        for (long i = 0; i < n; i++)
            free(fields[i]);
        free(fields);
    }
    return 0;
}
