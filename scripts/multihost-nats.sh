#!/usr/bin/env bash
# Multi-host scale-out test (docs/scale-out.md): six "hosts" as Linux network namespaces on one
# bridge — three NATS JetStream brokers clustered with stream replicas 3, two proof workers and
# the load frontend — with one broker node killed mid-run. Asserts that every offered job ends
# accepted exactly once and that both workers proved jobs. Needs root (ip netns).
#
# Guardrails: every process runs inside its namespace (ip netns exec); before each client
# connects, `ip route get ADDR` inside its namespace must show the test's own interface; the root
# namespace gets no address on the bridge, so nothing connects from it to the test's addresses;
# namespaces, interfaces, processes and files are removed on exit, also on failure (trap).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ "$(id -u)" != 0 ]; then echo "multihost: needs root (ip netns)" >&2; exit 2; fi
command -v nats-server >/dev/null || { echo "multihost: nats-server is not installed" >&2; exit 2; }

T0=$SECONDS
TAG=$(printf '%04x' $((RANDOM % 65536)))
NET=10.213.$((RANDOM % 200 + 20))
BR=skbr$TAG
HOSTS=(b1 b2 b3 w1 w2 fe)
declare -A ADDR IFN
WORK=$(mktemp -d /tmp/ssgkr-multihost-XXXXXX)
PIDS=()

log() { echo "multihost [$((SECONDS - T0)) s]: $*"; }
ns() { echo "sk$TAG-$1"; }

