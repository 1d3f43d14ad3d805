# The server as `npm start` runs it: the esbuild bundle under plain Node.js with npm start's V8 flags.
# Build: docker build -t retail-logistics .   Run: see docker-compose.yml (it needs PostgreSQL and Redis).

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Manifests first: the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY packages/ packages/
COPY services/ services/
COPY benchmarks/package.json benchmarks/
COPY scripts/ scripts/
COPY tsconfig.json ./
RUN npm ci --no-audit --no-fund || npm install --no-audit --no-fund
RUN npm run build

# What the bundle leaves to node_modules (scripts/buildServer.ts `external`), for production:
# no dev tools, and no embedded PostgreSQL binaries (a container is given DATABASE_URL).
FROM node:20-bookworm-slim AS runtime-deps
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/packages/ packages/
COPY --from=build /app/services/ services/
COPY --from=build /app/benchmarks/package.json benchmarks/
RUN (npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
    || npm install --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund) \
  && rm -rf packages services benchmarks

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    INTERNAL_PORT=8081 \
    SPOOL_DIR=/var/spool/retail
WORKDIR /app
COPY --from=runtime-deps /app/node_modules node_modules/
COPY --from=build /app/dist/ dist/
RUN mkdir -p /var/spool/retail && chown node:node /var/spool/retail
USER node
EXPOSE 8080 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# npm start's flags (package.json): why each one is in README.md.
CMD ["node", "--max-semi-space-size=2", "--max-old-space-size=512", "--no-parallel-scavenge", "dist/server.mjs"]
