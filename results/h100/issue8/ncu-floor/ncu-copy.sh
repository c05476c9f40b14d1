xz -dc .devbin/fusionbench.xz > /tmp/fb && chmod +x /tmp/fb
export FUSIONBENCH_CASES=$PWD/cases
for n in 32 65536 262144 1048576 2097152 4194304 8388608; do
 for cc in all none; do
  ncu --cache-control $cc --clock-control none --metrics gpu__time_duration.sum --csv --page raw --print-units base -k regex:unary \
   /tmp/fb run --case copy --n $n --variants eager --timer events --flush none --warmup 1 --rep 1 --max-time 0.3 --out /tmp/x.json > /tmp/ncu.log 2>&1
  [ $n = 32 ] && [ $cc = all ] && head -c 3000 /tmp/ncu.log
  grep '^"' /tmp/ncu.log | python3 -c "
import csv,sys,statistics
r=list(csv.reader(sys.stdin)); h=r[0]; i=h.index('gpu__time_duration.sum')
v=[float(x[i].replace(',','')) for x in r[2:] if x[i]]
print('$n', '$cc', len(v), statistics.median(v)/1e3 if v else 'nan')" >> $OUT/ncu-copy.txt
 done
done
cat $OUT/ncu-copy.txt
