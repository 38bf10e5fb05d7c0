#!/usr/bin/env bash
# bench/throttled_storage.sh - two slow disks for the "storage" scenario,
# built from Debian packages only (nbdkit, libnbd-bin, fuse3).
#
# Sourced by bench/run-bench.sh and bench/scenarios/storage.sh; run on its
# own it measures a pair of volumes and tears them down:
#
#   sudo bench/throttled_storage.sh probe      the dd figures of both volumes
#   sudo bench/throttled_storage.sh check      why the scenario would skip
#
# One volume, from the bottom up:
#
#   golden image (ext4, made by mkfs.ext4 -d from a directory, on the
#     machine's own disk; never written after that)
#   nbdkit file plugin + cow filter: the run's writes go to a throwaway
#     overlay, so every run starts from the same bytes without a copy
#   + delay filter: every write request waits STORAGE_WRITE_DELAY (1 ms),
#     the service time of a networked cloud disk
#   + rate filter: at most STORAGE_RATE bits a second each way (64M =
#     8 MB/s = 1000 × 8 kB; 2 s of burst, nbdkit's default)
#   served on a Unix socket (nothing listens on the network)
#   nbdfuse: the NBD export as a file, DIR/nbd
#   losetup --direct-io=on: a block device on that file, no second page cache
#   mkfs'd already (the golden image), mounted
#
# With these a single writer of 8 kB O_DIRECT writes gets about 600 IOPS
# (1 ms of delay plus the FUSE and NBD round trips), several writers up to
# the rate cap.  The article the scenario reproduces had 2000 IOPS for data
# and 2000 for WAL, on separate volumes; at 128M (2000 × 8 kB a second)
# stock's forced checkpoint made no
# lasting drop here (bench/experiments/storage-throttle), where this
# machine's page cache serves every read the article's sent to disk, so
# the default is half that bandwidth: a 1000-IOPS-class volume for 8 kB
# pages, still about 600 IOPS for one writer.
# Reads are throttled alike, but the machine's page cache serves most of
# them (see the scenario).
#
# Everything is torn down by storage_down (umount, losetup -d, fusermount
# -u, kill nbdfuse and nbdkit), which the scenario calls from its exit trap.

: "${STORAGE_RATE:=64M}"
: "${STORAGE_WRITE_DELAY:=1ms}"
: "${STORAGE_READ_DELAY:=0ms}"

STORAGE_PACKAGES=(nbdkit libnbd-bin fuse3)

# storage_missing: prints why the throttled volumes cannot be built here
# (nothing if they can); for "SKIP storage: <reason>"
storage_missing() {
    if ((EUID != 0)); then
        echo "not root (losetup and mount need it)"
        return
    fi
    [[ -c /dev/fuse ]] || { echo "no /dev/fuse"; return; }
    [[ -e /dev/loop-control ]] || { echo "no /dev/loop-control (loop devices)"; return; }
    local p
    for p in "${STORAGE_PACKAGES[@]}"; do
        dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || {
            echo "package $p is not installed"
            return
        }
    done
    local c
    for c in nbdkit nbdfuse losetup mkfs.ext4 fusermount3 mount umount; do
        command -v "$c" >/dev/null || { echo "no $c"; return; }
    done
    nbdkit --filter=rate --filter=delay --filter=cow file --dump-plugin >/dev/null 2>&1 ||
        { echo "nbdkit lacks the file plugin or the rate, delay or cow filter"; return; }
}

# storage_install: the packages, from the machine's own apt sources
storage_install() {
    local missing=() p
    for p in "${STORAGE_PACKAGES[@]}"; do
        dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    echo "=== installing ${missing[*]} (throttled storage)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null ||
        { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; } || true
}

# storage_image SRCDIR IMAGE SIZE [BYTES_PER_INODE]: an ext4 image of SIZE
# (sparse) holding SRCDIR's contents, owners and modes (mkfs.ext4 -d).
# Its inode tables and journal are written now, not by ext4's lazy init in
# the background of a run, where they would take the throttled volume's
# bandwidth; fewer inodes (WAL segments are 16 MB) make that quicker.
storage_image() {
    rm -f "$2"
    truncate -s "$3" "$2"
    mkfs.ext4 -q -F -i "${4:-16384}" -E lazy_itable_init=0,lazy_journal_init=0 -d "$1" "$2"
}

# storage_volume_up NAME IMAGE MOUNTPOINT: one throttled volume of IMAGE at
# MOUNTPOINT; its state (socket, pids, loop device) in $STORAGE_DIR/NAME.*
storage_volume_up() {
    local name=$1 image=$2 mnt=$3 dir=$STORAGE_DIR
    local sock=$dir/$name.sock fuse=$dir/$name.fuse
    mkdir -p "$fuse" "$mnt"
    # the cow filter's overlay goes to TMPDIR: keep it in the scratch dir
    TMPDIR=$dir nbdkit -f -U "$sock" \
        --filter=rate --filter=delay --filter=cow \
        file file="$image" \
        rate="$STORAGE_RATE" rate-file="$dir/$name.rate" delay-write="$STORAGE_WRITE_DELAY" delay-read="$STORAGE_READ_DELAY" \
        >"$dir/$name.nbdkit.log" 2>&1 &
    echo $! >"$dir/$name.nbdkit.pid"
    local i
    for i in $(seq 50); do [[ -S $sock ]] && break; sleep 0.1; done
    [[ -S $sock ]] || { echo "storage: nbdkit for $name did not start" >&2; cat "$dir/$name.nbdkit.log" >&2; return 1; }
    nbdfuse "$fuse" --unix "$sock" >"$dir/$name.nbdfuse.log" 2>&1 &
    echo $! >"$dir/$name.nbdfuse.pid"
    for i in $(seq 50); do [[ -e $fuse/nbd ]] && break; sleep 0.1; done
    [[ -e $fuse/nbd ]] || { echo "storage: nbdfuse for $name did not start" >&2; cat "$dir/$name.nbdfuse.log" >&2; return 1; }
    local loop
    loop=$(losetup --direct-io=on -f --show "$fuse/nbd")
    echo "$loop" >"$dir/$name.loop"
    mount -o noatime "$loop" "$mnt"
    echo "$mnt" >"$dir/$name.mnt"
}

