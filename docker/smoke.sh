#!/usr/bin/env bash
# docker/smoke.sh: builds the image and walks README's Docker runbook with real containers.
#   npm run docker:smoke            (or: bash docker/smoke.sh)
# Needs a Docker engine (`docker info`) that can run the base image (NODE_IMAGE, default
# node:24.21-bookworm-slim); `docker compose` v2 is used for the compose checks when present.
# Not part of .ci/run (CI has no dockerd). Containers use --network host, listen on 127.0.0.1 at a
# free port, and keep their data in a named volume of their own: nothing of a real appliance on
# this host is touched (its image tag petcare-platform:<version> neither: this builds
# petcare-platform:<version>-smoke). Everything it creates is removed at the end, except the image.
#
# What it proves, in order: the build context leaves secrets out; the image builds with the npm
# registry and Debian's apt only, tagged and labelled with the package version, and refuses a
# mismatched PETCARE_VERSION; config refusals are one line, exit 78; the compose files pass
# `docker compose config` and the sandbox compose ignores a live docker/.env; start, HEALTHCHECK,
# data through the API, `petcare backup` in the running container (and an encrypted one from a
# second container), `backup verify` on a read-only mount, restore refused while the appliance
# runs, stop (exit 0), restore into the same volume, start again with the data and a pre-backup
# token; `--read-only`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' package.json | head -n 1)"
image="${SMOKE_IMAGE:-petcare-platform:$version-smoke}"
node_image="${NODE_IMAGE:-node:24.21-bookworm-slim}"
run_id="petcare-smoke-$$"
volume="$run_id-data"
work="$(mktemp -d)"
log="$work/smoke.log"
containers=()

step() { printf '\n==> %s\n' "$*"; }
ok() { printf '    ok: %s\n' "$*"; }
fail() {
  printf '    FAILED: %s\n' "$*" >&2
  exit 1
}
compose_project=""
cleanup() {
  local code=$?
  if [ -n "$compose_project" ]; then docker compose -p "$compose_project" -f docker/compose.yml down -v >/dev/null 2>&1 || true; fi
  docker image rm "petcare-platform:$version-smoke-previous" >/dev/null 2>&1 || true
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  docker volume rm -f "$volume" >/dev/null 2>&1 || true
  rm -rf "$work"
  if [ "$code" = 0 ]; then printf '\nsmoke: all steps passed\n'; else printf '\nsmoke: FAILED (exit %s)\n' "$code" >&2; fi
}
trap cleanup EXIT

# A free loopback port (the kernel picks one; it is free again once the probe closes).
free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
# The value at a path of the JSON on stdin, e.g. `field access_token`, `field services.guard.command.-1`.
field() {
  node -e 'let t = ""; process.stdin.on("data", (c) => (t += c)).on("end", () => {
    let v = JSON.parse(t);
    for (const k of process.argv[1].split(".")) v = v == null ? v : Array.isArray(v) && k.startsWith("-") ? v[v.length + Number(k)] : v[k];
    console.log(v ?? "");
  })' "$1"
}

port="$(free_port)"
base="http://127.0.0.1:$port"
secret="sk_live_$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"

# api EXPECTED-STATUS WHAT METHOD PATH [BODY] [TOKEN]: the answer's body is left in $work/body.
api() {
  local expected=$1 what=$2 method=$3 path=$4 body=${5:-} token=${6:-} status
  local args=(-s -o "$work/body" -w '%{http_code}' -X "$method" "$base$path" -H 'Accept: application/json')
  if [ -n "$token" ]; then args+=(-H "Authorization: Bearer $token"); fi
  if [ -n "$body" ]; then args+=(-H 'Content-Type: application/json' --data "$body"); fi
  status="$(curl "${args[@]}" || true)"
  [ "$status" = "$expected" ] || fail "$what: HTTP $status, expected $expected: $(head -c 400 "$work/body")"
}
# The value of a field of the last answer.
answer() { field "$1" <"$work/body"; }

