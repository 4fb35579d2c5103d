#!/bin/bash
# SPDX-License-Identifier: MIT
# quick-boot.sh: build kmod/ (cpc.ko) and kmod_test (tests/kmod/ktest), boot
# Debian's kernel under qemu (TCG) with a busybox initramfs, and in the
# guest: insmod, kmod_test as root, --user and --stranger, rmmod, a second
# insmod/kmod_test/rmmod round, and a dmesg check for BUG/WARNING/Oops/
# refcount messages.
#
# Usage: tests/kmod/quick-boot.sh [-v] [-k]
#   -v  print the whole serial log (it is printed anyway on failure)
#   -k  keep the build directory
# Environment:
#   KVER           kernel release (default: the newest one with both
#                  /usr/src/linux-headers-KVER and /boot/vmlinuz-KVER)
#   KMOD_BUILD     build directory (default: a new temporary directory)
#   KMOD_CACHE     where the extracted vmlinux is cached
#                  (default: ${XDG_CACHE_HOME:-$HOME/.cache}/libcpc-kmod)
#   QEMU_TIMEOUT   seconds before the guest counts as hung (default 300)
#   QEMU_SMP       guest CPUs (default 2)
#   KMOD_APPEND    extra kernel command line (e.g. "loglevel=7" to see the
#                  stack traces that "quiet" hides)
#   KMOD_TEST_ARGS extra kmod_test arguments (e.g. "stress --repeat 20";
#                  kmod_test -l lists the tests)
#
# Exit status: 0 pass, 1 fail, 77 skip (tools or kernel missing).
# Only the guest's marker "KMOD-GUEST-RESULT: PASS" means a pass: qemu exits
# 0 after a guest panic too, and timeout's 124 means a hang.
set -euo pipefail

verbose=0
keep=0
while getopts vk opt; do
	case $opt in
	v) verbose=1 ;;
	k) keep=1 ;;
	*) echo "usage: $0 [-v] [-k]" >&2; exit 2 ;;
	esac
done

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

skip() { echo "quick-boot: SKIP: $*" >&2; exit 77; }
fail() { echo "quick-boot: FAIL: $*" >&2; exit 1; }

for tool in qemu-system-x86_64 cpio gzip gcc make timeout; do
	command -v "$tool" >/dev/null || skip "$tool not installed"
done
busybox=
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && file -L "$b" 2>/dev/null | grep -q 'statically'; then
		busybox=$b
		break
	fi
done
[ -n "$busybox" ] || busybox=$(command -v busybox || true)
[ -n "$busybox" ] || skip "busybox (static) not installed"

