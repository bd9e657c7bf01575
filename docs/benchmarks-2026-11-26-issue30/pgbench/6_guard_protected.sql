begin;
update guardperf_fence set token = 5 where lock_name = 'a' and set_config('lock_timeout', coalesce('5000', current_setting('lock_timeout')), true) is not null and set_config('idle_in_transaction_session_timeout', coalesce('6000', current_setting('idle_in_transaction_session_timeout')), true) is not null and token <= 5 returning set_config('fencedlock.fenced', txid_current()::text || ' 5 a', true);
select v from guardperf_pcounter where id = 1;
update guardperf_pcounter set v = v + 1 where id = 1;
commit;