wait_ready() {
  local container=$1 deadline=$((SECONDS + 90))
  until curl -sf "$base/readyz" >/dev/null 2>&1; do
    [ "$(docker inspect -f '{{.State.Running}}' "$container")" = true ] || { docker logs "$container" 2>&1 | tail -20; fail "$container exited before /readyz answered"; }
    [ $SECONDS -lt $deadline ] || fail "/readyz did not answer within 90 s"
    sleep 0.5
  done
}

# start NAME [docker run options…]: the appliance on the smoke volume, detached.
start() {
  local name=$1
  shift
  containers+=("$name")
  docker run -d --name "$name" --network host "$@" \
    -e PORT="$port" -e HOST=127.0.0.1 \
    -e PETCARE_ADMIN_CLIENT_ID=pk_live_smoke -e PETCARE_ADMIN_CLIENT_SECRET="$secret" \
    -v "$volume":/data "$image" >/dev/null
}

stop() {
  local name=$1 started=$SECONDS code
  docker stop -t 30 "$name" >/dev/null
  code="$(docker inspect -f '{{.State.ExitCode}}' "$name")"
  [ "$code" = 0 ] || { docker logs "$name" 2>&1 | tail -20; fail "$name exited $code after SIGTERM"; }
  ok "docker stop -t 30 $name: exit 0 after $((SECONDS - started)) s"
}

step "engine and base image"
docker info >/dev/null 2>&1 || fail "no Docker engine answers (docker info)"
printf '    docker server %s, client %s\n' "$(docker version -f '{{.Server.Version}}')" "$(docker version -f '{{.Client.Version}}')"
docker image inspect "$node_image" >/dev/null 2>&1 || fail "base image $node_image is not here (docker pull $node_image)"
standin="$(docker image inspect -f '{{ index .Config.Labels "petcare.standin" }}' "$node_image" 2>/dev/null || true)"
if [ -n "$standin" ] && [ "$standin" != "<no value>" ]; then printf '    base %s is a LOCAL STAND-IN: %s\n' "$node_image" "$standin"; else printf '    base %s\n' "$node_image"; fi

step "the build context leaves out secrets, certificates and .env files (.dockerignore)"
ctx="$work/context"
mkdir -p "$ctx/docker/secrets" "$ctx/docker/certs" "$ctx/config" "$ctx/src"
cp .dockerignore "$ctx/"
for f in docker/secrets/admin_client_secret.txt docker/certs/cert.pem docker/certs/key.pem docker/.env .env .env.local src/stray.key; do echo secret >"$ctx/$f"; done
for f in docker/certs/README.txt config/petcare.env.example src/main.ts package.json; do echo kept >"$ctx/$f"; done
printf 'FROM %s\nCOPY . /ctx\nCMD ["find", "/ctx", "-type", "f"]\n' "$node_image" >"$work/Dockerfile.context"
docker build -q --network host -f "$work/Dockerfile.context" -t "$run_id-context" "$ctx" >"$log" 2>&1 || { cat "$log"; fail "the context probe did not build"; }
listed="$(docker run --rm --network host "$run_id-context" | sed 's|^/ctx/||' | sort | tr '\n' ' ')"
docker image rm "$run_id-context" >/dev/null
printf '    in the context: %s\n' "$listed"
for f in docker/secrets/admin_client_secret.txt docker/certs/cert.pem docker/certs/key.pem docker/.env .env .env.local src/stray.key; do
  case " $listed " in *" $f "*) fail "$f is in the build context" ;; esac
done
for f in docker/certs/README.txt config/petcare.env.example src/main.ts package.json; do
  case " $listed " in *" $f "*) ;; *) fail "$f is missing from the build context" ;; esac
done
ok "no secret, certificate or .env file reaches the build"

