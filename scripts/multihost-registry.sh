#!/usr/bin/env bash
# Multi-host test of the registry's proof jobs (docs/scale-out.md "Registry proof jobs"): five
# "hosts" as Linux network namespaces on one bridge — the NATS JetStream broker, the primary
# (`registry http --nats`, depth 48), two registry workers (each with its own verified copy) and a
# client — under a write and read load. Faults: a worker killed with SIGKILL right after it takes
# a job (its job is proved by the other; it is restarted from its copy), and a mirror killed at
# random moments while it applies (restarted until it reaches the head with the primary's root).
# Asserts that every request answered 200, every proof and every batch's block verifies, that the
# killed worker's job was redelivered, and that every proof the mirror then serves from its copy is
# accepted by the primary. Then two tampering primaries (a proxy in the primary's namespace that
# modifies a block, then one that signs a second checkpoint of an existing size, with the primary's
# key): both mirrors refuse, keep serving their verified state and report the problem with its
# evidence. Skips (exit 0) when not root or without `ip`.
#
# Guardrails: every process runs inside its namespace (ip netns exec); before each client
# connects, `ip route get ADDR` inside its namespace must show the test's own interface; the root
# namespace gets no address on the bridge; namespaces, interfaces, processes and files are removed
# on exit, also on failure (trap); every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ "$(id -u)" != 0 ]; then echo "multihost-registry: skipped (needs root for ip netns)"; exit 0; fi
command -v ip >/dev/null || { echo "multihost-registry: skipped (no ip command)"; exit 0; }
command -v nats-server >/dev/null || { echo "multihost-registry: nats-server is not installed" >&2; exit 2; }

T0=$SECONDS
TAG=$(printf '%04x' $((RANDOM % 65536)))
NET=10.214.$((RANDOM % 200 + 20))
BR=srbr$TAG
HOSTS=(br pr w1 w2 cl)
declare -A ADDR IFN
WORK=$(mktemp -d /tmp/ssgkr-multihost-registry-XXXXXX)
PIDS=()
SSGKR="$ROOT/bin/ssgkr.js"
CLIENT="$ROOT/scripts/multihost-registry-client.mjs"
TOKEN=0123456789abcdef0123456789abcdef

log() { echo "multihost-registry [$((SECONDS - T0)) s]: $*"; }
ns() { echo "sr$TAG-$1"; }
die() { echo "multihost-registry: $*" >&2; exit 1; }

