#!/usr/bin/env bash
# What the PostgreSQL fence guard costs on the server, sent in one pipeline with the work's
# first statement as JdbcFencing sends it, beside the same transaction without it and with cheaper
# stand-ins (a bare update of the row, the guard without its CTE, without the mark, without the
# bounds, a lock-only locking read). One pgbench client (a C client: next to no client CPU),
# -M prepared, 6 s per variant, rounds interleaved. Server CPU per transaction = the postmaster's
# reaped children's CPU (utime + stime of the pgbench backend, counted when it exits) over the
# transactions; other backends must be idle. Needs pgbench and root (or the postgres user) to read
# the postmaster's /proc stat. PostgreSQL 127.0.0.1:5432, database test, user postgres (trust).
# Creates and leaves tables guardperf_fence and guardperf_counter.
set -euo pipefail
rounds="${1:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
psql_() { psql -h 127.0.0.1 -U postgres test "$@"; }
psql_ -q <<'SQL'
drop table if exists guardperf_fence, guardperf_counter;
create table guardperf_fence(lock_name varchar(255) primary key, token bigint not null);
insert into guardperf_fence values ('a', 5);
create table guardperf_counter(id bigint primary key, v bigint not null); insert into guardperf_counter values (1, 0);
SQL
bounds="set_config('lock_timeout', coalesce('5000', current_setting('lock_timeout')), true) is not null and set_config('idle_in_transaction_session_timeout', coalesce('6000', current_setting('idle_in_transaction_session_timeout')), true) is not null"
mark="set_config('fencedlock.fenced', txid_current()::text || ' 5 a', true)"
fail="select case when (select count(*) from raised) = 1 then true else set_config('lock_timeout', 'not raised', true) is null end"
variant() {
  { echo '\startpipeline'; echo 'begin;'; [ -n "$2" ] && echo "$2"
    echo 'select v from guardperf_counter where id = 1;'; echo '\endpipeline'
    echo 'update guardperf_counter set v = v + 1 where id = 1;'; echo 'commit;'; } > "$work/$1.sql"
}
variant 1_unfenced ""
variant 2_bare_update "update guardperf_fence set token = 5 where lock_name = 'a' and token <= 5;"
variant 3_guard "with raised as (update guardperf_fence set token = 5 where lock_name = 'a' and $bounds and token <= 5 returning $mark) $fail;"
variant 4_guard_without_cte "update guardperf_fence set token = 5 where lock_name = 'a' and $bounds and token <= 5 returning $mark;"
variant 5_guard_without_mark "with raised as (update guardperf_fence set token = 5 where lock_name = 'a' and $bounds and token <= 5 returning 1) $fail;"
variant 6_guard_without_bounds "with raised as (update guardperf_fence set token = 5 where lock_name = 'a' and token <= 5 returning $mark) $fail;"
variant 7_lock_only "select 1 from guardperf_fence where lock_name = 'a' and token <= 5 for no key update;"
postmaster="$(pgrep -o -f 'bin/postgres -D')"
children_cpu() { awk '{ print $16 + $17 }' "/proc/$postmaster/stat"; }
ticks="$(getconf CLK_TCK)"
echo "# round variant latency_ms server_cpu_us_per_tx transactions; $(date -u +%FT%TZ); $(uptime)"
for round in $(seq "$rounds"); do
  for f in "$work"/*.sql; do
    before="$(children_cpu)"
    out="$(pgbench -h 127.0.0.1 -U postgres -n -M prepared -T 6 -f "$f" test 2>&1)"
    sleep 0.3
    after="$(children_cpu)"
    tx="$(awk '/number of transactions actually processed/ { split($NF, a, "/"); print a[1] }' <<<"$out")"
    latency="$(awk '/latency average/ { print $4 }' <<<"$out")"
    echo "$round $(basename "$f" .sql) $latency $(( (after - before) * 1000000 / ticks / tx )) $tx"
  done
done
echo "# $(uptime)"
