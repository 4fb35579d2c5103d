#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the initramfs of the qemu test guest (used by vm-run and
# check-kmod.sh; see guest-init.sh for what runs inside).
#
# Usage: mkinitramfs.sh [OPTIONS] -o OUT
#   -o OUT            the archive to write (newc cpio, gzip -1 by default)
#   --init FILE       installed as /init (default: guest-init.sh here)
#   --file PATH       copied to the same absolute path in the guest
#                     (directories recursively); ELF executables and
#                     libraries also bring every shared library they need
#   --add SRC DEST    copies SRC to the absolute guest path DEST (with its
#                     shared libraries, like --file)
#   --mkdir DIR       creates the absolute guest path DIR
#   --lib DIR         also look for shared libraries in DIR (as with
#                     LD_LIBRARY_PATH, which is honoured too)
#   --compress gzip|none
#
# The image holds the static busybox (/bin/busybox and a symlink per
# applet in /bin), /etc/passwd and /etc/group with root, nobody (65534,
# a member of the group cpc, 990, that /dev/cpc gets as with the udev
# rule kmod/60-cpc.rules) and stranger (1001, in no group of its own
# but stranger), the mount points, and the files asked for.  Libraries are found
# with ldd and copied, dereferenced, to the paths ldd names, so the
# dynamic loader and libcpc.so.1 of the build tree keep their host paths;
# the guest gets the --lib directories as LD_LIBRARY_PATH from the caller.
# Everything is world-readable and owned by root in the archive (cpio -R
# 0:0): the archive can be built without root, and the unprivileged user
# of --user runs can read it all.  The root directory is mode 755 (an
# unreadable / makes every open() by that user fail with EACCES).
set -euo pipefail
umask 022

here=$(cd "$(dirname "$0")" && pwd)
me=mkinitramfs.sh

die() {
	echo "$me: $*" >&2
	exit 1
}

out=
init=$here/guest-init.sh
compress=gzip
files=()       # host paths to copy to the same path
adds=()        # pairs: source, destination
libdirs=()
mkdirs=()

while [ $# -gt 0 ]; do
	case $1 in
	-o) out=${2:?}; shift 2 ;;
	--init) init=${2:?}; shift 2 ;;
	--file) files+=("${2:?}"); shift 2 ;;
	--add) adds+=("${2:?}" "${3:?}"); shift 3 ;;
	--lib) libdirs+=("${2:?}"); shift 2 ;;
	--mkdir) mkdirs+=("${2:?}"); shift 2 ;;
	--compress) compress=${2:?}; shift 2 ;;
	-h | --help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
[ -n "$out" ] || die "no output file (-o OUT)"
case $compress in gzip | none) ;; *) die "--compress gzip|none" ;; esac
for t in busybox cpio ldd; do
	command -v "$t" >/dev/null || die "$t not found"
done
busybox=$(command -v busybox)
if LC_ALL=C ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install busybox-static"
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"

# The library search path for ldd: --lib directories, then the caller's.
libpath=$(IFS=:; echo "${libdirs[*]}")
libpath=$libpath${LD_LIBRARY_PATH:+${libpath:+:}$LD_LIBRARY_PATH}

declare -A staged=()   # guest paths already copied

# is_elf FILE: true if FILE starts with the ELF magic.
is_elf() {
	[ "$(LC_ALL=C od -An -c -N4 "$1" 2>/dev/null | tr -d ' ')" = '177ELF' ]
}

# put SRC DEST: copies SRC (dereferenced) to guest path DEST; a directory
# is merged into what is already there.
put() {
	local src=$1 dest=$2
	case $dest in /*) ;; *) die "guest path must be absolute: $dest" ;; esac
	[ -z "${staged[$dest]:-}" ] || return 0
	staged[$dest]=1
	if [ -d "$src" ]; then
		mkdir -p "$root$dest"
		cp -RL --preserve=mode "$src/." "$root$dest/"
	else
		mkdir -p "$root$(dirname "$dest")"
		rm -rf "${root:?}$dest"
		cp -L --preserve=mode "$src" "$root$dest"
	fi
}

# put_deps FILE: copies the shared libraries FILE needs, as ldd finds
# them, to the same paths.
put_deps() {
	local f=$1 line lib out
	is_elf "$f" || return 0
	if ! out=$(LC_ALL=C LD_LIBRARY_PATH=$libpath ldd "$f" 2>&1); then
		case $out in
		*"not a dynamic executable"* | *"statically linked"*) return 0 ;;
		esac
		die "ldd $f failed: $out"
	fi
	while IFS= read -r line; do
		case $line in
		*"=> not found"*)
			lib=${line%% =>*}
			die "$f needs ${lib#"${lib%%[! 	]*}"}, which ldd did not" \
				"find; use --lib DIR or LD_LIBRARY_PATH" ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (0x*} ;;
		*/*" (0x"*) lib=${line%% (0x*}; lib=${lib#"${lib%%[! 	]*}"} ;;
		*) continue ;;           # linux-vdso.so.1, "statically linked"
		esac
		put "$lib" "$lib"
		# glibc dlopen()s libgcc_s for thread cancellation and exit.
		case $lib in
		*/libc.so.6)
			if [ -e "$(dirname "$lib")/libgcc_s.so.1" ]; then
				put "$(dirname "$lib")/libgcc_s.so.1" \
					"$(dirname "$lib")/libgcc_s.so.1"
			fi ;;
		esac
	done <<<"$out"
}

# put_with_deps SRC DEST: put, then the libraries of every executable or
# library in it (a file, or the files of a directory).
put_with_deps() {
	local src=$1 dest=$2 f
	put "$src" "$dest"
	if [ -d "$src" ]; then
		while IFS= read -r -d '' f; do
			put_deps "$f"
		done < <(find -L "$src" -type f -print0)
	else
		put_deps "$src"
	fi
}

# The skeleton.
mkdir -p "$root"/{bin,sbin,etc,dev,proc,sys,tmp,root,vmrun,usr/bin,usr/sbin}
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
stranger:x:1001:1001:stranger:/nonexistent:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
cpc:x:990:nobody
stranger:x:1001:
EOF
put "$init" /init
chmod 755 "$root/init"

# What the caller asked for; paths made absolute (not resolved, so the
# guest sees the path the caller used).
for f in "${files[@]}"; do
	[ -e "$f" ] || die "no such file: $f"
	case $f in /*) ;; *) f=$PWD/$f ;; esac
	put_with_deps "$f" "$f"
done
for ((i = 0; i < ${#adds[@]}; i += 2)); do
	[ -e "${adds[i]}" ] || die "no such file: ${adds[i]}"
	put_with_deps "${adds[i]}" "${adds[i + 1]}"
done

for d in "${mkdirs[@]}"; do
	case $d in /*) mkdir -p "$root$d" ;; *) die "not absolute: $d" ;; esac
done

# World-readable, directories searchable, owned by root in the archive.
chmod -R a+rX "$root"
tmp=$out.tmp.$$
if [ "$compress" = gzip ]; then
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet | gzip -1) >"$tmp"
else
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) >"$tmp"
fi
mv -f "$tmp" "$out"
