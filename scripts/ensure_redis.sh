#!/usr/bin/env bash
# Start a local Redis when none answers at REDIS_URL: the environment's, else the one in .env, else the
# default the settings use. `ensure_redis.sh URL` checks URL instead (make test: the suite's own Redis).
set -euo pipefail

url=${1:-${REDIS_URL:-}}
if [[ -z $url && -f .env ]]; then
  # The last REDIS_URL= line wins, as python-dotenv reads it; quotes around the value are dropped.
  url=$(sed -n -E 's/^[[:space:]]*(export[[:space:]]+)?REDIS_URL[[:space:]]*=[[:space:]]*//p' .env | tail -n 1)
  url=${url%\"}; url=${url#\"}; url=${url%\'}; url=${url#\'}
fi
url=${url:-redis://127.0.0.1:6379/0}

# redis://[user:password@]host[:port][/db]
address=${url#*://}
address=${address%%/*}
address=${address##*@}
host=${address%:*}
port=${address##*:}
[[ $address == *:* ]] || port=6379
host=${host:-127.0.0.1}

if redis-cli -u "$url" ping 2>/dev/null | grep -q PONG; then
  exit 0
fi
case $host in
  127.0.0.1 | localhost | ::1 | "[::1]") ;;
  *)
    echo "redis: none answers on $host:$port, and it is not this machine: start it there, or change REDIS_URL" >&2
    exit 1
    ;;
esac
echo "redis: none answers on $host:$port, starting one"
mkdir -p var/redis
redis-server --daemonize yes --bind "${host//[\[\]]/}" --port "$port" --dir "$PWD/var/redis" \
  --save "" --appendonly no --maxmemory-policy noeviction \
  --pidfile "$PWD/var/redis/redis-$port.pid" --logfile "$PWD/var/redis/redis-$port.log"
for _ in $(seq 50); do
  redis-cli -h "${host//[\[\]]/}" -p "$port" ping >/dev/null 2>&1 && exit 0
  sleep 0.1
done
echo "redis: did not start, see var/redis/redis-$port.log" >&2
exit 1
