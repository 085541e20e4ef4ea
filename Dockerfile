# The petstore service. Node 24 runs the TypeScript sources directly (type stripping); the one build step bundles
# the staff console with esbuild in a stage of its own, and the image keeps only the bundle: no dev dependencies. Build with the official base, or with a local stand-in (.ci/build-service-image.sh):
#   docker build -t petstore/service .
#   docker run --rm -p 8080:8080 -e PETSTORE_ADMIN_KEY=... petstore/service
ARG BASE_IMAGE=node:24-bookworm-slim

FROM ${BASE_IMAGE} AS dependencies
WORKDIR /app
# npm-ca.pem (optional, this stage only): extra CA certificates for npm behind a TLS-inspecting proxy;
# .ci/build-service-image.sh puts the build machine's NODE_EXTRA_CA_CERTS there.
COPY package.json package-lock.json .ci/work/npm-ca.pe[m] ./
# Production dependencies only; no install scripts (none of them needs one).
RUN if [ -f npm-ca.pem ]; then export NODE_EXTRA_CA_CERTS="$PWD/npm-ca.pem"; fi \
  && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
  && npm cache clean --force && rm -f npm-ca.pem

# The console's bundle (adapters/http/console/dist/), with the locked esbuild installed beside the project.
FROM dependencies AS console
COPY package-lock.json .ci/work/npm-ca.pe[m] ./
COPY adapters/http/console ./adapters/http/console
RUN if [ -f npm-ca.pem ]; then export NODE_EXTRA_CA_CERTS="$PWD/npm-ca.pem"; fi \
  && npm install --prefix /tmp/esbuild --no-save --no-audit --no-fund --loglevel=error \
    "esbuild@$(node -p 'require("./package-lock.json").packages["node_modules/esbuild"].version')" \
  && NODE_PATH=/tmp/esbuild/node_modules node adapters/http/console/build-console.ts

FROM ${BASE_IMAGE}
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY core ./core
COPY adapters ./adapters
COPY bootstrap ./bootstrap
COPY --from=console /app/adapters/http/console/dist ./adapters/http/console/dist
# Owned by root, run as the unprivileged user of the node images: the process cannot change its own code.
USER node
EXPOSE 8080
# No curl in slim images: Node's own fetch. A wildcard HOST is reached on loopback.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const h=process.env.HOST||'';const host=h===''||h==='0.0.0.0'||h==='::'?'127.0.0.1':h.includes(':')?`[${h}]`:h;fetch(`http://${host}:${process.env.PORT||8080}/healthz`,{signal:AbortSignal.timeout(2500)}).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=16", "bootstrap/main.ts"]
