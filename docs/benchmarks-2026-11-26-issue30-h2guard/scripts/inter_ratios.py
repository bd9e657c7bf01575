import json,glob,os,sys,statistics
d=sys.argv[1]
res={}
for f in glob.glob(os.path.join(d,'round-*-*.json')):
    b=os.path.basename(f)[:-5].split('-'); rnd=int(b[1]); jar=b[2]
    try:
        rows=json.load(open(f))
    except ValueError:
        continue
    for r in rows:
        p=r['params']; k=('versioned' if 'Versioned' in r['benchmark'] else 'fenced'+('-protected' if p.get('protectedTable')=='true' else ''))
        res[(rnd,jar,k)]=r['primaryMetric']['score']
rounds=sorted({k[0] for k in res}); jars=['before','after']
print('| round | jar | @Version ops/s | fenced ops/s | fenced protected ops/s | fenced cost | protected cost |')
print('|---|---|---:|---:|---:|---:|---:|')
cost={}
for r in rounds:
    for j in jars:
        v=res.get((r,j,'versioned')); f=res.get((r,j,'fenced')); p=res.get((r,j,'fenced-protected'))
        if not v: continue
        cf = v/f if f else None; cp = v/p if p else None
        cost.setdefault((j,'f'),[]).append(cf) if cf else None; cost.setdefault((j,'p'),[]).append(cp) if cp else None
        print(f'| {r} | {j} | {v:,.0f} | {f:,.0f} | {p:,.0f} | {cf:.2f}x | {cp:.2f}x |' if f and p else f'| {r} | {j} | {v:,.0f} | {f or 0:,.0f} | {p or 0:,.0f} | | |')
for (j,t),xs in sorted(cost.items()):
    print(j, 'protected' if t=='p' else 'unprotected', 'median %.2fx, range %.2f-%.2fx, n=%d' % (statistics.median(xs), min(xs), max(xs), len(xs)))
