# The service image: compiled app only, running as `node`. Build: docker build -t superbiz-diagnosis .
# BASE_IMAGE is any Debian-based image with Node.js ≥ 20.19, npm and a `node` user (uid 1000); machines
# without a registry build it locally (scripts/compose-smoke.sh: docker/node-base).
ARG BASE_IMAGE=node:20-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: nothing here needs a native build, and none may fetch binaries.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM ${BASE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./
COPY prompts ./prompts
COPY config ./config
# The stub LLM script and runbooks for the compose `demo` profile.
COPY demo ./demo
# Uploaded documents live on a volume; created here so a new named volume is owned by `node`.
RUN mkdir -p /app/var/documents && chown node:node /app/var/documents
VOLUME /app/var/documents
USER node
EXPOSE 3000
HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=5 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/apps/server/src/main.js"]