step "build: docker build -f docker/Dockerfile --build-arg PETCARE_VERSION=$version -t $image ."
started=$SECONDS
if ! docker build --network host -f docker/Dockerfile --build-arg NODE_IMAGE="$node_image" --build-arg PETCARE_VERSION="$version" -t "$image" . >"$log" 2>&1; then
  tail -40 "$log"
  fail "the image did not build"
fi
ok "built in $((SECONDS - started)) s; $(grep -m1 -o 'sqlite-vec v[0-9.]*' "$log" || echo 'sqlite-vec loaded')"
label="$(docker image inspect -f '{{ index .Config.Labels "org.opencontainers.image.version" }}' "$image")"
[ "$label" = "$version" ] || fail "label org.opencontainers.image.version is '$label', expected $version"
ok "label org.opencontainers.image.version=$label; user $(docker image inspect -f '{{.Config.User}}' "$image"); healthcheck $(docker image inspect -f '{{join .Config.Healthcheck.Test " "}}' "$image" | cut -c1-60)…"
if docker build --force-rm --network host -f docker/Dockerfile --build-arg NODE_IMAGE="$node_image" --build-arg PETCARE_VERSION=0.0.0-not-this . >"$log" 2>&1; then
  fail "a build with PETCARE_VERSION=0.0.0-not-this was accepted"
fi
grep -q 'PETCARE_VERSION=0.0.0-not-this but this checkout is' "$log" || { tail -20 "$log"; fail "the mismatched build failed for another reason"; }
ok "PETCARE_VERSION=0.0.0-not-this refused: $(grep -m1 -o 'PETCARE_VERSION=0.0.0-not-this but this checkout is [^:]*' "$log")"

step "config refusals: one line, exit 78"
# As a compose secret mounts it: the host's owner and mode. Root's (or, not run as root, this user's) 0600.
secret_file="$work/admin_client_secret"
printf '%s\n' "$secret" >"$secret_file" && chmod 600 "$secret_file"
set +e
out="$(docker run --rm --network host -v "$secret_file":/run/secrets/admin_client_secret:ro \
  -e PETCARE_ADMIN_CLIENT_SECRET_FILE=/run/secrets/admin_client_secret "$image" 2>&1)"
