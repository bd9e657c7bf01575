import json,sys,glob,os
d=sys.argv[1]
for f in sorted(glob.glob(os.path.join(d,'round-*.json'))):
    rows=json.load(open(f)); sc={}
    for r in rows:
        p=r.get('params',{}); k=r['benchmark'].split('.')[-2]+('' if 'protectedTable' not in p else ':prot='+p['protectedTable'])
        sc[k]=r['primaryMetric']['score']
    v=sc.get('VersionedUpdateBenchmark')
    print(os.path.basename(f), ' '.join(f'{k}={s:,.0f}' for k,s in sc.items()), '| ratio fenced/versioned (time per op):', ' '.join(f'{k.split(":")[-1]}={v/s:.2f}x' for k,s in sc.items() if k!='VersionedUpdateBenchmark'))