# storage_unthrottle: lifts both volumes' bandwidth cap (the delay stays),
# so that what the kernel still has to write when a run's volumes are
# unmounted, thrown away anyway, takes seconds rather than minutes
storage_unthrottle() {
    local name
    for name in data wal; do
        [[ -e $STORAGE_DIR/$name.sock ]] || continue
        echo 100G >"$STORAGE_DIR/$name.rate.new"
        mv -f "$STORAGE_DIR/$name.rate.new" "$STORAGE_DIR/$name.rate"
    done
    sleep 1.5
}

# storage_volume_down NAME: the reverse; never fails, safe to repeat
storage_volume_down() {
    local name=$1 dir=$STORAGE_DIR pid
    if [[ -e $dir/$name.mnt ]]; then
        umount "$(cat "$dir/$name.mnt")" 2>/dev/null || umount -l "$(cat "$dir/$name.mnt")" 2>/dev/null || true
        rm -f "$dir/$name.mnt"
    fi
    if [[ -e $dir/$name.loop ]]; then
        losetup -d "$(cat "$dir/$name.loop")" 2>/dev/null || true
        rm -f "$dir/$name.loop"
    fi
    if [[ -d $dir/$name.fuse ]]; then
        fusermount3 -u "$dir/$name.fuse" 2>/dev/null || umount -l "$dir/$name.fuse" 2>/dev/null || true
    fi
    for pid in nbdfuse nbdkit; do
        if [[ -e $dir/$name.$pid.pid ]]; then
            pid=$(cat "$dir/$name.$pid.pid")
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
        fi
    done
    rm -f "$dir/$name".*.pid "$dir/$name.sock" "$dir/$name.rate"
}

# storage_down: both volumes, whatever state they are in
storage_down() {
    [[ -n ${STORAGE_DIR:-} && -d $STORAGE_DIR ]] || return 0
    storage_volume_down data
    storage_volume_down wal
}

# storage_dd NAME MOUNTPOINT COUNT: the volume's figures into stdout as
# key,value lines: 8 kB O_DIRECT writes (IOPS) and 8 kB O_DSYNC writes
# (each waits for the disk, as a commit's WAL flush does), one writer
storage_dd() {
    local name=$1 mnt=$2 count=$3 out
    out=$(dd if=/dev/zero of="$mnt/dd-probe" bs=8k count="$count" oflag=direct 2>&1 | tail -n 1 | tr , \;)
    awk -v n="$name" -v c="$count" -v line="$out" 'BEGIN {
        split(line, f, " "); s = f[8];
        printf "storage_%s_dd_direct_8k,%s\n", n, line;
        if (s > 0) printf "storage_%s_direct_8k_iops,%.0f\n", n, c / s }'
    rm -f "$mnt/dd-probe"
    local dcount=$((count / 4))
    out=$(dd if=/dev/zero of="$mnt/dd-probe" bs=8k count="$dcount" oflag=dsync 2>&1 | tail -n 1 | tr , \;)
    awk -v n="$name" -v c="$dcount" -v line="$out" 'BEGIN {
        split(line, f, " "); s = f[8];
        printf "storage_%s_dd_dsync_8k,%s\n", n, line;
        if (s > 0) printf "storage_%s_dsync_8k_ms,%.2f\n", n, 1000 * s / c }'
    rm -f "$mnt/dd-probe"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    case ${1:-} in
    check)
        reason=$(storage_missing)
        if [[ -n $reason ]]; then echo "SKIP storage: $reason"; exit 1; fi
        echo "storage: everything needed is here"
        ;;
    probe)
        storage_install
        reason=$(storage_missing)
        if [[ -n $reason ]]; then echo "SKIP storage: $reason"; exit 1; fi
        STORAGE_DIR=$(mktemp -d /tmp/walsizer-storage.XXXXXX)
        trap 'storage_down; rm -rf --one-file-system "$STORAGE_DIR"' EXIT
        mkdir -p "$STORAGE_DIR/empty"
        storage_image "$STORAGE_DIR/empty" "$STORAGE_DIR/probe.img" 2G
        echo "rate=$STORAGE_RATE delay-write=$STORAGE_WRITE_DELAY delay-read=$STORAGE_READ_DELAY"
        for v in data wal; do
            storage_volume_up "$v" "$STORAGE_DIR/probe.img" "$STORAGE_DIR/$v.mnt.d"
            storage_dd "$v" "$STORAGE_DIR/$v.mnt.d" "${2:-2000}"
        done
        ;;
    *)
        echo "usage: $0 check|probe [COUNT]" >&2
        exit 2
        ;;
    esac
fi