code=$?
set -e
printf '    root-owned 0600 secret file → exit %s: %s\n' "$code" "$out"
[ "$code" = 78 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "expected exit 78 and one line"
set +e
out="$(docker run --rm --network host -e PETCARE_ADMIN_CLIENT_SECRET=sk_live_replace-with-a-long-random-secret "$image" 2>&1)"
code=$?
set -e
printf '    the example placeholder → exit %s: %s\n' "$code" "$out"
[ "$code" = 78 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "expected exit 78 and one line"
ok "both refused in one line with exit 78"

step "compose files (Docker Compose v2)"
if docker compose version >/dev/null 2>&1; then
  printf '    %s\n' "$(docker compose version)"
  docker compose -f docker/compose.yml config -q && ok "docker compose -f docker/compose.yml config"
  docker compose -f docker/compose.yml -f docker/compose.tls.yml config -q && ok "docker compose -f docker/compose.yml -f docker/compose.tls.yml config"
  docker compose -f docker/compose.sandbox.yml config -q && ok "docker compose -f docker/compose.sandbox.yml config"
  [ "$(docker compose -f docker/compose.yml config --images)" = "petcare-platform:$version" ] || fail "compose.yml does not use petcare-platform:$version"
  ok "compose.yml runs petcare-platform:$version"
  # A docker/.env copied from the example (a live admin) must not reach the sandbox appliance.
  sandbox_env="$(docker compose --env-file config/petcare.env.example -f docker/compose.sandbox.yml config --format json)"
  got="$(printf '%s' "$sandbox_env" | field services.petcare.environment.PETCARE_ADMIN_CLIENT_SECRET)"
  [ "$got" = sk_test_demo_admin_secret ] || fail "with the example .env the sandbox admin secret is '$got'"
  ok "with config/petcare.env.example as .env the sandbox still gets the demo admin"
  # The guard, run in the image exactly as compose would.
  guard="$(printf '%s' "$sandbox_env" | field services.guard.command.-1)"
  docker run --rm --network host -e BIND=127.0.0.1 -e SECRET=sk_test_demo_admin_secret "$image" node --input-type=module -e "$guard" \
    || fail "the guard refused the demo secret on 127.0.0.1"
  set +e
  out="$(docker run --rm --network host -e BIND=0.0.0.0 -e SECRET=sk_test_demo_admin_secret "$image" node --input-type=module -e "$guard" 2>&1)"
  code=$?
  set -e
  [ "$code" = 1 ] || fail "the guard let the demo secret out on 0.0.0.0 (exit $code)"
  printf '    guard, demo secret on 0.0.0.0 → exit 1: %s\n' "$out"
  docker run --rm --network host -e BIND=0.0.0.0 -e SECRET="sk_test_${secret#sk_live_}" "$image" node --input-type=module -e "$guard" \
    || fail "the guard refused a strong secret on 0.0.0.0"
  ok "guard: demo secret fine on loopback, refused on 0.0.0.0, an own 64-character secret accepted"
else
  printf '    skipped: no `docker compose` v2 plugin here (docker-compose 1.x cannot read these files)\n'
fi

step "start on a named volume: docker run -d -v $volume:/data $image (127.0.0.1:$port)"
docker volume create "$volume" >/dev/null
start "$run_id-a"
wait_ready "$run_id-a"
ok "/readyz answers; $(curl -s "$base/version")"
deadline=$((SECONDS + 120))
until [ "$(docker inspect -f '{{.State.Health.Status}}' "$run_id-a")" = healthy ]; do
  [ $SECONDS -lt $deadline ] || fail "the HEALTHCHECK did not report healthy within 120 s"
  sleep 1
done
ok "HEALTHCHECK: healthy"

step "data through the API"
credentials="{\"grant_type\":\"client_credentials\",\"client_id\":\"pk_live_smoke\",\"client_secret\":\"$secret\"}"
api 200 "token" POST /oauth/token "$credentials"
token="$(answer access_token)"
api 201 "create a location" POST /v1/locations '{"name":"Smoke Clinic","timezone":"Europe/London"}' "$token"
location="$(answer id)"
api 201 "create a pet parent" POST /v1/pet-parents "{\"name\":\"Sam Smoke\",\"locationId\":\"$location\"}" "$token"
parent="$(answer id)"
api 201 "create a pet" POST /v1/pets "{\"name\":\"Bella\",\"breed\":\"Labrador\",\"species\":\"dog\",\"ownerId\":\"$parent\",\"locationId\":\"$location\"}" "$token"
pet="$(answer id)"
ok "token, location $location, parent $parent, pet $pet"

step "backup inside the running container: docker exec $run_id-a petcare backup"
docker exec "$run_id-a" petcare backup >"$work/backup.out" 2>&1 || { cat "$work/backup.out"; fail "petcare backup in the running container"; }
sed 's/^/    /' "$work/backup.out"
archive="$(tail -n 1 "$work/backup.out")"
case "$archive" in /data/backups/*) ok "archive $archive" ;; *) fail "the last line is not an archive under /data/backups: $archive" ;; esac

step "backup verify on a read-only mount: docker run --rm -v $volume:/data:ro $image petcare backup verify …"
docker run --rm --network host -v "$volume":/data:ro "$image" petcare backup verify "$archive" | sed 's/^/    /' \
  || fail "backup verify on a read-only mount"
set +e
out="$(docker run --rm --network host -v "$volume":/data:ro "$image" petcare backup verify /data/backups/no-such-archive.tar.gz 2>&1)"
code=$?
set -e
[ "$code" != 0 ] || fail "verify of a missing archive succeeded"
printf '    missing archive → exit %s: %s\n' "$code" "$out"

step "an encrypted backup from a second container while the appliance runs (PETCARE_BACKUP_KEY_FILE)"
key_file="$work/backup_key"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$key_file"
# Readable by the image's uid 1000, as README says to install it (a throwaway key: world-readable when not root).
if [ "$(id -u)" = 0 ]; then chown 1000:1000 "$key_file" && chmod 600 "$key_file"; else chmod 644 "$key_file"; fi
docker run --rm --network host -v "$volume":/data -v "$key_file":/run/secrets/backup_key:ro \
  -e PETCARE_BACKUP_KEY_FILE=/run/secrets/backup_key "$image" petcare backup >"$work/encrypted.out" 2>&1 \
  || { cat "$work/encrypted.out"; fail "petcare backup with PETCARE_BACKUP_KEY_FILE"; }
sed 's/^/    /' "$work/encrypted.out"
encrypted="$(tail -n 1 "$work/encrypted.out")"
docker run --rm --network host -v "$volume":/data:ro -v "$key_file":/run/secrets/backup_key:ro \
  -e PETCARE_BACKUP_KEY_FILE=/run/secrets/backup_key "$image" petcare backup verify "$encrypted" | sed 's/^/    /' \
  || fail "backup verify of the encrypted archive with its key"
set +e
out="$(docker run --rm --network host -v "$volume":/data:ro "$image" petcare backup verify "$encrypted" 2>&1)"
code=$?
set -e
[ "$code" != 0 ] || fail "the encrypted archive verified without its key"
printf '    without the key → exit %s: %s\n' "$code" "$out"
ok "encrypted archive written beside the running appliance, verified with the key only"

step "after the backup: a second pet that the restore must take away"
api 201 "create the later pet" POST /v1/pets "{\"name\":\"Later\",\"breed\":\"Siamese\",\"species\":\"cat\",\"ownerId\":\"$parent\",\"locationId\":\"$location\"}" "$token"
later="$(answer id)"
ok "pet $later"

step "restore is refused while the appliance runs on the volume"
set +e
out="$(docker run --rm --network host -v "$volume":/data "$image" petcare restore "$archive" --force 2>&1)"
code=$?
set -e
printf '    exit %s: %s\n' "$code" "$out"
[ "$code" != 0 ] || fail "restore ran while $run_id-a was serving"
api 200 "the appliance still serves the later pet after the refused restore" GET "/v1/pets/$later" "" "$token"
ok "refused, and the live data is untouched"

step "stop, restore into the same volume, start again"
stop "$run_id-a"
docker run --rm --network host -v "$volume":/data "$image" petcare restore "$archive" --force | sed 's/^/    /' \
  || fail "docker run --rm -v $volume:/data $image petcare restore $archive --force"
docker start "$run_id-a" >/dev/null
wait_ready "$run_id-a"
ok "restored and started again"
api 200 "the pre-backup pet with the pre-backup token" GET "/v1/pets/$pet" "" "$token"
printf '    pet %s (%s) read with the token issued before the backup\n' "$pet" "$(answer name)"
api 404 "the pet created after the backup" GET "/v1/pets/$later" "" "$token"
api 200 "a new token after the restore" POST /oauth/token "$credentials"
api 200 "the location with a new token" GET "/v1/locations/$location" "" "$(answer access_token)"
ok "data and pre-backup token are back; the later pet is gone (404); new tokens work"
stop "$run_id-a"

step "--read-only root filesystem on the same volume"
start "$run_id-ro" --read-only
wait_ready "$run_id-ro"
api 200 "the pet through a --read-only container" GET "/v1/pets/$pet" "" "$token"
docker exec "$run_id-ro" petcare backup >"$work/ro-backup.out" 2>&1 || { cat "$work/ro-backup.out"; fail "petcare backup in a --read-only container"; }
printf '    backup from the read-only container: %s\n' "$(tail -n 1 "$work/ro-backup.out")"
ok "serves and backs up with a read-only root"
stop "$run_id-ro"

step "the compose runbook: up, exec petcare backup, stop, run --rm petcare restore, start; roll back by PETCARE_VERSION"
if docker compose version >/dev/null 2>&1 && docker network create "$run_id-probe" >/dev/null 2>&1; then
  docker network rm "$run_id-probe" >/dev/null
  # Its own project (volume ${project}_petcare-data), the smoke image (PETCARE_VERSION picks the tag;
  # --no-build: compose builds with BuildKit, which needs a bridge network for RUN steps).
  compose_project="$run_id"
  export PETCARE_VERSION="$version-smoke" PETCARE_PORT="$port" PETCARE_ADMIN_CLIENT_ID=pk_live_smoke PETCARE_ADMIN_CLIENT_SECRET="$secret"
  compose=(docker compose -p "$compose_project" -f docker/compose.yml)
  "${compose[@]}" up -d --no-build >"$work/compose-up.out" 2>&1 || { cat "$work/compose-up.out"; fail "compose up"; }
  wait_ready "$compose_project-petcare-1"
  api 200 "token (compose)" POST /oauth/token "$credentials"
  token="$(answer access_token)"
  api 201 "create a location (compose)" POST /v1/locations '{"name":"Compose Clinic","timezone":"Europe/Paris"}' "$token"
  location="$(answer id)"
  "${compose[@]}" exec -T petcare petcare backup >"$work/compose-backup.out" 2>&1 || { cat "$work/compose-backup.out"; fail "compose exec petcare petcare backup"; }
  archive="$(tail -n 1 "$work/compose-backup.out")"
  ok "up -d; exec petcare petcare backup → $archive"
  api 201 "a location after the backup (compose)" POST /v1/locations '{"name":"After","timezone":"Europe/Paris"}' "$token"
  after="$(answer id)"
  "${compose[@]}" stop petcare 2>&1 | tail -n 1 | sed 's/^/    /'
  "${compose[@]}" run --rm -T petcare petcare restore "$archive" --force >"$work/compose-restore.out" 2>&1 \
    || { cat "$work/compose-restore.out"; fail "compose run --rm petcare petcare restore"; }
  sed 's/^/    /' "$work/compose-restore.out"
  "${compose[@]}" start petcare 2>&1 | tail -n 1 | sed 's/^/    /'
  wait_ready "$compose_project-petcare-1"
  api 200 "the location with the pre-backup token (compose)" GET "/v1/locations/$location" "" "$token"
  api 404 "the location made after the backup (compose)" GET "/v1/locations/$after" "" "$token"
  ok "stop; run --rm petcare petcare restore … --force; start: data and token back, later data gone"
  # Rollback as README says: the previous release's tag (here the same image under another tag) pinned
  # with PETCARE_VERSION, the backup restored by that image, then started without a build.
  docker tag "$image" "petcare-platform:$version-smoke-previous"
  "${compose[@]}" stop petcare >/dev/null 2>&1
  export PETCARE_VERSION="$version-smoke-previous"
  "${compose[@]}" run --rm --no-deps -T petcare petcare restore "$archive" --force >"$work/compose-restore.out" 2>&1 \
    || { cat "$work/compose-restore.out"; fail "restore with the previous release's image"; }
  sed 's/^/    /' "$work/compose-restore.out"
  "${compose[@]}" up -d --no-build 2>&1 | tail -n 1 | sed 's/^/    /'
  running="$(docker inspect -f '{{.Config.Image}}' "$compose_project-petcare-1")"
  [ "$running" = "petcare-platform:$version-smoke-previous" ] || fail "after the rollback compose runs $running"
  wait_ready "$compose_project-petcare-1"
  api 200 "the location after the rollback" GET "/v1/locations/$location" "" "$token"
  ok "PETCARE_VERSION=$version-smoke-previous, run --rm petcare petcare restore, up -d --no-build: runs $running on the restored data"
  "${compose[@]}" down -v 2>&1 | tail -n 1 | sed 's/^/    /'
  compose_project=""
else
  printf '    skipped: needs `docker compose` v2 and an engine that can create a network\n'
fi
