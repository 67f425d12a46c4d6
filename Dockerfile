# Archivist image: the same build `npm ci` makes, run as `archivist serve|worker|project`.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
# The stand-in package.json overrides point node-llama-cpp's unused platform binaries at.
COPY scripts/unused-prebuilt ./scripts/unused-prebuilt
COPY src ./src
# The web console's sources: the build (prepare) bundles them into dist/console.
COPY console ./console
# `npm ci` installs and compiles (prepare); better-sqlite3 builds from source if no prebuilt binary.
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 DATA_DIR=/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The licence of eld's language data, vendored under src/vendor/eld (Apache-2.0 asks a copy to go with it).
COPY --from=build /app/src/vendor/eld/LICENSE ./dist/src/vendor/eld/LICENSE
VOLUME ["/data"]
EXPOSE 8000
# V8's background threads sized to the cores (cores - 1), not Node's fixed 4: on 2 cores the four
# competed with the request and parse threads for 14 % more CPU (docs/benchmarks.md).
# Buffers of 256 KiB and more get their own mappings, given back when freed: glibc's default raises
# that threshold after each large free, and then the transient buffers of a large ingestion stay in
# the heap, fragmented, once it is done (docs/benchmarks.md, ingestMemory).
ENV MALLOC_MMAP_THRESHOLD_=262144
ENTRYPOINT ["node", "--v8-pool-size=0", "dist/src/cli/main.js"]
CMD ["serve"]
