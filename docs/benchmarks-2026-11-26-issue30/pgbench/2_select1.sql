begin;
select 1;
select v from guardperf_counter where id = 1;
update guardperf_counter set v = v + 1 where id = 1;
commit;