# The kernel: headers and image of the same release, never uname -r.
if [ -z "${KVER:-}" ]; then
	KVER=$(for d in /usr/src/linux-headers-*-amd64; do
			[ -d "$d" ] || continue
			v=${d#/usr/src/linux-headers-}
			[ -r "/boot/vmlinuz-$v" ] && echo "$v"
		done | sort -V | tail -n 1)
fi
[ -n "$KVER" ] || skip "no /usr/src/linux-headers-*-amd64 with /boot/vmlinuz"
KDIR=/usr/src/linux-headers-$KVER
[ -d "$KDIR" ] && [ -r "/boot/vmlinuz-$KVER" ] ||
	skip "kernel $KVER: headers or image missing"

if [ -n "${KMOD_BUILD:-}" ]; then
	build=$KMOD_BUILD
	mkdir -p "$build"
else
	build=$(mktemp -d /tmp/kmod-quick.XXXXXX)
	[ "$keep" = 1 ] || trap 'rm -rf "$build"' EXIT
fi
cache=${KMOD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcpc-kmod}
mkdir -p "$cache"
echo "quick-boot: kernel $KVER, build in $build"

# 1. The module, built from a copy so that kmod/ stays clean.
rm -rf "$build/mod"
mkdir -p "$build/mod/uapi"
cp "$top"/kmod/*.c "$top"/kmod/*.h "$top"/kmod/Kbuild "$build/mod/"
cp "$top"/kmod/uapi/*.h "$build/mod/uapi/"
make -s -C "$KDIR" M="$build/mod" modules >"$build/kbuild.log" 2>&1 ||
	{ cat "$build/kbuild.log"; fail "module build"; }
grep -v 'Skipping BTF generation' "$build/kbuild.log" || true
vermagic=$(modinfo -F vermagic "$build/mod/cpc.ko" 2>/dev/null ||
	strings "$build/mod/cpc.ko" | sed -n 's/^vermagic=//p')
case "$vermagic" in
"$KVER "*) ;;
*) fail "cpc.ko vermagic '$vermagic' does not match $KVER" ;;
esac

# 2. The test program.
gcc -O2 -Wall -Wextra -static -pthread -I"$top/kmod/uapi" \
	-o "$build/kmod_test" "$top"/tests/kmod/ktest/*.c || fail "kmod_test build"

# 3. The kernel to boot: the uncompressed vmlinux (PVH entry) boots in
# about half the time of the bzImage under TCG.  Cached.
kernel=$cache/vmlinux-$KVER
if [ ! -s "$kernel" ] && command -v python3 >/dev/null; then
	python3 - "/boot/vmlinuz-$KVER" "$kernel.tmp" <<'EOF' &&
import lzma
import sys

data = open(sys.argv[1], "rb").read()
magic = b"\xfd7zXZ\x00"
pos = data.find(magic)
while pos >= 0:
    try:
        dec = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        out = dec.decompress(data[pos:])
        if out[:4] == b"\x7fELF":
            open(sys.argv[2], "wb").write(out)
            sys.exit(0)
    except lzma.LZMAError:
        pass
    pos = data.find(magic, pos + 1)
sys.exit(1)
EOF
		mv "$kernel.tmp" "$kernel" || rm -f "$kernel.tmp"
fi
[ -s "$kernel" ] || kernel=/boot/vmlinuz-$KVER

# 4. The initramfs.
root=$build/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
chmod 755 "$root"
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$build/mod/cpc.ko" "$build/kmod_test" "$root/"
printf 'TEST_ARGS="%s"\n' "${KMOD_TEST_ARGS:-}" >"$root/test-args"
cat >"$root/init" <<'EOF'
#!/bin/sh
. /test-args
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo GUEST-BOOTED
ok=1
for round in 1 2; do
	if insmod /cpc.ko; then
		# No udev here: what kmod/60-cpc.rules does (group cpc = 990).
		chgrp 990 /dev/cpc && chmod 0660 /dev/cpc
		echo "INSMOD-OK $round"
	else
		echo "INSMOD-FAILED $round"
		ok=0
		break
	fi
	for mode in "" --user --stranger; do
		# TAP; exit status 0 when no test failed.
		/kmod_test $mode $TEST_ARGS >/tmp/test.log 2>&1 || ok=0
		cat /tmp/test.log
	done
	if rmmod cpc; then
		echo "RMMOD-OK $round"
	else
		echo "RMMOD-FAILED $round"
		ok=0
	fi
done
if dmesg | grep -E 'BUG|WARNING|Oops|refcount'; then
	echo "DMESG-BAD"
	ok=0
fi
if [ $ok = 1 ]; then
	echo "KMOD-GUEST-RESULT: PASS"
else
	dmesg | tail -n 40
	echo "KMOD-GUEST-RESULT: FAIL"
fi
echo GUEST-DONE
poweroff -f
EOF
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) \
	>"$build/initramfs.cpio.gz"

# 5. Boot.
log=$build/serial.log
start=$(date +%s)
set +e
timeout -k 5 "${QEMU_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -cpu max \
	-smp "${QEMU_SMP:-2}" -m 512M -nographic -nodefaults -serial stdio \
	-no-reboot -kernel "$kernel" -initrd "$build/initramfs.cpio.gz" \
	-append "console=ttyS0 quiet panic=-1 oops=panic ${KMOD_APPEND:-}" \
	</dev/null >"$log" 2>&1
rc=$?
set -e
secs=$(($(date +%s) - start))

if grep -q '^KMOD-GUEST-RESULT: PASS' "$log"; then
	[ "$verbose" = 1 ] && cat "$log"
	grep -E '^(not ok|# FAIL|# kmod_test:|INSMOD|RMMOD)' "$log" || true
	echo "quick-boot: PASS (qemu ${secs}s)"
	exit 0
fi
cat "$log"
[ $rc = 124 ] && fail "guest hung (timeout after ${secs}s)"
fail "no KMOD-GUEST-RESULT: PASS (qemu rc $rc, ${secs}s)"
