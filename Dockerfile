# syntax=docker/dockerfile:1
# Build stage: compiles the native modules (better-sqlite3, bcrypt) with node-gyp and the
# TypeScript, then drops the development dependencies.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json knexfile.ts ./
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: only what runs, as the unprivileged `node` user.
FROM node:20-bookworm-slim
# V8's heap limit, for a container of 512 MiB: without one, V8 sizes the heap from the host's
# memory and collects lazily (docs/performance.md, "A capped heap"). 384 MiB holds the search
# index of 100,000 contacts and a 100,000-row import at once; raise it with the directory
# (`-e NODE_OPTIONS=--max-old-space-size=...`).
ENV NODE_ENV=production \
    PORT=3000 \
    NODE_OPTIONS=--max-old-space-size=384
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/src/server.js"]
