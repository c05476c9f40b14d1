"""Prints torch eager against fusionbench's eager, op by op (the files beside this script)."""
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
def load(f, var):
    d = json.load(open(os.path.join(here, f))); out = {}
    for c in d['cases']:
        for dt in c['dtypes']:
            for cell in dt['cells']:
                r = cell['variants'].get(var)
                if r and 'time_ms' in r: out[(cell['row'], cell['col'])] = (r['time_ms']['median'] * 1e3, r.get('status'))
    return out
print("| op | cell | fusionbench eager us | torch eager us | torch / fusionbench |")
print("|---|---|---:|---:|---:|")
for C in ['op_mul', 'op_exp', 'op_rowmul', 'op_colmul', 'op_rowsum', 'op_amax']:
    f = load(f'fb-{C}.json', 'eager'); p = load(f'pt-{C}.json', 'torch.eager')
    for k in sorted(f):
        if k in p:
            flag = '' if p[k][1] == 'ok' else f' (torch check: {p[k][1]})'
            print(f"| {C} | {k[0]} x {k[1]} | {f[k][0]:.1f} | {p[k][0]:.1f} | {p[k][0] / f[k][0]:.3f}{flag} |")
