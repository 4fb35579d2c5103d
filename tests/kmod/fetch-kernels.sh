#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetch the Debian kernels the module is tested on besides the host's own:
# the oldest series (Linux 5.10, Debian 11's bullseye-security) and the
# newest Debian kernel (trixie-backports or sid, whichever is newer).
# For each it downloads the headers (linux-headers-KVER, -common,
# linux-kbuild-X) and the kernel image, and extracts them into a cache
# folder; a kernel whose compiler is newer than the host's gets a Debian
# chroot of its suite (debootstrap, minbase) to build modules in.
#
# The machine's own apt state and installed system are never touched:
# apt runs on a configuration, lists and cache of its own under the
# cache folder, and packages are only unpacked (dpkg -x), never installed.
# A second run reuses what the first fetched and downloads nothing;
# --update resolves the newest versions again.
#
# Usage: fetch-kernels.sh [--update] [--print] [SERIES...]
#   SERIES   which kernels: "oldest" (5.10), "newest" (7.x); default both
#   --update ask the archive again for the newest build of each series
#   --print  print the cached kernels' descriptors and fetch nothing
#
# Settings (environment):
#   KMOD_KERNELS_DIR  the cache folder (/var/cache/libcpc-kernels)
#   KMOD_MIRROR       Debian mirror (http://deb.debian.org/debian)
#   KMOD_SEC_MIRROR   security mirror (http://deb.debian.org/debian-security)
#
# Result: one descriptor per kernel, KMOD_KERNELS_DIR/kernels/KVER.env,
# in shell syntax, which tests/kmod/kmod-lib.sh reads:
#   KVER       the kernel release (e.g. 5.10.0-46-amd64)
#   KSERIES    major.minor (5.10)
#   KSUITE     the Debian suite it came from
#   KDIR       the headers (the path seen from the host)
#   KIMAGE     the bzImage qemu boots
#   KCC        the compiler kbuild is given (CC=...), empty for its own
#   KCHROOT    the chroot modules are built in, empty to build on the host
#   KCHROOT_KDIR  KDIR as seen inside KCHROOT
set -euo pipefail

me=fetch-kernels
cache=${KMOD_KERNELS_DIR:-/var/cache/libcpc-kernels}
mirror=${KMOD_MIRROR:-http://deb.debian.org/debian}
secmirror=${KMOD_SEC_MIRROR:-http://deb.debian.org/debian-security}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
update=0
print=0
series=()
for a; do
	case $a in
	--update) update=1 ;;
	--print) print=1 ;;
	oldest | newest) series+=("$a") ;;
	-h | --help)
		sed -n '3,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "$me: unknown argument: $a" >&2
		exit 2
		;;
	esac
