begin;
update guardperf_fence set token = 5 where lock_name = 'a' and token <= 5;
select v from guardperf_counter where id = 1;
update guardperf_counter set v = v + 1 where id = 1;
commit;
