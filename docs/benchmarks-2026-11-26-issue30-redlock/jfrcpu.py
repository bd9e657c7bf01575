import json, subprocess, sys, collections
# Client CPU by frame: execution samples (Java code running; a thread blocked in a socket read is not sampled)
f = sys.argv[1]
data = json.loads(subprocess.check_output(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ExecutionSample', f]))
threads = collections.Counter(); cats = collections.Counter(); own = collections.Counter(); total = 0
def cat(frames):
    for fr in frames:
        t = fr['method']['type']['name'].replace('/', '.')
        if t.startswith('org.apache.commons.pool2'): return 'commons-pool2 (borrow/return)'
        if t.startswith('sun.security') or t.startswith('java.security'): return 'SecureRandom (lock value)'
        if t.startswith('redis.clients'): return 'Jedis (encode command / parse reply / socket)'
        if 'ScheduledThreadPoolExecutor' in t or 'LeaseTimer' in t: return 'lease scheduling'
        if t.startswith('dev.fencedlock.benchmarks') or t.startswith('CpuPerCycle'): return 'harness'
        if t.startswith('dev.fencedlock'): return 'fencedlock (algorithm, lease)'
    return 'JDK other (' + (frames[0]['method']['type']['name'].split('/')[-1] if frames else '?') + ')'
for e in data['recording']['events']:
    v = e['values']
    th = v['sampledThread']['javaName']
    threads[th.rstrip('0123456789')] += 1
    total += 1
    if th != 'main': continue
    frames = v['stackTrace']['frames']
    cats[cat(frames)] += 1
    fl = [fr for fr in frames if fr['method']['type']['name'].startswith('dev/fencedlock') and 'benchmarks' not in fr['method']['type']['name']]
    if fl: own[fl[0]['method']['type']['name'].split('/')[-1] + '.' + fl[0]['method']['name']] += 1
main = threads['main']
print(f'samples: {total}, main (caller) thread: {main}')
for t, n in threads.most_common(8): print(f'  thread {t:60s} {100*n/total:5.1f}%')
print('caller thread by frame:')
for c, n in cats.most_common(): print(f'  {c:60s} {100*n/main:5.1f}%')
print('caller thread, innermost fencedlock frame:')
for c, n in own.most_common(12): print(f'  {c:60s} {100*n/main:5.1f}%')
