# syntax=docker/dockerfile:1
# The self-hosted community image (spec section 1, "Self-hosted forum image"): one community
# instance, plain HTTP on GUNICORN_BIND/BLUME_BIND (0.0.0.0:8080), TLS left to a reverse proxy.
# docs/self-hosting.md is the operator's guide; docs/decisions/ says why it looks like this.
ARG NODE_VERSION=20

# --- build: compile TypeScript with the development dependencies --------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies, dist/ and migrations/ only --------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    GUNICORN_BIND=0.0.0.0:8080 \
    BLUME_DATA_DIR=/data \
    BLUME_AUTO_MIGRATE=True \
    NODE_OPTIONS="--enable-source-maps --max-semi-space-size=4 --v8-pool-size=2"
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the runtime dependencies need none, and it keeps the image reproducible.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
COPY docker/entrypoint.sh docker/healthcheck.mjs ./docker/
# `blume` on PATH, so `docker compose exec blume blume create-admin ...` works; /data belongs to
# the unprivileged user the server runs as.
RUN chmod 0755 docker/entrypoint.sh bin/blume.js \
 && ln -s /app/bin/blume.js /usr/local/bin/blume \
 && mkdir -p /data && chown 1000:1000 /data

# The base image's `node` user, by number so `runAsNonRoot` policies can verify it.
USER 1000:1000
VOLUME ["/data"]
EXPOSE 8080
# Node instead of curl (slim images have none); it reads the same bind settings as the server.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "/app/docker/healthcheck.mjs"]
ENTRYPOINT ["/app/docker/entrypoint.sh"]
CMD ["serve", "--single"]
