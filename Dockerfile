# syntax=docker/dockerfile:1
# Node.js 22 (end of life 2027-04-30), not yet 24: from 24.19.0 on, Node.js aborts the process when
# it collects a statement of better-sqlite3 12, the SQLite driver, and SQLite is this image's
# default database (docs/node-versions.md, "Node.js 24.19 and better-sqlite3 12").
#
# Named by tag, not yet pinned by digest: the digest has to be read from Docker Hub, which the
# machine this was written on could not reach, and a digest that was not read there would be
# made up. To pin it, read the digest of the multi-platform index and put it after the tag in
# both FROM lines:
#   docker buildx imagetools inspect node:22-bookworm-slim      # the "Digest:" line, sha256:...
#   FROM node:22-bookworm-slim@sha256:<that digest> AS build
# The tag then only documents; the digest decides, until someone moves it to a newer image.

# Build stage: compiles better-sqlite3 with node-gyp and the TypeScript, then drops the
# development dependencies.
FROM node:22-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# node-gyp compiles against the headers this image ships in /usr/local/include/node, instead
# of downloading them from nodejs.org
ENV npm_config_nodedir=/usr/local
WORKDIR /app
# .prebuild-installrc: better-sqlite3's installer compiles instead of downloading a binary from
# GitHub; bcrypt loads the binary its npm package ships
COPY package.json package-lock.json .npmrc .prebuild-installrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json knexfile.ts ./
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: only what runs, as the unprivileged `node` user.
FROM node:22-bookworm-slim
# V8's heap limit, for a container of 512 MiB: without one, V8 sizes the heap from the host's
# memory and collects lazily (docs/performance.md, "A capped heap"). 384 MiB holds the search
# index of 100,000 contacts and a 100,000-row import at once; raise it with the directory
# (`-e NODE_OPTIONS="--max-old-space-size=... --max-semi-space-size=8"`). The young generation's
# semi-spaces stop at 8 MiB each, where V8 lets them grow to 16: a 100,000-row upsert grew the
# resident memory by 62 to 69 MiB with 16, by 47.5 to 51.6 with 8; alternated runs of the reads
# showed no clear cost (docs/performance.md, "V8's young generation, capped").
# glibc's thresholds, fixed: a freed block of 128 KiB or more goes back to the system at once.
# By default glibc raises them to the size of the largest block freed (up to 32 MiB), and keeps
# the memory freed after that: an upload's buffers stayed in the service's resident memory
# (docs/performance.md, "An import's memory"). And two arenas: by default each thread that
# allocates gets one of its own, and the search's walk thread kept some 40 MiB more resident
# at a million contacts with its own than with two arenas in all (docs/performance.md, "Walks
# on a thread of their own").
ENV NODE_ENV=production \
    PORT=3000 \
    NODE_OPTIONS="--max-old-space-size=384 --max-semi-space-size=8" \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MALLOC_TRIM_THRESHOLD_=131072 \
    MALLOC_ARENA_MAX=2
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
