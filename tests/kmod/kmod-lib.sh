# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Helpers shared by vm-run and check-kmod.sh (sourced, bash): pick the
# Debian kernel and its headers, build and cache the module, extract and
# cache vmlinux, resolve libtool wrappers, write the guest's job files,
# boot qemu and read the guest's markers back.
#
# The caller sets kmod_me (its name, for messages), kmod_missing_status
# (the exit status for a missing tool) and kmod_fail_status (for other
# errors) before using these; they return results in global variables
# (KVER, KDIR, KIMAGE, KERNEL, MODULE, kmod_cache, kmod_prog, kmod_libdirs).
#
# Settings (environment):
#   KVER              kernel version to use (default: the newest pair of
#                     /usr/src/linux-headers-KVER and /boot/vmlinuz-KVER;
#                     or a kernel fetched by fetch-kernels.sh, by name;
#                     check-kmod.sh tests every one, see kmod_list_kernels)
#   KDIR, KIMAGE      headers directory and bzImage, overriding KVER's
#   KMOD_KERNELS_DIR  where fetch-kernels.sh put the kernels it fetched
#                     (/var/cache/libcpc-kernels); they are used like
#                     installed ones, each built the way it needs
#   KMOD_CACHE_DIR    where built modules and vmlinux are cached
#   KMOD_QEMU         the qemu binary (qemu-system-x86_64)
#   KMOD_ACCEL        qemu accelerator (tcg; KVM is not usable on hosts
#                     without nested virtualisation, and gives no PMU)
#   KMOD_CPU, KMOD_SMP, KMOD_MEM   guest CPU model (max), CPUs (2), RAM (1G)
#   KMOD_APPEND       extra kernel command-line words
#   KMOD_ICOUNT       qemu's -icount setting ("shift=0,sleep=off"; vm-run
#                     --icount); empty: the guest's clocks are the host's
#   KMOD_BOOT_BZIMAGE=1  boot the bzImage instead of the extracted vmlinux
#   CI=true           a missing tool is a failure, never a skip

kmod_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${kmod_me:=kmod}" "${kmod_missing_status:=77}" "${kmod_fail_status:=1}"

kmod_note() {
	echo "$kmod_me: $*" >&2
}

kmod_die() {
	kmod_note "$*"
	exit "$kmod_fail_status"
}

# kmod_missing WHAT: a required tool or file is missing: skip (exit
# $kmod_missing_status), or fail (exit 1) under CI=true.
kmod_missing() {
	if [ "${CI:-}" = true ]; then
		kmod_note "FAIL: $* (CI=true: a missing tool is a failure)"
		exit 1
	fi
	if [ "$kmod_missing_status" = 77 ]; then
		kmod_note "SKIP: $*"
	else
		kmod_note "$*"
	fi
	exit "$kmod_missing_status"
}

# kmod_need_tools TOOL...: every TOOL must be in PATH.
kmod_need_tools() {
	local t
	for t; do
		command -v "$t" >/dev/null 2>&1 ||
			kmod_missing "$t not found (install: $(kmod_package_of "$t"))"
	done
}

kmod_package_of() {
	case $1 in
	qemu-system-x86_64) echo qemu-system-x86 ;;
	busybox) echo busybox-static ;;
	modinfo) echo kmod ;;
	cpio | gzip | make | python3) echo "$1" ;;
	ldd) echo libc-bin ;;
	sparse) echo sparse ;;
	cc | gcc) echo gcc ;;
	*) echo "the package providing $1" ;;
	esac
}

# kmod_need_static_busybox: the busybox in PATH must be static (it runs
# in the guest without libraries).
kmod_need_static_busybox() {
	kmod_need_tools busybox
	if LC_ALL=C ldd "$(command -v busybox)" >/dev/null 2>&1; then
		kmod_missing "$(command -v busybox) is dynamically linked" \
			"(install: busybox-static)"
	fi
}

# The kernels fetched by fetch-kernels.sh (5.10 and the newest Debian
# kernel): one descriptor per kernel in $kmod_kernels/kernels/KVER.env.
kmod_kernels=${KMOD_KERNELS_DIR:-/var/cache/libcpc-kernels}

