# syntax=docker/dockerfile:1
# The self-hosted community image (spec section 1, "Self-hosted forum image"): one community
# instance, plain HTTP on GUNICORN_BIND/BLUME_BIND (0.0.0.0:8080), TLS left to a reverse proxy.
# docs/self-hosting.md is the operator's guide, docs/image.md says how to build it without a
# Docker daemon, and docs/decisions/ (0013, 0030) say why it looks like this.
#
# BASE_IMAGE: Debian with Node (current LTS) and npm, and a `node` user with uid 1000. The default is
# the official image; scripts/build-image.sh passes one made with debootstrap and the npm registry.
ARG BASE_IMAGE=node:24-bookworm-slim

# --- build: compile TypeScript with the development dependencies --------------------------------
FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# docker/npm-cache is empty in the repository (npm ci then downloads); scripts/build-image.sh fills
# it with every package of package-lock.json, so this step needs no network. No install scripts:
# nothing the build or the server uses needs one.
COPY docker/npm-cache/ /tmp/npm-cache/
# true makes a package missing from that cache an error instead of a download.
ARG NPM_CONFIG_OFFLINE=false
RUN npm ci --prefer-offline --cache /tmp/npm-cache --ignore-scripts --no-audit --no-fund --no-update-notifier
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Compile, then keep the production dependencies only for the runtime stage to copy.
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier

# --- runtime: production dependencies, dist/ and migrations/ only --------------------------------
FROM ${BASE_IMAGE} AS runtime
# BLUME_MODE=single: every command (serve, create-admin, db upgrade, ...) acts on the one
# community instance, without flags.
ENV NODE_ENV=production \
    BLUME_MODE=single \
    GUNICORN_BIND=0.0.0.0:8080 \
    BLUME_DATA_DIR=/data \
    BLUME_AUTO_MIGRATE=True \
    NODE_OPTIONS="--enable-source-maps --max-semi-space-size=4 --v8-pool-size=2 --expose-gc"
WORKDIR /app
# The docs-build sandbox runs builds under bubblewrap (decision 0030); base images made by
# scripts/build-image.sh have it already, so this reaches the network only on other bases.
RUN command -v bwrap >/dev/null \
 || (apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*)
COPY package.json package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
COPY docker/entrypoint.sh docker/healthcheck.mjs ./docker/
# `blume` on PATH, so `docker compose exec blume blume create-admin ...` works; /data belongs to
# the unprivileged user the server runs as.
RUN chmod 0755 docker/entrypoint.sh bin/blume.js \
 && ln -s /app/bin/blume.js /usr/local/bin/blume \
 && mkdir -p /data && chown 1000:1000 /data

# The base image's `node` user (uid 1000), by number so `runAsNonRoot` policies can verify it.
USER 1000:1000
VOLUME ["/data"]
EXPOSE 8080
# Node instead of curl (slim images have none); it reads the same bind settings as the server.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "/app/docker/healthcheck.mjs"]
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["serve", "--single"]