done
[ ${#series[@]} -gt 0 ] || series=(oldest newest)

note() { echo "$me: $*" >&2; }
# field FILE NAME: the value of NAME='VALUE' in a descriptor.
field() { sed -n "s/^$2='\(.*\)'\$/\1/p" "$1" | head -n 1; }
die() {
	note "$*"
	exit 1
}

mkdir -p "$cache/kernels" || die "cannot create $cache"
cache=$(cd "$cache" && pwd)

if [ "$print" = 1 ]; then
	for f in "$cache"/kernels/*.env; do
		[ -f "$f" ] && cat "$f" && echo
	done
	exit 0
fi

# One fetch at a time per cache folder (CI steps and a person by hand).
exec 9>"$cache/.lock"
flock 9

# ---- apt, on a configuration of its own ------------------------------
apt_dir=$cache/apt
apt_opts=(
	-o "Dir::Etc::sourcelist=$apt_dir/sources.list"
	-o Dir::Etc::sourceparts=-
	-o "Dir::Etc::preferences=$apt_dir/preferences"
	-o Dir::Etc::preferencesparts=-
	-o "Dir::State=$apt_dir/state"
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::State::status=$apt_dir/status"
	-o "Dir::Cache=$apt_dir/cache"
	-o Acquire::Languages=none
	-o APT::Architectures::=amd64
	-o APT::Get::List-Cleanup=false
	-o Debug::NoLocking=true
)

apt_setup() {
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/state" \
		"$apt_dir/cache/archives/partial" "$apt_dir/debs"
	: >"$apt_dir/status"
	: >"$apt_dir/preferences"
	cat >"$apt_dir/sources.list" <<-EOF
		deb [signed-by=$keyring] $secmirror bullseye-security main
		deb [signed-by=$keyring] $mirror trixie-backports main
		deb [signed-by=$keyring] $mirror sid main
	EOF
}

apt_update() {
	note "apt-get update (a separate configuration in $apt_dir)"
	apt-get -q "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 || {
		cat "$apt_dir/update.log" >&2
		die "apt-get update failed"
	}
}

# apt_versions PKG: "VERSION SUITE" lines for every version of PKG.
apt_versions() {
	apt-cache "${apt_opts[@]}" madison "$1" 2>/dev/null |
		awk -F' *\\| *' '{ split($3, s, " "); sub("/.*", "", s[2]); print $2, s[2] }'
}

# apt_field PKG=VER FIELD: one control field of one package version.
apt_field() {
	apt-cache "${apt_opts[@]}" show "$1" 2>/dev/null |
		awk -v f="$2:" '$1 == f { sub("^[^:]*: *", ""); print; exit }'
}

# apt_dep_name PKG=VER PATTERN: the first dependency of PKG=VER whose
# name matches the (extended) regular expression PATTERN.
apt_dep_name() {
	apt_field "$1" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' |
		grep -E -m1 "^($2)\$" || true
}

# apt_dep_ver PKG=VER NAME: the version NAME is pinned to (= V) in the
# Depends of PKG=VER.
apt_dep_ver() {
	apt_field "$1" Depends | tr ',' '\n' |
		sed -n "s/^ *$2 *(= *\([^)]*\)).*/\1/p" | head -n 1
}

# apt_fetch PKG=VER: the .deb, downloaded once into $apt_dir/debs.
apt_fetch() {
	local pkg=${1%%=*} ver=${1#*=} f
	f=$(find "$apt_dir/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
	if [ -n "$f" ] && [ "$(dpkg-deb -f "$f" Version)" = "$ver" ]; then
		echo "$f"
		return 0
	fi
	rm -f "$apt_dir/debs/${pkg}"_*.deb
	note "download $pkg $ver"
	(cd "$apt_dir/debs" && apt-get -q "${apt_opts[@]}" download "$1" \
		>"$apt_dir/download.log" 2>&1) || {
		cat "$apt_dir/download.log" >&2
		die "cannot download $1"
	}
	f=$(find "$apt_dir/debs" -maxdepth 1 -name "${pkg}_*.deb" | head -n 1)
	[ -n "$f" ] || die "apt-get download $1 left no .deb"
	echo "$f"
}

# ---- what each series is ---------------------------------------------
# resolve SERIES: sets r_suite and r_meta (linux-headers-amd64=VERSION of
# the suite that has the series' newest build).
resolve() {
	local v s best_v="" best_s=""
	while read -r v s; do
		case $1:$s in
		oldest:bullseye-security | newest:trixie-backports | newest:sid) ;;
		*) continue ;;
		esac
		if [ -z "$best_v" ] || dpkg --compare-versions "$v" gt "$best_v"; then
			best_v=$v
			best_s=$s
		fi
	done < <(apt_versions linux-headers-amd64)
	[ -n "$best_v" ] || die "no linux-headers-amd64 for the $1 series in the archive"
	r_suite=$best_s
	r_meta=linux-headers-amd64=$best_v
}

# host_gcc_major: the major version of the host's gcc.
host_gcc_major() {
	gcc -dumpversion 2>/dev/null | cut -d. -f1
}

# ---- the chroot for kernels built by a newer gcc ---------------------
# make_chroot SUITE GCC: a minbase Debian SUITE with GCC and what kbuild
# needs (created once; reused; packages added to the list later are
# installed into an existing chroot).  Prints its path.
make_chroot() {
	local suite=$1 gcc=$2 dir=$cache/chroot-$1 tmp pkgs
	pkgs="$gcc,make,libc6-dev,libelf-dev,bc,flex,bison,kmod,python3,sparse,dwarves,dkms"
	if [ -f "$dir/.libcpc-ready" ]; then
		if [ "$(cat "$dir/.libcpc-ready")" != "$pkgs" ]; then
			note "install $pkgs into $dir"
			# shellcheck disable=SC2046 # one word per package
			chroot "$dir" apt-get -q update >&2 &&
				chroot "$dir" env DEBIAN_FRONTEND=noninteractive \
					apt-get -q install -y --no-install-recommends \
					$(echo "$pkgs" | tr , ' ') >&2 &&
				chroot "$dir" apt-get clean ||
				die "cannot install $pkgs into $dir"
			echo "$pkgs" >"$dir/.libcpc-ready"
		fi
		echo "$dir"
		return 0
	fi
	command -v debootstrap >/dev/null || die "debootstrap not found (install: debootstrap)"
	[ "$(id -u)" = 0 ] || die "creating the $suite chroot needs root (debootstrap)"
	tmp=$dir.tmp
	rm -rf "$tmp"
	note "debootstrap $suite into $dir (about 2 minutes, once)"
	debootstrap --variant=minbase --include="$pkgs" \
		"$suite" "$tmp" "$mirror" >"$cache/debootstrap-$suite.log" 2>&1 || {
		tail -n 30 "$cache/debootstrap-$suite.log" >&2
		die "debootstrap $suite failed (log: $cache/debootstrap-$suite.log)"
	}
	chroot "$tmp" apt-get clean
	echo "$pkgs" >"$tmp/.libcpc-ready"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	echo "$dir"
}

# chroot_sparse CHROOT: the newest sparse in the archive, if newer than
# the chroot's own, as CHROOT/usr/local/bin/sparse.  Kernels from 6.14 on
# use __typeof_unqual__ where gcc-14 has it; Debian 13's sparse 0.6.4
# cannot parse it (sid's 0.6.5~rc1 can), and kbuild then switches C=1
# off with a warning.
chroot_sparse() {
	local dir=$1 v s best="" own deb tmp
	while read -r v s; do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done < <(apt_versions sparse)
	[ -n "$best" ] || return 0
	own=$(chroot "$dir" dpkg-query -W -f '${Version}' sparse 2>/dev/null || true)
	if [ -x "$dir/usr/local/bin/sparse" ] &&
		[ "$(cat "$dir/usr/local/bin/.sparse-version" 2>/dev/null)" = "$best" ]; then
		return 0
	fi
	dpkg --compare-versions "$best" gt "$own" || return 0
	deb=$(apt_fetch "sparse=$best")
	tmp=$(mktemp -d)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./usr/bin/sparse
	install -m 755 "$tmp/usr/bin/sparse" "$dir/usr/local/bin/sparse"
	echo "$best" >"$dir/usr/local/bin/.sparse-version"
	rm -rf "$tmp"
	note "sparse $best in $dir/usr/local/bin (the chroot's own is $own)"
}

# fix_checker_valid KDIR: kbuild (6.14 on) asks scripts/checker-valid.sh
# whether sparse can check this kernel, and Debian's linux-kbuild does
# not ship that script: C=1 is then always switched off with a warning.
# Put a script that answers the same question in its place: does the
# checker, given CHECKFLAGS, parse __typeof_unqual__ without an error?
fix_checker_valid() {
	local kdir=$1 scripts
	grep -qs 'checker-valid.sh' "$kdir/../linux-headers-"*-common/Makefile ||
		grep -qs 'checker-valid.sh' "$kdir/Makefile" || return 0
	scripts=$(readlink -f "$kdir/scripts")
	[ -d "$scripts" ] || return 0
	[ -e "$scripts/checker-valid.sh" ] && return 0
	cat >"$scripts/checker-valid.sh" <<-'EOF'
		#!/bin/sh
		# Written by libcpc's tests/kmod/fetch-kernels.sh: Debian's
		# linux-kbuild lacks kbuild's checker test.  Prints 1 when the
		# checker ("$@") parses __typeof_unqual__ without an error.
		command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
		t=$(mktemp) || exit 1
		trap 'rm -f "$t"' EXIT
		printf '%s
' 'static inline int u(const int *q)' '{' 			'	__typeof_unqual__(*q) v = *q;' '	return v;' '}' >"$t"
		if "$@" "$t" 2>&1 | grep -q error; then echo 0; else echo 1; fi
	EOF
	chmod 755 "$scripts/checker-valid.sh"
}

# unpack DEB ROOT [MEMBER...]: dpkg -x, or only the MEMBERs (tar paths).
unpack() {
	local deb=$1 root=$2
	shift 2
	mkdir -p "$root"
	if [ $# -eq 0 ]; then
		dpkg -x "$deb" "$root"
	else
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" "$@"
	fi
}

# fix_headers_makefile KDIR: the arch headers' Makefile includes the
# common part by an absolute /usr/src path; make it relative to itself,
# so the tree works wherever it is extracted (and inside a chroot).
fix_headers_makefile() {
	local mk=$1/Makefile
	grep -q '^include /usr/src/' "$mk" || return 0
	sed -i 's|^include /usr/src/\(.*\)$|include $(dir $(lastword $(MAKEFILE_LIST)))../\1|' "$mk"
	# The result must still parse and name the right release.
	grep -q '^include \$(dir \$(lastword \$(MAKEFILE_LIST)))\.\./' "$mk" ||
		die "cannot rewrite the include line of $mk"
}

# fetch SERIES: resolve, download, unpack and describe one kernel.
fetch() {
	local s=$1 hdr hver kver common kbuild gmaj img root kdir
	local kimage kcc="" kchroot="" kchroot_kdir="" ser deb
	resolve "$s"
	hdr=$(apt_dep_name "$r_meta" 'linux-headers-[0-9].*-amd64')
	[ -n "$hdr" ] || die "$r_meta names no linux-headers-KVER-amd64"
	kver=${hdr#linux-headers-}
	hver=$(apt_dep_ver "$r_meta" "$hdr")
	[ -n "$hver" ] || die "$r_meta does not pin the version of $hdr"
	common=$(apt_dep_name "$hdr=$hver" 'linux-headers-.*-common')
	kbuild=$(apt_dep_name "$hdr=$hver" 'linux-kbuild-.*')
	[ -n "$common" ] && [ -n "$kbuild" ] ||
		die "$hdr $hver: cannot find its -common and linux-kbuild packages"
	ser=$(echo "$kver" | cut -d. -f1,2)
	if [ "$s" = oldest ]; then
		img=linux-image-$kver-unsigned
	else
		img=linux-binary-$kver
	fi
	if [ -f "$cache/kernels/$kver.env" ] &&
		[ "$(sed -n 's/^KPKGVER=//p' "$cache/kernels/$kver.env")" = "'$hver'" ]; then
		note "$kver ($hver, $r_suite): up to date"
		kchroot=$(field "$cache/kernels/$kver.env" KCHROOT)
		gmaj=$(sed -n 's/^CC *=.*gcc-\([0-9][0-9]*\).*/\1/p' \
			"$(field "$cache/kernels/$kver.env" KDIR)/.kernelvariables")
		if [ -n "$kchroot" ]; then
			make_chroot "${r_suite%-backports}" "gcc-$gmaj" >/dev/null
			chroot_sparse "$kchroot"
		fi
		return 0
	fi
	note "$s series: $kver ($hver, $r_suite)"

	root=$cache/$kver
	rm -rf "$root"
	mkdir -p "$root"
	for p in "$hdr" "$common" "$kbuild"; do
		deb=$(apt_fetch "$p=$hver")
		unpack "$deb" "$root/root"
	done
	kdir=$root/root/usr/src/linux-headers-$kver
	fix_headers_makefile "$kdir"
	# The compiler the kernel was built with (CC = ... gcc-N).
	gmaj=$(sed -n 's/^CC *=.*gcc-\([0-9][0-9]*\).*/\1/p' "$kdir/.kernelvariables" 2>/dev/null)
	note "$kver was built with gcc-${gmaj:-?}; the host has gcc-$(host_gcc_major)"
	if [ -n "$gmaj" ] && [ "$gmaj" -gt "$(host_gcc_major)" ]; then
		# The host's gcc is older than the kernel's: kbuild would pass
		# it flags it does not know.  Build in a chroot of the suite,
		# with the headers inside it, at their usual place.
		kchroot=$(make_chroot "${r_suite%-backports}" "gcc-$gmaj")
		rm -rf "$kchroot/usr/src/linux-headers-$kver" \
			"$kchroot/usr/src/linux-headers-${kver%-amd64}-common" \
			"$kchroot/usr/lib/linux-kbuild-"*
		cp -a "$root/root/." "$kchroot/"
		rm -rf "$root/root"
		kdir=$kchroot/usr/src/linux-headers-$kver
		kchroot_kdir=/usr/src/linux-headers-$kver
		chroot_sparse "$kchroot"
	elif [ -n "$gmaj" ] && ! command -v "gcc-$gmaj" >/dev/null; then
		# The host's gcc is newer (5.10's gcc-10 is not in Debian 12;
		# gcc-12 builds its modules): CC=gcc.
		kcc=gcc
	fi
	fix_checker_valid "$kdir"
	deb=$(apt_fetch "$img=$hver")
	if [ "$s" = oldest ]; then
		unpack "$deb" "$root/image" ./boot
		kimage=$root/image/boot/vmlinuz-$kver
	else
		unpack "$deb" "$root/image" "./usr/lib/modules/$kver/vmlinuz"
		kimage=$root/image/usr/lib/modules/$kver/vmlinuz
	fi
	[ -r "$kimage" ] || die "$img $hver has no $kimage"
	# The headers must name the release they were packaged for.
	{
		echo "# $s series, fetched by tests/kmod/fetch-kernels.sh on $(date -u +%F)"
		printf "KVER='%s'\nKSERIES='%s'\nKSUITE='%s'\nKPKGVER='%s'\n" \
			"$kver" "$ser" "$r_suite" "$hver"
		printf "KDIR='%s'\nKIMAGE='%s'\nKCC='%s'\n" "$kdir" "$kimage" "$kcc"
		printf "KCHROOT='%s'\nKCHROOT_KDIR='%s'\n" "$kchroot" "$kchroot_kdir"
	} >"$cache/kernels/$kver.env.tmp"
	# Older builds of the same series go.
	for f in "$cache"/kernels/*.env; do
		[ -f "$f" ] || continue
		if grep -qx "KSERIES='$ser'" "$f" && ! grep -qx "KVER='$kver'" "$f"; then
			old=$(field "$f" KVER)
			note "drop the older $old"
			rm -rf "${cache:?}/$old" "$f"
			[ -z "$kchroot" ] || rm -rf "$kchroot/usr/src/linux-headers-${old%-amd64}"* \
				"$kchroot/usr/src/linux-headers-$old"
		fi
	done
	mv "$cache/kernels/$kver.env.tmp" "$cache/kernels/$kver.env"
	note "$kver ready: $cache/kernels/$kver.env"
}

# Nothing to do when every asked series is cached and no --update.
have_all=1
for s in "${series[@]}"; do
	grep -lqs "^# $s series" "$cache"/kernels/*.env || have_all=0
done
if [ "$have_all" = 1 ] && [ "$update" = 0 ]; then
	note "cached in $cache/kernels (--update asks the archive again)"
	exit 0
fi

apt_setup
apt_update
for s in "${series[@]}"; do
	fetch "$s"
done