# kmod_list_kernels [--installed]: prints, oldest first, every KVER that
# has both /usr/src/linux-headers-KVER and a readable /boot/vmlinuz-KVER
# (the installed Debian kernels), and, unless --installed, every kernel
# fetch-kernels.sh fetched.
kmod_list_kernels() {
	local d k f
	{
		for d in /usr/src/linux-headers-*; do
			k=${d#/usr/src/linux-headers-}
			if [ -f "$d/Makefile" ] && [ -r "/boot/vmlinuz-$k" ]; then
				echo "$k"
			fi
		done
		[ "${1:-}" = --installed ] && return 0
		for f in "$kmod_kernels"/kernels/*.env; do
			[ -f "$f" ] || continue
			k=$(basename "$f" .env)
			(kmod_read_descriptor "$k" && [ -f "$KDIR/Makefile" ] &&
				[ -r "$KIMAGE" ]) && echo "$k"
		done
	} | sort -uV
}

# kmod_series_kernel SERIES: the newest kernel of SERIES (a version
# prefix: "5.10", "6.12", "7" is any 7.x), empty if there is none.
kmod_series_kernel() {
	kmod_list_kernels | awk -v s="$1" 'index($0, s ".") == 1' | tail -n 1
}

# kmod_read_descriptor KVER: sets KDIR, KIMAGE, KCC, KCHROOT and
# KCHROOT_KDIR from fetch-kernels.sh's descriptor of KVER; false if KVER
# was not fetched.
kmod_read_descriptor() {
	local f=$kmod_kernels/kernels/$1.env
	[ -f "$f" ] || return 1
	KDIR=$(kmod_descriptor_field "$f" KDIR)
	KIMAGE=$(kmod_descriptor_field "$f" KIMAGE)
	KCC=$(kmod_descriptor_field "$f" KCC)
	KCHROOT=$(kmod_descriptor_field "$f" KCHROOT)
	KCHROOT_KDIR=$(kmod_descriptor_field "$f" KCHROOT_KDIR)
}

# kmod_descriptor_field FILE NAME: the value of NAME='VALUE' in FILE.
kmod_descriptor_field() {
	sed -n "s/^$2='\\(.*\\)'\$/\\1/p" "$1" | head -n 1
}

# kmod_pick_kernel: sets KVER, KDIR (headers) and KIMAGE (bzImage): the
# newest installed version that has both (else the newest fetched one),
# unless set (KVER may name a fetched kernel); and how to build for it (KCC,
# KCHROOT, KCHROOT_KDIR: see kmod_make).  Never `uname -r`: the host
# kernel is not the one the guest boots.
kmod_pick_kernel() {
	local kdir=${KDIR:-} kimage=${KIMAGE:-}
	KCC=${KCC:-} KCHROOT=${KCHROOT:-} KCHROOT_KDIR=${KCHROOT_KDIR:-}
	if [ -z "${KVER:-}" ] && [ -z "$kdir" ]; then
		KVER=$(kmod_list_kernels --installed | tail -n 1)
		[ -n "$KVER" ] || KVER=$(kmod_list_kernels | tail -n 1)
		[ -n "$KVER" ] || kmod_missing "no /usr/src/linux-headers-KVER" \
			"with a readable /boot/vmlinuz-KVER (install:" \
			"linux-image-amd64 linux-headers-amd64), and no kernel" \
			"fetched by tests/kmod/fetch-kernels.sh"
	fi
	if [ -z "${KVER:-}" ]; then
		KVER=$(make -s -C "$kdir" kernelrelease 2>/dev/null) ||
			kmod_die "cannot get the kernel release of $kdir"
	fi
	if [ ! -f "/usr/src/linux-headers-$KVER/Makefile" ] &&
		kmod_read_descriptor "$KVER"; then
		# A fetched kernel; KDIR and KIMAGE set by hand still win.
		KDIR=${kdir:-$KDIR}
		KIMAGE=${kimage:-$KIMAGE}
	else
		KDIR=${kdir:-/usr/src/linux-headers-$KVER}
		KIMAGE=${kimage:-/boot/vmlinuz-$KVER}
		# An installed kernel builds with the host's own compiler
		# (settings inherited for another kernel do not apply).
		if [ -z "$kdir" ]; then
			KCC='' KCHROOT='' KCHROOT_KDIR=''
		fi
	fi
	[ -f "$KDIR/Makefile" ] || kmod_missing "no kernel headers in $KDIR" \
		"(tests/kmod/fetch-kernels.sh fetches 5.10 and the newest kernel)"
	[ -r "$KIMAGE" ] || kmod_missing "cannot read the kernel image $KIMAGE"
	export KVER KDIR KIMAGE KCC KCHROOT KCHROOT_KDIR
}

# kmod_make DIR MAKE-ARGS...: runs kbuild for the external module in DIR
# against KDIR: `make -C KDIR M=DIR [CC=KCC] MAKE-ARGS`, on the host, or,
# when KCHROOT is set (the kernel's compiler is newer than the host's),
# inside that chroot, with DIR bind-mounted at the same path in a mount
# namespace of its own (so nothing stays mounted) and KCHROOT_KDIR as
# the headers.
kmod_make() {
	local dir=$1
	shift
	local -a ccarg=()
	[ -z "${KCC:-}" ] || ccarg=("CC=$KCC")
	if [ -z "${KCHROOT:-}" ]; then
		make -C "$KDIR" M="$dir" "${ccarg[@]}" "$@"
		return
	fi
	[ "$(id -u)" = 0 ] || kmod_missing "building for $KVER needs its" \
		"chroot $KCHROOT, and so root (chroot, mount --bind)"
	command -v unshare >/dev/null 2>&1 || kmod_missing "unshare not found"
	mkdir -p "$KCHROOT$dir" || kmod_die "cannot create $KCHROOT$dir"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m --propagation private sh -c '
		mount --bind "$1" "$2$1" || exit 1
		mount -t proc proc "$2/proc" || exit 1
		d=$1 c=$2 k=$3
		shift 3
		exec chroot "$c" env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/ LC_ALL=C.UTF-8 make -C "$k" M="$d" "$@"
	' kmod-make "$dir" "$KCHROOT" "$KCHROOT_KDIR" "${ccarg[@]}" "$@"
	local rc=$?
	rmdir "$KCHROOT$dir" 2>/dev/null
	return "$rc"
}

# kmod_cache_init: sets and creates kmod_cache.
kmod_cache_init() {
	kmod_cache=${KMOD_CACHE_DIR:-${TMPDIR:-/tmp}/libcpc-kmod-cache-$(id -u)}
	mkdir -p "$kmod_cache" || kmod_die "cannot create $kmod_cache"
	kmod_cache=$(cd "$kmod_cache" && pwd)
}

# kmod_kernel: sets KERNEL, what qemu boots: vmlinux extracted from
# KIMAGE (cached; boots about 5 s faster under TCG through PVH), or
# KIMAGE itself when that is not possible.
kmod_kernel() {
	local key vmlinux
	KERNEL=$KIMAGE
	[ "${KMOD_BOOT_BZIMAGE:-0}" = 1 ] && return 0
	if ! command -v python3 >/dev/null 2>&1; then
		kmod_note "no python3: booting the bzImage (slower)"
		return 0
	fi
	key=$(stat -L -c '%s-%Y' "$KIMAGE")
	vmlinux=$kmod_cache/vmlinux-$KVER-$key
	if [ ! -s "$vmlinux" ]; then
		rm -f "$kmod_cache/vmlinux-$KVER"-*
		if ! python3 "$kmod_here/extract-vmlinux.py" "$KIMAGE" "$vmlinux"
		then
			kmod_note "cannot extract vmlinux: booting the bzImage"
			return 0
		fi
	fi
	KERNEL=$vmlinux
}

# kmod_build_module SRCDIR NAME: builds NAME.ko from the sources in SRCDIR
# against KDIR in a copy under the cache (kbuild writes its objects next
# to the sources), unless the same sources were built for KVER before.
# Sets MODULE to the .ko; the build log stays beside it (build.log).
# KMOD_BUILD_FLAGS: extra kbuild words (e.g. "W=1 C=1").  Dies, printing
# the build log, if it fails.
kmod_build_module() {
	local src=$1 name=$2 hash dir tmp f
	[ -d "$src" ] || kmod_die "no module sources: $src"
	src=$(cd "$src" && pwd)
	# The sources: C, headers, assembler, Kbuild/Makefile, not kbuild's
	# own outputs (*.mod.c) from an in-tree build.
	local -a files=()
	while IFS= read -r -d '' f; do
		files+=("${f#./}")
	done < <(cd "$src" && find . -type f \( -name '*.[chS]' \
		-o -name Kbuild -o -name Makefile -o -name '*.lds' \) \
		! -name '*.mod.c' -print0 | LC_ALL=C sort -z)
	[ -e "$src/Kbuild" ] || [ -e "$src/Makefile" ] ||
		kmod_die "no Kbuild or Makefile in $src"
	# The key: the sources, KVER, and the headers' symbol versions.
	hash=$( (cd "$src" && sha256sum -- "${files[@]}"
		echo "$KVER $KDIR ${KMOD_BUILD_FLAGS:-}"
		stat -L -c '%s %Y' "$KDIR/Module.symvers" 2>/dev/null) |
		sha256sum | cut -c1-16)
	dir=$kmod_cache/module-$KVER-$hash
	MODULE=$dir/$name.ko
	[ -s "$MODULE" ] && return 0
	tmp=$(mktemp -d "$kmod_cache/module.tmp.XXXXXX")
	(cd "$src" && cp --parents -- "${files[@]}" "$tmp/")
	# shellcheck disable=SC2086 # the flags are words
	if ! kmod_make "$tmp" ${KMOD_BUILD_FLAGS:-} modules \
		>"$tmp/build.log" 2>&1; then
		cat "$tmp/build.log" >&2
		rm -rf "$tmp"
		kmod_die "the module does not build against $KDIR"
	fi
	if [ ! -s "$tmp/$name.ko" ]; then
		cat "$tmp/build.log" >&2
		rm -rf "$tmp"
		kmod_die "the build made no $name.ko"
	fi
	rm -rf "$dir"
	mv "$tmp" "$dir" || kmod_die "cannot move the build to $dir"
	# Keep the 8 most recent builds.
	find "$kmod_cache" -maxdepth 1 -name 'module-*' -type d -printf '%T@ %p\n' |
		sort -rn | sed '1,8d; s/^[^ ]* //' | while IFS= read -r old; do
			rm -rf "$old"
		done
}

# kmod_check_vermagic KO: the module's vermagic must start with KVER.
kmod_check_vermagic() {
	local vm
	vm=$(modinfo -F vermagic "$1" 2>/dev/null) ||
		kmod_die "modinfo cannot read $1"
	if [ "${vm%% *}" != "$KVER" ]; then
		kmod_die "vermagic of $1 is '$vm', not for $KVER"
	fi
	# shellcheck disable=SC2034 # for the caller
	kmod_vermagic=$vm
}

# kmod_real_program PATH: sets kmod_prog to the executable behind PATH
# (the binary in .libs/ if PATH is a libtool wrapper script; PATH made
# absolute otherwise) and appends the wrapper's library directories to
# kmod_libdirs.
# shellcheck disable=SC2034 # kmod_prog is for the caller
kmod_real_program() {
	local p=$1 dir name prog lp
	case $p in
	*/*) ;;
	*) p=$(command -v -- "$p") || kmod_die "$1: command not found" ;;
	esac
	case $p in /*) ;; *) p=$PWD/$p ;; esac
	if [ ! -f "$p" ] || [ ! -x "$p" ]; then
		kmod_die "$p is not an executable file"
	fi
	kmod_prog=$p
	if head -n 10 -- "$p" 2>/dev/null | grep -q 'Generated by libtool\|temporary wrapper script for'; then
		dir=$(dirname "$p")
		name=$(basename "$p")
		# program='NAME' or program=lt-'NAME' (a relinked copy).
		prog=$(sed -n "s/^[[:space:]]*program=//p" "$p" | head -n 1 | tr -d "'\"")
		if [ -n "$prog" ] && [ -x "$dir/.libs/$prog" ]; then
			kmod_prog=$dir/.libs/$prog
		elif [ -x "$dir/.libs/$name" ]; then
			kmod_prog=$dir/.libs/$name
		else
			kmod_die "$p is a libtool wrapper, but $dir/.libs/$name does not exist"
		fi
		# shellcheck disable=SC2016 # a literal $ in the pattern
		lp=$(sed -n 's/^[[:space:]]*LD_LIBRARY_PATH="\(.*\):\$LD_LIBRARY_PATH"$/\1/p' "$p" | head -n 1)
		if [ -n "$lp" ]; then
			local IFS=:
			# shellcheck disable=SC2206
			kmod_libdirs+=($lp)
		fi
	fi
}

# kmod_quote WORD...: the words quoted for sh, space-separated.
kmod_quote() {
	local w q="'\\''"
	for w; do
		printf "'%s' " "${w//\'/$q}"
	done
}

# kmod_nonce: a random marker prefix for one boot.
kmod_nonce() {
	od -An -tx1 -N8 /dev/urandom | tr -d ' \n'
}

# kmod_write_conf FILE NONCE CWD LIBPATH PARANOID: the guest's job.conf.
kmod_write_conf() {
	{
		echo "VM_NONCE=$(kmod_quote "$2")"
		echo "VM_CWD=$(kmod_quote "$3")"
		echo "VM_LIBPATH=$(kmod_quote "$4")"
		echo "VM_PARANOID=$(kmod_quote "$5")"
	} >"$1"
}

# kmod_boot WORK INITRD TIMEOUT: boots the guest; the console goes to
# WORK/console.log, the data channel (ttyS1) to WORK/data.log.  Returns
# qemu's status (124: killed by the timeout, i.e. a hang).  qemu's own
# exit status says nothing about the tests: a panicking guest reboots, and
# -no-reboot turns that into a normal exit; only the markers count.
kmod_boot() {
	local work=$1 initrd=$2 tmo=$3 rc
	case $work in *,*) kmod_die "commas in $work confuse qemu" ;; esac
	local -a cmd=(
		"${KMOD_QEMU:-qemu-system-x86_64}"
		-accel "${KMOD_ACCEL:-tcg}" -cpu "${KMOD_CPU:-max}"
		-smp "${KMOD_SMP:-1}" -m "${KMOD_MEM:-1G}"
		-display none -nodefaults -no-reboot
		-serial "file:$work/console.log"
		-serial "file:$work/data.log"
		-kernel "$KERNEL" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 ${KMOD_APPEND:-}"
	)
	# Counts that follow work: qemu's clocks advance 2^shift ns per
	# executed instruction (vm-run --icount).
	[ -n "${KMOD_ICOUNT:-}" ] && cmd+=(-icount "$KMOD_ICOUNT")
	timeout -k 5 "$tmo" "${cmd[@]}" </dev/null >"$work/qemu.log" 2>&1
	rc=$?
	return "$rc"
}

# kmod_parse WORK NONCE: splits WORK/data.log into the steps' outputs.
# Writes WORK/steps ("ID RC SECONDS [TIMEOUT]" per finished step, in
# order; "ID - - UNFINISHED" for a step that began and never ended),
# WORK/out/ID (each step's output) and WORK/markers (the other markers).
# Text before a marker on the same line (output without a final newline)
# goes to the step it belongs to.
kmod_parse() {
	local work=$1 nonce=$2
	mkdir -p "$work/out"
	: >"$work/steps"
	: >"$work/markers"
	[ -f "$work/data.log" ] || return 0
	LC_ALL=C awk -v pfx="@@${nonce}@@ " -v dir="$work/out" \
		-v steps="$work/steps" -v markers="$work/markers" '
		function emit(s) { if (cur != "") print s > (dir "/" cur) }
		{
			i = index($0, pfx)
			if (i == 0) { emit($0); next }
			if (i > 1) emit(substr($0, 1, i - 1))
			n = split(substr($0, i + length(pfx)), w, " ")
			if (w[1] == "BEGIN" && n >= 2) {
				cur = w[2]
				printf "" > (dir "/" cur)
			} else if (w[1] == "END" && n >= 4) {
				if (cur != "") close(dir "/" cur)
				print w[2], w[3], w[4], (n >= 5 ? w[5] : "") > steps
				cur = ""
			} else {
				print substr($0, i + length(pfx)) > markers
			}
		}
		END { if (cur != "") print cur, "-", "-", "UNFINISHED" > steps }
	' "$work/data.log"
}

# kmod_step_field WORK ID N: field N (2 rc, 3 seconds, 4 note) of step ID,
# empty if the step never ran.
kmod_step_field() {
	awk -v id="$2" -v n="$3" '$1 == id { print $n; exit }' "$1/steps"
}

# kmod_marker WORK TEXT: true if the marker TEXT was seen.
kmod_marker() {
	grep -qxF -- "$2" "$1/markers"
}

# kmod_console_crash WORK: prints (and returns 0 for) a kernel panic,
# oops or BUG on the guest console, with the lines that follow.
KMOD_CRASH_RE='Kernel panic|Oops|BUG:|kernel BUG at|general protection fault|Call Trace'
kmod_console_crash() {
	local log=$1/console.log
	[ -f "$log" ] && grep -qE "$KMOD_CRASH_RE" "$log" || return 1
	echo "---- guest console (from the first crash line) ----"
	tr -d '\r' <"$log" |
		awk -v re="$KMOD_CRASH_RE" 'f || $0 ~ re { f = 1; print }' |
		head -n 80
	echo "----"
	return 0
}

# kmod_console_tail WORK [N]: the last N (30) console lines.
kmod_console_tail() {
	echo "---- guest console (last ${2:-30} lines) ----"
	tr -d '\r' <"$1/console.log" 2>/dev/null | tail -n "${2:-30}"
	echo "----"
}