cleanup() {
  local rc=$?
  set +e
  {
    for p in "${PIDS[@]}"; do kill -KILL "$p"; done
    for h in "${HOSTS[@]}"; do ip netns pids "$(ns "$h")" | xargs -r kill -KILL; done
    wait
  } 2>/dev/null
  for h in "${HOSTS[@]}"; do ip netns del "$(ns "$h")" 2>/dev/null; done
  ip link del "$BR" 2>/dev/null
  if [ $rc -ne 0 ]; then
    echo "multihost-registry: FAILED (exit $rc); logs:" >&2
    for f in "$WORK"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }; done
  fi
  if [ -n "${MULTIHOST_LOGS:-}" ]; then mkdir -p "$MULTIHOST_LOGS" && cp -a "$WORK"/*.log "$MULTIHOST_LOGS"/ 2>/dev/null; fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT INT TERM

# --- the network: a bridge (no address in the root namespace) and one veth per host
ip link add "$BR" type bridge
ip link set "$BR" up
i=10
for h in "${HOSTS[@]}"; do
  n=$(ns "$h")
  ip netns add "$n"
  ip link add "sr${TAG}h$i" type veth peer name "sr${TAG}n$i"
  ip link set "sr${TAG}h$i" master "$BR" up
  ip link set "sr${TAG}n$i" netns "$n"
  ip -n "$n" link set lo up
  ip -n "$n" addr add "$NET.$i/24" dev "sr${TAG}n$i"
  ip -n "$n" link set "sr${TAG}n$i" up
  ADDR[$h]=$NET.$i
  IFN[$h]=sr${TAG}n$i
  i=$((i + 1))
done
log "namespaces ${HOSTS[*]} on $NET.0/24 via bridge $BR"

# Inside host $1, the route to address $2 must leave through the host's own test interface.
route_check() {
  local out
  out=$(ip netns exec "$(ns "$1")" ip route get "$2")
  case "$out" in
    *" dev ${IFN[$1]} "*) ;;
    *) die "route from $1 to $2 does not use ${IFN[$1]}: $out" ;;
  esac
}
in_ns() { local h=$1; shift; ip netns exec "$(ns "$h")" "$@"; }
# wait_for SECONDS FILE PATTERN WHAT
wait_for() {
  local deadline=$((SECONDS + $1))
  until grep -q -- "$3" "$2" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || die "$4: not within $1 s"
    sleep 0.2
  done
}

# --- the broker
ip netns exec "$(ns br)" nats-server -js -a "${ADDR[br]}" -p 4222 -sd "$WORK/store-br" >"$WORK/br.log" 2>&1 &
PIDS+=($!)
wait_for 30 "$WORK/br.log" "Server is ready" "broker"
URL="nats://${ADDR[br]}:4222"
route_check pr "${ADDR[br]}"
in_ns pr node "$SSGKR" nats setup --nats "$URL" --ack-wait-ms 3000 >"$WORK/setup.log" 2>&1 || die "nats setup failed"
log "broker up, registry streams set up (ack_wait 3 s)"

# --- the primary: a registry of 40 records at depth 48, its signing key, the proof jobs on the broker
for k in $(seq 1 40); do printf '{"name": "pkg-%d", "value": "https://example.com/%d"}\n' "$k" "$k"; done >"$WORK/records.ndjson"
node "$SSGKR" registry import --db "$WORK/primary" --file "$WORK/records.ndjson" --no-progress >"$WORK/import.log" 2>&1
KEY=$(node "$SSGKR" registry keygen --out "$WORK/registry.key" --origin example.com/multihost)
echo "$TOKEN" >"$WORK/token.txt"
ip netns exec "$(ns pr)" node "$SSGKR" registry http --db "$WORK/primary" --listen "${ADDR[pr]}:8080" \
  --token-file "$WORK/token.txt" --signing-key "$WORK/registry.key" --rate-limit 0 --epoch-ms 500 \
  --nats "$URL" --web "$WORK/no-page" >"$WORK/pr.log" 2>&1 &
PIDS+=($!)
wait_for 180 "$WORK/pr.log" "listening on" "primary"
PRIMARY="http://${ADDR[pr]}:8080"
log "primary listening at $PRIMARY, proving on the broker"

# --- two workers, each with its own copy
start_worker() {
  local w=$1
  route_check "$w" "${ADDR[br]}"
  route_check "$w" "${ADDR[pr]}"
  ip netns exec "$(ns "$w")" node "$SSGKR" registry worker --nats "$URL" --from "$PRIMARY" --key "$KEY" \
    --db "$WORK/copy-$w" --host-id "$w" --follow-ms 1000 --pull-expires-ms 1000 --log-jobs >>"$WORK/$w.out" 2>>"$WORK/$w.log" &
  PIDS+=($!)
  eval "PID_$w=$!"
}
start_worker w1
start_worker w2
wait_for 300 "$WORK/w1.out" REGISTRY_WORKER_READY "worker w1"
wait_for 300 "$WORK/w2.out" REGISTRY_WORKER_READY "worker w2"
log "workers w1, w2 ready (copies verified)"

# --- load from the client; w1 killed right after it takes a job during the load
route_check cl "${ADDR[pr]}"
before=$(grep -c ' job ' "$WORK/w1.log" || true)
ip netns exec "$(ns cl)" timeout 900 node "$CLIENT" load "$PRIMARY" "$TOKEN" 8 >"$WORK/load.out" 2>"$WORK/load.log" &
LOAD=$!
PIDS+=($LOAD)
deadline=$((SECONDS + 300))
until [ "$(grep -c ' job ' "$WORK/w1.log" || true)" -gt "$before" ]; do
  [ $SECONDS -lt $deadline ] || die "worker w1 took no job during the load"
  kill -0 $LOAD 2>/dev/null || die "the load ended before w1 took a job"
  sleep 0.05
done
{ kill -KILL "$PID_w1"; wait "$PID_w1"; } 2>/dev/null || true
log "worker w1 killed right after it took $(grep ' job ' "$WORK/w1.log" | tail -n 1 | awk '{print $3, $4}')"
sleep 5
start_worker w1
deadline=$((SECONDS + 300))
until [ "$(grep -c REGISTRY_WORKER_READY "$WORK/w1.out" || true)" -ge 2 ]; do
  [ $SECONDS -lt $deadline ] || die "worker w1 not ready again after its restart"
  sleep 0.2
done
log "worker w1 restarted from its copy"
rc=0
wait $LOAD || rc=$?
cat "$WORK/load.out"
[ $rc -eq 0 ] || die "the load failed (exit $rc): $(tail -n 3 "$WORK/load.log")"
log "load done: every write and proof answered 200 and every proof verified"

# --- a mirror killed while it applies, restarted until it reaches the head
route_check w2 "${ADDR[pr]}"
# through a slow path (the client host forwards each request 1 s late) a catch-up lasts a second
# per request: a new mirror asks for about four (checkpoints, the chain's page) before its first
# batch and one checkpoint per batch after it, so it applies its first batch 5-7 s in (start-up
# included) and needs at least 13 s for the nine batches of this load, whatever the machine's
# speed; runs 1-3 are killed at a random moment 7.0-10.4 s in, each resuming from where the one
# before was left (a run that ends first is the last); from the fourth run on it runs to the end
route_check cl "${ADDR[pr]}"
ip netns exec "$(ns cl)" node "$CLIENT" slow-proxy "$PRIMARY" "${ADDR[cl]}" 8090 1000 >"$WORK/proxy.out" 2>"$WORK/proxy.log" &
PIDS+=($!)
wait_for 30 "$WORK/proxy.out" "proxy listening" "slow path"
route_check w2 "${ADDR[cl]}"
killed=0
done_ok=0
sizes=""
for attempt in $(seq 1 8); do
  ip netns exec "$(ns w2)" node "$SSGKR" registry mirror --from "http://${ADDR[cl]}:8090" --key "$KEY" --db "$WORK/mirror" --once \
    >>"$WORK/mirror.out" 2>>"$WORK/mirror.log" &
  M=$!
  PIDS+=($M)
  if [ $attempt -le 3 ]; then
    tenths=$((RANDOM % 35 + 70))
    sleep "$((tenths / 10)).$((tenths % 10))"
    if kill -KILL $M 2>/dev/null; then
      killed=$((killed + 1))
      { wait $M; } 2>/dev/null || true
      sizes="$sizes $([ -f "$WORK/mirror/data.mdb" ] && node "$SSGKR" registry root --db "$WORK/mirror" | awk '/^batch/ {print $2}' | tr -d , || echo none)"
    elif { wait $M; } 2>/dev/null; then
      done_ok=1
      break
    fi
  else
    if wait $M; then done_ok=1; break; fi
  fi
done
[ $killed -ge 1 ] || die "the mirror was never killed while it applied (it caught up first)"
[ $done_ok -eq 1 ] || die "the mirror never reached the head"
size=$(node "$SSGKR" registry root --db "$WORK/mirror" | awk '/^batch/ {print $2}' | tr -d ,)
mroot=$(node "$SSGKR" registry root --db "$WORK/mirror" | awk '/^root/ {print $2}')
proot=$(ip netns exec "$(ns cl)" node "$CLIENT" root-of "$PRIMARY" "$size")
[ "$mroot" = "$proot" ] || die "the mirror's root at size $size is $mroot, the primary's $proot"
log "mirror killed $killed times while applying (its size after each kill:$sizes), then reached size $size with the primary's root"

# --- the mirror serves its copy: every proof it serves is accepted by the primary
ip netns exec "$(ns w2)" node "$SSGKR" registry mirror --from "$PRIMARY" --key "$KEY" --db "$WORK/mirror" \
  --listen "${ADDR[w2]}:8081" --interval 2 >"$WORK/mirror-serve.out" 2>>"$WORK/mirror.log" &
MS=$!
PIDS+=($MS)
wait_for 120 "$WORK/mirror-serve.out" "listening on" "serving mirror"
route_check cl "${ADDR[w2]}"
ip netns exec "$(ns cl)" timeout 600 node "$CLIENT" mirror-proofs "http://${ADDR[w2]}:8081" "$PRIMARY" pkg-1 pkg-17 \
  >"$WORK/mirror-proofs.out" 2>"$WORK/mirror-proofs.log" || die "mirror proofs: $(tail -n 3 "$WORK/mirror-proofs.log")"
cat "$WORK/mirror-proofs.out"
{ kill -TERM $MS; wait $MS; } 2>/dev/null || true
log "every proof the mirror serves (3 profiles, 2 names and an absent one) is accepted by the primary"

# --- a tampering primary: two mirrors (the one above, in w2, and a new one in w1) follow a proxy
# in the primary's namespace that modifies the block of every batch after size S0; then one that
# signs a second checkpoint of size S0. Each mirror refuses, stays at S0 with the primary's root,
# reports the problem in /v1/status, writes the evidence and keeps serving its verified state.
read -r S0 _ < <(ip netns exec "$(ns cl)" node "$CLIENT" head "$PRIMARY")
[ -n "${S0:-}" ] || die "no head from the primary"
ip netns exec "$(ns cl)" timeout 300 node "$CLIENT" load "$PRIMARY" "$TOKEN" 1 >"$WORK/load2.out" 2>"$WORK/load2.log" || die "writes after size $S0: $(tail -n 3 "$WORK/load2.log")"
log "primary at size $S0, then writes: $(cat "$WORK/load2.out")"
start_proxy() {
  ip netns exec "$(ns pr)" node "$CLIENT" "$1" "$PRIMARY" "${ADDR[pr]}" "$2" "${@:3}" >"$WORK/$1.out" 2>"$WORK/$1.log" &
  PIDS+=($!)
  PROXY=$!
  wait_for 30 "$WORK/$1.out" "proxy listening" "$1"
}
# start_mirrors PORT TAG: the mirrors in w1 and w2 follow the proxy at pr:PORT and serve their copies
start_mirrors() {
  MPIDS=()
  for w in w1 w2; do
    route_check "$w" "${ADDR[pr]}"
    ip netns exec "$(ns "$w")" node "$SSGKR" registry mirror --from "http://${ADDR[pr]}:$1" --key "$KEY" \
      --db "$WORK/mirror-$w" --listen "${ADDR[$w]}:8081" --interval 1 --evidence "$WORK/evidence-$2-$w" \
      >"$WORK/mirror-$2-$w.out" 2>>"$WORK/mirror-$2-$w.log" &
    PIDS+=($!)
    MPIDS+=($!)
  done
  for w in w1 w2; do wait_for 120 "$WORK/mirror-$2-$w.out" "listening on" "mirror in $w ($2)"; done
}
# expect_halt CODE: each mirror halts with CODE at S0 and keeps serving its verified state
expect_halt() {
  local c=()
  for w in w1 w2; do
    route_check cl "${ADDR[$w]}"
    ip netns exec "$(ns cl)" timeout 300 node "$CLIENT" expect-halt "http://${ADDR[$w]}:8081" "$PRIMARY" "$1" "$S0" 240 \
      >"$WORK/halt-$1-$w.out" 2>"$WORK/halt-$1-$w.log" &
    PIDS+=($!)
    c+=($!)
  done
  wait "${c[0]}" || die "mirror in w1: $(tail -n 3 "$WORK/halt-$1-w1.log")"
  wait "${c[1]}" || die "mirror in w2: $(tail -n 3 "$WORK/halt-$1-w2.log")"
  { kill -TERM "${MPIDS[@]}"; wait "${MPIDS[@]}"; } 2>/dev/null || true
  { kill -TERM $PROXY; wait $PROXY; } 2>/dev/null || true
}
mv "$WORK/mirror" "$WORK/mirror-w2"
start_proxy tamper-proxy 8091 "$S0"
start_mirrors 8091 block
expect_halt MIRROR_BAD_CHAIN
log "a modified block after size $S0: both mirrors refused it, stayed at $S0, reported MIRROR_BAD_CHAIN with the evidence, served their verified state"
start_proxy fork-proxy 8092 "$S0" "$WORK/registry.key"
start_mirrors 8092 fork
expect_halt MIRROR_FORK
log "a second signed checkpoint of size $S0: both mirrors refused it, reported MIRROR_FORK with both checkpoints, served their verified state"

# --- every batch's block, proved by the workers, verifies
ip netns exec "$(ns cl)" timeout 900 node "$CLIENT" blocks "$PRIMARY" 600 >"$WORK/blocks.out" 2>"$WORK/blocks.log" || die "blocks: $(tail -n 3 "$WORK/blocks.log")"
cat "$WORK/blocks.out"

# --- stop the workers; the killed worker's job was redelivered
kill -TERM "$PID_w1" "$PID_w2"
for w in w1 w2; do
  deadline=$((SECONDS + 120))
  until grep -q REGISTRY_WORKER_STOPPED "$WORK/$w.out"; do
    [ $SECONDS -lt $deadline ] || die "worker $w did not stop"
    sleep 0.2
  done
done
node -e '
const fs = require("fs");
const stopped = process.argv.slice(1).map((f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l.includes("REGISTRY_WORKER_STOPPED")).map((l) => JSON.parse(l)).pop());
const fail = (m) => { console.error("multihost-registry: " + m); process.exit(1); };
const redelivered = stopped.reduce((a, s) => a + s.stats.redelivered, 0);
const proved = stopped.map((s) => s.host_id + ": " + s.stats.proved.read + " reads, " + s.stats.proved.block + " block parts");
if (redelivered < 1) fail("no job was redelivered after w1 was killed: " + JSON.stringify(stopped.map((s) => s.stats)));
if (stopped.some((s) => s.stats.proved.read + s.stats.proved.block === 0)) fail("a worker proved nothing: " + proved.join("; "));
console.log("multihost-registry: redelivered " + redelivered + "; " + proved.join("; "));
' "$WORK/w1.out" "$WORK/w2.out"
log "passed"
