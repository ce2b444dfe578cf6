#!/usr/bin/env bash
# Start a local Redis when none answers on the configured host and port.
set -euo pipefail
host=${REDIS_HOST:-127.0.0.1}
port=${REDIS_PORT:-6379}
if redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1; then
  exit 0
fi
echo "redis: none answers on $host:$port, starting one"
mkdir -p var/redis
redis-server --daemonize yes --bind "$host" --port "$port" --dir "$PWD/var/redis" \
  --save "" --appendonly no --maxmemory-policy noeviction --logfile "$PWD/var/redis/redis.log"
for _ in $(seq 50); do
  redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && exit 0
  sleep 0.1
done
echo "redis: did not start, see var/redis/redis.log" >&2
exit 1