cleanup() {
  local rc=$?
  set +e
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  # whatever else still runs in a test namespace
  for h in "${HOSTS[@]}"; do ip netns pids "$(ns "$h")" 2>/dev/null | xargs -r kill -KILL 2>/dev/null; done
  wait 2>/dev/null
  for h in "${HOSTS[@]}"; do ip netns del "$(ns "$h")" 2>/dev/null; done
  ip link del "$BR" 2>/dev/null
  if [ $rc -ne 0 ]; then
    echo "multihost: FAILED (exit $rc); logs:" >&2
    for f in "$WORK"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; grep -av "Waiting for routing" "$f" | tail -n 30 >&2; }; done
  fi
  # MULTIHOST_LOGS=DIR keeps the logs and the run's output of every run (pass or fail) in DIR
  if [ -n "${MULTIHOST_LOGS:-}" ]; then mkdir -p "$MULTIHOST_LOGS" && cp -a "$WORK"/*.log "$WORK"/*.out "$WORK"/run "$MULTIHOST_LOGS"/ 2>/dev/null; fi
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
  ip link add "sk${TAG}h$i" type veth peer name "sk${TAG}n$i"
  ip link set "sk${TAG}h$i" master "$BR" up
  ip link set "sk${TAG}n$i" netns "$n"
  ip -n "$n" link set lo up
  ip -n "$n" addr add "$NET.$i/24" dev "sk${TAG}n$i"
  ip -n "$n" link set "sk${TAG}n$i" up
  ADDR[$h]=$NET.$i
  IFN[$h]=sk${TAG}n$i
  i=$((i + 1))
done
log "namespaces ${HOSTS[*]} on $NET.0/24 via bridge $BR"

# Inside host $1, the route to address $2 must leave through the host's own test interface.
route_check() {
  local out
  out=$(ip netns exec "$(ns "$1")" ip route get "$2")
  case "$out" in
    *" dev ${IFN[$1]} "*) ;;
    *) echo "multihost: route from $1 to $2 does not use ${IFN[$1]}: $out" >&2; exit 1 ;;
  esac
}
routes_to_brokers() { local t; for t in b1 b2 b3; do [ "$1" = "$t" ] || route_check "$1" "${ADDR[$t]}"; done; }
in_ns() { local h=$1; shift; ip netns exec "$(ns "$h")" "$@"; }
# Background processes are started with `ip netns exec` directly (it execs the command), so that
# $! is the process itself and can be killed.

# --- three clustered brokers
for b in b1 b2 b3; do
  routes_to_brokers "$b"
  others=$(for o in b1 b2 b3; do [ "$o" = "$b" ] || printf 'nats://%s:6222,' "${ADDR[$o]}"; done)
  ip netns exec "$(ns "$b")" nats-server -js --name "$b" -a "${ADDR[$b]}" -p 4222 -sd "$WORK/store-$b" \
    --cluster_name ssgkr-multihost --cluster "nats://${ADDR[$b]}:6222" --routes "${others%,}" >"$WORK/$b.log" 2>&1 &
  PIDS+=($!)
done
URLS="nats://${ADDR[b1]}:4222,nats://${ADDR[b2]}:4222,nats://${ADDR[b3]}:4222"
routes_to_brokers fe
deadline=$((SECONDS + 60))
until in_ns fe node "$ROOT/bin/ssgkr.js" nats setup --nats "$URLS" --replicas 3 --ack-wait-ms 3000 >"$WORK/setup.log" 2>&1; do
  [ $SECONDS -lt $deadline ] || { echo "multihost: the cluster never accepted the R3 set-up" >&2; cat "$WORK/setup.log" >&2; exit 1; }
  sleep 0.5
done
log "cluster up, streams with 3 replicas"

# --- two workers
for w in w1 w2; do
  routes_to_brokers "$w"
  ip netns exec "$(ns "$w")" node "$ROOT/bin/ssgkr.js" serve --nats "$URLS" --host-id "$w" --depth 4 --workers 1 --control-samples 1 \
    --batch-max 8 --run-ms 300000 >"$WORK/$w.log" 2>&1 &
  PIDS+=($!)
done
for w in w1 w2; do
  deadline=$((SECONDS + 90))
  until grep -q '"status":"SERVER_READY"' "$WORK/$w.log"; do
    [ $SECONDS -lt $deadline ] || { echo "multihost: worker $w not ready" >&2; exit 1; }
    sleep 0.2
  done
done
log "workers w1, w2 pulling"

# --- the frontend; broker b3 is killed mid-run
OUT=$WORK/run
routes_to_brokers fe
ip netns exec "$(ns fe)" timeout 300 node "$ROOT/bin/ssgkr.js" load --nats "$URLS" --run-id "multihost-$TAG" --depth 4 --corpus 3 \
  --control-samples 1 --verify-workers 1 --jobs 48 --warmup 2 --rate 8 --deadline-ms 60000 --drain-ms 90000 \
  --connect-timeout-ms 30000 --out "$OUT" >"$WORK/fe.out" 2>"$WORK/fe.log" &
FE=$!
PIDS+=($FE)
until grep -q 'load: connected to' "$WORK/fe.log"; do kill -0 $FE 2>/dev/null || break; sleep 0.1; done
sleep 2
kill -KILL "${PIDS[2]}"
wait "${PIDS[2]}" 2>/dev/null || true
log "broker b3 killed mid-run"
rc=0
wait $FE || rc=$?
cat "$WORK/fe.out"
[ $rc -eq 0 ] || { echo "multihost: load exited with $rc" >&2; exit 1; }

# --- every offer accepted exactly once, both workers proved jobs
node -e '
const fs = require("fs");
const out = process.argv[1];
const s = JSON.parse(fs.readFileSync(out + "/summary.json", "utf8"));
const c = s.counts;
const recs = fs.readFileSync(out + "/records.ndjson", "utf8").trim().split("\n").map((l) => JSON.parse(l));
const fail = (m) => { console.error("multihost: " + m); process.exit(1); };
if (s.status !== "LOAD_OBSERVATIONS_COMPLETE") fail("status " + s.status);
if (c.offered !== 50 || c.accepted + c.accepted_late !== 50) fail("counts " + JSON.stringify(c));
if (!s.accounting_balanced || c.unknown_responses + c.duplicate_responses !== 0) fail("accounting " + JSON.stringify(c));
if (recs.length !== 50 || new Set(recs.map((r) => r.job_id)).size !== 50) fail("records: " + recs.length);
const hosts = new Set(recs.map((r) => r.server && r.server.host_id));
if (!hosts.has("w1") || !hosts.has("w2")) fail("hosts " + [...hosts].join(","));
const byHost = {};
for (const r of recs) byHost[r.server.host_id] = (byHost[r.server.host_id] || 0) + 1;
console.log("multihost: all 50 accepted once (" + c.accepted_late + " late); jobs per worker " + JSON.stringify(byHost) + "; p50 " + s.latency_ms.p50_ms + " ms, p99 " + s.latency_ms.p99_ms + " ms");
' "$OUT"
log "passed"
