#!/usr/bin/env bash
# Issue 30, item 1: the PostgreSQL guard's statement profiled on the server, beside a lock-only
# row lock and the bare update (median EXPLAIN ANALYZE execution time of 40 runs, each in its own
# rolled-back transaction; WAL records and bytes), then the pgbench transactions in pgbench/.
# Needs psql and pgbench; PostgreSQL 127.0.0.1:5432, database test, user postgres (trust).
# Creates and leaves tables guardperf_fence, guardperf_counter, guardperf_pcounter (protected;
# needs fencing-jdbc's PostgreSQL migration V3 installed for fencedlock_protect).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
psql_() { psql -h 127.0.0.1 -U postgres test "$@"; }
psql_ -q <<'SQL'
drop table if exists guardperf_fence, guardperf_counter, guardperf_pcounter;
create table guardperf_fence(lock_name varchar(255) primary key, token bigint not null);
insert into guardperf_fence values ('a', 5);
create table guardperf_counter(id bigint primary key, v bigint not null); insert into guardperf_counter values (1, 0);
create table guardperf_pcounter(id bigint primary key, v bigint not null); insert into guardperf_pcounter values (1, 0);
call fencedlock_protect('guardperf_pcounter');
SQL
declare -A q
q[guard]="update guardperf_fence set token = 5 where lock_name = 'a' and set_config('lock_timeout', coalesce('5000', current_setting('lock_timeout')), true) is not null and set_config('idle_in_transaction_session_timeout', coalesce('6000', current_setting('idle_in_transaction_session_timeout')), true) is not null and token <= 5 returning set_config('fencedlock.fenced', txid_current()::text || ' 5 a', true)"
q[lock-only]="select set_config('fencedlock.fenced', txid_current()::text || ' 5 a', true) from guardperf_fence where lock_name = 'a' and set_config('lock_timeout', coalesce('5000', current_setting('lock_timeout')), true) is not null and set_config('idle_in_transaction_session_timeout', coalesce('6000', current_setting('idle_in_transaction_session_timeout')), true) is not null and token <= 5 for no key update"
q[bare-update]="update guardperf_fence set token = 5 where lock_name = 'a' and token <= 5"
q[select-1]="select 1"
q[work-update]="update guardperf_counter set v = v + 1 where id = 1"
q[work-update-protected]="update guardperf_pcounter set v = v + 1 where id = 1"
for name in guard lock-only bare-update select-1 work-update work-update-protected; do
  for i in $(seq 40); do
    echo "begin; select set_config('fencedlock.fenced', txid_current()::text || ' 5 a', true);"
    echo "explain (analyze, buffers, wal, costs off) ${q[$name]}; rollback;"
  done | psql_ -At 2>/dev/null | awk -v n="$name" '
    /Execution Time/ { t[++c] = $3 }
    /WAL: records/ { wal = $0 }
    END { asort(t); printf "%-22s median %.3f ms  %s\n", n, t[int(c / 2)], wal }'
done
for round in 1 2 3 4; do
  for f in "$here"/pgbench/*.sql; do
    echo "$round $(basename "$f" .sql) $(pgbench -h 127.0.0.1 -U postgres -n -M prepared -T 3 -f "$f" test 2>&1 | awk '/^tps/ { print $3 }')"
  done
done
