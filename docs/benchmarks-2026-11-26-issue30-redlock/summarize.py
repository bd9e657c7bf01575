import json, sys, glob, re, os
d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(d, 'round-*-*.json'))):
    m = re.search(r'round-(\d+)-(\w+)\.json', f); rnd, var = int(m.group(1)), m.group(2)
    try:
        data = json.load(open(f))
    except ValueError:
        continue
    for b in data:
        name = b['benchmark'].split('.')[-2] + '.' + b['benchmark'].split('.')[-1]
        ops = b['primaryMetric']['score']
        norm = b['secondaryMetrics'].get('gc.alloc.rate.norm', {}).get('score')
        rows[(rnd, var, name)] = (ops, norm)
rounds = sorted({k[0] for k in rows})
names = ['FencedRedlockBenchmark.oneNodeOneThread', 'RedisFloorBenchmark.oneThread', 'FencedRedlockBenchmark.fiveNodesOneThread', 'PipelinedRedlockBenchmark.fiveNodesOneThread']
print('| benchmark | ' + ' | '.join(f'r{r} main | r{r} candidate' for r in rounds) + ' |')
print('|---|' + '---:|' * (2 * len(rounds)))
for n in names:
    cells = []
    for r in rounds:
        for v in ['main', 'candidate']:
            x = rows.get((r, v, n)); cells.append(f'{x[0]:,.0f} ops/s, {x[1]:,.0f} B/op' if x else '-')
    print(f'| {n} | ' + ' | '.join(cells) + ' |')
print()
print('| ratio | ' + ' | '.join(f'r{r} main | r{r} candidate' for r in rounds) + ' |')
print('|---|' + '---:|' * (2 * len(rounds)))
for a, b, label in [(names[0], names[1], 'N=1 / raw SET NX PX + delete'), (names[2], names[3], 'N=5 / pipelined token-less Redlock')]:
    cells = []
    for r in rounds:
        for v in ['main', 'candidate']:
            x, y = rows.get((r, v, a)), rows.get((r, v, b)); cells.append(f'{x[0]/y[0]:.2f}x' if x and y else '-')
    print(f'| {label} | ' + ' | '.join(cells) + ' |')
