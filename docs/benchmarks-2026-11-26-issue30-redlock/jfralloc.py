import json, subprocess, sys, collections
# Bytes allocated on the caller's thread, by site category (JFR ObjectAllocationSample weights)
f = sys.argv[1]
data = json.loads(subprocess.check_output(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ObjectAllocationSample', f]))
cats = collections.Counter(); total = 0
def cat(frames, cls):
    names = [fr['method']['type']['name'].replace('/', '.') + '.' + fr['method']['name'] for fr in frames]
    for n in names:
        if 'RawableFactory' in n: return 'Jedis argument copies (RawableFactory.Raw + byte[] copy)'
        if n.startswith('org.apache.commons.pool2'): return 'commons-pool2 borrow/return (Instant, Duration, deque node)'
        if n.startswith('redis.clients.jedis.Protocol.process') or 'Protocol.read' in n: return 'Jedis reply parsing (lists, byte[], Long)'
        if n.startswith('redis.clients.jedis.CommandArguments') : return 'Jedis CommandArguments (list)'
        if 'Quarantine' in n: return 'Quarantine readings (per reply)'
        if 'ScheduledThreadPoolExecutor' in n or 'LeaseTimer' in n: return 'lease scheduling (tasks, lambdas, queue nodes)'
        if 'SecureRandom' in n or 'newValue' in n or n.startswith('sun.security'): return 'lock value (CSPRNG, hex)'
        if 'Long.toString' in n or 'decimal' in n or 'String.getBytes' in n or 'StringConcat' in n or 'parseDecimal' in n: return 'numbers and strings (script args, messages)'
        if n.startswith('dev.fencedlock.spi') or 'LeaseRuntime' in n: return 'lease object and runtime (AbstractLease, LeaseRequest, registry)'
        if n.startswith('dev.fencedlock.redlock'): return 'redlock algorithm objects (replies, votes, pendings, lease)'
        if n.startswith('CpuPerCycle') or 'benchmarks' in n: return 'harness'
    return 'other (' + cls.split('/')[-1] + ')'
for e in data['recording']['events']:
    v = e['values']
    if v['eventThread']['javaName'] != 'main': continue
    w = v['weight']; total += w
    cats[cat(v['stackTrace']['frames'] if v.get('stackTrace') else [], v['objectClass']['name'])] += w
for c, w in cats.most_common(14): print(f'  {c:70s} {100*w/total:5.1f}%')
