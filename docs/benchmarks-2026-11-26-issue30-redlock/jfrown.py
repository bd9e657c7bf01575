import json, subprocess, sys, collections
f = sys.argv[1]
data = json.loads(subprocess.check_output(['jfr', 'print', '--json', '--stack-depth', '64', '--events', 'jdk.ObjectAllocationSample', f]))
by = collections.Counter(); total = 0
for e in data['recording']['events']:
    v = e['values']
    w = v['weight']
    frames = v['stackTrace']['frames'] if v.get('stackTrace') else []
    th = v['eventThread']['javaName']
    ownf = [fr for fr in frames if fr['method']['type']['name'].startswith('dev.fencedlock') and 'benchmarks' not in fr['method']['type']['name'] and 'Lambda' not in fr['method']['type']['name']]
    own = ' < '.join(fr['method']['type']['name'].split('.')[-1] + '.' + fr['method']['name'] + ':' + str(fr['lineNumber']) for fr in ownf[:2]) or ('[' + th + '] ' + ' < '.join(fr['method']['type']['name'].split('.')[-1] + '.' + fr['method']['name'] for fr in frames[:4]))
    key = v['objectClass']['name'].split('/')[-1] + ' @ ' + own
    by[key] += w; total += w
print('total', total)
for k, w in by.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 40):
    print(f'{100*w/total:5.1f}%  {k}')
