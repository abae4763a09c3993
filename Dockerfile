# Production image: compiled app only. Build: docker build -t superbiz-diagnosis .
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./
COPY prompts ./prompts
COPY config ./config
USER node
EXPOSE 3000
CMD ["node", "dist/apps/server/src/main.js"]
