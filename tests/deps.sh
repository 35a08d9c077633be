#!/bin/sh
# Installs what a make target needs when it is missing, in one place:
#   tests/deps.sh GROUP...      GROUP: opencl clang cmake valgrind mpi rusticl oclgrind
#   tests/deps.sh wait-lock     only wait for the apt/dpkg lock (as the install does)
# Each group is first looked for (a file or a command); only a missing one is
# installed. As root the Debian packages are installed with apt-get; otherwise
# the apt-get command is printed and the script exits 1. apt-get refuses to run
# while another apt-get or dpkg holds its lock, so the install first waits for
# the lock (up to CLSORT_APT_WAIT seconds, default 300), saying who holds it.
set -u

APT_WAIT=${CLSORT_APT_WAIT:-300}
APT_LOCKS="/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock"

# The pid holding a POSIX lock on file $1 (from /proc/locks), or nothing.
lock_holder() {
    [ -e "$1" ] && [ -r /proc/locks ] || return 0
    set -- $(stat -c '%d %i' "$1" 2>/dev/null) || return 0
    [ $# = 2 ] || return 0
    # /proc/locks names a file as major:minor:inode, the numbers of its device in hex
    file=$(printf '%02x:%02x:%s' $(($1 >> 8 & 0xfff)) $(($1 & 0xff | ($1 >> 12 & 0xfff00))) "$2")
    awk -v file="$file" '$2 != "->" && $6 == file { print $5; exit }' /proc/locks
}

# Waits until no apt/dpkg lock is held, at most APT_WAIT seconds (exit 1 then).
wait_for_apt_lock() {
    waited=0
    while :; do
        holder=""
        for lock in $APT_LOCKS; do
            holder=$(lock_holder "$lock")
            [ -n "$holder" ] && break
        done
        [ -z "$holder" ] && return 0
        if [ "$waited" -ge "$APT_WAIT" ]; then
            echo "deps: the apt lock is still held by $(cat /proc/"$holder"/comm 2>/dev/null || echo '?') (pid $holder)" \
                "after $APT_WAIT s; run the install again when it is done" >&2
            return 1
        fi
        if [ $((waited % 30)) = 0 ]; then
            echo "deps: waiting for the apt lock held by $(cat /proc/"$holder"/comm 2>/dev/null || echo '?')" \
                "(pid $holder, $lock), up to $APT_WAIT s"
        fi
        sleep 2
        waited=$((waited + 2))
    done
}

# apt-get install of the packages $@ (root), waiting for the lock first; a
# second try when another apt-get took the lock in between.
apt_install() {
    if [ "$(id -u)" != 0 ]; then
        echo "deps: missing; run: sudo apt-get install -y $*" >&2
        return 1
    fi
    echo "deps: installing $*"
    for try in 1 2; do
        wait_for_apt_lock || return 1
        if apt-get update -qq -o DPkg::Lock::Timeout=60 &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=60 "$@" >/dev/null; then
            return 0
        fi
        [ "$try" = 1 ] && echo "deps: apt-get failed; trying once more after the lock is free"
    done
    echo "deps: could not install $*" >&2
    return 1
}

has() { command -v "$1" >/dev/null 2>&1; }

# The OpenCL headers, the ICD loader, an OpenCL implementation (PoCL) and xxd
# (gen/embed.sh), each looked for by a file it provides.
need_opencl() {
    pkgs=""
    [ -f /usr/include/CL/cl.h ] || pkgs="$pkgs opencl-c-headers"
    { ls /usr/lib/*/libOpenCL.so || ls /usr/lib/libOpenCL.so; } >/dev/null 2>&1 || pkgs="$pkgs ocl-icd-opencl-dev"
    ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || pkgs="$pkgs pocl-opencl-icd"
    has xxd || pkgs="$pkgs xxd"
    [ -z "$pkgs" ] || apt_install opencl-c-headers ocl-icd-opencl-dev ocl-icd-libopencl1 pocl-opencl-icd xxd
}

# oclgrind is built from source against LLVM 14 (the oclgrind target).
need_oclgrind() {
    if [ ! -d /usr/lib/llvm-14/lib/cmake/llvm ] || [ ! -f /usr/lib/llvm-14/lib/libPolly.a ] || ! has curl ||
        ! has cmake || ! has patch; then
        apt_install llvm-14-dev libclang-14-dev clang-14 libpolly-14-dev libreadline-dev cmake curl patch
    fi
}

need() {
    case "$1" in
    opencl) need_opencl ;;
    clang) has clang || apt_install clang ;;
    cmake) has cmake || apt_install cmake ;;
    valgrind) has valgrind || apt_install valgrind ;;
    mpi) { has "${MPICC:-mpicc}" && has "${MPIRUN:-mpirun}"; } || apt_install mpich libmpich-dev ;;
    rusticl) [ -f /etc/OpenCL/vendors/rusticl.icd ] || apt_install mesa-opencl-icd ;;
    oclgrind) need_oclgrind ;;
    wait-lock) wait_for_apt_lock ;;
    *) echo "deps: unknown group '$1' (opencl clang cmake valgrind mpi rusticl oclgrind wait-lock)" >&2; return 2 ;;
    esac
}

[ $# -gt 0 ] || { echo "usage: tests/deps.sh GROUP..." >&2; exit 2; }
for group in "$@"; do
    need "$group" || exit 1
done
