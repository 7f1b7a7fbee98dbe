#!/usr/bin/env bash
# A 3-server NATS cluster with JetStream and an MQTT listener on each member, on loopback ports: a
# clustered MQTT broker (3.1.1, QoS 0/1, retained messages replicated in JetStream, last will).
#
#   deploy/cluster/nats-cluster.sh start DIR [FIRST_PORT]   # members' MQTT ports FIRST_PORT..FIRST_PORT+2
#   deploy/cluster/nats-cluster.sh stop DIR                 # stops the members started in DIR
#   deploy/cluster/nats-cluster.sh kill DIR N               # kills member N (1-3) at once, as a crash
#
# FIRST_PORT defaults to 1884. Each member also takes FIRST_PORT+100+i (NATS clients), FIRST_PORT+200+i
# (cluster routes) and FIRST_PORT+300+i (HTTP monitoring: /healthz, /jsz). `start` prints one mqtt:// URL
# per member once all three accept MQTT sessions and report JetStream healthy, so a member killed from
# then on leaves two up-to-date copies of every stream.
set -euo pipefail
command=${1:?usage: nats-cluster.sh start|stop|kill DIR [FIRST_PORT|N]}
dir=${2:?usage: nats-cluster.sh start|stop|kill DIR [FIRST_PORT|N]}

case $command in
start)
  first=${3:-1884}
  mkdir -p "$dir"
  routes=""
  for i in 1 2 3; do routes+="${routes:+, }\"nats-route://127.0.0.1:$((first + 200 + i))\""; done
  for i in 1 2 3; do
    mkdir -p "$dir/m$i/jetstream"
    cat >"$dir/m$i/nats.conf" <<CONF
server_name: m$i
listen: 127.0.0.1:$((first + 100 + i))
http: 127.0.0.1:$((first + 300 + i))
jetstream {
  store_dir: "$dir/m$i/jetstream"
  max_memory_store: 256MB
  max_file_store: 1GB
}
cluster {
  name: medianode
  listen: 127.0.0.1:$((first + 200 + i))
  routes: [ $routes ]
}
mqtt {
  listen: 127.0.0.1:$((first + i - 1))
  # Retained messages and sessions kept on all three members, so losing one loses none.
  stream_replicas: 3
}
CONF
    nats-server -c "$dir/m$i/nats.conf" >"$dir/m$i/nats.log" 2>&1 &
    echo $! >"$dir/m$i/pid"
  done
  # Ready when every member's MQTT listener accepts a session (JetStream must have a leader for that,
  # and the first session creates the MQTT streams), then when every member reports JetStream healthy
  # (its copies of the streams current). A member that exits (a port taken) fails the start at once.
  alive() {
    for m in 1 2 3; do
      if ! kill -0 "$(cat "$dir/m$m/pid")" 2>/dev/null; then
        echo "member $m exited; see $dir/m$m/nats.log" >&2
        exit 1
      fi
    done
  }
  # Runs a check every 0.1 s for up to 30 s while all three members run; gives up with the message.
  wait_for() {
    local failure=$1
    shift
    for _ in $(seq 1 300); do
      alive
      if "$@"; then return 0; fi
      sleep 0.1
    done
    echo "$failure" >&2
    exit 1
  }
  takes_session() {
    mosquitto_pub -V mqttv311 -h 127.0.0.1 -p "$1" -i "nats-cluster-ready-$2" -t cluster/ready -m "" -q 1 2>/dev/null
  }
  jetstream_healthy() { curl -fs "http://127.0.0.1:$1/healthz" | grep -q '"ok"'; }
  for i in 1 2 3; do
    port=$((first + i - 1))
    wait_for "member $i (MQTT port $port) did not come up; see $dir/m$i/nats.log" takes_session "$port" "$i"
  done
  for i in 1 2 3; do
    wait_for "member $i did not report JetStream healthy; see $dir/m$i/nats.log" \
      jetstream_healthy $((first + 300 + i))
  done
  for i in 1 2 3; do echo "mqtt://127.0.0.1:$((first + i - 1))"; done
  ;;
stop)
  for i in 1 2 3; do
    if [[ -f $dir/m$i/pid ]]; then kill "$(cat "$dir/m$i/pid")" 2>/dev/null || true; rm -f "$dir/m$i/pid"; fi
  done
  ;;
kill)
  member=${3:?which member, 1-3}
  kill -9 "$(cat "$dir/m$member/pid")"
  rm -f "$dir/m$member/pid"
  ;;
*)
  echo "usage: nats-cluster.sh start|stop|kill DIR [FIRST_PORT|N]" >&2
  exit 2
  ;;
esac
