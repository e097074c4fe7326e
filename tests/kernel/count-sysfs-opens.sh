#!/bin/sh
# Counts the sysfs files each Linux platform operation opens on a host with
# 200 extra netdevs, inside the kernel lab's guest (issue 18):
#   ../shared/labs/kernel/kernel-lab run --share "$PWD/tests/kernel" \
#     --add "$PWD/tests/kernel/kernel-tests" --add /usr/bin/strace \
#     "$PWD/tests/kernel/count-sysfs-opens.sh" "$PWD/tests/kernel"
dir=$1
strace -f -e trace=openat,access,socket -o "$dir/opens.trace" "$dir/kernel-tests" \
    --gtest_filter=KernelLabLinux.OneChangeOnAHostWithManyNetdevs || exit 1
for op in setMtu createIpoibChild addAddress removeAddress; do
    n=$(sed -n "/ibnm-mark\/$op-begin/,/ibnm-mark\/$op-end/p" "$dir/opens.trace" |
        grep -c 'openat(.*"/sys/')
    k=$(sed -n "/ibnm-mark\/$op-begin/,/ibnm-mark\/$op-end/p" "$dir/opens.trace" |
        grep -c '^[0-9]* *socket(AF_NETLINK')
    echo "$op: $n sysfs files opened, $k netlink sockets opened"
done
