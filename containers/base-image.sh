#!/bin/sh
# Makes the Debian base every image in Dockerfile starts from, without a registry: debootstrap
# (minbase) from Debian's mirror, imported into podman as localhost/bluemoon-debian:bookworm.
# About 1-2 minutes; run once per machine (containers/smoke.py runs it when the image is absent).
set -eu
image=${1:-localhost/bluemoon-debian:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(mktemp -d /var/tmp/bluemoon-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
tar -C "$root" -c . | podman import --change 'CMD ["/bin/bash"]' - "$image" >/dev/null
echo "$image"
